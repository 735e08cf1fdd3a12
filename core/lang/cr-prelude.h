/* cr-prelude.h — the prelude: the parts of torch that PyTorch writes in
 * Python (torch.nn's modules, ...), kept as script source in
 * core/lang/prelude/ and built into the binary (cr-prelude-sources.c is
 * generated from those files by embed-prelude.py).
 *
 * A prelude module is parsed at most once per process and run, as a module
 * namespace of its own, the first time a script imports it or reaches it as
 * an attribute (`torch.nn`): a script that uses no torch.nn pays nothing for
 * it. The interpreter side is cr-interp-private.h's cr_prelude_import (). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *module;   /* dotted name: "torch.nn.modules.module" ("torch.nn" for __init__.py) */
  const char *path;     /* below core/lang/prelude: "torch/nn/modules/module.py" */
  const char *source;
} CrPreludeSource;

extern const CrPreludeSource cr_prelude_sources[];
extern const guint           cr_prelude_n_sources;

/* The row of the module named dotted, or NULL. */
const CrPreludeSource *cr_prelude_find (const char *dotted);

G_END_DECLS
