/* cr-run-record-wire-training.c — the run record's wire form: a training
 * loop's items, the parameter updates (optimizer steps and manual ones)
 * and the numbers the script printed (cr-run-record-wire-private.h).
 *
 * Their fields travel by the tables below, as the other items' do
 * (cr-run-record-wire.c); cr_run_record_to_wire() and
 * cr_run_record_from_wire() call these in the body's order. */
#include "cr-run-record-wire-private.h"

/* The fewest bytes an update's number and state entry take: wire_get_count's floor. */
#define MIN_NUMBER_BYTES   12
#define MIN_STATE_BYTES    12

/* A name and a number: an update's option, a printed number. */
static void
put_named_number (Writer     *w,
                  const char *name,
                  double      value)
{
  wire_put_string (w, name);
  put_bytes (w, &value, sizeof value);
}

/* What put_named_number wrote: the name new, "" for none. */
static char *
get_named_number (Reader *r,
                  double *value)
{
  char *name = wire_get_string (r);
  get_bytes (r, value, sizeof *value);
  return name ? name : g_strdup ("");
}

void
wire_put_update (Writer               *w,
                 const CrRecordUpdate *u)
{
  wire_put_fields (w, &cr_record_update_fields, u);
  put_u32 (w, u->numbers->len);
  for (guint i = 0; i < u->numbers->len; i++)
    {
      const CrRecordNumber *number = g_ptr_array_index (u->numbers, i);
      put_named_number (w, number->name, number->value);
    }
  wire_put_fields (w, &cr_record_update_value_fields, u);
  put_u32 (w, u->state->len);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      wire_put_string (w, state->name);
      wire_put_fields (w, &cr_record_state_fields, state);
    }
}

void
wire_put_printed (Writer                *w,
                  const CrRecordPrinted *p)
{
  put_named_number (w, p->name, p->value);
  wire_put_fields (w, &cr_record_printed_fields, p);
}

void
wire_get_update (Reader      *r,
                 CrRunRecord *record)
{
  CrRecordUpdate *u = cr_run_record_add_update (record);
  wire_get_fields (r, &cr_record_update_fields, u);
  guint n = wire_get_count (r, MIN_NUMBER_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      double value;
      g_autofree char *name = get_named_number (r, &value);
      cr_record_update_add_number (u, name, value);
    }
  wire_get_fields (r, &cr_record_update_value_fields, u);
  n = wire_get_count (r, MIN_STATE_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      g_autofree char *name = wire_get_string (r);
      CrRecordOptimState *state = cr_record_update_add_state (u, name ? name : "");
      wire_get_fields (r, &cr_record_state_fields, state);
    }
}

void
wire_get_printed (Reader      *r,
                  CrRunRecord *record)
{
  double value;
  g_autofree char *name = get_named_number (r, &value);
  CrRecordPrinted *p = cr_run_record_add_printed (record, name, value);
  CrRecordPrinted ignored = { 0 };
  if (!p)
    {
      wire_fail (r, "more than %d printed numbers", CR_RUN_RECORD_MAX_PRINTED);
      p = &ignored;
    }
  wire_get_fields (r, &cr_record_printed_fields, p);
}
