/* cr-run-record-trace.c — a backward call of the run record as the text of
 * --trace-backward (the format is in cr-run-record-trace.h).
 *
 * Everything comes from the record, never from the engine: the names the
 * recorder gave each gradient ("∂L/∂(w3*b)"), the values as snapshots. A
 * snapshot keeps the numbers; they print as print() prints the tensor (the
 * dtype and device suffixes included, not grad_fn=, which a snapshot does
 * not know). Tensors that print on several lines go on lines of their own,
 * aligned, with the local gradient on a "where ∂out/∂in = ..." line. */
#include "cr-run-record-trace.h"

#include "cr-dtype.h"
#include "cr-record-text.h"
#include "cr-tensor.h"

#include <string.h>

/* A chain-rule line stays on one line below this many characters. */
#define ONE_LINE_MAX 110

/* ---- values ----------------------------------------------------------------- */

static CrDType
dtype_of (const CrTensorSnapshot *s)
{
  for (int d = 0; d < CR_DTYPE_COUNT; d++)
    if (g_strcmp0 (s->dtype, cr_dtype_name ((CrDType) d)) == 0)
      return (CrDType) d;
  return CR_DTYPE_FLOAT32;
}

/* A host tensor holding the snapshot's numbers, or NULL when the snapshot
 * did not keep them all. A tensor whose min is its max needs none kept
 * (a gradient of ones). */
static CrTensor *
host_tensor (const CrTensorSnapshot *s)
{
  gboolean constant = s->numel > 0 && s->min == s->max;   /* false for NaN */
  if (s->n_values < s->numel && !constant)
    return NULL;
  CrDType dtype = dtype_of (s);
  CrTensor *t = cr_tensor_new_empty (s->shape, s->ndim, dtype, CR_DEVICE_CPU, NULL);
  if (!t)
    return NULL;
  gpointer data = cr_tensor_data (t);
  for (gint64 i = 0; i < s->numel; i++)
    {
      double v = i < s->n_values ? s->values[i] : s->min;
      switch (dtype)
        {
        case CR_DTYPE_BOOL:    ((guint8 *) data)[i] = v != 0; break;
        case CR_DTYPE_INT64:   ((gint64 *) data)[i] = (gint64) v; break;
        case CR_DTYPE_FLOAT64: ((double *) data)[i] = v; break;
        case CR_DTYPE_INT32:   ((gint32 *) data)[i] = (gint32) v; break;
        case CR_DTYPE_UINT8:   ((guint8 *) data)[i] = (guint8) v; break;
        case CR_DTYPE_FLOAT32:
        case CR_DTYPE_COUNT:
        default:               ((float *) data)[i] = (float) v; break;
        }
    }
  return t;
}

/* print(t) of the tensor the snapshot was taken of: "tensor([1., 2.])",
 * "tensor([1., 2.], device='cuda:0', dtype=torch.float64)". */
static char *
format_value (const CrTensorSnapshot *s,
              const CrPrintOptions   *options)
{
  if (!s)
    return g_strdup ("None");
  g_autoptr (CrTensor) host = host_tensor (s);
  const char *kept_text = host ? NULL : cr_tensor_snapshot_get_text (s);
  if (kept_text)
    {
      /* The record's shared budget ran out before this value: its text
       * (default print options) is still there for small tensors. */
      GString *t = g_string_new ("tensor(");
      for (const char *p = kept_text; *p; p++)
        {
          g_string_append_c (t, *p);
          if (*p == '\n')
            g_string_append (t, "       ");
        }
      if (s->device && g_str_has_prefix (s->device, "cuda"))
        g_string_append_printf (t, ", device='%s'", s->device);
      CrDType dtype = dtype_of (s);
      if (dtype != CR_DTYPE_FLOAT32 && dtype != CR_DTYPE_INT64 && dtype != CR_DTYPE_BOOL)
        g_string_append_printf (t, ", dtype=%s", s->dtype);
      g_string_append_c (t, ')');
      return g_string_free (t, FALSE);
    }
  if (!host)
    {
      g_autofree char *shape = cr_record_shape_text (s->shape, s->ndim);
      return g_strdup_printf ("<%s tensor, mean %.4g, std %.4g, min %.4g, max %.4g: "
                              "values not kept>", shape, s->mean, s->std, s->min, s->max);
    }
  g_autofree char *text = cr_tensor_format (host, options);
  if (!s->device || !g_str_has_prefix (s->device, "cuda"))
    return g_steal_pointer (&text);
  /* The device suffix comes first, as PyTorch writes it: after the data,
   * before any dtype=. The host copy printed none. */
  char *close = strrchr (text, ')');
  char *dtype = strstr (text, ", dtype=");
  char *at = dtype ? dtype : close;
  g_autofree char *device = g_strdup_printf (", device='%s'", s->device);
  return g_strdup_printf ("%.*s%s%s", (int) (at - text), text, device, at);
}

