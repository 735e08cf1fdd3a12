/* cr-unary-rule.h — the dtype rules of the unary rows (the rule column of
 * cr-unary-ops.def), written once for core and for the CUDA module and its
 * mock, which include this through gpu/cr-cuda-abi.h. Plain C and C++ (a
 * constexpr function there), no GLib. dtype codes: 0 bool, 1 int64,
 * 2 float32, 3 float64 (CrDType, CrCudaDType). */
#pragma once

#ifdef __cplusplus
#define CR_UNARY_RULE_CONSTEXPR constexpr
#else
#define CR_UNARY_RULE_CONSTEXPR
#endif

typedef enum {
  CR_UNARY_RULE_FLOAT,            /* bool/int64 compute in float32 */
  CR_UNARY_RULE_SAME,             /* keeps int64; bool is an error */
  CR_UNARY_RULE_SAME_BOOL_ROW,    /* keeps every dtype */
  CR_UNARY_RULE_SAME_BOOL_INT64,  /* keeps int64; bool computes in int64 */
  CR_UNARY_RULE_FLOATS_ONLY,      /* float32/float64 only */
  CR_UNARY_RULE_LOGICAL,          /* any dtype in, bool out */
} CrUnaryRule;

/* Does an op of this rule compute in dtype itself (no cast first)? */
static inline CR_UNARY_RULE_CONSTEXPR int
cr_unary_rule_takes (int rule,
                     int dtype)
{
  return dtype == 2 || dtype == 3
         || (dtype == 1 && (rule == CR_UNARY_RULE_SAME || rule == CR_UNARY_RULE_SAME_BOOL_ROW
                            || rule == CR_UNARY_RULE_SAME_BOOL_INT64
                            || rule == CR_UNARY_RULE_LOGICAL))
         || (dtype == 0 && (rule == CR_UNARY_RULE_SAME_BOOL_ROW
                            || rule == CR_UNARY_RULE_LOGICAL));
}
