/* cr-run-record-wire.h — a run record as bytes and back: the fast binary
 * form that carries a record from the process that ran the script (the
 * crash guard's child) to the window, where JSON would cost more than the
 * run itself.
 *
 * It is no file format: writer and reader are the same build of Chainrule,
 * and the header refuses anything else (magic, version, byte order, the
 * sizes and limits the record's arrays are built on). Every field of every
 * item of cr-run-record.h travels; pointers become indices, strings and
 * arrays length-prefixed runs of bytes. A snapshot that several items share
 * (cr_tensor_snapshot_share) travels once and is shared again on the
 * reader's side; a deferred snapshot text (text_deferred) travels as its
 * values and is formatted on first use there too.
 *
 * The layout, little-endian where the host is:
 *   header   CR_RUN_RECORD_WIRE_HEADER_SIZE bytes: magic "CRRECWIR", the
 *            wire version, the header's size, the whole message's size in
 *            bytes (header included), and the build's constants
 *   body     the record's strings and arrays in cr-run-record.h's order
 *
 * The reader is fed by another process: any input, truncated, corrupted or
 * made up, gives a record or a GError, never a crash, never a read past
 * len, and every index in the record it returns points into its array or
 * is -1. */
#pragma once

#include <glib.h>

#include "cr-run-record.h"

G_BEGIN_DECLS

/* Bumped on any change of the layout below the header. */
#define CR_RUN_RECORD_WIRE_VERSION 4

/* The fixed size of the header: read this many bytes from a stream, ask
 * cr_run_record_wire_size() how many the whole message has, read the rest. */
#define CR_RUN_RECORD_WIRE_HEADER_SIZE 64

/* The record as one message (header and body), a new GBytes; never NULL.
 * record is only read (a finished record may be shared between threads). */
GBytes      *cr_run_record_to_wire   (const CrRunRecord *record);

/* The same message appended to out (which grows as needed): a message sent
 * inside another (the crash guard's answer) is written in place rather
 * than copied. Returns the message's size in bytes. */
gsize        cr_run_record_to_wire_append (const CrRunRecord *record,
                                           GByteArray        *out);

/* The size in bytes of the whole message that header starts (the header
 * included), from its first CR_RUN_RECORD_WIRE_HEADER_SIZE bytes; len is
 * how many bytes header has. FALSE with error (CR_CORE_ERROR, CR_EXC_VALUE_ERROR) when
 * they are too few or are no header of this build's wire format. */
gboolean     cr_run_record_wire_size (const guint8      *header,
                                      gsize              len,
                                      gsize             *total,
                                      GError           **error);

/* The record that data (len bytes, one whole message) holds: a new record,
 * or NULL with error (CR_CORE_ERROR, CR_EXC_VALUE_ERROR) saying what is wrong with data.
 * data is only read, and not kept: it may be freed once this returns. */
CrRunRecord *cr_run_record_from_wire (const guint8      *data,
                                      gsize              len,
                                      GError           **error);

G_END_DECLS
