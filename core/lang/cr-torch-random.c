/* cr-torch-random.c — torch's sampling functions and in-place random fills,
 * each with generator= as in PyTorch 1.13 (torch.Generator and the seeds
 * are in cr-torch-generator.c).
 *
 * The numbers come from core/cpu/cr-random.h, PyTorch's CPU generator value
 * for value; this file parses arguments, makes the result tensor as PyTorch
 * does (empty, then an in-place fill), checks with PyTorch's messages and
 * moves results to the requested device. A tensor on CUDA is filled from
 * the CPU generator and copied (PyTorch's CUDA generator differs anyway). */
#include "cr-torch-native.h"
#include "cr-kernels.h"
#include "cr-cuda.h"
#include "cr-device.h"
#include "cr-leaf-observer.h"

#include <math.h>
#include <string.h>

/* ---- making the result ---------------------------------------------- */

/* The options of a factory: dtype, device, requires_grad (the rest is
 * accepted and has no effect here). Parameter indices in a. */
typedef struct {
  int dtype, device, requires_grad;
} OptionSlots;

typedef struct {
  CrDType      dtype;
  gboolean     has_dtype;
  CrDeviceType device;
  gboolean     has_device;
  gboolean     requires_grad;
} Options;

static gboolean
parse_options (const CrTorchArgs  *a,
               OptionSlots         slots,
               CrDType             default_dtype,
               Options            *o,
               GError            **error)
{
  o->dtype = default_dtype;
  o->device = CR_DEVICE_CPU;
  o->requires_grad = FALSE;
  if (!cr_torch_args_dtype (a, slots.dtype, &o->dtype, &o->has_dtype, error)
      || !cr_torch_args_device (a, slots.device, &o->device, &o->has_device, error)
      || !cr_torch_args_bool (a, slots.requires_grad, FALSE, &o->requires_grad, error))
    return FALSE;
  if (!o->has_dtype)
    o->dtype = default_dtype;
  /* Without device=, the run's default device (`chainrule run --device cuda`). */
  if (!o->has_device)
    o->device = cr_device_get_default ();
  return TRUE;
}

/* The filled CPU tensor t (taken) on the requested device, requires_grad
 * set as asked. */
static CrValue *
finish (CrTensor      *t,
        const Options *o,
        GError       **error)
{
  if (t == NULL)
    return NULL;
  if (o->device != CR_DEVICE_CPU)
    {
      CrTensor *moved = cr_tensor_to_device (t, o->device, error);

      cr_tensor_unref (t);
      if (moved == NULL)
        return NULL;
      t = moved;
    }
  if (o->requires_grad)
    {
      if (!cr_dtype_is_floating (t->dtype))
        {
          cr_tensor_unref (t);
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                               "Only Tensors of floating point and complex dtype can require "
                               "gradients");
          return NULL;
        }
      t->requires_grad = TRUE;
      cr_autograd_notify_leaf (t, CR_LEAF_MADE);
    }
  return cr_value_new_tensor_take (t);
}

typedef enum {
  FILL_UNIFORM,
  FILL_NORMAL,
} FillKind;

static const char *
fill_kernel_name (FillKind kind)
{
  return kind == FILL_NORMAL ? "normal_kernel_cpu" : "check_uniform_bounds";
}

/* An empty CPU tensor of shape filled with kind's standard distribution. */
static CrTensor *
new_standard (CrGenerator   *gen,
              FillKind       kind,
              const gint64  *shape,
              int            ndim,
              CrDType        dtype,
              GError       **error)
{
  g_autoptr(CrTensor) t = NULL;

  if (!cr_dtype_is_floating (dtype))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "\"%s\" not implemented for '%s'",
                   fill_kernel_name (kind), cr_dtype_scalar_name (dtype));
      return NULL;
    }
  t = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);
  if (t == NULL)
    return NULL;
  if (!(kind == FILL_NORMAL ? cr_random_normal_ (gen, t, 0.0, 1.0, error)
                            : cr_random_uniform_ (gen, t, 0.0, 1.0, error)))
    return NULL;
  return g_steal_pointer (&t);
}

