/* cr-tensor-format.h — tensors printed exactly as PyTorch 1.13 prints them:
 * `tensor([[4., 2.], [2., 4.]])` layout, 4 digits, integer mode, scientific
 * mode switch, `...` summarisation past 1000 elements, 80-column lines, and the
 * dtype=/device=/grad_fn=/requires_grad= suffixes. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

typedef struct {
  int   precision;    /* 4 */
  gint64 threshold;   /* 1000: summarise above this many elements */
  int   edgeitems;    /* 3 */
  int   linewidth;    /* 80 */
  int   sci_mode;     /* -1: chosen for each tensor (None); 0 or 1: forced */
} CrPrintOptions;

/* torch.set_printoptions's defaults. */
void  cr_print_options_init_default (CrPrintOptions       *options);

/* repr(t) / str(t): "tensor([1., 2.], requires_grad=True)". New string. */
char *cr_tensor_format              (const CrTensor       *t,
                                     const CrPrintOptions *options);
/* The same with another name before the parenthesis, as PyTorch prints a
 * tensor of a script's subclass: "MyTensor([1., 2.])". */
char *cr_tensor_format_named        (const CrTensor       *t,
                                     const CrPrintOptions *options,
                                     const char           *name);
/* Only the data part, as it appears inside "tensor(...)" with the given
 * indentation for continuation lines (the UI's value previews). */
char *cr_tensor_format_data         (const CrTensor       *t,
                                     const CrPrintOptions *options,
                                     int                   indent);

G_END_DECLS
