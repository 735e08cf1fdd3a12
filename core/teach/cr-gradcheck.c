/* cr-gradcheck.c — autograd against central differences, leaf by leaf
 * (cr-gradcheck.h). */
#include "cr-gradcheck.h"

#include "cr-dtype.h"
#include "cr-error.h"
#include "cr-run-record.h"
#include "cr-torch-grad-probe.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* gradcheck's defaults for float64; for float32, a step big enough that the
 * difference of two float32 losses still has digits, and bounds to match. */
#define F64_EPS  1e-6
#define F64_ATOL 1e-5
#define F64_RTOL 1e-3
#define F32_EPS  1e-3
#define F32_ATOL 1e-2
#define F32_RTOL 1e-2

/* What float32's rounding of L alone can put into a central difference of
 * it: an ulp of L over the step. Added to a float32 leaf's atol, so a big
 * loss is not judged beyond the digits it keeps. */
static double
f32_rounding (double objective)
{
  return isfinite (objective) ? fabs (objective) * FLT_EPSILON / F32_EPS : 0;
}

static void
entry_clear (gpointer data)
{
  CrGradcheckEntry *e = data;
  g_free (e->where);
}

static void
leaf_free (gpointer data)
{
  CrGradcheckLeaf *leaf = data;
  g_free (leaf->label);
  g_free (leaf->where);
  g_free (leaf->dtype);
  g_free (leaf->shape);
  g_array_unref (leaf->entries);
  g_free (leaf->failure);
  g_free (leaf);
}

void
cr_gradcheck_report_free (CrGradcheckReport *self)
{
  if (!self)
    return;
  g_free (self->backward);
  g_ptr_array_unref (self->leaves);
  g_free (self);
}

/* One run of module under probe, its output discarded. FALSE with
 * *out_error (owned) when it failed other than by the probe's stop. */
static gboolean
run_probed (CrAstModule              *module,
            const CrGradcheckOptions *options,
            CrGradProbe              *probe,
            gboolean                  record,
            CrRunRecord             **out_record,
            CrScriptError           **out_error)
{
  CrInterpOptions io = {
    .cancel_flag = options ? options->cancel_flag : NULL,
    .record_backward = record,
    .default_device = CR_DEVICE_CPU,
  };
  CrInterp *interp = cr_interp_new (&io);
  CrScriptError *error = NULL;
  if (options && options->cells)
    cr_interp_set_cells (interp, options->cells, options->n_cells);
  cr_grad_probe_attach (probe, interp);
  gboolean ok = cr_interp_run (interp, module, &error);
  if (!ok && cr_grad_probe_stopped (probe))
    {
      ok = TRUE;
      g_clear_pointer (&error, cr_script_error_free);
    }
  if (out_record)
    *out_record = cr_interp_get_run_record (interp);
  cr_interp_free (interp);
  if (out_error)
    *out_error = error;
  else
    cr_script_error_free (error);
  return ok;
}

/* L with leaf `ordinal` nudged by delta (element element, or along
 * direction), and what the nudge really added to each element. NaN with
 * *failure (new) when the re-run failed or never reached the backward. */
static double
nudged_objective (CrAstModule              *module,
                  const CrGradcheckOptions *options,
                  const CrGradProbeLeaf    *leaf,
                  gint64                    element,
                  const double             *direction,
                  double                    delta,
                  double                  **out_nudged_by,
                  char                    **failure)
{
  CrGradProbe *probe = cr_grad_probe_new (CR_GRAD_PROBE_STOP_BEFORE_BACKWARD);
  cr_grad_probe_set_nudge (probe, leaf->ordinal, leaf->statement, element, direction,
                           direction ? leaf->numel : 0, delta);
  CrScriptError *error = NULL;
  double value = NAN;
  if (!run_probed (module, options, probe, FALSE, NULL, &error))
    *failure = g_strdup_printf ("a re-run with it nudged raised %s: %s",
                                cr_exception_name (error->type), error->message);
  else if (!cr_grad_probe_reached_backward (probe))
    *failure = g_strdup ("a re-run with it nudged never got to the backward call");
  else
    {
      gint64 n = 0;
      const double *by = cr_grad_probe_nudged_by (probe, &n);
      if (!by || n != leaf->numel)
        *failure = g_strdup ("a re-run never got to nudge it");
      else
        {
          *out_nudged_by = g_memdup2 (by, sizeof (double) * (gsize) n);
          value = cr_grad_probe_objective (probe);
        }
    }
  cr_script_error_free (error);
  cr_grad_probe_free (probe);
  return value;
}