/* rand(*size, *, generator, dtype, layout, device, requires_grad, ...) */
NATIVE (native_rand)
{
  FillKind kind = GPOINTER_TO_INT (data);
  const char *name = kind == FILL_NORMAL ? "randn" : "rand";
  static const char *option_names[] = {
    "generator", "dtype", "layout", "device", "requires_grad", "pin_memory", "out", "names",
  };
  CrValue *size_kw = NULL;
  CrValue *opt_values[G_N_ELEMENTS (option_names)] = { NULL };
  CrKwarg opt_kwargs[G_N_ELEMENTS (option_names)] = { { NULL, NULL } };
  guint n_opt = 0;
  gint64 shape[CR_MAX_DIMS];
  int ndim;
  CrTorchArgs a;
  Options o;
  CrGenerator *gen;

  /* Sizes are varargs: take size= and the options out of the keywords. */
  for (guint i = 0; i < n_kwargs; i++)
    {
      gboolean known = FALSE;

      if (strcmp (kwargs[i].name, "size") == 0)
        {
          size_kw = kwargs[i].value;
          continue;
        }
      for (guint k = 0; k < G_N_ELEMENTS (option_names); k++)
        if (strcmp (kwargs[i].name, option_names[k]) == 0)
          {
            known = TRUE;
            opt_values[k] = kwargs[i].value;
          }
      if (!known)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() got an unexpected keyword argument '%s'", name, kwargs[i].name);
          return NULL;
        }
      opt_kwargs[n_opt++] = kwargs[i];
    }
  if (!cr_torch_args_parse (&a, name,
                            "| * generator dtype layout device requires_grad pin_memory out names",
                            NULL, NULL, 0, opt_kwargs, n_opt, error))
    return NULL;
  if (opt_values[6] != NULL && opt_values[6]->kind != CR_VALUE_NONE)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_NOT_IMPLEMENTED_ERROR,
                   "%s(out=...) is not supported by Chainrule yet", name);
      return NULL;
    }
  if (size_kw != NULL)
    {
      if (n_args > 0)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                       "%s() got multiple values for argument 'size'", name);
          return NULL;
        }
      args = &size_kw;
      n_args = 1;
    }
  if (n_args == 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "%s() missing 1 required positional arguments: \"size\"", name);
      return NULL;
    }
  if (!cr_torch_parse_size (name, "size", args, n_args, shape, &ndim, error)
      || !parse_options (&a, (OptionSlots) { 1, 3, 4 }, CR_DTYPE_FLOAT32, &o, error)
      || !cr_torch_generator_arg (interp, &a, 0, &gen, error))
    return NULL;
  return finish (new_standard (gen, kind, shape, ndim, o.dtype, error), &o, error);
}

/* The dtype/device of a *_like result: input's unless given. */
static void
like_options (const CrTensor *input,
              Options        *o)
{
  if (!o->has_dtype)
    o->dtype = input->dtype;
  if (!o->has_device)
    {
      o->device = input->device;
      o->has_device = TRUE;
    }
}

/* rand_like(input, *, dtype, layout, device, requires_grad, memory_format) */
NATIVE (native_rand_like)
{
  FillKind kind = GPOINTER_TO_INT (data);
  const char *name = kind == FILL_NORMAL ? "randn_like" : "rand_like";
  Options o;
  CrGenerator *gen = cr_interp_get_generator (interp);
  PARSE (name, "input | * dtype layout device requires_grad pin_memory memory_format");
  TENSOR_ARG (input, 0);

  if (!parse_options (&a, (OptionSlots) { 1, 3, 4 }, input->dtype, &o, error))
    return NULL;
  like_options (input, &o);
  return finish (new_standard (gen, kind, input->shape, input->ndim, o.dtype, error), &o, error);
}

/* ---- random_'s bounds ----------------------------------------------- */

static int
mantissa_digits (CrDType dtype)
{
  return dtype == CR_DTYPE_FLOAT32 ? 24 : 53;
}

static int
highest_bit (gint64 v)
{
  int n = 0;

  v = v < 0 ? -v : v;
  while (v >>= 1)
    n++;
  return n;
}

/* PyTorch's update_from/update_to: a bound that rounds past itself in a
 * float dtype moves inside, so that every draw converts into [from, to). */
static gint64
float_update_from (gint64  from,
                   CrDType dtype)
{
  gint64 from_plus_1 = dtype == CR_DTYPE_FLOAT32 ? (gint64) (float) (from + 1)
                                                 : (gint64) (double) (from + 1);

  if (from_plus_1 < from)
    from = from_plus_1 + (G_GINT64_CONSTANT (1)
                          << (highest_bit (from + 1) - mantissa_digits (dtype) + 1));
  return from;
}

static gint64
float_update_to (gint64  to,
                 CrDType dtype)
{
  gint64 to_minus_1 = dtype == CR_DTYPE_FLOAT32 ? (gint64) (float) (to - 1)
                                                : (gint64) (double) (to - 1);

  if (to_minus_1 >= to)
    to = to_minus_1 - (G_GINT64_CONSTANT (1)
                       << (highest_bit (to - 1) - mantissa_digits (dtype) + 1));
  return to;
}

/* check_from_to_in_range: integer dtypes refuse what they cannot hold, float
 * ones warn past 2^mantissa, as PyTorch 1.13 does. */
