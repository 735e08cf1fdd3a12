/* cr-ops-formula.h — the vocabulary of the backward formulas of the .def
 * rows (cr-ops-unary.c, cr-ops-binary.c): one evaluation of a formula, whose
 * steps are differentiable ops (so a create_graph backward records a graph
 * of real ops), keep every intermediate they make, and give NULL from the
 * first failure on. Private to core/ops. */
#pragma once

#include "cr-ops.h"
#include "cr-kernels.h"

G_BEGIN_DECLS

typedef struct {
  CrTensor  *grad;    /* G, the incoming gradient: borrowed */
  GPtrArray *temps;   /* owned: every intermediate; a step's result is borrowed from here */
  GError    *err;     /* the first failure; every later step gives NULL */
} CrFormula;

typedef CrTensor *(*CrFormulaTensorsFunc) (CrTensor *a, CrTensor *b, GError **error);

void      cr_formula_init          (CrFormula *f,
                                    CrTensor  *grad);
/* Ends the evaluation that gave result (borrowed, may be NULL): a new ref to
 * it, or NULL with error set (the formula's own error, or one naming what
 * when the formula gave nothing). Frees the intermediates. */
CrTensor *cr_formula_end           (CrFormula  *f,
                                    CrTensor   *result,
                                    const char *what,
                                    GError    **error);

/* The steps. Each takes the failure state of f into account: NULL in, NULL out. */
CrTensor *cr_formula_keep          (CrFormula *f, CrTensor *t);          /* takes t */
CrTensor *cr_formula_tensors       (CrFormula *f, CrFormulaTensorsFunc fn, CrTensor *a, CrTensor *b);
CrTensor *cr_formula_binary        (CrFormula *f, CrOpId op, CrTensor *a, CrTensor *b);
CrTensor *cr_formula_unary         (CrFormula *f, CrOpId op, CrTensor *a);
/* a OP n with a number: the row's .Scalar op (MulBackward1, DivBackward1,
 * AddBackward1), as a C++ formula's `grad * 2` records in PyTorch. */
CrTensor *cr_formula_number        (CrFormula *f, CrOpId op, CrTensor *a, double n);
/* a ** n: PowBackward0 */
CrTensor *cr_formula_pow_number    (CrFormula *f, CrTensor *a, double n);
/* Masks and other values without a gradient: the kernels alone. */
CrTensor *cr_formula_kernel        (CrFormula *f, CrBinaryOp op, CrTensor *a, CrTensor *b);
CrTensor *cr_formula_kernel_number (CrFormula *f, CrBinaryOp op, CrTensor *a, double n);
CrTensor *cr_formula_kernel_unary  (CrFormula *f, CrUnaryOp op, CrTensor *a);
CrTensor *cr_formula_where         (CrFormula *f, CrTensor *mask, CrTensor *a, CrTensor *b);
/* zeros_like(G) */
CrTensor *cr_formula_zeros         (CrFormula *f);
/* A formula's own check failed: PyTorch's RuntimeError with message. */
CrTensor *cr_formula_fail          (CrFormula *f, const char *message);

G_END_DECLS
