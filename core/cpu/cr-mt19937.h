/* cr-mt19937.h — the 32-bit Mersenne Twister behind PyTorch's CPU generator.
 *
 * The same engine as at::mt19937 (Matsumoto and Nishimura's MT19937 with
 * init_genrand seeding), with its state laid out as PyTorch keeps it, so that
 * a seed gives PyTorch's stream and get_rng_state/set_rng_state can carry it.
 * Plain data: copy it by assignment. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

#define CR_MT19937_N 624

typedef struct {
  guint64  seed;                /* what seeded it (64 bits; the engine uses the low 32) */
  int      left;                /* draws left before the next twist, 1..N */
  gboolean seeded;
  guint32  next;                /* index of the next word of state to temper */
  guint32  state[CR_MT19937_N];
} CrMt19937;

void     cr_mt19937_seed      (CrMt19937       *mt,
                               guint64          seed);
/* TRUE when left/next lie in range: a state read back from bytes is usable. */
gboolean cr_mt19937_is_valid  (const CrMt19937 *mt);
/* Regenerates the state words; called when left reaches 0. */
void     cr_mt19937_twist     (CrMt19937       *mt);

/* The next 32 random bits. */
static inline guint32
cr_mt19937_next (CrMt19937 *mt)
{
  guint32 y;

  if (--mt->left == 0)
    cr_mt19937_twist (mt);
  y = mt->state[mt->next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

G_END_DECLS
