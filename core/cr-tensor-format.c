/* cr-tensor-format.c — repr(tensor), character for character as PyTorch 1.13.
 *
 * This is torch/_tensor_str.py transcribed: a _Formatter chooses integer,
 * fixed or scientific mode and a common width from the elements that will be
 * shown, _tensor_str_with_formatter nests brackets (blocks of an n-d tensor
 * are separated by n - 2 blank lines), _vector_str wraps rows at the line
 * width, and _add_suffixes appends device=, dtype=, grad_fn= or
 * requires_grad=.
 *
 * Elements are read as doubles (float32 widened, exactly what .tolist() hands
 * Python) and printed with printf's %.Nf / %.Ne, which round exactly like
 * Python's format() does; only NaN and infinity need Python's spelling. */
#include "cr-tensor-format.h"

#include <math.h>
#include <string.h>

#include "cr-tensor.h"
#include "cr-dtype.h"
#include "cr-node.h"
#include "cr-kernels.h"

typedef struct {
  const CrTensor       *t;           /* host tensor read: the one printed, or its shown part */
  const gint64         *shape;       /* the printed tensor's shape */
  const CrPrintOptions *options;
  gboolean              summarize;
  gint64                row_stride[CR_MAX_DIMS];  /* t's logical row-major strides */
  gint64                gap[CR_MAX_DIMS];         /* middle indices of a dim that t lacks */

  /* The _Formatter. */
  gboolean              floating;
  gboolean              int_mode;
  gboolean              sci_mode;
  int                   max_width;

  GString              *scratch;     /* one element's text */
} Printer;

void
cr_print_options_init_default (CrPrintOptions *options)
{
  g_return_if_fail (options != NULL);

  options->precision = 4;
  options->threshold = 1000;
  options->edgeitems = 3;
  options->linewidth = 80;
  options->sci_mode = -1;
}

/* ---- element text --------------------------------------------------------- */

/* Python's "{:.Nf}" / "{:.Ne}": printf's digits, Python's inf and nan (a NaN
 * never shows a sign in Python). */
static void
append_float (GString *out,
              double   value,
              int      precision,
              gboolean sci)
{
  if (isnan (value))
    g_string_append (out, "nan");
  else if (isinf (value))
    g_string_append (out, value < 0 ? "-inf" : "inf");
  else
    g_string_append_printf (out, sci ? "%.*e" : "%.*f", precision, value);
}

/* The element's text before padding to the common width (_Formatter.format
 * without the padding, which is also what sets max_width). */
static void
append_element (const Printer *p,
                GString       *out,
                gint64         flat)
{
  if (!p->floating)
    {
      if (p->t->dtype == CR_DTYPE_BOOL)
        g_string_append (out, cr_tensor_get_flat (p->t, flat) != 0.0 ? "True" : "False");
      else
        g_string_append_printf (out, "%" G_GINT64_FORMAT, cr_tensor_get_flat_int (p->t, flat));
      return;
    }

  {
    double value = cr_tensor_get_flat (p->t, flat);

    if (p->sci_mode)
      append_float (out, value, p->options->precision, TRUE);
    else if (p->int_mode)
      {
        append_float (out, value, 0, FALSE);
        if (isfinite (value))
          g_string_append_c (out, '.');
      }
    else
      append_float (out, value, p->options->precision, FALSE);
  }
}

/* _Formatter.format(): the element right-aligned to max_width. */
static void
append_formatted (const Printer *p,
                  GString       *out,
                  gint64         flat)
{
  GString *scratch = p->scratch;

  g_string_truncate (scratch, 0);
  append_element (p, scratch, flat);
  for (int i = (int) scratch->len; i < p->max_width; i++)
    g_string_append_c (out, ' ');
  g_string_append_len (out, scratch->str, (gssize) scratch->len);
}

/* ---- which elements are shown --------------------------------------------- */

/* Whether a dimension of this size is cut short: summarisation keeps
 * edgeitems at each end of a dimension longer than twice that. */
static gboolean
dim_is_summarized (const Printer *p,
                   gint64         size)
{
  return p->summarize && size > 2 * (gint64) p->options->edgeitems;
}

/* The flat-index step of index i along dim in t (which may lack the hidden
 * middle of that dim: then the tail indices move down by its size). */
static gint64
shown_offset (const Printer *p,
              int            dim,
              gint64         i)
{
  if (p->gap[dim] > 0 && i >= p->shape[dim] - p->options->edgeitems)
    i -= p->gap[dim];
  return i * p->row_stride[dim];
}

