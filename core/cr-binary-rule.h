/* cr-binary-rule.h — the dtype rules of the binary rows (the rule column of
 * cr-binary-ops.def), written once for core and for the CUDA module and its
 * mock, which include this through gpu/cr-cuda-abi.h. Plain C and C++ (a
 * constexpr function there), no GLib. dtype codes: 0 bool, 1 int64,
 * 2 float32, 3 float64 (CrDType, CrCudaDType); any other code is computed by
 * no row. */
#pragma once

#ifdef __cplusplus
#define CR_BINARY_RULE_CONSTEXPR constexpr
#else
#define CR_BINARY_RULE_CONSTEXPR
#endif

typedef enum {
  CR_BINARY_RULE_ARITH,         /* the promoted dtype; bool is an error */
  CR_BINARY_RULE_ARITH_BOOL,    /* the promoted dtype, bool too (B is used) */
  CR_BINARY_RULE_FLOAT,         /* bool/int64 compute in float32 */
  CR_BINARY_RULE_FLOATS_ONLY,   /* float32/float64 only; others are errors */
  CR_BINARY_RULE_COMPARE,       /* the promoted dtype, any; the result is bool */
  CR_BINARY_RULE_INTEGERS,      /* bool/int64 in the promoted dtype (B for bool);
                                 * floats are errors */
  CR_BINARY_RULE_INT64,         /* int64 (narrower integers widened to it); bool
                                 * and floats are errors: PyTorch's shifts */
} CrBinaryRule;

/* The dtype an op of rule computes in when its operands promote to
 * promoted (core casts both to it), or -1 when the rule refuses it. */
static inline CR_BINARY_RULE_CONSTEXPR int
cr_binary_rule_compute (int rule,
                        int promoted)
{
  return rule == CR_BINARY_RULE_INTEGERS ? (promoted == 0 || promoted == 1 ? promoted : -1)
         : rule == CR_BINARY_RULE_INT64 ? (promoted == 1 ? 1 : -1)
         : promoted == 2 || promoted == 3 ? promoted
         : rule == CR_BINARY_RULE_FLOAT && (promoted == 0 || promoted == 1) ? 2
         : rule == CR_BINARY_RULE_FLOATS_ONLY ? -1
         : promoted == 1 ? 1
         : promoted == 0 && (rule == CR_BINARY_RULE_ARITH_BOOL
                             || rule == CR_BINARY_RULE_COMPARE) ? 0
         : -1;
}

/* The dtype of the result for a compute dtype. */
static inline CR_BINARY_RULE_CONSTEXPR int
cr_binary_rule_result (int rule,
                       int compute)
{
  return rule == CR_BINARY_RULE_COMPARE ? 0 : compute;
}
