/* cr-torch-grad-probe.c — a run's leaves, its first backward's scalar and
 * gradients, and one leaf nudged (cr-torch-grad-probe.h). */
#include "cr-torch-grad-probe.h"

#include "cr-interp-private.h"
#include "cr-leaf-observer.h"
#include "cr-run-recorder.h"
#include "cr-tensor.h"
#include "cr-torch-state.h"

#include <math.h>
#include <string.h>

struct _CrGradProbe {
  CrGradProbeMode  mode;
  CrInterp        *interp;          /* borrowed, while attached */
  gint64           statements;      /* the interpreter's statements_run when the last
                                     * script statement started */
  GHashTable      *frame_marks;     /* CrFrame* -> FrameMark* (owned): the script statement
                                     * each frame address last started, and its count */
  guint            made;            /* leaves made */
  GPtrArray       *leaves;          /* CrTensor* (owned ref), index ordinal - 1; only
                                     * while the first backward is to come */
  GArray          *infos;           /* CrGradProbeLeaf, as leaves */
  GHashTable      *ordinals;        /* CrTensor* -> ordinal (leaves held above) */
  /* Before the first backward: each held leaf's .grad, numel doubles (owned), or NULL. */
  GPtrArray       *grads_before;
  gboolean         in_first_backward;
  gboolean         reached_backward;
  gboolean         backward_ended;
  gboolean         stopped;
  double           objective;
  guint            n_roots;
  gboolean         is_grad;
  /* The nudge. */
  guint            nudge_ordinal;   /* 0: none */
  gint64           nudge_statement;
  gint64           nudge_element;
  double          *nudge_direction; /* owned, nudge_n values; NULL with an element */
  gint64           nudge_n;
  double           nudge_delta;
  CrTensor        *nudge_leaf;      /* owned ref, until nudged */
  double          *nudged_by;       /* owned, numel values once nudged */
  gint64           nudged_n;
};

typedef struct {
  const CrAstNode *stmt;
  gint64           count;
} FrameMark;

/* The probe of the run on this thread, for CrBinding.statement (which is
 * given no interpreter). */
static __thread CrGradProbe *thread_probe;

CrGradProbe *
cr_grad_probe_new (CrGradProbeMode mode)
{
  CrGradProbe *self = g_new0 (CrGradProbe, 1);
  self->mode = mode;
  self->leaves = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_tensor_unref);
  self->infos = g_array_new (FALSE, TRUE, sizeof (CrGradProbeLeaf));
  self->ordinals = g_hash_table_new (NULL, NULL);
  self->grads_before = g_ptr_array_new_with_free_func (g_free);
  self->frame_marks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->objective = NAN;
  return self;
}

void
cr_grad_probe_free (CrGradProbe *self)
{
  if (!self)
    return;
  g_ptr_array_unref (self->leaves);
  for (guint i = 0; i < self->infos->len; i++)
    g_free (g_array_index (self->infos, CrGradProbeLeaf, i).grad);
  g_array_unref (self->infos);
  g_hash_table_unref (self->ordinals);
  g_hash_table_unref (self->frame_marks);
  g_ptr_array_unref (self->grads_before);
  g_free (self->nudge_direction);
  cr_tensor_unref (self->nudge_leaf);
  g_free (self->nudged_by);
  g_free (self);
}

void
cr_grad_probe_set_nudge (CrGradProbe  *self,
                         guint         ordinal,
                         gint64        statement,
                         gint64        element,
                         const double *direction,
                         gint64        n_direction,
                         double        delta)
{
  self->nudge_ordinal = ordinal;
  self->nudge_statement = statement;
  self->nudge_element = element;
  g_clear_pointer (&self->nudge_direction, g_free);
  self->nudge_n = 0;
  if (element < 0 && direction && n_direction > 0)
    {
      self->nudge_direction = g_memdup2 (direction, sizeof (double) * (gsize) n_direction);
      self->nudge_n = n_direction;
    }
  self->nudge_delta = delta;
}

void
cr_grad_probe_attach (CrGradProbe *self,
                      CrInterp    *interp)
{
  self->interp = interp;
  cr_torch_state (interp)->grad_probe = self;
}

CrGradProbe *
cr_grad_probe_of (CrInterp *interp)
{
  return cr_torch_state (interp)->grad_probe;
}

/* Adds delta (times the direction) to the nudged leaf's values, without a
 * version bump: to the script, it was made with these values. */