static gboolean
check_random_range (CrInterp  *interp,
                    CrDType    dtype,
                    gint64     from,
                    gint64     to_inc,
                    GError   **error)
{
  if (dtype == CR_DTYPE_BOOL)
    {
      const char *name = from < 0 || from > 1 ? "from" : to_inc < 0 || to_inc > 1 ? "to - 1" : NULL;

      if (name != NULL)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "%s is out of bounds for bool",
                       name);
          return FALSE;
        }
    }
  else if (cr_dtype_is_floating (dtype))
    {
      int digits = mantissa_digits (dtype);
      gint64 limit = G_GINT64_CONSTANT (1) << digits;
      const struct { gint64 v; const char *name; int line; } bounds[] = {
        { from, "from", 94 }, { to_inc, "to - 1", 95 },
      };

      for (guint i = 0; i < G_N_ELEMENTS (bounds); i++)
        if (bounds[i].v < -limit || bounds[i].v > limit)
          {
            g_autofree char *message = g_strdup_printf (
              "%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations %s can support "
              "discrete uniform distribution only within this range. This warning will become "
              "an error in version 1.7 release, please fix the code in advance (Triggered "
              "internally at  ./aten/src/ATen/native/DistributionTemplates.h:%d.)",
              bounds[i].name, digits, digits, dtype == CR_DTYPE_FLOAT32 ? "float" : "double",
              bounds[i].line);
            cr_interp_warn (interp, "UserWarning", message);
          }
    }
  return TRUE;
}

/* random_(from, to)'s checks and bounds: *range is to - from as unsigned. */
static gboolean
random_from_to_bounds (CrInterp  *interp,
                       CrDType    dtype,
                       gint64    *from,
                       gint64     to,
                       guint64   *range,
                       GError   **error)
{
  if (*from >= to)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "random_ expects 'from' to be less than 'to', but got from=%" G_GINT64_FORMAT
                   " >= to=%" G_GINT64_FORMAT, *from, to);
      return FALSE;
    }
  if (cr_dtype_is_floating (dtype))
    {
      *from = float_update_from (*from, dtype);
      to = float_update_to (to, dtype);
      if (*from >= to)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                       "dtype, but got from=%" G_GINT64_FORMAT " >= to=%" G_GINT64_FORMAT,
                       *from, to);
          return FALSE;
        }
    }
  if (!check_random_range (interp, dtype, *from, to - 1, error))
    return FALSE;
  *range = (guint64) to - (guint64) *from;
  return TRUE;
}

/* An int64 CPU tensor of shape with random_(low, high). */
static CrTensor *
new_randint (CrInterp      *interp,
             CrGenerator   *gen,
             gint64         low,
             gint64         high,
             const gint64  *shape,
             int            ndim,
             CrDType        dtype,
             GError       **error)
{
  g_autoptr(CrTensor) t = NULL;
  guint64 range;

  if (!random_from_to_bounds (interp, dtype, &low, high, &range, error))
    return NULL;
  t = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);
  if (t == NULL || !cr_random_from_to_ (gen, t, low, range, error))
    return NULL;
  return g_steal_pointer (&t);
}

static gboolean
int_arg (const CrTorchArgs  *a,
         guint               i,
         gint64             *out,
         GError            **error)
{
  if (cr_torch_value_is_int (a->values[i], out))
    return TRUE;
  cr_torch_args_type_error (a, i, "int", error);
  return FALSE;
}

/* randint(low=0, high, size, *, generator, dtype, layout, device, ...) */
NATIVE (native_randint)
{
  gint64 low = 0, high, shape[CR_MAX_DIMS];
  int ndim;
  Options o;
  CrGenerator *gen;
  CrValue *size;
  CrTorchArgs a;
  /* randint(high, size) or randint(low, high, size): the size is last. */
  gboolean has_low = n_args >= 3;
  const char *spec = has_low
    ? "low high size | * generator dtype layout device requires_grad pin_memory out"
    : "high size | * generator dtype layout device requires_grad pin_memory out";

  /* randint(low, high, size=...) and randint(low=, high=, size=) too. */
  for (guint i = 0; i < n_kwargs; i++)
    if (strcmp (kwargs[i].name, "low") == 0
        || (n_args == 2 && strcmp (kwargs[i].name, "size") == 0))
      {
        has_low = TRUE;
        spec = "low high size | * generator dtype layout device requires_grad pin_memory out";
      }
  if (!cr_torch_args_parse (&a, "randint", spec, NULL, args, n_args, kwargs, n_kwargs, error))
    return NULL;
  {
    guint base = has_low ? 1 : 0;

    if ((has_low && !int_arg (&a, 0, &low, error)) || !int_arg (&a, base, &high, error))
      return NULL;
    size = a.values[base + 1];
    if (!cr_torch_parse_size ("randint", "size", &size, 1, shape, &ndim, error)
        || !parse_options (&a, (OptionSlots) { base + 3, base + 5, base + 6 }, CR_DTYPE_INT64,
                           &o, error)
        || !cr_torch_generator_arg (interp, &a, base + 2, &gen, error))
      return NULL;
  }
  return finish (new_randint (interp, gen, low, high, shape, ndim, o.dtype, error), &o, error);
}

