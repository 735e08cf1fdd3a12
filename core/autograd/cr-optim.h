/* cr-optim.h — torch.optim.SGD (lr, momentum, dampening, weight_decay, nesterov),
 * PyTorch 1.13's update rule, applied without recording history. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

typedef struct _CrSgd CrSgd;

/* params: tensors (new refs are taken). ValueError for a negative lr etc. with
 * PyTorch's text ("Invalid learning rate: -0.1"). */
CrSgd     *cr_sgd_new        (CrTensor *const *params,
                              guint            n_params,
                              double           lr,
                              double           momentum,
                              double           dampening,
                              double           weight_decay,
                              gboolean         nesterov,
                              GError         **error);
void       cr_sgd_free       (CrSgd           *self);   /* NULL-safe */
gboolean   cr_sgd_step       (CrSgd           *self,
                              GError         **error);
/* PyTorch 1.13's default: set_to_none = FALSE (zero the existing .grad). */
void       cr_sgd_zero_grad  (CrSgd           *self,
                              gboolean         set_to_none);
double     cr_sgd_get_lr     (const CrSgd     *self);
void       cr_sgd_set_lr     (CrSgd           *self,
                              double           lr);
guint      cr_sgd_get_n_params (const CrSgd   *self);
CrTensor  *cr_sgd_get_param  (const CrSgd     *self,    /* borrowed */
                              guint            i);

G_END_DECLS