static void
apply_nudge (CrGradProbe *self)
{
  CrTensor *t = self->nudge_leaf;
  self->nudge_leaf = NULL;
  if (t->device != CR_DEVICE_CPU || !cr_dtype_is_floating (t->dtype)
      || (self->nudge_element < 0 && self->nudge_n != t->numel)
      || self->nudge_element >= t->numel)
    {
      cr_tensor_unref (t);
      return;
    }
  self->nudged_n = t->numel;
  self->nudged_by = g_new0 (double, (gsize) t->numel);
  for (gint64 j = 0; j < t->numel; j++)
    {
      double step = self->nudge_element >= 0 ? (j == self->nudge_element ? self->nudge_delta : 0)
                                             : self->nudge_delta * self->nudge_direction[j];
      if (step == 0)
        continue;
      double before = cr_tensor_get_flat (t, j);
      cr_tensor_set_flat (t, j, before + step);
      self->nudged_by[j] = cr_tensor_get_flat (t, j) - before;
    }
  cr_tensor_unref (t);
}

/* The count of the script statement running in the innermost frame that
 * runs one: where an op made by library code (nn.Linear's forward), or
 * after a custom Function's forward returned, was called from. A frame's
 * mark is its own only when it names the statement the frame runs now
 * (frames live on the C stack, and their addresses come back). */
static gint64
running_statement (CrGradProbe *self)
{
  for (CrFrame *f = self->interp ? self->interp->frame : NULL; f; f = f->back)
    {
      const FrameMark *mark = g_hash_table_lookup (self->frame_marks, f);
      if (mark && mark->stmt == f->stmt)
        return mark->count;
    }
  return self->statements;
}

static void
leaf_event (CrTensor    *leaf,
            CrLeafEvent  event,
            gpointer     user_data)
{
  CrGradProbe *self = user_data;
  if (event == CR_LEAF_MADE)
    {
      guint ordinal = ++self->made;
      if (ordinal == self->nudge_ordinal)
        {
          self->nudge_leaf = cr_tensor_ref (leaf);
          if (self->interp && (gint64) self->interp->statements_run >= self->nudge_statement)
            apply_nudge (self);
        }
      /* Only the run that reads gradients keeps every leaf, and only
       * those made before its first backward ended. */
      if (self->mode != CR_GRAD_PROBE_STOP_AFTER_BACKWARD || self->backward_ended)
        return;
      CrGradProbeLeaf info = { .ordinal = ordinal, .record_id = -1 };
      g_array_append_val (self->infos, info);
      g_ptr_array_add (self->leaves, cr_tensor_ref (leaf));
      g_hash_table_insert (self->ordinals, leaf, GUINT_TO_POINTER (ordinal));
      return;
    }
  guint ordinal = GPOINTER_TO_UINT (g_hash_table_lookup (self->ordinals, leaf));
  if (ordinal == 0)
    return;
  CrGradProbeLeaf *info = &g_array_index (self->infos, CrGradProbeLeaf, ordinal - 1);
  if (info->statement == 0)
    info->statement = running_statement (self);
}

void
cr_grad_probe_run_begin (CrGradProbe *self)
{
  thread_probe = self;
  cr_autograd_set_leaf_observer (leaf_event, self);
}

void
cr_grad_probe_run_end (CrGradProbe *self)
{
  if (thread_probe == self)
    thread_probe = NULL;
  cr_autograd_set_leaf_observer (NULL, NULL);
  g_clear_pointer (&self->nudge_leaf, cr_tensor_unref);
  g_ptr_array_set_size (self->leaves, 0);
  g_hash_table_remove_all (self->ordinals);
  g_ptr_array_set_size (self->grads_before, 0);
  if (self->interp)
    cr_torch_state (self->interp)->grad_probe = NULL;
  self->interp = NULL;
}

void
cr_grad_probe_statement (void)
{
  CrGradProbe *self = thread_probe;
  if (G_LIKELY (self == NULL) || !self->interp)
    return;
  /* CrBinding.statement also comes when a call returns, to give the
   * caller's statement back its span: only a new count is a start. */
  gint64 count = (gint64) self->interp->statements_run;
  if (count == self->statements)
    return;
  self->statements = count;
  CrFrame *f = self->interp->frame;
  if (f && self->mode == CR_GRAD_PROBE_STOP_AFTER_BACKWARD)
    {
      FrameMark *mark = g_hash_table_lookup (self->frame_marks, f);
      if (!mark)
        {
          mark = g_new (FrameMark, 1);
          g_hash_table_insert (self->frame_marks, f, mark);
        }
      mark->stmt = f->stmt;
      mark->count = count;
    }
  if (self->nudge_leaf && count >= self->nudge_statement)
    apply_nudge (self);
}