typedef void (*ElementFunc) (Printer *p,
                             gint64   flat,
                             gpointer user_data);

/* Visits the shown elements in order (get_summarized_data()).  The depth is
 * the tensor's rank, at most CR_MAX_DIMS, so an explicit index vector replaces
 * recursion. */
static void
foreach_shown (Printer     *p,
               ElementFunc  func,
               gpointer     user_data)
{
  const CrTensor *t = p->t;
  gint64 idx[CR_MAX_DIMS] = { 0 };
  int ndim = t->ndim;

  if (t->numel == 0)
    return;
  if (ndim == 0)
    {
      func (p, 0, user_data);
      return;
    }

  for (;;)
    {
      gint64 flat = 0;
      int d;

      for (d = 0; d < ndim; d++)
        flat += shown_offset (p, d, idx[d]);
      func (p, flat, user_data);

      /* Odometer step, jumping over the hidden middle of summarised dims. */
      for (d = ndim - 1; d >= 0; d--)
        {
          gint64 size = p->shape[d];
          idx[d]++;
          if (dim_is_summarized (p, size) && idx[d] == p->options->edgeitems)
            idx[d] = size - p->options->edgeitems;
          if (idx[d] < size)
            break;
          idx[d] = 0;
        }
      if (d < 0)
        break;
    }
}

typedef struct {
  gboolean any;
  double   min_abs;
  double   max_abs;
  gboolean int_mode;
} Stats;

static void
collect_stats (Printer *p,
               gint64   flat,
               gpointer user_data)
{
  Stats *s = user_data;
  double value = cr_tensor_get_flat (p->t, flat);
  double a;

  if (!isfinite (value) || value == 0.0)
    return;
  a = fabs (value);
  if (!s->any)
    {
      s->min_abs = s->max_abs = a;
      s->any = TRUE;
    }
  else
    {
      s->min_abs = MIN (s->min_abs, a);
      s->max_abs = MAX (s->max_abs, a);
    }
  if (value != ceil (value))
    s->int_mode = FALSE;
}

static void
measure_width (Printer *p,
               gint64   flat,
               gpointer user_data)
{
  GString *buf = user_data;
  int len;

  /* Zeros and non-finite values do not count towards a float's width. */
  if (p->floating)
    {
      double value = cr_tensor_get_flat (p->t, flat);
      if (!isfinite (value) || value == 0.0)
        return;
    }

  g_string_truncate (buf, 0);
  append_element (p, buf, flat);
  len = (int) buf->len;
  p->max_width = MAX (p->max_width, len);
}

/* _Formatter.__init__ over the shown elements. */
static void
formatter_init (Printer *p)
{
  g_autoptr(GString) buf = g_string_new (NULL);
  Stats s = { FALSE, 0.0, 0.0, TRUE };

  p->floating = cr_dtype_is_floating (p->t->dtype);
  p->int_mode = TRUE;
  p->sci_mode = FALSE;
  p->max_width = 1;

  if (p->floating)
    {
      foreach_shown (p, collect_stats, &s);
      if (!s.any)
        return;   /* no nonzero finite value: width 1, integer mode, even
                   * under sci_mode=True (PyTorch returns before it) */

      p->int_mode = s.int_mode;
      if (p->int_mode)
        p->sci_mode = s.max_abs / s.min_abs > 1000.0 || s.max_abs > 1.0e8;
      else
        p->sci_mode = s.max_abs / s.min_abs > 1000.0 || s.max_abs > 1.0e8
                      || s.min_abs < 1.0e-4;
    }

  /* In integer mode the width counts the '.' that append_element adds. */
  foreach_shown (p, measure_width, buf);
  /* set_printoptions(sci_mode=...) decides the format after the width was
   * measured in the mode chosen above, as PyTorch's _Formatter does. */
  if (p->floating && p->options->sci_mode >= 0)
    p->sci_mode = p->options->sci_mode;
}

/* ---- layout ---------------------------------------------------------------- */

static void
append_indent (GString *out,
               int      n)
{
  for (int i = 0; i < n; i++)
    g_string_append_c (out, ' ');
}