/* randint_like(input, low=0, high, *, dtype, ...) */
NATIVE (native_randint_like)
{
  gint64 low = 0, high;
  Options o;
  CrTorchArgs a;
  gboolean has_low = n_args >= 3;
  const char *spec = has_low
    ? "input low high | * dtype layout device requires_grad pin_memory memory_format"
    : "input high | * dtype layout device requires_grad pin_memory memory_format";
  guint base;
  CrTensor *input;

  for (guint i = 0; i < n_kwargs; i++)
    if (strcmp (kwargs[i].name, "low") == 0
        || (n_args == 2 && strcmp (kwargs[i].name, "high") == 0))
      {
        has_low = TRUE;
        spec = "input low high | * dtype layout device requires_grad pin_memory memory_format";
      }
  if (!cr_torch_args_parse (&a, "randint_like", spec, NULL, args, n_args, kwargs, n_kwargs,
                            error))
    return NULL;
  input = cr_torch_args_tensor (&a, 0, error);
  if (input == NULL)
    return NULL;
  base = has_low ? 2 : 1;
  if ((has_low && !int_arg (&a, 1, &low, error)) || !int_arg (&a, base, &high, error)
      || !parse_options (&a, (OptionSlots) { base + 1, base + 3, base + 4 }, input->dtype, &o,
                         error))
    return NULL;
  like_options (input, &o);
  return finish (new_randint (interp, cr_interp_get_generator (interp), low, high, input->shape,
                              input->ndim, o.dtype, error), &o, error);
}

/* randperm(n, *, generator, dtype=int64, layout, device, requires_grad, ...) */
NATIVE (native_randperm)
{
  gint64 n;
  Options o;
  CrGenerator *gen;
  PARSE ("randperm", "n | * generator out dtype layout device requires_grad pin_memory");

  if (!int_arg (&a, 0, &n, error)
      || !parse_options (&a, (OptionSlots) { 3, 5, 6 }, CR_DTYPE_INT64, &o, error)
      || !cr_torch_generator_arg (interp, &a, 1, &gen, error))
    return NULL;
  if (n < 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Trying to create tensor with negative dimension %" G_GINT64_FORMAT
                   ": [%" G_GINT64_FORMAT "]", n, n);
      return NULL;
    }
  if (o.dtype == CR_DTYPE_BOOL)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "\"randperm\" not implemented for 'Bool'");
      return NULL;
    }
  /* Every index must be exact in the dtype. */
  if ((o.dtype == CR_DTYPE_FLOAT32 && n > (G_GINT64_CONSTANT (1) << 24) + 1)
      || (o.dtype == CR_DTYPE_FLOAT64 && n > (G_GINT64_CONSTANT (1) << 53) + 1))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "n cannot be greater than 2^%d+1 for %s type.",
                   o.dtype == CR_DTYPE_FLOAT32 ? 24 : 53, cr_dtype_scalar_name (o.dtype));
      return NULL;
    }
  return finish (cr_random_randperm (gen, n, o.dtype, error), &o, error);
}

/* ---- in-place fills ------------------------------------------------- */

/* Runs fill on self's data: in place on a CPU tensor, else through a CPU
 * copy written back. Checks PyTorch's in-place rules first. */
typedef gboolean (*FillFunc) (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error);

static CrValue *
fill_in_place (CrValue      *self,
               CrGenerator  *gen,
               FillFunc      fill,
               gpointer      ctx,
               GError      **error)
{
  CrTensor *t = self->u.tensor;

  if (!cr_autograd_check_inplace_rules (t, error))
    return NULL;
  if (t->device == CR_DEVICE_CPU)
    {
      if (!fill (gen, t, ctx, error))
        return NULL;
    }
  else
    {
      /* A host tensor of t's strides, so that the fill walks the elements
       * in the order it walks a CPU tensor of that geometry. */
      gint64 span = t->numel > 0 ? 1 : 0;
      g_autoptr(CrTensor) base = NULL;
      g_autoptr(CrTensor) host = NULL;

      for (int d = 0; d < t->ndim && t->numel > 0; d++)
        span += (t->shape[d] - 1) * ABS (t->strides[d]);
      base = cr_tensor_new_empty (&span, 1, t->dtype, CR_DEVICE_CPU, error);
      if (base == NULL)
        return NULL;
      host = cr_tensor_new_view (base, t->shape, t->ndim, t->strides, 0);
      if (!fill (gen, host, ctx, error) || !cr_kernel_copy_into (t, host, error))
        return NULL;
    }
  /* Bumped after the write, not by the check before it: the run record's
   * observer then sees the new values (w.data.normal_(0, 0.01)). */
  cr_tensor_bump_version (t);
  return cr_value_ref (self);
}

typedef struct {
  double a, b;
  const CrTensor *p;
} FillArgs;

static gboolean
fill_uniform (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;
  return cr_random_uniform_ (gen, t, f->a, f->b, error);
}

static gboolean
fill_normal (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;
  return cr_random_normal_ (gen, t, f->a, f->b, error);
}

static gboolean
fill_bernoulli (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;

  if (f->p == NULL)
    return cr_random_bernoulli_ (gen, t, f->a, error);
  if (f->p->device == CR_DEVICE_CPU)
    return cr_random_bernoulli_tensor_ (gen, t, f->p, error);
  {
    g_autoptr(CrTensor) host = cr_tensor_to_device (f->p, CR_DEVICE_CPU, error);
    return host != NULL && cr_random_bernoulli_tensor_ (gen, t, host, error);
  }
}

