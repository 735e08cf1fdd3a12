/* cr-mt19937.c — seeding and the twist of the Mersenne Twister (see the header). */
#include "cr-mt19937.h"

#define MT_M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER_MASK 0x80000000u
#define LOWER_MASK 0x7fffffffu

void
cr_mt19937_seed (CrMt19937 *mt,
                 guint64    seed)
{
  mt->seed = seed;
  mt->seeded = TRUE;
  mt->state[0] = (guint32) seed;
  for (guint32 j = 1; j < CR_MT19937_N; j++)
    mt->state[j] = 1812433253u * (mt->state[j - 1] ^ (mt->state[j - 1] >> 30)) + j;
  /* The first draw twists. */
  mt->left = 1;
  mt->next = 0;
}

gboolean
cr_mt19937_is_valid (const CrMt19937 *mt)
{
  return mt->seeded && mt->left > 0 && mt->left <= CR_MT19937_N && mt->next <= CR_MT19937_N;
}

static inline guint32
twist_pair (guint32 u,
            guint32 v)
{
  return (((u & UPPER_MASK) | (v & LOWER_MASK)) >> 1) ^ ((v & 1u) ? MATRIX_A : 0u);
}

void
cr_mt19937_twist (CrMt19937 *mt)
{
  guint32 *s = mt->state;
  int j;

  mt->left = CR_MT19937_N;
  mt->next = 0;
  for (j = 0; j < CR_MT19937_N - MT_M; j++)
    s[j] = s[j + MT_M] ^ twist_pair (s[j], s[j + 1]);
  for (; j < CR_MT19937_N - 1; j++)
    s[j] = s[j + MT_M - CR_MT19937_N] ^ twist_pair (s[j], s[j + 1]);
  s[CR_MT19937_N - 1] = s[MT_M - 1] ^ twist_pair (s[CR_MT19937_N - 1], s[0]);
}
