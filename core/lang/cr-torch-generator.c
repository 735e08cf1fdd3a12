/* cr-torch-generator.c — torch.Generator, torch.default_generator, and the
 * seed and state functions (manual_seed, seed, initial_seed, get_rng_state,
 * set_rng_state) over core/cpu/cr-random.h's generator.
 *
 * A Generator object owns a CrGenerator, except torch.default_generator,
 * which stands for the script's own (the interpreter keeps it, so each run
 * starts from PyTorch's default seed). */
#include "cr-torch-native.h"
#include "cr-interp-private.h"
#include "cr-kernels.h"

#include <math.h>
#include <string.h>

/* ---- torch.Generator -------------------------------------------------- */

/* gen NULL: the script's default generator (torch.default_generator), which
 * the interpreter owns and a call resolves. */
typedef struct {
  CrGenerator *gen;     /* owned when not NULL */
} GeneratorObject;

static void
generator_object_free (gpointer data)
{
  GeneratorObject *g = data;

  cr_generator_free (g->gen);
  g_free (g);
}

static CrValue *generator_get_attr (CrInterp *interp, CrValue *self, const char *name,
                                    GError **error);

static gconstpointer
generator_identity (CrValue *self)
{
  GeneratorObject *g = self->u.object.data;

  /* Every torch.default_generator is one object, as in PyTorch. */
  return g->gen != NULL ? (gconstpointer) g->gen : (gconstpointer) &generator_object_free;
}

static gboolean
generator_equal (CrValue *a,
                 CrValue *b)
{
  return generator_identity (a) == generator_identity (b);
}

static const CrObjectType generator_type = {
  .name = "torch._C.Generator",
  .destroy = generator_object_free,
  .get_attr = generator_get_attr,
  .identity = generator_identity,
  .equal = generator_equal,
};

static CrValue *
generator_value_new (CrGenerator *take)
{
  GeneratorObject *g = g_new0 (GeneratorObject, 1);

  g->gen = take;
  return cr_value_new_object (&generator_type, g);
}

CrValue *
cr_torch_default_generator_new (void)
{
  return generator_value_new (NULL);
}

static CrGenerator *
generator_of (CrInterp *interp,
              CrValue  *v)
{
  GeneratorObject *g = v->u.object.data;

  return g->gen != NULL ? g->gen : cr_interp_get_generator (interp);
}

/* generator= of a sampling function: None or absent means the default. */
gboolean
cr_torch_generator_arg (CrInterp           *interp,
                        const CrTorchArgs  *a,
                        guint               i,
                        CrGenerator       **out,
                        GError            **error)
{
  CrValue *v = i < a->n_params ? a->values[i] : NULL;

  if (v == NULL || v->kind == CR_VALUE_NONE)
    {
      *out = cr_interp_get_generator (interp);
      return TRUE;
    }
  if (v->kind == CR_VALUE_OBJECT && v->u.object.type == &generator_type)
    {
      *out = generator_of (interp, v);
      return TRUE;
    }
  cr_torch_args_type_error (a, i, "torch.Generator", error);
  return FALSE;
}

/* A seed as torch.manual_seed takes it (int(seed)), wrapped to 64 bits as
 * PyTorch stores a negative one. */
static gboolean
parse_seed (CrValue  *v,
            guint64  *out,
            GError  **error)
{
  gint64 seed;

  if (v->kind == CR_VALUE_FLOAT && isfinite (v->u.f)
      && fabs (v->u.f) < 9223372036854775808.0)
    seed = (gint64) v->u.f;
  else if (v->kind == CR_VALUE_STR)
    {
      const char *text = v->u.str.data;
      char *end = NULL;

      seed = g_ascii_strtoll (text, &end, 10);
      while (end != NULL && g_ascii_isspace (*end))
        end++;
      if (end == text || *end != '\0')
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR,
                       "invalid literal for int() with base 10: '%s'", text);
          return FALSE;
        }
    }
  else if (!cr_torch_value_is_int (v, &seed))
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "int() argument must be a string, a bytes-like object or a real number, "
                   "not '%s'", cr_torch_type_name (v));
      return FALSE;
    }
  *out = (guint64) seed;
  return TRUE;
}

static CrValue *
state_tensor_new (CrGenerator *gen)
{
  guint8 bytes[CR_GENERATOR_STATE_SIZE];
  gint64 n = CR_GENERATOR_STATE_SIZE;

  cr_generator_get_state (gen, bytes);
  /* A torch.ByteTensor, as PyTorch's. */
  return cr_value_new_tensor_take (cr_tensor_new_from_data (bytes, &n, 1, CR_DTYPE_UINT8, NULL));
}

static gboolean
set_state_from (CrGenerator  *gen,
                CrValue      *v,
                GError      **error)
{
  g_autofree guint8 *bytes = NULL;
  CrTensor *t;

  if (v->kind != CR_VALUE_TENSOR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "expected a torch.ByteTensor, but got %s", cr_torch_type_name (v));
      return FALSE;
    }
  if (v->u.tensor->dtype != CR_DTYPE_UINT8 || v->u.tensor->device != CR_DEVICE_CPU)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                           "RNG state must be a torch.ByteTensor");
      return FALSE;
    }
  t = v->u.tensor;
  bytes = g_new0 (guint8, MAX (t->numel, 1));
  for (gint64 i = 0; i < t->numel; i++)
    bytes[i] = (guint8) cr_tensor_get_flat_int (t, i);
  return cr_generator_set_state (gen, bytes, (gsize) t->numel, error);
}

