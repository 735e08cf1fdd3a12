/* cr-backend.c — the registry of device backends (see cr-backend.h). */
#include "cr-backend.h"
#include "cr-error.h"

static const CrBackend *backends[CR_DEVICE_CUDA + 1];

void
cr_backend_register (CrDeviceType      device,
                     const CrBackend  *backend)
{
  g_return_if_fail (device != CR_DEVICE_CPU && (guint) device < G_N_ELEMENTS (backends));
  g_atomic_pointer_set (&backends[device], backend);
}

const CrBackend *
cr_backend_get (CrDeviceType   device,
                GError       **error)
{
  const CrBackend *backend = NULL;

  if ((guint) device < G_N_ELEMENTS (backends))
    backend = g_atomic_pointer_get (&backends[device]);
  if (backend == NULL)
    g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                 "Torch not compiled with CUDA enabled");
  return backend;
}