/* _vector_str(). base is the flat index of the row's first element. */
static void
append_vector (const Printer *p,
               GString       *out,
               int            dim,
               gint64         base,
               int            indent)
{
  gint64 size = p->shape[dim];
  int element_length = p->max_width + 2;
  int per_line = (int) floor ((double) (p->options->linewidth - indent) / element_length);
  gboolean summarized = dim_is_summarized (p, size);
  int edge = p->options->edgeitems;
  gint64 n_items = summarized ? 2 * edge + 1 : size;

  if (per_line < 1)
    per_line = 1;

  g_string_append_c (out, '[');
  for (gint64 k = 0; k < n_items; k++)
    {
      if (k > 0)
        {
          if (k % per_line == 0)
            {
              g_string_append (out, ",\n");
              append_indent (out, indent + 1);
            }
          else
            g_string_append (out, ", ");
        }

      if (summarized && k == edge)
        g_string_append (out, " ...");
      else
        {
          gint64 i = k;
          if (summarized && k > edge)
            i = size - (n_items - k);
          append_formatted (p, out, base + shown_offset (p, dim, i));
        }
    }
  g_string_append_c (out, ']');
}

/* _tensor_str_with_formatter(). Recursion depth is bounded by the rank. */
static void
append_slices (const Printer *p,
               GString       *out,
               int            dim,
               gint64         base,
               int            indent)
{
  int remaining = p->t->ndim - dim;
  gint64 size;
  gboolean summarized;
  int edge = p->options->edgeitems;

  if (remaining == 0)
    {
      append_formatted (p, out, base);
      return;
    }
  if (remaining == 1)
    {
      append_vector (p, out, dim, base, indent);
      return;
    }

  size = p->shape[dim];
  summarized = dim_is_summarized (p, size);

  g_string_append_c (out, '[');
  for (gint64 i = 0; i < size; i++)
    {
      if (i > 0)
        {
          g_string_append_c (out, ',');
          for (int n = 0; n < remaining - 1; n++)
            g_string_append_c (out, '\n');
          append_indent (out, indent + 1);
        }
      if (summarized && i == edge)
        {
          g_string_append (out, "...");
          i = size - edge - 1;
          continue;
        }
      append_slices (p, out, dim + 1, base + shown_offset (p, dim, i), indent + 1);
    }
  g_string_append_c (out, ']');
}

/* A host tensor to read the shown elements from: t itself on the CPU; for a
 * device tensor, only what is shown, as PyTorch slices the edges before
 * reading: each summarized dim keeps its edgeitems at both ends, its middle
 * (gap[d] indices) left out, one copy per corner of those dims (at most
 * 2^CR_MAX_DIMS small ones). So a huge expanded CUDA tensor reads a few
 * elements, as on the CPU. */
static CrTensor *
host_tensor (const CrTensor *t,
             gboolean        summarize,
             int             edge,
             gint64         *gap)
{
  gint64 shape[CR_MAX_DIMS], part[CR_MAX_DIMS];
  int cut[CR_MAX_DIMS], n_cut = 0;
  g_autoptr(CrTensor) host = NULL;

  for (int d = 0; d < CR_MAX_DIMS; d++)
    gap[d] = 0;
  if (t->device == CR_DEVICE_CPU)
    return cr_tensor_ref ((CrTensor *) t);

  for (int d = 0; d < t->ndim; d++)
    {
      shape[d] = t->shape[d];
      if (summarize && t->shape[d] > 2 * (gint64) edge)
        {
          gap[d] = t->shape[d] - 2 * (gint64) edge;
          shape[d] = 2 * (gint64) edge;
          cut[n_cut++] = d;
        }
    }
  host = cr_tensor_new_empty (shape, t->ndim, t->dtype, CR_DEVICE_CPU, NULL);
  if (host == NULL)
    return NULL;
  for (guint corner = 0; corner < (1u << n_cut); corner++)
    {
      g_autoptr(CrTensor) src = NULL;
      g_autoptr(CrTensor) dst = NULL;
      gint64 src_offset = t->offset, dst_offset = host->offset;

      for (int d = 0; d < t->ndim; d++)
        part[d] = shape[d];
      for (int k = 0; k < n_cut; k++)
        {
          int d = cut[k];

          part[d] = edge;
          if (corner & (1u << k))
            {
              src_offset += (t->shape[d] - edge) * t->strides[d];
              dst_offset += edge * host->strides[d];
            }
        }
      src = cr_tensor_new_view (t, part, t->ndim, t->strides, src_offset);
      dst = cr_tensor_new_view (host, part, t->ndim, host->strides, dst_offset);
      if (!cr_kernel_copy_into (dst, src, NULL))
        return NULL;
    }
  return g_steal_pointer (&host);
}