/* The nanoseconds of the clock, as PyTorch's CPU seed() takes them. */
static guint64
nondeterministic_seed (void)
{
  return (guint64) g_get_real_time () * 1000u + (guint64) g_random_int_range (0, 1000);
}

NATIVE (native_generator_manual_seed)
{
  guint64 seed;
  PARSE ("manual_seed", "self seed");

  if (!parse_seed (a.values[1], &seed, error))
    return NULL;
  cr_generator_seed (generator_of (interp, self), seed);
  return cr_value_ref (self);
}

NATIVE (native_generator_seed)
{
  guint64 seed = nondeterministic_seed ();
  PARSE ("seed", "self");

  cr_generator_seed (generator_of (interp, self), seed);
  return cr_value_new_int ((gint64) seed);
}

NATIVE (native_generator_initial_seed)
{
  PARSE ("initial_seed", "self");
  return cr_value_new_int ((gint64) cr_generator_initial_seed (generator_of (interp, self)));
}

NATIVE (native_generator_get_state)
{
  PARSE ("get_state", "self");
  return state_tensor_new (generator_of (interp, self));
}

NATIVE (native_generator_set_state)
{
  PARSE ("set_state", "self new_state");

  if (!set_state_from (generator_of (interp, self), a.values[1], error))
    return NULL;
  return cr_value_ref (self);
}

static CrValue *
generator_get_attr (CrInterp    *interp,
                    CrValue     *self,
                    const char  *name,
                    GError     **error)
{
  static const struct { const char *name; CrNativeFunc fn; } methods[] = {
    { "manual_seed", native_generator_manual_seed },
    { "seed", native_generator_seed },
    { "initial_seed", native_generator_initial_seed },
    { "get_state", native_generator_get_state },
    { "set_state", native_generator_set_state },
  };

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (strcmp (name, methods[i].name) == 0)
      return cr_value_new_native (methods[i].name, methods[i].fn, self, NULL);
  if (strcmp (name, "device") == 0)
    return cr_torch_device_new (CR_DEVICE_CPU);
  return NULL;
}

/* torch.Generator(device='cpu') */
NATIVE (native_generator_new)
{
  CrDeviceType device = CR_DEVICE_CPU;
  gboolean has_device;
  PARSE ("Generator", "| device");

  if (!cr_torch_args_device (&a, 0, &device, &has_device, error))
    return NULL;
  /* A CUDA generator would be Philox; ours draws on the CPU for both. */
  return generator_value_new (cr_generator_new_default ());
}

/* torch.Generator as the class type() gives for a generator (so that
 * isinstance(g, torch.Generator) holds), which calling makes one. */
CrValue *
cr_torch_generator_class (CrInterp *interp)
{
  g_autoptr(CrValue) probe = generator_value_new (cr_generator_new_default ());
  CrValue *cls = cr_interp_type_of (interp, probe);
  if (cls == NULL || cls->kind != CR_VALUE_CLASS)
    return NULL;
  if (!cr_value_get_member (cls, "__cr_new__"))
    {
      g_autoptr(CrValue) ctor = cr_value_new_native ("Generator", native_generator_new, NULL, NULL);
      cr_value_set_member (cls, "__cr_new__", ctor);
    }
  return cls;
}

/* ---- seeds and state ------------------------------------------------- */

NATIVE (native_manual_seed)
{
  guint64 seed;
  PARSE ("manual_seed", "seed");

  if (!parse_seed (a.values[0], &seed, error))
    return NULL;
  cr_generator_seed (cr_interp_get_generator (interp), seed);
  return cr_torch_default_generator_new ();
}

NATIVE (native_seed)
{
  guint64 seed = nondeterministic_seed ();
  PARSE ("seed", "");

  cr_generator_seed (cr_interp_get_generator (interp), seed);
  return cr_value_new_int ((gint64) seed);
}

NATIVE (native_initial_seed)
{
  PARSE ("initial_seed", "");
  return cr_value_new_int ((gint64) cr_generator_initial_seed (cr_interp_get_generator (interp)));
}

NATIVE (native_get_rng_state)
{
  PARSE ("get_rng_state", "");
  return state_tensor_new (cr_interp_get_generator (interp));
}

NATIVE (native_set_rng_state)
{
  PARSE ("set_rng_state", "new_state");

  if (!set_state_from (cr_interp_get_generator (interp), a.values[0], error))
    return NULL;
  return cr_value_none ();
}

#define T CR_TORCH_IN_TORCH

const CrTorchFunc cr_torch_generator_funcs[] = {
  { "manual_seed", native_manual_seed, T, NULL },
  { "seed", native_seed, T, NULL },
  { "initial_seed", native_initial_seed, T, NULL },
  { "get_rng_state", native_get_rng_state, T, NULL },
  { "set_rng_state", native_set_rng_state, T, NULL },
  { "Generator", native_generator_new, T, NULL },
};
const guint cr_torch_n_generator_funcs = G_N_ELEMENTS (cr_torch_generator_funcs);

/* torch.random: the seed functions again, and default_generator. */
CrValue *
cr_torch_random_module_new (void)
{
  CrValue *m = cr_value_new_module ("torch.random");
  g_autoptr(CrValue) def = cr_torch_default_generator_new ();

  for (guint i = 0; i < G_N_ELEMENTS (cr_torch_generator_funcs); i++)
    {
      const CrTorchFunc *f = &cr_torch_generator_funcs[i];
      g_autoptr(CrValue) v = NULL;

      if (strcmp (f->name, "Generator") == 0)
        continue;
      v = cr_value_new_native (f->name, f->fn, NULL, f->data);
      cr_value_set_member (m, f->name, v);
    }
  cr_value_set_member (m, "default_generator", def);
  return m;
}