static void
add_entry (CrGradcheckLeaf *leaf,
           char            *where,
           double           autograd,
           double           numeric)
{
  CrGradcheckEntry e = {
    .where = where,
    .autograd = autograd,
    .numeric = numeric,
    .error = fabs (autograd - numeric),
    .allowed = leaf->atol + leaf->rtol * fabs (numeric),
  };
  /* allclose: NaN is close to nothing. */
  e.ok = e.error <= e.allowed;
  if (isinf (autograd) && autograd == numeric)
    e.ok = TRUE;
  if (!e.ok)
    leaf->ok = FALSE;
  g_array_append_val (leaf->entries, e);
}

static char *
index_text (const CrGradProbeLeaf *leaf,
            gint64                 flat)
{
  if (leaf->ndim == 0)
    return g_strdup ("");
  gint64 index[CR_MAX_DIMS];
  for (int d = leaf->ndim - 1; d >= 0; d--)
    {
      index[d] = leaf->shape[d] > 0 ? flat % leaf->shape[d] : 0;
      flat = leaf->shape[d] > 0 ? flat / leaf->shape[d] : 0;
    }
  GString *s = g_string_new ("[");
  for (int d = 0; d < leaf->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, index[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static char *
shape_text (const CrGradProbeLeaf *leaf)
{
  GString *s = g_string_new ("(");
  for (int d = 0; d < leaf->ndim; d++)
    g_string_append_printf (s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, leaf->shape[d]);
  if (leaf->ndim == 1)
    g_string_append_c (s, ',');
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* A unit vector of normal entries, the same for the same seed. */
static double *
random_direction (gint64  n,
                  guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  double *u = g_new (double, (gsize) n);
  double norm = 0;
  for (gint64 j = 0; j < n; j++)
    {
      double r1 = g_rand_double (rand), r2 = g_rand_double (rand);
      u[j] = sqrt (-2 * log (1 - r1)) * cos (2 * G_PI * r2);
      norm += u[j] * u[j];
    }
  norm = sqrt (norm);
  for (gint64 j = 0; j < n && norm > 0; j++)
    u[j] /= norm;
  return u;
}

static void
check_leaf (CrAstModule              *module,
            const CrGradcheckOptions *options,
            const CrGradProbeLeaf    *info,
            CrGradcheckLeaf          *leaf,
            double                    objective,
            guint                    *n_reruns)
{
  gboolean f64 = info->dtype == CR_DTYPE_FLOAT64;
  leaf->eps = f64 ? F64_EPS : F32_EPS;
  leaf->atol = f64 ? F64_ATOL : F32_ATOL + f32_rounding (objective);
  leaf->rtol = f64 ? F64_RTOL : F32_RTOL;
  leaf->along_direction = info->numel > CR_GRADCHECK_MAX_ELEMENTS;
  g_autofree double *u = leaf->along_direction ? random_direction (info->numel, info->ordinal) : NULL;
  gint64 n_checks = leaf->along_direction ? 1 : info->numel;

  for (gint64 k = 0; k < n_checks && !leaf->failure; k++)
    {
      gint64 element = leaf->along_direction ? -1 : k;
      g_autofree double *up = NULL, *down = NULL;
      double plus = nudged_objective (module, options, info, element, u, leaf->eps, &up,
                                      &leaf->failure);
      if (leaf->failure)
        break;
      double minus = nudged_objective (module, options, info, element, u, -leaf->eps, &down,
                                       &leaf->failure);
      *n_reruns += 2;
      if (leaf->failure)
        break;
      /* The nudges the dtype really made: (L+ − L−) over their difference,
       * and autograd's prediction of the same change. */
      double moved = 0, predicted = 0;
      for (gint64 j = 0; j < info->numel; j++)
        {
          double d = up[j] - down[j];
          if (element >= 0 && j != element)
            continue;
          moved += leaf->along_direction ? d * u[j] : d;
          predicted += info->grad[j] * d;
        }
      if (leaf->along_direction)
        {
          /* Per unit of the direction: u·∇L. */
          double numeric = (plus - minus) / (2 * leaf->eps);
          double autograd = predicted / (2 * leaf->eps);
          add_entry (leaf, g_strdup ("u·∇"), autograd, numeric);
        }
      else
        add_entry (leaf, index_text (info, k), info->grad[k],
                   moved != 0 ? (plus - minus) / moved : NAN);
    }
  if (leaf->failure)
    leaf->ok = FALSE;
}

static gboolean
reached_by (const CrRecordBackward *backward,
            int                     record_id)
{
  for (guint s = 0; s < backward->steps->len; s++)
    {
      const CrRecordStep *step = g_ptr_array_index (backward->steps, s);
      if (step->kind == CR_RECORD_STEP_ACCUMULATE && step->leaf == record_id)
        return TRUE;
    }
  return FALSE;
}

/* Leaves the record names alike (tensors never bound to a name, a loop's)
 * get their line, then their place among those, so each row says which. */
static void
tell_apart (GPtrArray *leaves)
{
  for (int pass = 0; pass < 2; pass++)
    {
      g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr (GHashTable) dup = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < leaves->len; i++)
        {
          const CrGradcheckLeaf *leaf = leaves->pdata[i];
          if (g_hash_table_contains (seen, leaf->label))
            g_hash_table_add (dup, leaf->label);
          g_hash_table_add (seen, leaf->label);
        }
      if (g_hash_table_size (dup) == 0)
        return;
      g_autoptr (GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_autoptr (GPtrArray) renamed = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < leaves->len; i++)
        {
          CrGradcheckLeaf *leaf = leaves->pdata[i];
          if (!g_hash_table_contains (dup, leaf->label))
            {
              g_ptr_array_add (renamed, NULL);
              continue;
            }
          char *name;
          if (pass == 0)
            name = g_strdup_printf ("%s (%s)", leaf->label, leaf->where);
          else
            {
              guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, leaf->label)) + 1;
              g_hash_table_insert (counts, g_strdup (leaf->label), GUINT_TO_POINTER (n));
              name = g_strdup_printf ("%s #%u", leaf->label, n);
            }
          g_ptr_array_add (renamed, name);
        }
      for (guint i = 0; i < leaves->len; i++)
        if (renamed->pdata[i])
          {
            CrGradcheckLeaf *leaf = leaves->pdata[i];
            g_free (leaf->label);
            leaf->label = g_steal_pointer (&renamed->pdata[i]);
          }
    }
}

CrGradcheckReport *
cr_gradcheck_run (CrAstModule               *module,
                  const CrGradcheckOptions  *options,
                  CrScriptError            **out_script_error,
                  GError                   **error)
{
  g_autoptr (CrRunRecord) record = NULL;
  CrGradProbe *probe = cr_grad_probe_new (CR_GRAD_PROBE_STOP_AFTER_BACKWARD);
  CrScriptError *script_error = NULL;

  if (out_script_error)
    *out_script_error = NULL;
  if (!run_probed (module, options, probe, TRUE, &record, &script_error))
    {
      cr_grad_probe_free (probe);
      if (out_script_error)
        *out_script_error = script_error;
      else
        cr_script_error_free (script_error);
      return NULL;
    }
  if (!cr_grad_probe_reached_backward (probe) || !record || record->backwards->len == 0)
    {
      cr_grad_probe_free (probe);
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "the script calls no backward: there is no gradient to check "
                           "(check differentiates what the first .backward() starts from)");
      return NULL;
    }
  if (cr_grad_probe_backward_is_grad (probe))
    {
      cr_grad_probe_free (probe);
      g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                           "the script's first backward call is torch.autograd.grad, which "
                           "writes no .grad: check reads the .grad of the leaves that the "
                           "first .backward() reaches");
      return NULL;
    }

  const CrRecordBackward *first = g_ptr_array_index (record->backwards, 0);
  CrGradcheckReport *report = g_new0 (CrGradcheckReport, 1);
  report->backward = g_strdup (first->title);
  report->objective = cr_grad_probe_objective (probe);
  report->n_roots = cr_grad_probe_n_roots (probe);
  report->leaves = g_ptr_array_new_with_free_func (leaf_free);
  report->ok = TRUE;
  for (guint k = 0; k < first->steps->len; k++)
    {
      const CrRecordStep *step = g_ptr_array_index (first->steps, k);
      for (guint h = 0; h < step->hooks->len; h++)
        {
          const CrRecordHookCall *hook = g_ptr_array_index (step->hooks, h);
          if (hook->kind != CR_RECORD_HOOK_RETAIN_GRAD && hook->after)
            report->hooks_changed = TRUE;
        }
    }

  for (guint i = 0; i < cr_grad_probe_n_leaves (probe); i++)
    {
      const CrGradProbeLeaf *info = cr_grad_probe_leaf (probe, i);
      if (!info->grad || info->record_id < 0 || (guint) info->record_id >= record->tensors->len
          || !reached_by (first, info->record_id) || info->statement == 0)
        continue;
      const CrRecordTensor *t = g_ptr_array_index (record->tensors, info->record_id);
      CrGradcheckLeaf *leaf = g_new0 (CrGradcheckLeaf, 1);
      leaf->label = g_strdup (t->label ? t->label : t->name ? t->name : "(leaf)");
      leaf->record_id = info->record_id;
      leaf->ordinal = info->ordinal;
      leaf->span = t->span;
      leaf->where = cr_run_record_line_text (record, (int) t->span.line, FALSE);
      leaf->dtype = g_strdup (cr_dtype_name (info->dtype));
      leaf->shape = shape_text (info);
      leaf->numel = info->numel;
      leaf->entries = g_array_new (FALSE, TRUE, sizeof (CrGradcheckEntry));
      g_array_set_clear_func (leaf->entries, entry_clear);
      leaf->ok = TRUE;
      check_leaf (module, options, info, leaf, report->objective, &report->n_reruns);
      if (!leaf->ok)
        report->ok = FALSE;
      g_ptr_array_add (report->leaves, leaf);
    }
  cr_grad_probe_free (probe);
  tell_apart (report->leaves);
  return report;
}