/* _tensor_str(): the bracketed data. */
static void
append_data (GString              *out,
             const CrTensor       *t,
             const CrPrintOptions *options,
             int                   indent)
{
  g_autoptr(CrTensor) host = NULL;
  g_autoptr(GString) scratch = NULL;
  Printer p = { 0 };

  if (t->numel == 0)
    {
      g_string_append (out, "[]");
      return;
    }

  p.summarize = t->numel > options->threshold;
  host = host_tensor (t, p.summarize, options->edgeitems, p.gap);
  if (host == NULL)
    {
      /* The device could not be read; say so instead of printing garbage. */
      g_string_append (out, "[...]");
      return;
    }

  scratch = g_string_new (NULL);
  p.t = host;
  p.shape = t->shape;
  p.options = options;
  p.scratch = scratch;
  cr_shape_contiguous_strides (host->shape, host->ndim, p.row_stride);

  formatter_init (&p);
  append_slices (&p, out, 0, 0, indent);
}

char *
cr_tensor_format_data (const CrTensor       *t,
                       const CrPrintOptions *options,
                       int                   indent)
{
  CrPrintOptions defaults;
  GString *out;

  g_return_val_if_fail (t != NULL, NULL);

  if (options == NULL)
    {
      cr_print_options_init_default (&defaults);
      options = &defaults;
    }

  out = g_string_new (NULL);
  append_data (out, t, options, indent);
  return g_string_free (out, FALSE);
}

/* _add_suffixes(): a suffix goes on a new line when the current one would
 * pass the line width.  Python tracks the line length as it goes (starting at
 * len(s) - s.rfind("\n") + 1, two more than the true length), and so does
 * this. */
static void
add_suffixes (GString   *out,
              GPtrArray *suffixes,
              int        linewidth,
              int        indent)
{
  const char *last_newline = strrchr (out->str, '\n');
  gsize last_line_len = last_newline != NULL
                          ? (gsize) (out->str + out->len - last_newline) + 1
                          : out->len + 2;

  for (guint i = 0; i < suffixes->len; i++)
    {
      const char *suffix = g_ptr_array_index (suffixes, i);
      gsize suffix_len = strlen (suffix);

      if (last_line_len + suffix_len + 2 > (gsize) linewidth)
        {
          g_string_append (out, ",\n");
          append_indent (out, indent);
          last_line_len = (gsize) indent + suffix_len;
        }
      else
        {
          g_string_append (out, ", ");
          last_line_len += suffix_len + 2;
        }
      g_string_append (out, suffix);
    }
  g_string_append_c (out, ')');
}

char *
cr_tensor_format (const CrTensor       *t,
                  const CrPrintOptions *options)
{
  return cr_tensor_format_named (t, options, "tensor");
}

char *
cr_tensor_format_named (const CrTensor       *t,
                        const CrPrintOptions *options,
                        const char           *name)
{
  CrPrintOptions defaults;
  g_autoptr(GPtrArray) suffixes = g_ptr_array_new_with_free_func (g_free);
  GString *out;

  g_return_val_if_fail (t != NULL, NULL);

  if (options == NULL)
    {
      cr_print_options_init_default (&defaults);
      options = &defaults;
    }

  if (t->device == CR_DEVICE_CUDA)
    g_ptr_array_add (suffixes, g_strdup ("device='cuda:0'"));

  if (t->numel == 0)
    {
      /* NumPy-style: the shape unless it is (0,), and the dtype even for
       * int64, since no element shows it. */
      if (t->ndim != 1)
        {
          GString *size = g_string_new ("size=(");
          for (int d = 0; d < t->ndim; d++)
            g_string_append_printf (size, d > 0 ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT,
                                    t->shape[d]);
          g_string_append_c (size, ')');
          g_ptr_array_add (suffixes, g_string_free (size, FALSE));
        }
      if (t->dtype != CR_DTYPE_FLOAT32)
        g_ptr_array_add (suffixes, g_strconcat ("dtype=", cr_dtype_name (t->dtype), NULL));
    }
  else if (t->dtype != CR_DTYPE_FLOAT32 && t->dtype != CR_DTYPE_INT64 && t->dtype != CR_DTYPE_BOOL)
    {
      /* float32, int64 and bool are "default" dtypes that print no suffix. */
      g_ptr_array_add (suffixes, g_strconcat ("dtype=", cr_dtype_name (t->dtype), NULL));
    }

  if (t->grad_fn != NULL)
    g_ptr_array_add (suffixes, g_strdup_printf ("grad_fn=<%s>", cr_node_name (t->grad_fn)));
  else if (t->requires_grad)
    g_ptr_array_add (suffixes, g_strdup ("requires_grad=True"));

  out = g_string_new (name);
  g_string_append_c (out, '(');
  int indent = (int) out->len;
  append_data (out, t, options, indent);
  add_suffixes (out, suffixes, options->linewidth, indent);
  return g_string_free (out, FALSE);
}
