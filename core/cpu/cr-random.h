/* cr-random.h — PyTorch's CPU generator and its sampling, value for value.
 *
 * A CrGenerator is a seeded at::mt19937 plus the cached second normal of
 * Box-Muller, as PyTorch's CPUGeneratorImpl; the fills below draw from it
 * in the order and with the transforms of PyTorch 1.13's CPU kernels (the
 * AVX2 kernels where PyTorch has one), so the same seed gives the same bits.
 * Random tensors are made on the CPU; a caller copies them to another device
 * (PyTorch's CUDA generator, Philox, gives other numbers there).
 *
 * A generator is not thread-safe: each script run owns its own. Fills take
 * a CPU tensor of any strides and write it in place, in the order of its
 * memory (as PyTorch's TensorIterator walks it); they fail with PyTorch's
 * RuntimeError for a dtype the sampler does not support. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

typedef struct _CrGenerator CrGenerator;

/* PyTorch's default_rng_seed_val: the seed before any manual_seed. */
#define CR_GENERATOR_DEFAULT_SEED G_GUINT64_CONSTANT (67280421310721)
/* Bytes of torch.get_rng_state(): PyTorch's CPUGeneratorImplState. */
#define CR_GENERATOR_STATE_SIZE 5056
/* Its older layout (no float normal), which set_rng_state also accepts. */
#define CR_GENERATOR_LEGACY_STATE_SIZE 5048

CrGenerator *cr_generator_new              (guint64            seed);
/* A generator with CR_GENERATOR_DEFAULT_SEED. */
CrGenerator *cr_generator_new_default      (void);
void         cr_generator_free             (CrGenerator       *gen);   /* NULL-safe */
/* manual_seed: a fresh stream, no cached normal. */
void         cr_generator_seed             (CrGenerator       *gen,
                                            guint64            seed);
guint64      cr_generator_initial_seed     (const CrGenerator *gen);
/* Copies src's whole state (stream position and cached normals) into dest. */
void         cr_generator_copy_state       (CrGenerator       *dest,
                                            const CrGenerator *src);
/* 32 random bits; 64 from two draws, the first the high word. */
guint32      cr_generator_random           (CrGenerator       *gen);
guint64      cr_generator_random64         (CrGenerator       *gen);

/* The state as PyTorch's get_state lays it out (little-endian x86-64):
 * out must hold CR_GENERATOR_STATE_SIZE bytes. */
void         cr_generator_get_state        (const CrGenerator *gen,
                                            guint8            *out);
/* Sets the state from bytes of either size above; RuntimeError with
 * PyTorch's message for another size or an invalid state. */
gboolean     cr_generator_set_state        (CrGenerator       *gen,
                                            const guint8      *bytes,
                                            gsize              n_bytes,
                                            GError           **error);

/* ---- fills (Tensor.x_ with PyTorch's checks done by the caller) ---------- */

/* uniform_(from, to): float32/float64. */
gboolean  cr_random_uniform_       (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           from,
                                    double           to,
                                    GError         **error);
/* normal_(mean, std): float32/float64. */
gboolean  cr_random_normal_        (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           mean,
                                    double           std,
                                    GError         **error);
/* random_(from, to): base + (bits % range), with range = to - from as an
 * unsigned number (0 means the full 2^64, from then int64's minimum). */
gboolean  cr_random_from_to_       (CrGenerator     *gen,
                                    CrTensor        *self,
                                    gint64           base,
                                    guint64          range,
                                    GError         **error);
/* random_() without bounds: [0, 2^mantissa] for floats, [0, max] for ints. */
gboolean  cr_random_random_        (CrGenerator     *gen,
                                    CrTensor        *self,
                                    GError         **error);
/* bernoulli_(p) with a float p in [0, 1]. */
gboolean  cr_random_bernoulli_     (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           p,
                                    GError         **error);
/* bernoulli_(p) with a float32/float64 CPU tensor p broadcastable to self. */
gboolean  cr_random_bernoulli_tensor_ (CrGenerator   *gen,
                                       CrTensor      *self,
                                       const CrTensor *p,
                                       GError       **error);
/* exponential_(lambd): float32/float64. */
gboolean  cr_random_exponential_   (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           lambd,
                                    GError         **error);

/* log_normal_(mean, std): exp of a scalar normal; float32/float64. */
gboolean  cr_random_log_normal_    (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           mean,
                                    double           std,
                                    GError         **error);
/* cauchy_(median, sigma): float32/float64. */
gboolean  cr_random_cauchy_        (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           median,
                                    double           sigma,
                                    GError         **error);
/* geometric_(p), p in (0, 1): trials to the first success, any dtype. */
gboolean  cr_random_geometric_     (CrGenerator     *gen,
                                    CrTensor        *self,
                                    double           p,
                                    GError         **error);

/* ---- new tensors --------------------------------------------------------- */

/* randperm(n): a new 1-d CPU tensor of dtype (int64, float32 or float64). */
CrTensor *cr_random_randperm       (CrGenerator     *gen,
                                    gint64           n,
                                    CrDType          dtype,
                                    GError         **error);
/* multinomial(probs, n, replacement): probs a 1-d or 2-d float CPU tensor
 * of non-negative weights (rows); a new int64 tensor of indices. The
 * caller checks the arguments (PyTorch's messages). */
CrTensor *cr_random_multinomial    (CrGenerator     *gen,
                                    const CrTensor  *probs,
                                    gint64           n_samples,
                                    gboolean         replacement,
                                    GError         **error);

G_END_DECLS
