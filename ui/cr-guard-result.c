/* cr-guard-result.c — the crash guard child's answer (cr-guard-result.h).
 *
 * The layout, in host byte order (writer and reader are one build):
 *   "CRGUARD" + version byte
 *   u64 the whole message's length (complete when the reader has it all)
 *   string traceback, string message     (u32 length, 0xffffffff: NULL)
 *   i32 × 4 span (line, column, end_line, end_column)
 *   string dropped note
 *   u32 pieces, each u8 is_stderr, string text
 *   u64 length + the record's wire message (0: no record) */
#include "cr-guard-result.h"

#include "cr-error.h"
#include "cr-run-record-wire.h"

#include <string.h>

#define MAGIC     "CRGUARD"
#define VERSION   2
#define HEADER_SIZE (sizeof MAGIC - 1 + 1 + sizeof (guint64))
#define NO_STRING G_MAXUINT32

static void
put_u32 (GByteArray *out,
         guint32     value)
{
  g_byte_array_append (out, (const guint8 *) &value, sizeof value);
}

static void
put_string (GByteArray *out,
            const char *text,
            gsize       length)
{
  if (!text)
    {
      put_u32 (out, NO_STRING);
      return;
    }
  put_u32 (out, (guint32) MIN (length, (gsize) NO_STRING - 1));
  g_byte_array_append (out, (const guint8 *) text, (guint) MIN (length, (gsize) NO_STRING - 1));
}

static void
put_piece (const char *text,
           gsize       length,
           gboolean    is_stderr,
           gpointer    user_data)
{
  GByteArray *out = user_data;
  guint8 stream = is_stderr ? 1 : 0;
  g_byte_array_append (out, &stream, 1);
  put_string (out, text, length);
}

static void
count_piece (const char *text,
             gsize       length,
             gboolean    is_stderr,
             gpointer    user_data)
{
  (*(guint32 *) user_data)++;
}

GBytes *
cr_guard_result_encode (const CrScriptRun  *run,
                        const CrOutputTail *output)
{
  GByteArray *out = g_byte_array_new ();
  g_byte_array_append (out, (const guint8 *) MAGIC, sizeof MAGIC - 1);
  guint8 version = VERSION;
  g_byte_array_append (out, &version, 1);
  guint64 total = 0;   /* filled in at the end */
  g_byte_array_append (out, (const guint8 *) &total, sizeof total);
  put_string (out, run->traceback, run->traceback ? strlen (run->traceback) : 0);
  put_string (out, run->message, run->message ? strlen (run->message) : 0);
  gint32 span[4] = { run->span.line, run->span.column, run->span.end_line, run->span.end_column };
  g_byte_array_append (out, (const guint8 *) span, sizeof span);
  g_autofree char *dropped = output ? cr_output_tail_describe_dropped (output) : NULL;
  put_string (out, dropped, dropped ? strlen (dropped) : 0);
  guint32 n_pieces = 0;
  if (output)
    cr_output_tail_foreach (output, count_piece, &n_pieces);
  put_u32 (out, n_pieces);
  if (output)
    cr_output_tail_foreach (output, put_piece, out);
  /* The record's message is written in place, after its length. */
  gsize length_at = out->len;
  guint64 record_length = 0;
  g_byte_array_append (out, (const guint8 *) &record_length, sizeof record_length);
  if (run->record)
    record_length = cr_run_record_to_wire_append (run->record, out);
  memcpy (out->data + length_at, &record_length, sizeof record_length);
  total = out->len;
  memcpy (out->data + sizeof MAGIC, &total, sizeof total);
  return g_byte_array_free_to_bytes (out);
}

gboolean
cr_guard_result_is_complete (const guint8 *data,
                             gsize         length)
{
  guint64 total = 0;
  if (length < HEADER_SIZE || memcmp (data, MAGIC, sizeof MAGIC - 1) != 0
      || data[sizeof MAGIC - 1] != VERSION)
    return FALSE;
  memcpy (&total, data + sizeof MAGIC, sizeof total);
  return total == length;
}

/* A cursor over the message that never reads past its end. */
typedef struct {
  const guint8 *data;
  gsize         length;
  gsize         at;
} Reader;

static gboolean
take (Reader *reader,
      void   *out,
      gsize   size)
{
  if (reader->length - reader->at < size)
    return FALSE;
  memcpy (out, reader->data + reader->at, size);
  reader->at += size;
  return TRUE;
}

/* A string (*out new, NULL for none, and *length its bytes); FALSE when
 * the message ends inside it. */
static gboolean
take_string (Reader *reader,
             char  **out,
             gsize  *length)
{
  guint32 size = 0;
  *out = NULL;
  if (!take (reader, &size, sizeof size))
    return FALSE;
  if (size == NO_STRING)
    return TRUE;
  if (reader->length - reader->at < size)
    return FALSE;
  *out = g_strndup ((const char *) reader->data + reader->at, size);
  if (length)
    *length = size;
  reader->at += size;
  return TRUE;
}

gboolean
cr_guard_result_decode (const guint8  *data,
                        gsize          length,
                        CrScriptRun   *run,
                        CrOutputTail  *output,
                        char         **dropped_note,
                        GError       **error)
{
  Reader reader = { data, length, 0 };
  char magic[sizeof MAGIC - 1];
  guint8 version = 0;
  guint64 total = 0;
  g_autofree char *traceback = NULL, *message = NULL, *dropped = NULL;
  gint32 span[4];
  guint32 n_pieces = 0;
  /* Kept until the record is read: output gets all of the answer or none. */
  g_autoptr (GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) streams = g_array_new (FALSE, FALSE, sizeof (guint8));
  *dropped_note = NULL;
  if (!take (&reader, magic, sizeof magic) || memcmp (magic, MAGIC, sizeof magic) != 0
      || !take (&reader, &version, 1) || version != VERSION || !take (&reader, &total, sizeof total))
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                   "not a crash guard's answer of this build");
      return FALSE;
    }
  if (total != length)
    goto truncated;
  if (!take_string (&reader, &traceback, NULL) || !take_string (&reader, &message, NULL)
      || !take (&reader, span, sizeof span) || !take_string (&reader, &dropped, NULL)
      || !take (&reader, &n_pieces, sizeof n_pieces))
    goto truncated;
  for (guint32 i = 0; i < n_pieces; i++)
    {
      guint8 stream = 0;
      char *text = NULL;
      if (!take (&reader, &stream, 1) || !take_string (&reader, &text, NULL) || !text)
        goto truncated;
      g_ptr_array_add (pieces, text);
      g_array_append_val (streams, stream);
    }
  guint64 record_length = 0;
  if (!take (&reader, &record_length, sizeof record_length)
      || record_length > reader.length - reader.at)
    goto truncated;
  /* None: the run was stopped (its time limit) before it had one. */
  CrRunRecord *record = NULL;
  if (record_length > 0)
    {
      record = cr_run_record_from_wire (reader.data + reader.at, (gsize) record_length, error);
      if (!record)
        return FALSE;
    }
  for (guint i = 0; output && i < pieces->len; i++)
    cr_output_tail_append (g_ptr_array_index (pieces, i), g_array_index (streams, guint8, i) != 0,
                           output);
  run->record = record;
  run->traceback = g_steal_pointer (&traceback);
  run->message = g_steal_pointer (&message);
  run->span = (CrSpan) { span[0], span[1], span[2], span[3] };
  *dropped_note = g_steal_pointer (&dropped);
  return TRUE;

truncated:
  g_set_error (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, "the crash guard's answer is cut short");
  return FALSE;
}
