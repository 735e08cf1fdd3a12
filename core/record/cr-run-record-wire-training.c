/* cr-run-record-wire-training.c — the run record's wire form: a training
 * loop's items, the parameter updates (optimizer steps and manual ones)
 * and the numbers the script printed (cr-run-record-wire-private.h).
 *
 * Moved from cr-run-record-wire.c as they were; cr_run_record_to_wire()
 * and cr_run_record_from_wire() call them in the body's order. */
#include "cr-run-record-wire-private.h"

/* The fewest bytes an update's number and state entry take: wire_get_count's floor. */
#define MIN_NUMBER_BYTES   12
#define MIN_STATE_BYTES    12

void
wire_put_update (Writer               *w,
                 const CrRecordUpdate *u)
{
  put_u32 (w, u->kind);
  wire_put_string (w, u->optimizer);
  put_u32 (w, u->optimizer_id);
  put_u32 (w, u->step);
  put_u32 (w, u->group);
  put_i32 (w, u->tensor);
  wire_put_string (w, u->name);
  wire_put_span (w, &u->span);
  put_i32 (w, u->backward);
  put_u32 (w, u->iteration);
  wire_put_loop_path (w, u->loop_depth, u->loop_path);
  put_u32 (w, u->numbers->len);
  for (guint i = 0; i < u->numbers->len; i++)
    {
      const CrRecordNumber *number = g_ptr_array_index (u->numbers, i);
      wire_put_string (w, number->name);
      put_bytes (w, &number->value, sizeof number->value);
    }
  wire_put_snapshot (w, u->grad);
  wire_put_snapshot (w, u->before);
  wire_put_snapshot (w, u->after);
  put_u32 (w, u->state->len);
  for (guint i = 0; i < u->state->len; i++)
    {
      const CrRecordOptimState *state = g_ptr_array_index (u->state, i);
      wire_put_string (w, state->name);
      wire_put_snapshot (w, state->before);
      wire_put_snapshot (w, state->after);
    }
}

void
wire_put_printed (Writer                *w,
                  const CrRecordPrinted *p)
{
  wire_put_string (w, p->name);
  put_bytes (w, &p->value, sizeof p->value);
  wire_put_span (w, &p->span);
  put_i32 (w, p->backward);
  put_u32 (w, p->iteration);
}

void
wire_get_update (Reader      *r,
                 CrRunRecord *record)
{
  CrRecordUpdate *u = cr_run_record_add_update (record);
  u->kind = wire_get_enum (r, CR_RECORD_UPDATE_MANUAL + 1, "update kind");
  u->optimizer = wire_get_string (r);
  u->optimizer_id = get_u32 (r);
  u->step = get_u32 (r);
  u->group = get_u32 (r);
  u->tensor = get_i32 (r);
  u->name = wire_get_string (r);
  wire_get_span (r, &u->span);
  u->backward = get_i32 (r);
  u->iteration = get_u32 (r);
  wire_get_loop_path (r, &u->loop_depth, u->loop_path);
  guint n = wire_get_count (r, MIN_NUMBER_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      g_autofree char *name = wire_get_string (r);
      double value;
      get_bytes (r, &value, sizeof value);
      cr_record_update_add_number (u, name ? name : "", value);
    }
  u->grad = wire_get_snapshot (r);
  u->before = wire_get_snapshot (r);
  u->after = wire_get_snapshot (r);
  n = wire_get_count (r, MIN_STATE_BYTES);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      g_autofree char *name = wire_get_string (r);
      CrRecordOptimState *state = cr_record_update_add_state (u, name ? name : "");
      state->before = wire_get_snapshot (r);
      state->after = wire_get_snapshot (r);
    }
}

void
wire_get_printed (Reader      *r,
                  CrRunRecord *record)
{
  g_autofree char *name = wire_get_string (r);
  double value;
  get_bytes (r, &value, sizeof value);
  CrRecordPrinted *p = cr_run_record_add_printed (record, name ? name : "", value);
  CrRecordPrinted ignored = { 0 };
  if (!p)
    {
      wire_fail (r, "more than %d printed numbers", CR_RUN_RECORD_MAX_PRINTED);
      p = &ignored;
    }
  wire_get_span (r, &p->span);
  p->backward = get_i32 (r);
  p->iteration = get_u32 (r);
}