static gboolean
fill_exponential (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;
  return cr_random_exponential_ (gen, t, f->a, error);
}

static gboolean
check_floating_self (const CrTensor  *t,
                     const char      *kernel,
                     GError         **error)
{
  if (cr_dtype_is_floating (t->dtype))
    return TRUE;
  g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR, "\"%s\" not implemented for '%s'",
               kernel, cr_dtype_scalar_name (t->dtype));
  return FALSE;
}

/* Tensor.uniform_(from=0, to=1, *, generator) */
NATIVE (native_uniform_)
{
  FillArgs f = { 0 };
  CrGenerator *gen;
  PARSE ("uniform_", "self | from to * generator");

  if (!cr_torch_args_double (&a, 1, 0.0, &f.a, error)
      || !cr_torch_args_double (&a, 2, 1.0, &f.b, error)
      || !cr_torch_generator_arg (interp, &a, 3, &gen, error)
      || !check_floating_self (self->u.tensor, "check_uniform_bounds", error))
    return NULL;
  if (f.a > f.b)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "uniform_ expects to return a [from, to) range, but found from=%g > to=%g",
                   f.a, f.b);
      return NULL;
    }
  return fill_in_place (self, gen, fill_uniform, &f, error);
}

static gboolean
check_std (double   std,
           GError **error)
{
  if (std >= 0.0)
    return TRUE;
  g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
               "normal expects std >= 0.0, but found std %g", std);
  return FALSE;
}

/* Tensor.normal_(mean=0, std=1, *, generator) */
NATIVE (native_normal_)
{
  FillArgs f = { 0 };
  CrGenerator *gen;
  PARSE ("normal_", "self | mean std * generator");

  if (!cr_torch_args_double (&a, 1, 0.0, &f.a, error)
      || !cr_torch_args_double (&a, 2, 1.0, &f.b, error)
      || !cr_torch_generator_arg (interp, &a, 3, &gen, error)
      || !check_std (f.b, error)
      || !check_floating_self (self->u.tensor, "normal_kernel_cpu", error))
    return NULL;
  return fill_in_place (self, gen, fill_normal, &f, error);
}

/* Tensor.exponential_(lambd=1, *, generator) */
NATIVE (native_exponential_)
{
  FillArgs f = { 0 };
  CrGenerator *gen;
  PARSE ("exponential_", "self | lambd * generator");

  if (!cr_torch_args_double (&a, 1, 1.0, &f.a, error)
      || !cr_torch_generator_arg (interp, &a, 2, &gen, error))
    return NULL;
  if (!(f.a >= 0.0))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "exponential_ expects lambda >= 0.0, but found lambda=%g", f.a);
      return NULL;
    }
  if (!check_floating_self (self->u.tensor, "exponential_cpu", error))
    return NULL;
  return fill_in_place (self, gen, fill_exponential, &f, error);
}

static gboolean
fill_log_normal (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;
  return cr_random_log_normal_ (gen, t, f->a, f->b, error);
}

static gboolean
fill_cauchy (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;
  return cr_random_cauchy_ (gen, t, f->a, f->b, error);
}

static gboolean
fill_geometric (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  FillArgs *f = ctx;
  return cr_random_geometric_ (gen, t, f->a, error);
}

/* Tensor.log_normal_(mean=1, std=2, *, generator) */
NATIVE (native_log_normal_)
{
  FillArgs f = { 0 };
  CrGenerator *gen;
  PARSE ("log_normal_", "self | mean std * generator");

  if (!cr_torch_args_double (&a, 1, 1.0, &f.a, error)
      || !cr_torch_args_double (&a, 2, 2.0, &f.b, error)
      || !cr_torch_generator_arg (interp, &a, 3, &gen, error))
    return NULL;
  if (!(f.b > 0.0))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "log_normal_ expects std > 0.0, but found std=%g", f.b);
      return NULL;
    }
  if (!check_floating_self (self->u.tensor, "log_normal_cpu", error))
    return NULL;
  return fill_in_place (self, gen, fill_log_normal, &f, error);
}

/* Tensor.cauchy_(median=0, sigma=1, *, generator) */
NATIVE (native_cauchy_)
{
  FillArgs f = { 0 };
  CrGenerator *gen;
  PARSE ("cauchy_", "self | median sigma * generator");

  if (!cr_torch_args_double (&a, 1, 0.0, &f.a, error)
      || !cr_torch_args_double (&a, 2, 1.0, &f.b, error)
      || !cr_torch_generator_arg (interp, &a, 3, &gen, error)
      || !check_floating_self (self->u.tensor, "cauchy_cpu", error))
    return NULL;
  return fill_in_place (self, gen, fill_cauchy, &f, error);
}

