/* cr-op-scalars-nn.c — the layers' ops taken apart (cr-op-scalars.h):
 * a convolution's outputs as sums of the products of its window, the 2-d
 * pools' maxima and averages, and layer, batch and group norm's mean,
 * variance and normalisation as scalar nodes. Their geometry and eps are the op's
 * recorded arguments (CrRecordOp.arguments); a transposed convolution is
 * taken apart as the adjoint it is. */
#include "cr-op-scalars-private.h"
#include "cr-paths.h"

#include <math.h>
#include <string.h>

/* Argument `name`'s value i as an int, fallback when the record keeps none. */
static gint64
argument_int (const CrRecordOp *op,
              const char       *name,
              int               i,
              gint64            fallback)
{
  const CrRecordArgument *a = cr_record_op_argument (op, name);
  if (!a || a->n_values == 0)
    return fallback;
  return (gint64) a->values[MIN (i, a->n_values - 1)];
}

/* "(-0.5)·0.25" into s: a product's numbers. */
static void
append_product (GString *s,
                double   a,
                double   b)
{
  scalars_append_number (s, a);
  g_string_append (s, "·");
  scalars_append_number (s, b);
}

/* ---- convolution ---------------------------------------------------------- */

/* Where one term of a convolution's output element reads: input element
 * xe times weight element we. */
typedef struct {
  gint64 xe, we;
} ConvTerm;

/* The geometry of a batched 1-d or 2-d convolution, 1-d ones as 2-d ones of
 * height 1: the height's numbers are the first of two, the width's the last. */
typedef struct {
  gboolean transposed;
  gint64   N, C, H, W;        /* the input */
  gint64   O, OH, OW;         /* the output */
  gint64   KH, KW, groups;
  gint64   in_per_group;      /* input channels a group reads */
  gint64   out_per_group;     /* output channels a group makes */
  gint64   sh, sw, ph, pw, dh, dw;
} ConvGeometry;

/* The terms of output element (n, o, i, j), in the order (channel, kernel
 * row, kernel column). A convolution's reads x[n, c, i·s − pad + p·d, …]
 * against w[o, c, p, q]; a transposed one's is its adjoint: x[n, c, h, …]
 * reaches output row h·s − pad + p·d through w[c, o, p, q], so output row
 * i reads input row (i + pad − p·d)/s where that divides. Padding reads
 * zeros: no term. */
static void
conv_terms (const ConvGeometry *g,
            gint64              n,
            gint64              o,
            gint64              i,
            gint64              j,
            GArray             *terms)
{
  gint64 group = o / g->out_per_group;
  for (gint64 cc = 0; cc < g->in_per_group; cc++)
    for (gint64 p = 0; p < g->KH; p++)
      for (gint64 q = 0; q < g->KW; q++)
        {
          gint64 c = group * g->in_per_group + cc, row, col;
          ConvTerm term;
          if (!g->transposed)
            {
              row = i * g->sh - g->ph + p * g->dh;
              col = j * g->sw - g->pw + q * g->dw;
              term.we = ((o * g->in_per_group + cc) * g->KH + p) * g->KW + q;
            }
          else
            {
              gint64 r = i + g->ph - p * g->dh, k = j + g->pw - q * g->dw;
              if (r < 0 || k < 0 || r % g->sh != 0 || k % g->sw != 0)
                continue;
              row = r / g->sh;
              col = k / g->sw;
              term.we = ((c * g->out_per_group + o % g->out_per_group) * g->KH + p) * g->KW + q;
            }
          if (row < 0 || row >= g->H || col < 0 || col >= g->W)
            continue;
          term.xe = ((n * g->C + c) * g->H + row) * g->W + col;
          g_array_append_val (terms, term);
        }
}

