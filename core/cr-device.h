/* cr-device.h — devices as scripts name them ("cpu", "cuda", "cuda:0") and
 * whether the CUDA backend can be used here.
 *
 * The CUDA backend is a module (gpu/, libchainrule-cuda.so) opened on first
 * use; a build without it, or a machine without a driver or a GPU, simply has
 * no CUDA device, and asking for one is a Python-style RuntimeError. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

/* "cpu", "cuda", "cuda:0"; RuntimeError with PyTorch's text for anything else. */
gboolean     cr_device_parse            (const char    *text,
                                         CrDeviceType  *out_type,
                                         int           *out_index,
                                         GError       **error);
/* "cpu" / "cuda:0" (static). */
const char  *cr_device_name             (CrDeviceType   type);

gboolean     cr_cuda_is_available       (void);
int          cr_cuda_device_count       (void);
/* Why CUDA is not available (static text), or NULL when it is. */
const char  *cr_cuda_unavailable_reason (void);
/* FALSE with PyTorch's RuntimeError when tensors cannot be put on type here. */
gboolean     cr_device_check_usable     (CrDeviceType   type,
                                         GError       **error);

G_END_DECLS