/* Tensor.geometric_(p, *, generator) */
NATIVE (native_geometric_)
{
  FillArgs f = { 0 };
  CrGenerator *gen;
  PARSE ("geometric_", "self p | * generator");

  if (!cr_torch_args_double (&a, 1, 0.5, &f.a, error)
      || !cr_torch_generator_arg (interp, &a, 2, &gen, error))
    return NULL;
  if (!(f.a > 0.0 && f.a < 1.0))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "geometric_ expects p to be in (0, 1), but got p=%g", f.a);
      return NULL;
    }
  return fill_in_place (self, gen, fill_geometric, &f, error);
}

typedef struct {
  gboolean bounded;         /* FALSE: random_() */
  gint64   base;
  guint64  range;           /* 0: 2^64 */
} RandomArgs;

static gboolean
fill_random (CrGenerator *gen, CrTensor *t, gpointer ctx, GError **error)
{
  RandomArgs *r = ctx;

  if (!r->bounded)
    return cr_random_random_ (gen, t, error);
  return cr_random_from_to_ (gen, t, r->base, r->range, error);
}

/* The largest value random_(from) reaches in t's dtype: 2^mantissa for a
 * float, the type's maximum for an integer. */
static gint64
random_to_inclusive (CrDType dtype)
{
  switch (dtype)
    {
    case CR_DTYPE_FLOAT32:
      return G_GINT64_CONSTANT (1) << 24;
    case CR_DTYPE_FLOAT64:
      return G_GINT64_CONSTANT (1) << 53;
    case CR_DTYPE_BOOL:
      return 1;
    case CR_DTYPE_UINT8:
      return G_MAXUINT8;
    case CR_DTYPE_INT32:
      return G_MAXINT32;
    case CR_DTYPE_INT64:
    default:
      return G_MAXINT64;
    }
}

/* Tensor.random_(from=0, to=None, *, generator); random_(to) alone. */
NATIVE (native_random_)
{
  RandomArgs r = { 0 };
  CrGenerator *gen;
  CrTensor *t = self->u.tensor;
  gint64 from = 0, to = 0;
  gboolean has_from, has_to;
  PARSE ("random_", "self | from to * generator");

  if (!cr_torch_generator_arg (interp, &a, 3, &gen, error))
    return NULL;
  has_from = cr_torch_args_has (&a, 1);
  has_to = cr_torch_args_has (&a, 2);
  if ((has_from && !int_arg (&a, 1, &from, error)) || (has_to && !int_arg (&a, 2, &to, error)))
    return NULL;
  if (has_from && !has_to && a.positions[1] != 0 && a.values[2] == NULL)
    {
      /* random_(to): one positional bound is the upper one. */
      to = from;
      from = 0;
      has_to = TRUE;
    }
  if (has_to)
    {
      if (!random_from_to_bounds (interp, t->dtype, &from, to, &r.range, error))
        return NULL;
      r.bounded = TRUE;
      r.base = from;
    }
  else if (has_from)
    {
      /* [from, the dtype's top] (int64's whole range: 2^64, range 0). */
      gint64 to_inc = random_to_inclusive (t->dtype);

      if (cr_dtype_is_floating (t->dtype))
        {
          from = float_update_from (from, t->dtype);
          if (from >= to_inc)
            {
              g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "random_ expects 'from' casted to dtype to be less than or equal to "
                           "'to_inc' casted to dtype, but got from=%" G_GINT64_FORMAT
                           " > to_inc=%" G_GINT64_FORMAT, from, to_inc);
              return NULL;
            }
        }
      if (!check_random_range (interp, t->dtype, from, to_inc, error))
        return NULL;
      r.bounded = TRUE;
      r.base = from;
      r.range = (guint64) to_inc - (guint64) from + 1;
    }
  return fill_in_place (self, gen, fill_random, &r, error);
}

static gboolean
check_p (double   p,
         GError **error)
{
  if (p >= 0.0 && p <= 1.0)
    return TRUE;
  g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
               "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
  return FALSE;
}

/* p as a tensor for bernoulli_: float tensors with values in [0, 1]. */
static gboolean
check_p_tensor (const CrTensor  *p,
                GError         **error)
{
  if (!cr_dtype_is_floating (p->dtype))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'",
                   cr_dtype_scalar_name (p->dtype));
      return FALSE;
    }
  return TRUE;
}

/* Tensor.bernoulli_(p=0.5, *, generator): p a float or a tensor. */
NATIVE (native_bernoulli_)
{
  FillArgs f = { 0.5, 0, NULL };
  CrGenerator *gen;
  PARSE ("bernoulli_", "self | p * generator");

  if (!cr_torch_generator_arg (interp, &a, 2, &gen, error))
    return NULL;
  if (cr_torch_args_has (&a, 1) && a.values[1]->kind == CR_VALUE_TENSOR)
    {
      f.p = a.values[1]->u.tensor;
      if (!check_p_tensor (f.p, error))
        return NULL;
    }
  else if (!cr_torch_args_double (&a, 1, 0.5, &f.a, error) || !check_p (f.a, error))
    return NULL;
  return fill_in_place (self, gen, fill_bernoulli, &f, error);
}

