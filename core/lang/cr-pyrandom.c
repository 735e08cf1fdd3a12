/* cr-pyrandom.c — `_random`, the core of Python's random module: CPython's
 * Mersenne Twister with its seeding (init_by_array over the 32-bit words of
 * abs(seed)), random() from 53 bits and getrandbits(k). The rest of
 * `random` (randrange, shuffle, choice, sample, gauss ...) is script source
 * in the prelude (prelude/random.py), as it is Python in CPython, so a
 * seeded script draws the numbers CPython 3.11 draws.
 *
 * _random.Random(seed) makes a generator object with .seed(n), .random(),
 * .getrandbits(k) (k <= 63: Chainrule has no big ints). */
#include "cr-interp-private.h"
#include "cr-mt19937.h"

#include <string.h>

/* The engine is PyTorch's (cr-mt19937.h: the same MT19937); CPython seeds
 * it differently, by init_by_array. */
typedef CrMt19937 Twister;

/* The reference init_by_array of Matsumoto and Nishimura, as CPython's. */
static void
init_by_array (Twister       *mt,
               const guint32 *key,
               int            key_length)
{
  guint32 *state = mt->state;
  int i = 1, j = 0;

  cr_mt19937_seed (mt, 19650218u);
  for (int k = MAX (CR_MT19937_N, key_length); k > 0; k--)
    {
      state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1664525u))
                 + key[j] + (guint32) j;
      i++;
      j++;
      if (i >= CR_MT19937_N)
        {
          state[0] = state[CR_MT19937_N - 1];
          i = 1;
        }
      if (j >= key_length)
        j = 0;
    }
  for (int k = CR_MT19937_N - 1; k > 0; k--)
    {
      state[i] = (state[i] ^ ((state[i - 1] ^ (state[i - 1] >> 30)) * 1566083941u))
                 - (guint32) i;
      i++;
      if (i >= CR_MT19937_N)
        {
          state[0] = state[CR_MT19937_N - 1];
          i = 1;
        }
    }
  state[0] = 0x80000000u;   /* a non-zero initial state, as the reference */
  /* cr_mt19937_seed left the engine to twist on its first draw. */
}

/* random.seed(n): all the bits of abs(n), low word first; 0 is one zero word. */
static void
seed_int (Twister *mt,
          gint64   n)
{
  guint64 magnitude = n < 0 ? 0 - (guint64) n : (guint64) n;
  guint32 key[2] = { (guint32) magnitude, (guint32) (magnitude >> 32) };

  init_by_array (mt, key, key[1] != 0 ? 2 : 1);
}

static void
seed_from_clock (Twister *mt)
{
  /* CPython takes os.urandom; a run unseeded differs from the next. */
  seed_int (mt, g_get_real_time () ^ ((gint64) g_random_int () << 20));
}

static Twister *
twister_of (CrValue *self)
{
  return self->u.object.data;
}

static gboolean
no_kwargs (const char *name,
           guint       n_kwargs,
           GError    **error)
{
  if (n_kwargs == 0)
    return TRUE;
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%s() takes no keyword arguments", name);
  return FALSE;
}

static CrValue *
native_seed (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args,
             const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error)
{
  if (!no_kwargs ("seed", n_kwargs, error))
    return NULL;
  if (n_args == 0 || args[0]->kind == CR_VALUE_NONE)
    seed_from_clock (twister_of (self));
  else if (args[0]->kind == CR_VALUE_INT || args[0]->kind == CR_VALUE_BOOL)
    seed_int (twister_of (self), args[0]->kind == CR_VALUE_INT ? args[0]->u.i : args[0]->u.b);
  else
    {
      cr_interp_set_error (error, CR_EXC_NOT_IMPLEMENTED_ERROR,
                           "random.seed() of a %s is not supported by Chainrule yet: "
                           "seed with an int", cr_value_type_name (args[0]));
      return NULL;
    }
  return cr_value_none ();
}

static CrValue *
native_random (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args,
               const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error)
{
  Twister *mt = twister_of (self);
  guint32 a, b;

  if (!no_kwargs ("random", n_kwargs, error))
    return NULL;
  if (n_args != 0)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "Random.random() takes no arguments (%u given)", n_args);
      return NULL;
    }
  a = cr_mt19937_next (mt) >> 5;
  b = cr_mt19937_next (mt) >> 6;
  return cr_value_new_float ((a * 67108864.0 + b) * (1.0 / 9007199254740992.0));
}

static CrValue *
native_getrandbits (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args,
                    const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error)
{
  Twister *mt = twister_of (self);
  gint64 k;
  guint64 bits = 0;

  if (!no_kwargs ("getrandbits", n_kwargs, error))
    return NULL;
  if (n_args != 1 || args[0]->kind != CR_VALUE_INT)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "getrandbits() takes one int argument");
      return NULL;
    }
  k = args[0]->u.i;
  if (k < 0)
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "number of bits must be non-negative");
      return NULL;
    }
  if (k > 63)
    {
      cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR,
                           "getrandbits(%" G_GINT64_FORMAT ") needs big ints, which Chainrule "
                           "does not have", k);
      return NULL;
    }
  if (k == 0)
    return cr_value_new_int (0);
  if (k <= 32)
    return cr_value_new_int (cr_mt19937_next (mt) >> (32 - k));
  /* Low word first, the last one shortened to what is left. */
  bits = cr_mt19937_next (mt);
  bits |= (guint64) (cr_mt19937_next (mt) >> (64 - k)) << 32;
  return cr_value_new_int ((gint64) bits);
}

static CrValue *
twister_get_attr (CrInterp    *interp,
                  CrValue     *self,
                  const char  *name,
                  GError     **error)
{
  if (strcmp (name, "seed") == 0)
    return cr_value_new_native ("seed", native_seed, self, NULL);
  if (strcmp (name, "random") == 0)
    return cr_value_new_native ("random", native_random, self, NULL);
  if (strcmp (name, "getrandbits") == 0)
    return cr_value_new_native ("getrandbits", native_getrandbits, self, NULL);
  return NULL;
}

static const CrObjectType twister_type = {
  .name = "_random.Random",
  .destroy = g_free,
  .get_attr = twister_get_attr,
};

/* _random.Random(seed=None) */
static CrValue *
native_new (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args,
            const CrKwarg *kwargs, guint n_kwargs, gpointer data, GError **error)
{
  Twister *mt = g_new0 (Twister, 1);
  CrValue *gen = cr_value_new_object (&twister_type, mt);
  CrValue *r;

  seed_from_clock (mt);
  r = native_seed (interp, gen, args, MIN (n_args, 1), kwargs, n_kwargs, NULL, error);
  if (r == NULL)
    {
      cr_value_unref (gen);
      return NULL;
    }
  cr_value_unref (r);
  return gen;
}

CrValue *
cr_pyrandom_module_new (void)
{
  CrValue *m = cr_value_new_module ("_random");
  CrValue *fn = cr_value_new_native ("Random", native_new, NULL, NULL);

  cr_value_set_member (m, "Random", fn);
  cr_value_unref (fn);
  return m;
}