/* ---- the table ------------------------------------------------------------ */

static void
pad (GString    *s,
     const char *text,
     guint       width)
{
  g_string_append (s, text);
  glong len = g_utf8_strlen (text, -1);
  for (glong i = len; i < (glong) width; i++)
    g_string_append_c (s, ' ');
}

static char *
number (double v)
{
  if (isnan (v))
    return g_strdup ("nan");
  return g_strdup_printf ("%.10g", v);
}

char *
cr_gradcheck_report_format (const CrGradcheckReport *self)
{
  GString *s = g_string_new (NULL);
  g_autofree char *objective = number (self->objective);
  g_string_append_printf (s, "L = %s, what the first backward call differentiates: %s\n",
                          objective, self->backward);
  if (self->n_roots > 1)
    g_string_append (s, "(several roots: L is the sum of each root times its gradient)\n");
  g_string_append (s, "numeric: (L(x+eps) - L(x-eps)) / 2eps, re-running the script to that call\n");

  gboolean have[2] = { FALSE, FALSE };
  for (guint i = 0; i < self->leaves->len; i++)
    {
      const CrGradcheckLeaf *leaf = g_ptr_array_index (self->leaves, i);
      have[strcmp (leaf->dtype, "torch.float64") == 0 ? 0 : 1] = TRUE;
    }
  if (have[0])
    g_string_append_printf (s, "float64 leaves: eps %g, atol %g, rtol %g (gradcheck's defaults)\n",
                            F64_EPS, F64_ATOL, F64_RTOL);
  if (have[1])
    {
      g_string_append_printf (s, "float32 leaves: eps %g, atol %g, rtol %g (float32 keeps about 7 "
                                 "digits;\n  gradcheck itself wants float64)\n",
                              F32_EPS, F32_ATOL, F32_RTOL);
      double slack = f32_rounding (self->objective);
      if (slack >= 1e-4)
        g_string_append_printf (s, "  atol grows by %.2g, what float32's rounding of L = %.6g "
                                   "puts into the difference\n", slack, self->objective);
    }
  if (isnan (self->objective))
    g_string_append (s, "L is not a number: its differences are NaN too, and no leaf can agree\n");
  g_string_append (s, "ok when |autograd - numeric| <= atol + rtol*|numeric|, as gradcheck\n\n");

  if (self->leaves->len == 0)
    {
      g_string_append (s, "The first backward call reached no leaf that requires grad.\n");
      return g_string_free (s, FALSE);
    }

  /* Rows first, to size the columns. */
  const char *head[] = { "leaf", "element", "autograd", "numeric", "|a-n|", "allowed", "verdict" };
  enum { N_COLS = G_N_ELEMENTS (head) };
  g_autoptr (GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  guint width[N_COLS];
  for (guint c = 0; c < N_COLS; c++)
    width[c] = (guint) strlen (head[c]);
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->leaves->len; i++)
    {
      const CrGradcheckLeaf *leaf = g_ptr_array_index (self->leaves, i);
      if (leaf->along_direction)
        g_ptr_array_add (notes, g_strdup_printf ("%s %s has %" G_GINT64_FORMAT " elements: checked "
                                                 "along one random unit direction u",
                                                 leaf->label, leaf->shape, leaf->numel));
      guint rows = leaf->entries->len + (leaf->failure ? 1 : 0);
      for (guint r = 0; r < rows; r++)
        {
          char *row[N_COLS];
          if (r < leaf->entries->len)
            {
              const CrGradcheckEntry *e = &g_array_index (leaf->entries, CrGradcheckEntry, r);
              row[0] = g_strdup (leaf->label);
              row[1] = g_strdup (e->where[0] ? e->where : "-");
              row[2] = number (e->autograd);
              row[3] = number (e->numeric);
              row[4] = g_strdup_printf ("%.1e", e->error);
              row[5] = g_strdup_printf ("%.1e", e->allowed);
              row[6] = g_strdup (e->ok ? "ok" : "DIFFERS");
            }
          else
            {
              row[0] = g_strdup (leaf->label);
              for (guint c = 1; c < N_COLS - 1; c++)
                row[c] = g_strdup ("-");
              row[N_COLS - 1] = g_strdup ("ERROR");
              g_ptr_array_add (notes, g_strdup_printf ("%s: %s", leaf->label, leaf->failure));
            }
          for (guint c = 0; c < N_COLS; c++)
            {
              width[c] = MAX (width[c], (guint) g_utf8_strlen (row[c], -1));
              g_ptr_array_add (cells, row[c]);
            }
        }
    }
  for (guint c = 0; c < N_COLS; c++)
    {
      pad (s, head[c], c + 1 < N_COLS ? width[c] + 2 : 0);
    }
  g_string_append_c (s, '\n');
  for (guint k = 0; k < cells->len; k += N_COLS)
    {
      for (guint c = 0; c < N_COLS; c++)
        pad (s, cells->pdata[k + c], c + 1 < N_COLS ? width[c] + 2 : 0);
      g_string_append_c (s, '\n');
    }
  if (notes->len)
    g_string_append_c (s, '\n');
  for (guint i = 0; i < notes->len; i++)
    g_string_append_printf (s, "%s\n", (char *) notes->pdata[i]);

  guint bad = 0;
  GString *names = g_string_new (NULL);
  for (guint i = 0; i < self->leaves->len; i++)
    {
      const CrGradcheckLeaf *leaf = g_ptr_array_index (self->leaves, i);
      if (leaf->ok)
        continue;
      g_string_append_printf (names, "%s%s", bad ? ", " : "", leaf->label);
      if (leaf->span.line > 0 && !strstr (leaf->label, "line "))
        g_string_append_printf (names, " (%s)", leaf->where);
      bad++;
    }
  if (self->hooks_changed)
    g_string_append (s, "\nA hook changed a gradient during this backward call: the .grad it "
                        "left\nis not the derivative of L, so the check disagrees where it did.\n");
  if (bad == 0 && self->leaves->len == 1)
    g_string_append_printf (s, "\nThe leaf agrees (%u re-runs).\n", self->n_reruns);
  else if (bad == 0)
    g_string_append_printf (s, "\nAll %u leaves agree (%u re-runs).\n", self->leaves->len,
                            self->n_reruns);
  else if (self->leaves->len == 1)
    g_string_append_printf (s, "\nThe leaf disagrees: %s.\n", names->str);
  else
    g_string_append_printf (s, "\n%u of %u leaves disagree: %s.\n", bad, self->leaves->len,
                            names->str);
  g_string_free (names, TRUE);
  return g_string_free (s, FALSE);
}