/* t's values as doubles (new array); NULL for NULL or a tensor off the CPU. */
static double *
values_of (const CrTensor *t)
{
  if (!t || t->device != CR_DEVICE_CPU)
    return NULL;
  double *values = g_new (double, (gsize) MAX (t->numel, 1));
  for (gint64 j = 0; j < t->numel; j++)
    values[j] = cr_tensor_get_flat (t, j);
  return values;
}

static gboolean
stop (CrGradProbe *self,
      GError     **error)
{
  self->stopped = TRUE;
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_KEYBOARD_INTERRUPT,
                       "chainrule check stops the run at its first backward call");
  return FALSE;
}

gboolean
cr_grad_probe_backward_begin (CrGradProbe     *self,
                              CrTensor *const *roots,
                              CrTensor *const *grad_roots,
                              guint            n_roots,
                              gboolean         is_grad,
                              GError         **error)
{
  if (self->reached_backward)
    return TRUE;   /* a backward inside the first one (a hook's) */
  self->reached_backward = TRUE;
  self->n_roots = n_roots;
  self->is_grad = is_grad;
  double sum = 0;
  for (guint i = 0; i < n_roots; i++)
    {
      const CrTensor *r = roots[i];
      const CrTensor *g = grad_roots ? grad_roots[i] : NULL;
      if (!r || r->device != CR_DEVICE_CPU || (g && g->device != CR_DEVICE_CPU))
        {
          sum = NAN;
          break;
        }
      for (gint64 j = 0; j < r->numel; j++)
        sum += cr_tensor_get_flat (r, j) * (g && j < g->numel ? cr_tensor_get_flat (g, j) : 1.0);
    }
  self->objective = sum;
  if (self->mode == CR_GRAD_PROBE_STOP_BEFORE_BACKWARD)
    return stop (self, error);
  self->in_first_backward = TRUE;
  for (guint i = 0; i < self->leaves->len; i++)
    {
      const CrTensor *leaf = g_ptr_array_index (self->leaves, i);
      g_ptr_array_add (self->grads_before, values_of (leaf->grad));
    }
  return TRUE;
}

gboolean
cr_grad_probe_backward_end (CrGradProbe *self,
                            CrInterp    *interp,
                            GError     **error)
{
  if (!self->in_first_backward)
    return TRUE;
  self->in_first_backward = FALSE;
  self->backward_ended = TRUE;
  for (guint i = 0; i < self->leaves->len; i++)
    {
      CrTensor *leaf = g_ptr_array_index (self->leaves, i);
      CrGradProbeLeaf *info = &g_array_index (self->infos, CrGradProbeLeaf, i);
      info->dtype = leaf->dtype;
      info->ndim = leaf->ndim;
      memcpy (info->shape, leaf->shape, sizeof info->shape);
      info->numel = leaf->numel;
      const double *before = i < self->grads_before->len ? self->grads_before->pdata[i] : NULL;
      double *after = values_of (leaf->grad);
      if (!after || (leaf->grad && leaf->grad->numel != leaf->numel))
        {
          g_free (after);
          continue;
        }
      for (gint64 j = 0; before && j < leaf->numel; j++)
        after[j] -= before[j];
      info->grad = after;
      info->record_id = cr_run_recorder_tensor (interp, leaf);
    }
  return stop (self, error);
}

gboolean
cr_grad_probe_reached_backward (const CrGradProbe *self)
{
  return self->reached_backward;
}

gboolean
cr_grad_probe_stopped (const CrGradProbe *self)
{
  return self->stopped;
}

double
cr_grad_probe_objective (const CrGradProbe *self)
{
  return self->objective;
}

guint
cr_grad_probe_n_roots (const CrGradProbe *self)
{
  return self->n_roots;
}

gboolean
cr_grad_probe_backward_is_grad (const CrGradProbe *self)
{
  return self->is_grad;
}

guint
cr_grad_probe_n_leaves (const CrGradProbe *self)
{
  return self->infos->len;
}

const CrGradProbeLeaf *
cr_grad_probe_leaf (const CrGradProbe *self,
                    guint              index)
{
  g_return_val_if_fail (index < self->infos->len, NULL);
  return &g_array_index (self->infos, CrGradProbeLeaf, index);
}

const double *
cr_grad_probe_nudged_by (const CrGradProbe *self,
                         gint64            *out_n)
{
  if (out_n)
    *out_n = self->nudged_n;
  return self->nudged_by;
}