/* Appends prefix then text, indenting text's continuation lines under its
 * first character. */
static void
append_aligned (GString    *out,
                const char *prefix,
                const char *text)
{
  g_string_append (out, prefix);
  glong indent = g_utf8_strlen (prefix, -1);
  for (const char *p = text; *p; p++)
    {
      g_string_append_c (out, *p);
      if (*p == '\n' && p[1])
        for (glong i = 0; i < indent; i++)
          g_string_append_c (out, ' ');
    }
  g_string_append_c (out, '\n');
}

/* ---- source text ------------------------------------------------------------ */

/* The text a span covers in the record's source (its first line only, with
 * an ellipsis past it), or NULL. */
static char *
span_text (const CrRunRecord *record,
           const CrSpan      *span)
{
  if (!record->source || span->line <= 0)
    return NULL;
  const char *line = record->source;
  for (int l = 1; l < span->line && line; l++)
    {
      line = strchr (line, '\n');
      if (line)
        line++;
    }
  if (!line)
    return NULL;
  const char *eol = strchr (line, '\n');
  g_autofree char *whole = g_strndup (line, eol ? (gsize) (eol - line) : strlen (line));
  if (!g_utf8_validate (whole, -1, NULL))
    return NULL;
  glong len = g_utf8_strlen (whole, -1);
  glong start = span->column > 0 ? MIN ((glong) span->column - 1, len) : 0;
  glong end = len;
  if (span->end_line == span->line && span->end_column > span->column)
    end = MIN ((glong) span->end_column - 1, len);
  const char *from = g_utf8_offset_to_pointer (whole, start);
  const char *to = g_utf8_offset_to_pointer (whole, end);
  char *text = g_strstrip (g_strndup (from, (gsize) (to - from)));
  if (span->end_line > span->line)
    {
      char *more = g_strconcat (text, " …", NULL);
      g_free (text);
      text = more;
    }
  return text;
}

/* ---- one step ----------------------------------------------------------------- */

/* The type of the error that stopped backward call b ("an error": unknown). */
static const char *
error_type (const CrRunRecord      *record,
            const CrRecordBackward *b)
{
  const CrRecordError *error = b->error >= 0 && (guint) b->error < record->errors->len
                               ? record->errors->pdata[b->error] : NULL;
  return error && error->type ? error->type : "an error";
}

/* "hook show (line 11): tensor([1., 1., 1.]) unchanged",
 * "hook <lambda> (line 16): tensor([2., 4., 6.]) -> tensor([20., 40., 60.])",
 * "hook check (line 5): tensor([1., 1.]) -> raised ValueError",
 * "retain_grad: y.grad = tensor([1., 1.])". */
static void
trace_hook (GString                *out,
            const CrRunRecord      *record,
            const CrRecordBackward *backward,
            const CrRecordHookCall *hook,
            const CrPrintOptions   *options)
{
  const char *label = cr_record_tensor_label (record, hook->tensor, NULL);
  g_autofree char *title = cr_run_record_hook_title (record, hook, label);
  if (hook->raised)
    {
      g_autofree char *before = format_value (hook->before, options);
      g_autofree char *prefix = g_strdup_printf ("    %s: ", title);
      g_autofree char *text = g_strconcat (before, " -> raised ", error_type (record, backward), NULL);
      append_aligned (out, prefix, text);
      return;
    }
  g_autofree char *after = format_value (hook->after, options);
  if (hook->kind == CR_RECORD_HOOK_RETAIN_GRAD)
    {
      g_autofree char *prefix = g_strdup_printf ("    %s = ", title);
      append_aligned (out, prefix, after);
      return;
    }
  g_autofree char *before = format_value (hook->before, options);
  g_autofree char *prefix = g_strdup_printf ("    %s: ", title);
  if (!hook->after)
    {
      g_autofree char *text = g_strconcat (before, " unchanged (returned None)", NULL);
      append_aligned (out, prefix, text);
    }
  else if (!strchr (before, '\n') && !strchr (after, '\n'))
    g_string_append_printf (out, "%s%s -> %s\n", prefix, before, after);
  else
    {
      append_aligned (out, prefix, before);
      g_autofree char *p2 = g_strdup_printf ("%*s-> ", (int) g_utf8_strlen (prefix, -1) - 3, "");
      append_aligned (out, p2, after);
    }
}