/* y[n, o, i, j] = bias[o] + Σ over the terms of x·w (conv_terms). */
gboolean
scalars_build_conv (Build *b)
{
  const CrRecordOp *op = b->op;
  if (op->inputs->len < 2)
    return scalars_fail (b, "has %u inputs where 2 or 3 are expected", op->inputs->len);
  const CrRecordTensor *x = scalars_tensor_at (b->record, g_array_index (op->inputs, int, 0));
  const CrRecordTensor *w = scalars_tensor_at (b->record, g_array_index (op->inputs, int, 1));
  const CrRecordTensor *bias = op->inputs->len > 2
                               ? scalars_tensor_at (b->record, g_array_index (op->inputs, int, 2)) : NULL;
  const CrRecordTensor *y = b->out;
  if (!x || !w)
    return scalars_fail (b, "has an input the record does not keep");
  int spatial = x->ndim - 2;
  if (spatial < 1 || spatial > 2 || w->ndim != x->ndim || y->ndim != x->ndim)
    return scalars_fail (b, "is no batched 1-d or 2-d convolution");
  ConvGeometry g = {
    .transposed = argument_int (op, "transposed", 0, 0) != 0,
    .N = x->shape[0], .C = x->shape[1],
    .H = spatial == 2 ? x->shape[2] : 1, .W = x->shape[x->ndim - 1],
    .O = y->shape[1],
    .OH = spatial == 2 ? y->shape[2] : 1, .OW = y->shape[y->ndim - 1],
    .KH = spatial == 2 ? w->shape[2] : 1, .KW = w->shape[w->ndim - 1],
    .groups = argument_int (op, "groups", 0, 1),
    .sh = spatial == 2 ? argument_int (op, "stride", 0, 1) : 1,
    .sw = argument_int (op, "stride", spatial - 1, 1),
    .ph = spatial == 2 ? argument_int (op, "padding", 0, 0) : 0,
    .pw = argument_int (op, "padding", spatial - 1, 0),
    .dh = spatial == 2 ? argument_int (op, "dilation", 0, 1) : 1,
    .dw = argument_int (op, "dilation", spatial - 1, 1),
  };
  if (g.groups < 1 || g.sh < 1 || g.sw < 1 || g.C % g.groups != 0 || g.O % g.groups != 0
      || y->shape[0] != g.N)
    return scalars_fail (b, "has shapes that do not convolve");
  g.in_per_group = g.C / g.groups;
  g.out_per_group = g.O / g.groups;
  /* A convolution's weight is (O, C/groups, …), a transposed one's (C, O/groups, …). */
  if (g.transposed ? w->shape[0] != g.C || w->shape[1] != g.out_per_group
                   : w->shape[0] != g.O || w->shape[1] != g.in_per_group)
    return scalars_fail (b, "has a weight whose shape does not fit its input and output");
  if (bias && (bias->ndim != 1 || bias->shape[0] != g.O))
    return scalars_fail (b, "has a bias of another size than its output channels");
  const double *xv = scalars_input_values (b, x), *wv = scalars_input_values (b, w);
  const double *bv = bias ? scalars_input_values (b, bias) : NULL;
  guint x_base = scalars_input_nodes (b, x), w_base = scalars_input_nodes (b, w);
  guint b_base = bias ? scalars_input_nodes (b, bias) : 0;
  g_autoptr (GArray) terms = g_array_new (FALSE, FALSE, sizeof (ConvTerm));
  for (gint64 o = 0; o < scalars_numel_of (y); o++)
    {
      gint64 n = o / (g.O * g.OH * g.OW), oc = (o / (g.OH * g.OW)) % g.O;
      b->sub_step = (guint) o;
      g_array_set_size (terms, 0);
      conv_terms (&g, n, oc, (o / g.OW) % g.OH, o % g.OW, terms);
      g_autoptr (GArray) products = g_array_new (FALSE, FALSE, sizeof (guint));
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_autofree char *Y = scalars_input_label (b->record, y, o);
      g_string_append_printf (eq, "%s = ", Y);
      double sum = 0;
      guint count = 0;
      if (bias)
        {
          g_autofree char *B = scalars_input_label (b->record, bias, oc);
          g_string_append (eq, B);
          scalars_append_number (num, bv[oc]);
          sum += bv[oc];
          count++;
        }
      for (guint k = 0; k < terms->len; k++)
        {
          const ConvTerm *t = &g_array_index (terms, ConvTerm, k);
          g_autofree char *XL = scalars_input_label (b->record, x, t->xe);
          g_autofree char *WL = scalars_input_label (b->record, w, t->we);
          GString *pn = g_string_new (NULL);
          append_product (pn, xv[t->xe], wv[t->we]);
          guint node = scalars_add_node (b, CR_SCALAR_NODE_INNER, -1, -1,
                                         g_strdup_printf ("%s·%s", XL, WL), "×",
                                         g_strdup_printf ("%s·%s", XL, WL),
                                         g_string_free (pn, FALSE), xv[t->xe] * wv[t->we]);
          scalars_add_edge (b, x_base + (guint) t->xe, node, wv[t->we], g_strdup (WL));
          scalars_add_edge (b, w_base + (guint) t->we, node, xv[t->xe], g_strdup (XL));
          g_array_append_val (products, node);
          g_string_append_printf (eq, "%s%s·%s", count ? " + " : "", XL, WL);
          if (count)
            g_string_append (num, " + ");
          append_product (num, xv[t->xe], wv[t->we]);
          sum += xv[t->xe] * wv[t->we];
          count++;
        }
      if (count == 0)
        {
          g_string_append (eq, "0");
          g_string_append (num, "0");
        }
      guint out = scalars_add_output (b, o, "+", g_string_free (eq, FALSE),
                                      g_string_free (num, FALSE), sum);
      if (bias)
        scalars_add_edge (b, b_base + (guint) oc, out, 1, g_strdup ("1"));
      for (guint k = 0; k < products->len; k++)
        scalars_add_edge (b, g_array_index (products, guint, k), out, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

/* ---- pools ---------------------------------------------------------------- */

/* One window of a 2-d pool over a (…, H, W) input: the input elements it
 * reads (flat), and avg_pool2d's divisor. */
typedef struct {
  gint64 elements[CR_OP_SCALARS_MAX_ELEMENTS];
  guint  n;
  gint64 divisor;
  gint64 out_h, out_w;   /* the output's size: an adaptive pool's windows follow it */
} Window;

static void
pool_window (const CrRecordOp *op,
             gboolean          average,
             gint64            plane_base,
             gint64            H,
             gint64            W,
             gint64            i,
             gint64            j,
             Window           *win)
{
  if (!cr_record_op_argument (op, "kernel_size"))
    {
      /* An adaptive pool: output row i reads rows ⌊i·H/OH⌋ to ⌈(i+1)·H/OH⌉
       * (exclusive), the same for columns; an average over what it reads. */
      win->n = 0;
      gint64 top = (i * H) / win->out_h, bottom = ((i + 1) * H + win->out_h - 1) / win->out_h;
      gint64 left = (j * W) / win->out_w, right = ((j + 1) * W + win->out_w - 1) / win->out_w;
      for (gint64 row = top; row < bottom; row++)
        for (gint64 col = left; col < right; col++)
          if (win->n < G_N_ELEMENTS (win->elements))
            win->elements[win->n++] = plane_base + row * W + col;
      win->divisor = win->n;
      return;
    }
  gint64 kh = argument_int (op, "kernel_size", 0, 1), kw = argument_int (op, "kernel_size", 1, 1);
  gint64 sh = argument_int (op, "stride", 0, kh), sw = argument_int (op, "stride", 1, kw);
  gint64 ph = argument_int (op, "padding", 0, 0), pw = argument_int (op, "padding", 1, 0);
  gint64 dh = average ? 1 : argument_int (op, "dilation", 0, 1);
  gint64 dw = average ? 1 : argument_int (op, "dilation", 1, 1);
  gint64 top = i * sh - ph, left = j * sw - pw;
  /* PyTorch's avg_pool2d: the window clipped to the padded input counts
   * when count_include_pad, else only its elements inside the input. */
  gint64 bottom = MIN (top + kh, H + ph), right = MIN (left + kw, W + pw);
  gint64 padded = (bottom - top) * (right - left);
  win->n = 0;
  for (gint64 p = 0; p < kh; p++)
    for (gint64 q = 0; q < kw; q++)
      {
        gint64 row = top + p * dh, col = left + q * dw;
        if (row >= 0 && row < H && col >= 0 && col < W && win->n < G_N_ELEMENTS (win->elements))
          win->elements[win->n++] = plane_base + row * W + col;
      }
  gint64 divisor_override = argument_int (op, "divisor_override", 0, 0);
  win->divisor = divisor_override ? divisor_override
                 : argument_int (op, "count_include_pad", 0, 1) ? padded : (gint64) win->n;
}

/* max_pool2d and its adaptive form: y = the window's largest element (the
 * one the op's saved indices name), ∂y/∂x 1 there and 0 elsewhere;
 * avg_pool2d and its adaptive form: the window's sum over its divisor,
 * ∂y/∂x = 1/divisor. */
gboolean
scalars_build_pool (Build *b)
{
  gboolean average = b->kind == KIND_AVG_POOL || b->kind == KIND_ADAPTIVE_AVG_POOL;
  const CrRecordTensor *x = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  const CrRecordTensor *y = b->out;
  if (!x || x->ndim < 3 || x->ndim > 4 || y->ndim != x->ndim)
    return scalars_fail (b, "pools no (C, H, W) or (N, C, H, W) input");
  gint64 H = x->shape[x->ndim - 2], W = x->shape[x->ndim - 1];
  gint64 OH = y->shape[y->ndim - 2], OW = y->shape[y->ndim - 1];
  const CrTensorSnapshot *indices = NULL;
  for (guint s = 0; s < b->op->saved->len && !average; s++)
    {
      const CrRecordSaved *saved = b->op->saved->pdata[s];
      /* max_pool2d's indices are its result1, an adaptive max pool's are
       * Chainrule's own positions: both in the (H, W) plane. */
      if ((g_strcmp0 (saved->name, "result1") == 0 || g_strcmp0 (saved->name, "positions") == 0)
          && saved->value && saved->value->n_values == scalars_numel_of (y))
        indices = saved->value;
    }
  const double *xv = scalars_input_values (b, x);
  guint base = scalars_input_nodes (b, x);
  for (gint64 o = 0; o < scalars_numel_of (y); o++)
    {
      b->sub_step = (guint) o;
      gint64 plane = o / (OH * OW);
      Window win = { .out_h = OH, .out_w = OW };
      pool_window (b->op, average, plane * H * W, H, W, (o / OW) % OH, o % OW, &win);
      if (win.n == 0 || win.divisor == 0)
        return scalars_fail (b, "has a window with no element of its input");
      gint64 chosen = win.elements[0];
      for (guint k = 1; k < win.n && !average; k++)
        if (xv[win.elements[k]] > xv[chosen] || isnan (xv[win.elements[k]]))
          chosen = win.elements[k];
      if (indices)
        chosen = plane * H * W + (gint64) indices->values[o];
      GString *eq = g_string_new (NULL), *num = g_string_new (NULL);
      g_autofree char *Y = scalars_input_label (b->record, y, o);
      g_string_append_printf (eq, average ? "%s = (" : "%s = max(", Y);
      g_string_append (num, average ? "(" : "max(");
      double sum = 0;
      for (guint k = 0; k < win.n; k++)
        {
          g_autofree char *X = scalars_input_label (b->record, x, win.elements[k]);
          g_string_append_printf (eq, "%s%s", k ? (average ? " + " : ", ") : "", X);
          if (k)
            g_string_append (num, average ? " + " : ", ");
          scalars_append_number (num, xv[win.elements[k]]);
          sum += xv[win.elements[k]];
        }
      g_string_append_c (eq, ')');
      g_string_append_c (num, ')');
      if (average)
        {
          g_string_append_printf (eq, "/%" G_GINT64_FORMAT, win.divisor);
          g_string_append_printf (num, "/%" G_GINT64_FORMAT, win.divisor);
        }
      guint out = scalars_add_output (b, o, average ? "mean" : "max", g_string_free (eq, FALSE),
                                      g_string_free (num, FALSE),
                                      average ? sum / (double) win.divisor : xv[chosen]);
      for (guint k = 0; k < win.n; k++)
        {
          gint64 e = win.elements[k];
          if (average)
            scalars_add_edge (b, base + (guint) e, out, 1.0 / (double) win.divisor,
                              g_strdup_printf ("1/%" G_GINT64_FORMAT, win.divisor));
          else
            scalars_add_edge (b, base + (guint) e, out, e == chosen ? 1 : 0,
                              g_strdup (e == chosen ? "1 (the max)" : "0"));
        }
    }
  return b->error == NULL;
}

/* ---- layer norm and batch norm ---------------------------------------------- */

/* Which elements share a mean and variance, and which weight each reads:
 * layer norm's groups are the rows over its normalized (trailing) dims, and
 * the weight follows the place in the row; batch norm's groups are its
 * channels, over the batch and the spatial dims, group norm's each
 * sample's runs of channels; both weights follow the channel. */
typedef struct {
  gint64 n_groups;
  gint64 group_size;
  gint64 (*group_of) (const CrRecordTensor *x, gint64 size, gint64 e);
  gint64 (*affine_of) (const CrRecordTensor *x, gint64 size, gint64 e);
} NormLayout;

static gint64 row_of (const CrRecordTensor *x, gint64 size, gint64 e) { return e / size; }
static gint64 place_in_row (const CrRecordTensor *x, gint64 size, gint64 e) { return e % size; }

static gint64
channel_of (const CrRecordTensor *x,
            gint64                size,
            gint64                e)
{
  gint64 inner = 1;
  for (int d = 2; d < x->ndim; d++)
    inner *= x->shape[d];
  return (e / inner) % x->shape[1];
}

/* Group norm's group of element e: (sample, channel / channels per group),
 * size the elements per group (its channels times the spatial ones). */
static gint64
sample_group_of (const CrRecordTensor *x,
                 gint64                size,
                 gint64                e)
{
  gint64 inner = 1;
  for (int d = 2; d < x->ndim; d++)
    inner *= x->shape[d];
  gint64 per_sample = x->shape[1] * inner;
  gint64 channels_per_group = size / MAX (inner, 1);
  return (e / per_sample) * (x->shape[1] / MAX (channels_per_group, 1))
         + ((e % per_sample) / inner) / MAX (channels_per_group, 1);
}

/* A named inner node's label: "μ[0]", "σ²[1]" (new string); no index for
 * the only group. */
static char *
group_label (const char *name,
             gint64      group,
             gint64      n_groups)
{
  return n_groups == 1 ? g_strdup (name)
                       : g_strdup_printf ("%s[%" G_GINT64_FORMAT "]", name, group);
}

/* The mean μ and the (biased) variance σ² of each group as inner nodes,
 * then each element's x̂ = (x − μ)/√(σ² + eps) and, with weight or bias,
 * y = x̂·w + b. In eval, batch norm reads its running statistics instead:
 * constants, so x̂ has only x as input. */
static gboolean
build_norm (Build                  *b,
            const NormLayout       *layout,
            const CrTensorSnapshot *running_mean,
            const CrTensorSnapshot *running_var)
{
  const CrRecordOp *op = b->op;
  const CrRecordTensor *x = scalars_tensor_at (b->record, g_array_index (op->inputs, int, 0));
  const CrRecordTensor *w = op->inputs->len > 1
                            ? scalars_tensor_at (b->record, g_array_index (op->inputs, int, 1)) : NULL;
  const CrRecordTensor *bias = op->inputs->len > 2
                               ? scalars_tensor_at (b->record, g_array_index (op->inputs, int, 2)) : NULL;
  const CrRecordArgument *eps_arg = cr_record_op_argument (op, "eps");
  if (!eps_arg || eps_arg->n_values != 1)
    return scalars_fail (b, "has an eps the record does not keep");
  double eps = eps_arg->values[0];
  gint64 numel = scalars_numel_of (x), n = layout->group_size;
  if (scalars_numel_of (b->out) != numel || n < 1)
    return scalars_fail (b, "has an output of another size than its input");
  const double *xv = scalars_input_values (b, x);
  const double *wv = w ? scalars_input_values (b, w) : NULL;
  const double *bv = bias ? scalars_input_values (b, bias) : NULL;
  g_autofree double *mean = g_new0 (double, MAX (layout->n_groups, 1));
  g_autofree double *var = g_new0 (double, MAX (layout->n_groups, 1));
  g_autofree guint *mean_node = g_new0 (guint, MAX (layout->n_groups, 1));
  g_autofree guint *var_node = g_new0 (guint, MAX (layout->n_groups, 1));
  g_autofree gboolean *made = g_new0 (gboolean, MAX (layout->n_groups, 1));
  for (gint64 e = 0; e < numel; e++)
    mean[layout->group_of (x, n, e)] += xv[e] / (double) n;
  for (gint64 e = 0; e < numel; e++)
    {
      gint64 g = layout->group_of (x, n, e);
      var[g] += (xv[e] - mean[g]) * (xv[e] - mean[g]) / (double) n;
    }
  if (running_mean)
    for (gint64 g = 0; g < layout->n_groups; g++)
      {
        mean[g] = running_mean->values[g];
        var[g] = running_var->values[g];
      }
  guint x_base = scalars_input_nodes (b, x);
  guint w_base = w ? scalars_input_nodes (b, w) : 0, b_base = bias ? scalars_input_nodes (b, bias) : 0;
  for (gint64 e = 0; e < numel; e++)
    {
      b->sub_step = (guint) e;
      gint64 g = layout->group_of (x, n, e), a = layout->affine_of (x, n, e);
      g_autofree char *MU = running_mean ? g_strdup_printf ("running_mean[%" G_GINT64_FORMAT "]", g)
                                         : group_label ("μ", g, layout->n_groups);
      g_autofree char *VAR = running_mean ? g_strdup_printf ("running_var[%" G_GINT64_FORMAT "]", g)
                                          : group_label ("σ²", g, layout->n_groups);
      if (!running_mean && !made[g])
        {
          /* The group's statistics, made with its first element. */
          GString *meq = g_string_new (NULL), *veq = g_string_new (NULL);
          g_string_append_printf (meq, "%s = (", MU);
          g_string_append_printf (veq, "%s = ((", VAR);
          guint k = 0;
          for (gint64 i = 0; i < numel; i++)
            if (layout->group_of (x, n, i) == g)
              {
                g_autofree char *X = scalars_input_label (b->record, x, i);
                g_string_append_printf (meq, "%s%s", k ? " + " : "", X);
                g_string_append_printf (veq, "%s%s − %s)²", k ? " + (" : "", X, MU);
                k++;
              }
          g_string_append_printf (meq, ")/%" G_GINT64_FORMAT, n);
          g_string_append_printf (veq, ")/%" G_GINT64_FORMAT, n);
          mean_node[g] = scalars_add_node (b, CR_SCALAR_NODE_INNER, -1, -1, g_strdup (MU), "μ",
                                           g_string_free (meq, FALSE), NULL, mean[g]);
          for (gint64 i = 0; i < numel; i++)
            if (layout->group_of (x, n, i) == g)
              scalars_add_edge (b, x_base + (guint) i, mean_node[g], 1.0 / (double) n,
                                g_strdup_printf ("1/%" G_GINT64_FORMAT, n));
          var_node[g] = scalars_add_node (b, CR_SCALAR_NODE_INNER, -1, -1, g_strdup (VAR), "σ²",
                                          g_string_free (veq, FALSE), NULL, var[g]);
          /* No edge μ → σ²: ∂σ²/∂μ = −2·Σ(x − μ)/n is zero, as deviations
           * from a mean sum to zero, so x's edge into σ² is its whole
           * derivative. */
          for (gint64 i = 0; i < numel; i++)
            if (layout->group_of (x, n, i) == g)
              {
                g_autofree char *X = scalars_input_label (b->record, x, i);
                scalars_add_edge (b, x_base + (guint) i, var_node[g],
                                  2 * (xv[i] - mean[g]) / (double) n,
                                  g_strdup_printf ("2·(%s − %s)/%" G_GINT64_FORMAT, X, MU, n));
              }
          made[g] = TRUE;
        }
      double r = 1 / sqrt (var[g] + eps), dev = xv[e] - mean[g], xhat = dev * r;
      g_autofree char *X = scalars_input_label (b->record, x, e);
      g_autofree char *root = g_strdup_printf ("√(%s + %g)", VAR, eps);
      GString *num = g_string_new ("(");
      scalars_append_number (num, xv[e]);
      g_string_append (num, " − ");
      scalars_append_number (num, mean[g]);
      g_string_append_printf (num, ")/√(%.4g + %g)", var[g], eps);
      char *xhat_eq;
      guint xhat_node;
      gboolean affine = w || bias;
      g_autofree char *Y = scalars_input_label (b->record, b->out, e);
      g_autofree char *index = cr_record_element_text (x, e);
      g_autofree char *XHAT = affine ? g_strdup_printf ("x̂%s", index) : g_strdup (Y);
      xhat_eq = g_strdup_printf ("%s = (%s − %s)/%s", XHAT, X, MU, root);
      if (affine)
        xhat_node = scalars_add_node (b, CR_SCALAR_NODE_INNER, -1, -1, g_strdup (XHAT), "x̂",
                                      xhat_eq, g_string_free (num, FALSE), xhat);
      else
        xhat_node = scalars_add_output (b, e, "x̂", xhat_eq, g_string_free (num, FALSE), xhat);
      scalars_add_edge (b, x_base + (guint) e, xhat_node, r, g_strdup_printf ("1/%s", root));
      if (!running_mean)
        {
          scalars_add_edge (b, mean_node[g], xhat_node, -r, g_strdup_printf ("−1/%s", root));
          scalars_add_edge (b, var_node[g], xhat_node, -0.5 * dev * r * r * r,
                            g_strdup_printf ("−(%s − %s)/(2·%s³)", X, MU, root));
        }
      if (!affine)
        continue;
      double wa = wv ? wv[a] : 1, ba = bv ? bv[a] : 0;
      g_autofree char *WL = w ? scalars_input_label (b->record, w, a) : NULL;
      g_autofree char *BL = bias ? scalars_input_label (b->record, bias, a) : NULL;
      GString *eq = g_string_new (NULL), *yn = g_string_new (NULL);
      g_string_append_printf (eq, "%s = %s", Y, XHAT);
      scalars_append_number (yn, xhat);
      if (w)
        {
          g_string_append_printf (eq, "·%s", WL);
          g_string_append (yn, "·");
          scalars_append_number (yn, wa);
        }
      if (bias)
        {
          g_string_append_printf (eq, " + %s", BL);
          g_string_append (yn, " + ");
          scalars_append_number (yn, ba);
        }
      guint out = scalars_add_output (b, e, "+", g_string_free (eq, FALSE),
                                      g_string_free (yn, FALSE), xhat * wa + ba);
      scalars_add_edge (b, xhat_node, out, wa, w ? g_strdup (WL) : g_strdup ("1"));
      if (w)
        scalars_add_edge (b, w_base + (guint) a, out, xhat, g_strdup (XHAT));
      if (bias)
        scalars_add_edge (b, b_base + (guint) a, out, 1, g_strdup ("1"));
    }
  return b->error == NULL;
}

gboolean
scalars_build_norm (Build *b)
{
  const CrRecordTensor *x = scalars_tensor_at (b->record, g_array_index (b->op->inputs, int, 0));
  if (!x || x->ndim < 1)
    return scalars_fail (b, "has an input the record does not keep");
  NormLayout layout = { 0 };
  const CrTensorSnapshot *running_mean = NULL, *running_var = NULL;
  if (b->kind == KIND_LAYER_NORM)
    {
      const CrRecordArgument *shape = cr_record_op_argument (b->op, "normalized_shape");
      if (!shape || shape->kind != CR_RECORD_ARGUMENT_INTS || shape->n_values > x->ndim)
        return scalars_fail (b, "has a normalized shape the record does not keep");
      layout.group_size = 1;
      for (int i = 0; i < shape->n_values; i++)
        layout.group_size *= (gint64) shape->values[i];
      layout.n_groups = layout.group_size ? scalars_numel_of (x) / layout.group_size : 0;
      layout.group_of = row_of;
      layout.affine_of = place_in_row;
    }
  else if (b->kind == KIND_GROUP_NORM)
    {
      gint64 groups = argument_int (b->op, "group", 0, 0);
      if (x->ndim < 2 || groups < 1 || x->shape[1] % groups != 0)
        return scalars_fail (b, "has groups the record does not keep");
      layout.n_groups = x->shape[0] * groups;
      layout.group_size = layout.n_groups ? scalars_numel_of (x) / layout.n_groups : 0;
      layout.group_of = sample_group_of;
      layout.affine_of = channel_of;
    }
  else
    {
      if (x->ndim < 2)
        return scalars_fail (b, "normalizes no (N, C, ...) input");
      layout.n_groups = x->shape[1];
      layout.group_size = x->shape[1] ? scalars_numel_of (x) / x->shape[1] : 0;
      layout.group_of = channel_of;
      layout.affine_of = channel_of;
      if (!argument_int (b->op, "training", 0, 1))
        {
          for (guint s = 0; s < b->op->saved->len; s++)
            {
              const CrRecordSaved *saved = b->op->saved->pdata[s];
              if (!saved->value || saved->value->n_values != layout.n_groups)
                continue;
              if (g_strcmp0 (saved->name, "running_mean") == 0)
                running_mean = saved->value;
              else if (g_strcmp0 (saved->name, "running_var") == 0)
                running_var = saved->value;
            }
          if (!running_mean || !running_var)
            return scalars_fail (b, "normalizes with running statistics the record does not keep");
        }
    }
  return build_norm (b, &layout, running_mean, running_var);
}
