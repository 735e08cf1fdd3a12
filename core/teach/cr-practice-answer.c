/* cr-practice-answer.c — what a learner typed, read as a number or a small
 * tensor: Python's nested lists, MATLAB's rows ("[1, 2; 3, 4]"), or the
 * entries alone ("1 2 3 4"), with fractions ("-1/3") and the minus sign a
 * keyboard or a copy from the card gives ("−"). */
#include "cr-practice.h"

#include "cr-error.h"

#include <math.h>
#include <string.h>

#define MAX_ENTRIES 4096

typedef struct {
  const char *p;
  GArray     *values;
  GError    **error;
} Reader;

static void
skip_space (Reader *r)
{
  while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
    r->p++;
}

static gboolean
fail (Reader     *r,
      const char *message)
{
  if (r->error && !*r->error)
    g_set_error_literal (r->error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR, message);
  return FALSE;
}

/* A number: "2", "-1.5e-3", "−0.5", "1/3", "nan". */
static gboolean
read_number (Reader *r,
             double *out)
{
  double sign = 1;
  /* U+2212 MINUS SIGN, as the card and many fonts write it. */
  if (g_str_has_prefix (r->p, "\xe2\x88\x92"))
    {
      sign = -1;
      r->p += 3;
    }
  char *end = NULL;
  double v = g_ascii_strtod (r->p, &end);
  if (end == r->p)
    return fail (r, "Type a number such as -1.5, or the entries of a tensor such as [1, 2; 3, 4].");
  r->p = end;
  if (*r->p == '/')
    {
      const char *after = r->p + 1;
      double d = g_ascii_strtod (after, &end);
      if (end == after)
        return fail (r, "A fraction needs a number after the /, as in -1/3.");
      if (d == 0)
        return fail (r, "A fraction cannot divide by 0.");
      v /= d;
      r->p = end;
    }
  /* Numbers copied from a printed tensor: "1.", "2.5000e-01" are read above;
   * a dtype suffix such as "j" is not ours. */
  *out = sign * v;
  return TRUE;
}

