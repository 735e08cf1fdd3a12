/* cr-torch-names.h — which names PyTorch 1.13's modules have (generated
 * from PyTorch itself by tools/gen-torch-names.py), so that a missing one
 * can say "Chainrule does not support ... yet" instead of reading like the
 * user's typo. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when PyTorch 1.13's module (e.g. "torch.nn.functional") has the public
 * name. FALSE for a module not in the list. */
gboolean cr_torch_names_has (const char *module,
                             const char *name);

G_END_DECLS
