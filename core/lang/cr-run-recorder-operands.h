/* cr-run-recorder-operands.h — the tensors a failing expression was given,
 * for the run record's errors (CrRecordError.operands): `x @ w` that raised
 * a shape error names x and w, so the window can mark them and the line.
 * Private to core/lang; the run recorder owns one.
 *
 * The operands' values are gone when the expression fails (the interpreter
 * dropped them), so the watch keeps the last few tensor values the script's
 * expressions produced (cr_run_recorder_note_value) and, when an expression
 * fails, takes those of its direct sub-expressions. */
#pragma once

#include "cr-ast.h"
#include "cr-tensor.h"

G_BEGIN_DECLS

typedef struct _CrOperandWatch CrOperandWatch;

/* An operand of a failing expression. */
typedef struct {
  CrTensor        *tensor;   /* owned ref */
  const CrAstNode *expr;     /* the sub-expression that gave it; NULL for an
                              * operand of a native that library code called */
} CrOperand;

CrOperandWatch *cr_operand_watch_new    (void);
void            cr_operand_watch_free   (CrOperandWatch  *self);   /* NULL-safe */

/* t (borrowed; a reference is kept while statement runs) is the value of
 * expr, in statement, now. */
void            cr_operand_watch_note   (CrOperandWatch  *self,
                                         const CrAstNode *statement,
                                         const CrAstNode *expr,
                                         CrTensor        *t);
/* The value expr had last in the statement running (borrowed), NULL: none
 * kept (not a tensor, or pushed out since). */
CrTensor       *cr_operand_watch_recent (CrOperandWatch  *self,
                                         const CrAstNode *expr);
/* expr, of the script's code, raised error: its operands are kept until
 * the error is taken. Only the first (innermost) expression that fails
 * with an error counts: the calls around it fail with the same error. */
void            cr_operand_watch_failed (CrOperandWatch  *self,
                                         const CrAstNode *expr,
                                         const GError    *error);
/* A native function that library code (the prelude: torch.nn) called
 * raised error; tensors (borrowed CrTensor*) are what it was given. When
 * the script's expression that called into the library fails with the
 * same error, these are its operands rather than the expression's own:
 * nn.Linear's addmm names the input and fc.weight, not only the input.
 * Those whose shape the message quotes ("1x4 and 3x2") are kept when any
 * is; a view (weight.t()) stands for the tensor it views. Only the first
 * (innermost) native failing with an error counts. */
void            cr_operand_watch_native_failed (CrOperandWatch  *self,
                                                GPtrArray       *tensors,
                                                const GError    *error);
/* The operands of the failure whose error has this message (a new GArray
 * of CrOperand, which frees their refs; in evaluation order: a call's
 * receiver first, then its arguments), or NULL when the last failure is
 * another error's. Forgets the failure either way. */
GArray         *cr_operand_watch_take   (CrOperandWatch  *self,
                                         const char      *message);
/* Forgets the failure kept (its error was recorded without operands). */
void            cr_operand_watch_forget (CrOperandWatch  *self);
/* The values of expr's direct operands noted in this statement, in the
 * order the op it made takes them (a binary operator's left then right; a
 * call's receiver, then its positional arguments): a new GPtrArray of
 * borrowed CrTensor*, NULL where an operand is no tensor or is no longer
 * kept. For the inputs of an op that saved none of them (`w + d`). */
GPtrArray      *cr_operand_watch_operands_of (CrOperandWatch  *self,
                                              const CrAstNode *expr);
/* The expression of the statement running whose value was t itself (the
 * latest), NULL: none kept. */
const CrAstNode *cr_operand_watch_expr_of (CrOperandWatch *self,
                                           const CrTensor *t);
/* Drops every reference kept (the run ended). */
void            cr_operand_watch_clear  (CrOperandWatch  *self);

G_END_DECLS