/* What the step sends to one input: the chain rule with its numbers, the
 * sum back to the input's shape after a broadcast, or just the gradient
 * when the op has no elementwise local gradient. */
static void
trace_input (GString                 *out,
             const CrRunRecord       *record,
             const CrRecordStep      *step,
             const CrRecordStepInput *in,
             const CrPrintOptions    *options)
{
  const char *name = in->outgoing.name ? in->outgoing.name : "?";
  g_autofree char *value = format_value (in->outgoing.value, options);
  const CrRecordGrad *incoming = step->incoming && step->incoming->len == 1
                                 ? step->incoming->pdata[0] : NULL;
  if (!in->local || !incoming)
    {
      g_autofree char *prefix = g_strdup_printf ("    %s = ", name);
      append_aligned (out, prefix, value);
      return;
    }
  g_autofree char *lv = format_value (in->local, options);
  g_autofree char *gv = format_value (incoming->value, options);
  /* After a broadcast the product has the broadcast shape; the outgoing
   * gradient is that product summed back to the input's shape. */
  g_autofree char *product = in->reduction && in->product ? format_value (in->product, options)
                                                          : g_strdup (value);
  g_autofree char *chain = g_strdup_printf ("    %s = %s × %s = ", name,
                                            incoming->name ? incoming->name : "?",
                                            in->local_name ? in->local_name : "?");
  if (!strchr (product, '\n') && !strchr (lv, '\n') && !strchr (gv, '\n')
      && g_utf8_strlen (chain, -1) + (glong) (strlen (gv) + strlen (lv) + strlen (product)) < ONE_LINE_MAX)
    g_string_append_printf (out, "%s%s × %s = %s\n", chain, gv, lv, product);
  else
    {
      append_aligned (out, chain, product);
      g_autofree char *where = g_strdup_printf ("      where %s = ",
                                                in->local_name ? in->local_name : "local");
      append_aligned (out, where, lv);
    }
  if (in->reduction)
    {
      const char *label = cr_record_tensor_label (record, in->tensor, in->name);
      g_autofree char *summed = cr_record_reduction_text (in->reduction, label);
      g_autofree char *prefix = g_strdup_printf ("      %s: %s = ", summed, name);
      append_aligned (out, prefix, value);
    }
}

static void trace_accumulations (GString              *out,
                                 const GPtrArray      *accumulations,
                                 const CrPrintOptions *options);