static gboolean
is_separator (char c)
{
  return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Items up to `close` (']' or the end, '\0'), each a number or a nested
 * list; ';' separates rows of numbers. Fills shape[depth...] and checks
 * that every sibling has the same shape. *ndim_seen is the depth of the
 * deepest level, set by the first item. */
static gboolean read_items (Reader *r, char close, int depth, gint64 *shape, int *ndim_seen);

/* One item at depth: a number (its depth is the answer's ndim) or "[...]". */
static gboolean
read_item (Reader *r,
           int     depth,
           gint64 *shape,
           int    *ndim_seen)
{
  skip_space (r);
  if (*r->p == '[')
    {
      if (depth >= CR_MAX_DIMS)
        return fail (r, "That has more brackets inside each other than a tensor here has dims.");
      r->p++;
      if (!read_items (r, ']', depth + 1, shape, ndim_seen))
        return FALSE;
      if (*r->p != ']')
        return fail (r, "A [ is not closed by a ].");
      r->p++;
      return TRUE;
    }
  if (*ndim_seen < 0)
    *ndim_seen = depth;
  else if (*ndim_seen != depth)
    return fail (r, "Some entries are inside more brackets than others.");
  if (r->values->len >= MAX_ENTRIES)
    return fail (r, "That is more entries than any answer here has.");
  double v;
  if (!read_number (r, &v))
    return FALSE;
  g_array_append_val (r->values, v);
  return TRUE;
}

static gboolean
read_items (Reader *r,
            char    close,
            int     depth,
            gint64 *shape,
            int    *ndim_seen)
{
  /* Rows separated by ';' at this level make it a level of two: the rows
   * at depth, their entries at depth + 1. */
  const char *start = r->p;
  int level = 0;
  gboolean rows = FALSE;
  for (const char *q = start; *q && !(level == 0 && *q == close && close); q++)
    {
      if (*q == '[')
        level++;
      else if (*q == ']')
        level--;
      else if (*q == ';' && level == 0)
        rows = TRUE;
      if (level < 0)
        break;
    }
  if (rows && depth + 1 >= CR_MAX_DIMS)
    return fail (r, "That has more rows inside each other than a tensor here has dims.");

  gint64 count = 0, row_count = 0, in_row = 0;
  int entry_depth = rows ? depth + 1 : depth;
  for (;;)
    {
      while (is_separator (*r->p))
        r->p++;
      if (!*r->p || *r->p == close)
        break;
      if (*r->p == ']')
        return fail (r, "There is a ] without its [.");
      if (rows && *r->p == ';')
        {
          r->p++;
          /* A row ends: every row as long as the first, none empty. */
          if (in_row == 0)
            return fail (r, "A row has no entries.");
          if (row_count == 0)
            shape[depth + 1] = in_row;
          else if (shape[depth + 1] != in_row)
            return fail (r, "The rows have different numbers of entries.");
          row_count++;
          in_row = 0;
          continue;
        }
      if (!read_item (r, entry_depth, shape, ndim_seen))
        return FALSE;
      if (rows)
        in_row++;
      else
        count++;
    }
  if (rows)
    {
      /* The last row, unless the text ended with a ';'. */
      if (in_row > 0)
        {
          if (row_count == 0)
            shape[depth + 1] = in_row;
          else if (shape[depth + 1] != in_row)
            return fail (r, "The rows have different numbers of entries.");
          row_count++;
        }
      count = row_count;
    }
  if (count == 0)
    return fail (r, "There is nothing between the brackets.");
  /* Siblings of the same shape: a level's size is set by its first list. */
  if (shape[depth] < 0)
    shape[depth] = count;
  else if (shape[depth] != count)
    return fail (r, "The rows have different numbers of entries.");
  return TRUE;
}

CrPracticeAnswer *
cr_practice_answer_parse (const char  *text,
                          GError     **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  g_autofree char *copy = g_strstrip (g_strdup (text));
  char *body = copy;
  /* "tensor([1., 2.])" and "tensor([1., 2.], grad_fn=<...>)" copied from print(). */
  if (g_str_has_prefix (body, "tensor("))
    {
      body += strlen ("tensor(");
      char *cut = strstr (body, ", grad_fn=");
      if (!cut)
        cut = strrchr (body, ')');
      if (cut)
        *cut = '\0';
    }
  Reader r = { .p = body, .values = g_array_new (FALSE, FALSE, sizeof (double)), .error = error };
  gint64 shape[CR_MAX_DIMS + 1];
  for (int d = 0; d <= CR_MAX_DIMS; d++)
    shape[d] = -1;
  int ndim_seen = -1;
  /* The top level is a list without brackets ("1 2 3", "1, 2; 3, 4") or
   * one bracketed item. */
  gboolean ok = read_items (&r, '\0', 0, shape, &ndim_seen);
  if (ok && *r.p)
    ok = fail (&r, "There is a ] without its [.");
  if (ok && r.values->len == 0)
    ok = fail (&r, "There is no number in that.");
  if (!ok)
    {
      g_array_unref (r.values);
      return NULL;
    }
  CrPracticeAnswer *answer = g_new0 (CrPracticeAnswer, 1);
  answer->values = r.values;
  /* The unbracketed top level is one more level than the answer has:
   * "[1, 2]" is one item at depth 0 holding 2; "1 2" two items. */
  if (shape[0] == 1 && ndim_seen > 0)
    {
      answer->ndim = ndim_seen;
      for (int d = 0; d < answer->ndim; d++)
        answer->shape[d] = shape[d + 1];
    }
  else if (shape[0] == 1 && ndim_seen == 0)
    answer->ndim = 0;          /* one bare number */
  else
    {
      answer->ndim = MAX (ndim_seen, 0) + 1;
      if (answer->ndim > CR_MAX_DIMS)
        {
          cr_practice_answer_free (answer);
          g_set_error_literal (error, CR_CORE_ERROR, CR_EXC_VALUE_ERROR,
                               "That has more dims than a tensor here has.");
          return NULL;
        }
      for (int d = 0; d < answer->ndim; d++)
        answer->shape[d] = shape[d];
    }
  return answer;
}

void
cr_practice_answer_free (CrPracticeAnswer *self)
{
  if (!self)
    return;
  g_array_unref (self->values);
  g_free (self);
}

static void
append_number (GString *s,
               double   v)
{
  if (isnan (v))
    g_string_append (s, "nan");
  else if (isinf (v))
    g_string_append (s, v > 0 ? "inf" : "-inf");
  else
    {
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (buffer, sizeof buffer, "%.4g", v == 0 ? 0.0 : v);
      g_string_append (s, buffer);
    }
}

static void
append_nested (GString      *s,
               const double *values,
               const gint64 *shape,
               int           ndim,
               int           dim,
               gint64       *at)
{
  if (dim == ndim)
    {
      append_number (s, values[(*at)++]);
      return;
    }
  g_string_append_c (s, '[');
  for (gint64 i = 0; i < shape[dim]; i++)
    {
      if (i > 0)
        g_string_append (s, ", ");
      append_nested (s, values, shape, ndim, dim + 1, at);
    }
  g_string_append_c (s, ']');
}

char *
cr_practice_values_text (const double *values,
                         const gint64 *shape,
                         int           ndim)
{
  GString *s = g_string_new (NULL);
  gint64 at = 0;
  append_nested (s, values, shape, ndim, 0, &at);
  return g_string_free (s, FALSE);
}
