/* cr-run-record-wire.c — a run record as bytes and back
 * (cr-run-record-wire.h). Work in progress: the reader refuses everything. */
#include "cr-run-record-wire.h"

#include "cr-error.h"

GBytes *
cr_run_record_to_wire (const CrRunRecord *record)
{
  g_return_val_if_fail (record != NULL, NULL);
  return g_bytes_new (NULL, 0);
}

gboolean
cr_run_record_wire_size (const guint8  *header,
                         gsize          len,
                         gsize         *total,
                         GError       **error)
{
  (void) header;
  (void) len;
  (void) total;
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, "run record wire format: not written yet");
  return FALSE;
}

CrRunRecord *
cr_run_record_from_wire (const guint8  *data,
                         gsize          len,
                         GError       **error)
{
  (void) data;
  (void) len;
  g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, "run record wire format: not written yet");
  return NULL;
}