static void
trace_step (GString                *out,
            const CrRunRecord      *record,
            const CrRecordBackward *backward,
            const CrRecordStep     *step,
            const CrPrintOptions   *options)
{
  const char *title = step->title ? step->title : "?";
  if (!step->caption)
    g_string_append_printf (out, "  step %u  %s\n", step->index + 1, title);
  else if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    g_string_append_printf (out, "  step %u  %s  %s\n", step->index + 1, title, step->caption);
  else
    g_string_append_printf (out, "  step %u  %s  (%s)\n", step->index + 1, title, step->caption);

  for (guint i = 0; step->hooks && i < step->hooks->len; i++)
    trace_hook (out, record, backward, step->hooks->pdata[i], options);

  for (guint i = 0; step->incoming && i < step->incoming->len; i++)
    {
      const CrRecordGrad *g = step->incoming->pdata[i];
      g_autofree char *value = format_value (g->value, options);
      g_autofree char *prefix = g_strdup_printf ("    %s = ", g->name ? g->name : "?");
      append_aligned (out, prefix, value);
    }

  if (step->custom_backward)
    {
      g_autofree char *where = cr_run_record_line_text (record, step->custom_span.line, FALSE);
      if (step->custom_span.line > 0)
        g_string_append_printf (out, "    custom backward: %s (%s)\n", step->custom_backward,
                                where);
      else
        g_string_append_printf (out, "    custom backward: %s\n", step->custom_backward);
    }
  if (step->rule)
    g_string_append_printf (out, "    rule: %s\n", step->rule);

  for (guint i = 0; step->inputs && i < step->inputs->len; i++)
    {
      const CrRecordStepInput *in = step->inputs->pdata[i];
      if (in->outgoing.value)
        trace_input (out, record, step, in, options);
    }

  if (step->kind == CR_RECORD_STEP_ACCUMULATE)
    {
      const char *leaf = cr_record_tensor_label (record, step->leaf, "leaf");
      g_autofree char *before = format_value (step->grad_before, options);
      g_autofree char *after = format_value (step->grad_after, options);
      g_autofree char *prefix = g_strdup_printf ("    %s.grad: ", leaf);
      if (strchr (before, '\n'))
        {
          append_aligned (out, prefix, before);
          g_autofree char *p2 = g_strdup_printf ("%*s-> ", (int) g_utf8_strlen (prefix, -1) - 3, "");
          append_aligned (out, p2, after);
        }
      else
        {
          g_autofree char *p2 = g_strdup_printf ("%s%s -> ", prefix, before);
          append_aligned (out, p2, after);
        }
    }

  /* The node that raised: what reached it, then the error's name (the
   * traceback follows the trace). */
  if (step->failed)
    g_string_append_printf (out, "    raised %s\n", error_type (record, backward));

  trace_accumulations (out, step->accumulations, options);
}

/* "∂L/∂a += c  (sum so far s)" per second (third, ...) gradient added into
 * a buffer. */
static void
trace_accumulations (GString              *out,
                     const GPtrArray      *accumulations,
                     const CrPrintOptions *options)
{
  for (guint i = 0; accumulations && i < accumulations->len; i++)
    {
      const CrRecordAccumulation *a = accumulations->pdata[i];
      const char *name = a->name ? a->name : "?";
      g_autofree char *c = format_value (a->contribution, options);
      g_autofree char *sum = format_value (a->sum, options);
      g_autofree char *prefix = g_strdup_printf ("    %s += ", name);
      if (!strchr (c, '\n') && !strchr (sum, '\n'))
        g_string_append_printf (out, "%s%s  (sum so far %s)\n", prefix, c, sum);
      else
        {
          append_aligned (out, prefix, c);
          g_autofree char *p2 = g_strdup_printf ("      (sum so far %s = ", name);
          g_autofree char *closed = g_strconcat (sum, ")", NULL);
          append_aligned (out, p2, closed);
        }
    }
}

char *
cr_run_record_trace_backward (const CrRunRecord    *record,
                              guint                 backward,
                              const CrPrintOptions *options)
{
  g_return_val_if_fail (record != NULL, NULL);
  if (backward >= record->backwards->len)
    return g_strdup ("");
  const CrRecordBackward *b = record->backwards->pdata[backward];
  GString *out = g_string_new (NULL);
  g_autofree char *call = span_text (record, &b->span);
  g_autofree char *where = cr_run_record_line_text (record, b->span.line, FALSE);
  if (call)
    g_string_append_printf (out, "backward #%u: %s at %s\n", backward + 1, call, where);
  else
    g_string_append_printf (out, "backward #%u\n", backward + 1);
  /* Several roots: the gradients the call starts from, and where they
   * met before any step ran (the first step then gets their sum). */
  if (b->root_grads && b->root_grads->len > 0)
    {
      g_string_append (out, "  roots\n");
      for (guint i = 0; i < b->root_grads->len; i++)
        {
          const CrRecordGrad *g = b->root_grads->pdata[i];
          g_autofree char *v = format_value (g->value, options);
          g_autofree char *prefix = g_strdup_printf ("    %s = ", g->name ? g->name : "?");
          append_aligned (out, prefix, v);
        }
      trace_accumulations (out, b->root_accumulations, options);
    }
  for (guint i = 0; b->steps && i < b->steps->len; i++)
    trace_step (out, record, b, b->steps->pdata[i], options);
  if (!b->succeeded)
    g_string_append (out, "  (backward stopped by an error)\n");
  return g_string_free (out, FALSE);
}