/* torch.bernoulli(input, p=None, *, generator): 0/1 draws with input's
 * probabilities (or the float p), input's dtype. */
NATIVE (native_bernoulli)
{
  FillArgs f = { 0.5, 0, NULL };
  CrGenerator *gen;
  g_autoptr(CrValue) result = NULL;
  CrTensor *out;
  PARSE ("bernoulli", "input | p * generator out");
  TENSOR_ARG (input, 0);

  if (!cr_torch_generator_arg (interp, &a, 2, &gen, error))
    return NULL;
  if (cr_torch_args_has (&a, 1))
    {
      if (!cr_torch_args_double (&a, 1, 0.5, &f.a, error) || !check_p (f.a, error))
        return NULL;
    }
  else
    {
      f.p = input;
      if (!check_p_tensor (input, error))
        return NULL;
    }
  out = cr_tensor_new_empty (input->shape, input->ndim, input->dtype, input->device, error);
  if (out == NULL)
    return NULL;
  result = cr_value_new_tensor_take (out);
  /* fill_in_place returns a new ref on result. */
  return fill_in_place (result, gen, fill_bernoulli, &f, error);
}

/* ---- torch.normal, multinomial ----------------------------------------- */

static CrTensor *
binary (CrBinaryOp       op,
        const CrTensor  *x,
        const CrTensor  *y,
        GError         **error)
{
  return cr_kernel_binary (op, x, y, error);
}

static gboolean
check_std_tensor (const CrTensor  *std,
                  GError         **error)
{
  for (gint64 i = 0; i < std->numel; i++)
    if (cr_tensor_get_flat (std, i) < 0.0)
      {
        g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                             "normal expects all elements of std >= 0.0");
        return FALSE;
      }
  return TRUE;
}

/* torch.normal(mean, std, size=None, *, generator, out, dtype, ...): mean and
 * std each a tensor or a float, as PyTorch's four overloads compose it:
 * standard normals, times std, plus mean. */
NATIVE (native_normal)
{
  CrGenerator *gen;
  CrTensor *mean_t = NULL, *std_t = NULL;
  double mean = 0.0, std = 1.0;
  g_autoptr(CrTensor) out = NULL;
  g_autoptr(CrTensor) host_mean = NULL;
  g_autoptr(CrTensor) host_std = NULL;
  Options o;
  PARSE ("normal", "mean std | size * generator out dtype layout device requires_grad "
                   "pin_memory");

  if (!cr_torch_generator_arg (interp, &a, 3, &gen, error))
    return NULL;
  if (a.values[0]->kind == CR_VALUE_TENSOR)
    mean_t = a.values[0]->u.tensor;
  else if (!cr_torch_args_double (&a, 0, 0.0, &mean, error))
    return NULL;
  if (a.values[1]->kind == CR_VALUE_TENSOR)
    std_t = a.values[1]->u.tensor;
  else if (!cr_torch_args_double (&a, 1, 1.0, &std, error))
    return NULL;

  if (mean_t == NULL && std_t == NULL)
    {
      gint64 shape[CR_MAX_DIMS];
      int ndim;
      CrValue *size = a.values[2];

      if (size == NULL)
        {
          g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                               "normal() missing 1 required positional arguments: \"size\"");
          return NULL;
        }
      if (!cr_torch_parse_size ("normal", "size", &size, 1, shape, &ndim, error)
          || !parse_options (&a, (OptionSlots) { 5, 7, 8 }, CR_DTYPE_FLOAT32, &o, error)
          || !check_std (std, error))
        return NULL;
      if (!cr_dtype_is_floating (o.dtype))
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "\"normal_kernel_cpu\" not implemented for '%s'",
                       cr_dtype_scalar_name (o.dtype));
          return NULL;
        }
      out = cr_tensor_new_empty (shape, ndim, o.dtype, CR_DEVICE_CPU, error);
      if (out == NULL || !cr_random_normal_ (gen, out, mean, std, error))
        return NULL;
      return finish (g_steal_pointer (&out), &o, error);
    }

  /* The tensor overloads: on the CPU, then back to the operands' device. */
  if (mean_t != NULL)
    {
      host_mean = cr_tensor_to_device (mean_t, CR_DEVICE_CPU, error);
      if (host_mean == NULL)
        return NULL;
    }
  if (std_t != NULL)
    {
      host_std = cr_tensor_to_device (std_t, CR_DEVICE_CPU, error);
      if (host_std == NULL || !check_std_tensor (host_std, error))
        return NULL;
    }
  else if (!check_std (std, error))
    return NULL;
  o = (Options) { .device = (mean_t != NULL ? mean_t : std_t)->device, .has_device = TRUE };
  if (mean_t != NULL && std_t == NULL)
    {
      /* empty_like(mean).normal_(0, std) + mean */
      g_autoptr(CrTensor) noise = cr_tensor_new_empty (mean_t->shape, mean_t->ndim,
                                                       mean_t->dtype, CR_DEVICE_CPU, error);

      if (noise == NULL || !check_floating_self (noise, "normal_kernel_cpu", error)
          || !cr_random_normal_ (gen, noise, 0.0, std, error))
        return NULL;
      out = binary (CR_BINARY_ADD, noise, host_mean, error);
    }
  else
    {
      /* (empty(shape).normal_() * std) + mean */
      gint64 shape[CR_MAX_DIMS];
      int ndim = std_t->ndim;
      CrDType dtype = mean_t != NULL ? mean_t->dtype : std_t->dtype;
      g_autoptr(CrTensor) noise = NULL;
      g_autoptr(CrTensor) scaled = NULL;

      memcpy (shape, std_t->shape, sizeof (gint64) * std_t->ndim);
      if (mean_t != NULL
          && !cr_shape_broadcast (mean_t->shape, mean_t->ndim, std_t->shape, std_t->ndim,
                                  shape, &ndim, error))
        return NULL;
      noise = cr_tensor_new_empty (shape, ndim, dtype, CR_DEVICE_CPU, error);
      if (noise == NULL || !check_floating_self (noise, "normal_kernel_cpu", error)
          || !cr_random_normal_ (gen, noise, 0.0, 1.0, error))
        return NULL;
      scaled = binary (CR_BINARY_MUL, noise, host_std, error);
      if (scaled == NULL)
        return NULL;
      if (host_mean == NULL)
        host_mean = cr_tensor_new_scalar (mean, dtype);
      out = binary (CR_BINARY_ADD, scaled, host_mean, error);
    }
  if (out == NULL)
    return NULL;
  return finish (g_steal_pointer (&out), &o, error);
}

