/* cr-path-tour.c — a leaf element's paths to the loss, one view at a time
 * (cr-path-tour.h). */
#include "cr-path-tour.h"

#include <math.h>

/* The sum view writes out at most this many terms. */
#define SUM_TERMS 8

struct _CrPathTour
{
  CrRunRecord *record;    /* a reference */
  CrPathSum   *sum;       /* owned */
  guint        view;
};

CrPathTour *
cr_path_tour_new (CrRunRecord *record,
                  int          backward,
                  int          leaf,
                  gint64       element,
                  GError     **error)
{
  g_return_val_if_fail (record != NULL, NULL);
  CrPathSum *sum = backward < 0
                   ? cr_path_sum_new (record, leaf, element, CR_PATH_TOUR_MAX_PATHS, error)
                   : cr_path_sum_new_in_call (record, backward, leaf, element,
                                              CR_PATH_TOUR_MAX_PATHS, error);
  if (!sum)
    return NULL;
  CrPathTour *self = g_new0 (CrPathTour, 1);
  self->record = cr_run_record_ref (record);
  self->sum = sum;
  return self;
}

void
cr_path_tour_free (CrPathTour *self)
{
  if (!self)
    return;
  cr_path_sum_free (self->sum);
  cr_run_record_unref (self->record);
  g_free (self);
}

const CrPathSum *
cr_path_tour_get_sum (const CrPathTour *self)
{
  return self->sum;
}

guint
cr_path_tour_get_n_views (const CrPathTour *self)
{
  return self->sum->paths->len + 1;
}

guint
cr_path_tour_get_view (const CrPathTour *self)
{
  return self->view;
}

void
cr_path_tour_set_view (CrPathTour *self,
                       guint       view)
{
  self->view = MIN (view, self->sum->paths->len);
}

gboolean
cr_path_tour_is_sum_view (const CrPathTour *self)
{
  return self->view >= self->sum->paths->len;
}

CrGraphHighlight *
cr_path_tour_highlight (const CrPathTour *self)
{
  CrGraphHighlight *highlight = cr_graph_highlight_new ();
  guint n = self->sum->paths->len;
  for (guint p = 0; p < n; p++)
    if (p == self->view || self->view >= n)
      cr_graph_highlight_add_path (highlight, self->sum->paths->pdata[p]);
  return highlight;
}

/* "a[0, 0]" for tensor `tensor`'s element (new string). */
static char *
element_name (const CrRunRecord *record,
              int                tensor,
              gint64             element)
{
  if (tensor < 0 || (guint) tensor >= record->tensors->len)
    return g_strdup ("?");
  const CrRecordTensor *t = record->tensors->pdata[tensor];
  g_autofree char *index = cr_record_element_text (t, element);
  return g_strdup_printf ("%s%s", t->label ? t->label : "?", index);
}

static char *
leaf_name (const CrPathTour *self)
{
  return element_name (self->record, self->sum->leaf, self->sum->element);
}

char *
cr_path_tour_title (const CrPathTour *self)
{
  g_autofree char *leaf = leaf_name (self);
  guint n = self->sum->paths->len;
  if (self->view < n)
    return g_strdup_printf ("Path %u of %u%s from %s", self->view + 1, n,
                            self->sum->truncated ? "+" : "", leaf);
  return g_strdup_printf ("%s %u path%s from %s", self->sum->truncated ? "The first" : "All", n,
                          n == 1 ? "" : "s", leaf);
}

char *
cr_path_tour_chain (const CrPathTour *self)
{
  GString *s = g_string_new (NULL);
  guint n = self->sum->paths->len;
  if (self->view >= n)
    {
      for (guint p = 0; p < n && p < SUM_TERMS; p++)
        g_string_append_printf (s, "%spath %u", p ? " + " : "", p + 1);
      if (n > SUM_TERMS)
        g_string_append_printf (s, " + … + path %u", n);
      return g_string_free (s, FALSE);
    }
  const CrPath *path = self->sum->paths->pdata[self->view];
  for (guint h = 0; h < path->hops->len; h++)
    {
      const CrPathHop *hop = &g_array_index (path->hops, CrPathHop, h);
      g_autofree char *name = element_name (self->record, hop->tensor, hop->element);
      g_string_append_printf (s, "%s%s", h ? " → " : "", name);
    }
  /* A root of one element is the loss itself; a root given a gradient
   * (y.backward(v)) reaches L through it. */
  const CrPathHop *last = &g_array_index (path->hops, CrPathHop, path->hops->len - 1);
  if (last->factor != 1.0)
    g_string_append (s, " → L");
  return g_string_free (s, FALSE);
}

/* A number as a term of a product or a sum: negatives after the first in
 * brackets. */
static void
append_term (GString    *s,
             const char *joiner,
             double      value)
{
  if (s->len)
    g_string_append (s, joiner);
  if (s->len && signbit (value))
    g_string_append_printf (s, "(%.4g)", value);
  else
    g_string_append_printf (s, "%.4g", value);
}

char *
cr_path_tour_product (const CrPathTour *self)
{
  GString *s = g_string_new (NULL);
  const CrPathSum *sum = self->sum;
  guint n = sum->paths->len;
  if (self->view < n)
    {
      const CrPath *path = sum->paths->pdata[self->view];
      for (guint h = 0; h < path->hops->len; h++)
        {
          const CrPathHop *hop = &g_array_index (path->hops, CrPathHop, h);
          /* The root's own 1 (dL/dL) is no factor worth writing. */
          if (hop->op >= 0 || hop->factor != 1.0 || path->hops->len == 1)
            append_term (s, " × ", hop->factor);
        }
      g_string_append_printf (s, " = %.6g", path->product);
      return g_string_free (s, FALSE);
    }
  for (guint p = 0; p < n && p < SUM_TERMS; p++)
    append_term (s, " + ", ((const CrPath *) sum->paths->pdata[p])->product);
  if (n > SUM_TERMS)
    g_string_append (s, " + …");
  g_string_append_printf (s, " = %.6g", sum->sum);
  const CrRecordTensor *t = self->record->tensors->pdata[sum->leaf];
  g_autofree char *index = cr_record_element_text (t, sum->element);
  if (sum->truncated)
    g_string_append (s, ", only part of the gradient");
  else if (isnan (sum->grad))
    ;
  else if (fabs (sum->sum - sum->grad) <= 1e-5 + 1e-4 * fabs (sum->grad))
    g_string_append_printf (s, " = %s.grad%s", t->label ? t->label : "?", index);
  else
    g_string_append_printf (s, ", but %s.grad%s is %.6g%s", t->label ? t->label : "?", index,
                            sum->grad, sum->hooks_changed ? " (a hook changed it)" : "");
  return g_string_free (s, FALSE);
}