/* torch.multinomial(input, num_samples, replacement=False, *, generator) */
NATIVE (native_multinomial)
{
  gint64 n_samples;
  gboolean replacement;
  CrGenerator *gen;
  g_autoptr(CrTensor) host = NULL;
  CrTensor *result;
  Options o;
  PARSE ("multinomial", "input num_samples | replacement * generator out");
  TENSOR_ARG (input, 0);

  if (!int_arg (&a, 1, &n_samples, error)
      || !cr_torch_args_bool (&a, 2, FALSE, &replacement, error)
      || !cr_torch_generator_arg (interp, &a, 3, &gen, error))
    return NULL;
  if (input->ndim < 1 || input->ndim > 2)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "prob_dist must be 1 or 2 dim");
      return NULL;
    }
  if (!cr_dtype_is_floating (input->dtype))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "multinomial only supports floating-point dtypes for input, got: %s",
                   cr_dtype_scalar_name (input->dtype));
      return NULL;
    }
  if (n_samples <= 0)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "cannot sample n_sample <= 0 samples");
      return NULL;
    }
  if (!replacement && n_samples > input->shape[input->ndim - 1])
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement");
      return NULL;
    }
  if (input->shape[input->ndim - 1] > (1 << 24))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                           "number of categories cannot exceed 2^24");
      return NULL;
    }
  host = cr_tensor_to_device (input, CR_DEVICE_CPU, error);
  if (host == NULL)
    return NULL;
  result = cr_random_multinomial (gen, host, n_samples, replacement, error);
  o = (Options) { .device = input->device, .has_device = TRUE };
  return finish (result, &o, error);
}

/* ---- the table ------------------------------------------------------- */

#define T CR_TORCH_IN_TORCH
#define M CR_TORCH_IN_TENSOR
/* out= gives its dtype (cr-torch-out.c). */
#define F CR_TORCH_FACTORY

const CrTorchFunc cr_torch_random_funcs[] = {
  { "rand", native_rand, T | F, GINT_TO_POINTER (FILL_UNIFORM) },
  { "randn", native_rand, T | F, GINT_TO_POINTER (FILL_NORMAL) },
  { "rand_like", native_rand_like, T, GINT_TO_POINTER (FILL_UNIFORM) },
  { "randn_like", native_rand_like, T, GINT_TO_POINTER (FILL_NORMAL) },
  { "randint", native_randint, T | F, NULL },
  { "randint_like", native_randint_like, T, NULL },
  { "randperm", native_randperm, T | F, NULL },
  { "normal", native_normal, T | F, NULL },
  { "bernoulli", native_bernoulli, T | M, NULL },
  { "multinomial", native_multinomial, T | M, NULL },
  { "uniform_", native_uniform_, M, NULL },
  { "normal_", native_normal_, M, NULL },
  { "exponential_", native_exponential_, M, NULL },
  { "random_", native_random_, M, NULL },
  { "bernoulli_", native_bernoulli_, M, NULL },
  { "log_normal_", native_log_normal_, M, NULL },
  { "cauchy_", native_cauchy_, M, NULL },
  { "geometric_", native_geometric_, M, NULL },
};
const guint cr_torch_n_random_funcs = G_N_ELEMENTS (cr_torch_random_funcs);
