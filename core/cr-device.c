/* cr-device.c — device names and the lazily loaded CUDA module. */
#include "cr-device.h"

#include "cr-config.h"
#include "cr-cuda.h"
#include "cr-error.h"

#include "gpu/cr-cuda-abi.h"

#include <gmodule.h>
#include <string.h>

typedef struct {
  GModule    *module;
  CrCudaApi   api;            /* the module's table; lives as long as the process */
  int         n_devices;
  char        device_name[256];
  char        reason[512];
} CudaState;

static CudaState cuda_state;

/* Where the module may be: beside the build tree's binary (build/app/chainrule
 * -> build/gpu/), in the install's libdir, or where CHAINRULE_CUDA_MODULE says. */
static GPtrArray *
module_candidates (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("CHAINRULE_CUDA_MODULE");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  if (env != NULL && *env != '\0')
    g_ptr_array_add (paths, g_strdup (env));
  if (exe != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (exe);
      g_ptr_array_add (paths, g_build_filename (dir, "..", "gpu", "libchainrule-cuda.so", NULL));
      g_ptr_array_add (paths, g_build_filename (dir, "libchainrule-cuda.so", NULL));
      /* Test binaries: build/tests/<suite>/ -> build/gpu/. */
      g_ptr_array_add (paths, g_build_filename (dir, "..", "..", "gpu", "libchainrule-cuda.so",
                                                NULL));
    }
  g_ptr_array_add (paths, g_build_filename (CR_LIBDIR, "chainrule", "libchainrule-cuda.so", NULL));
  return paths;
}

static gpointer
load_cuda_module (gpointer data)
{
  CudaState *state = data;
  g_autoptr(GPtrArray) paths = NULL;

  state->n_devices = 0;
  if (!CR_HAVE_CUDA_MODULE && g_getenv ("CHAINRULE_CUDA_MODULE") == NULL)
    {
      g_strlcpy (state->reason, "Chainrule was built without its CUDA backend (nvcc was not found)",
                 sizeof state->reason);
      return NULL;
    }

  paths = module_candidates ();
  for (guint i = 0; i < paths->len && state->module == NULL; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        state->module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
    }
  if (state->module == NULL)
    {
      g_strlcpy (state->reason, "the CUDA backend module could not be loaded (no CUDA runtime here)",
                 sizeof state->reason);
      return NULL;
    }
  {
    CrCudaGetApiFunc get_api = NULL;
    char msg[512] = "";
    int count = 0;

    if (!g_module_symbol (state->module, CR_CUDA_GET_API_SYMBOL, (gpointer *) &get_api)
        || get_api (CR_CUDA_ABI_VERSION, &state->api) != CR_CUDA_OK)
      {
        g_strlcpy (state->reason, "the CUDA backend module is incomplete or of another version",
                   sizeof state->reason);
        return NULL;
      }
    /* A machine without a driver or a device stops here: the module answered,
     * CUDA did not. The message is the runtime's own. */
    if (state->api.device_count (&count, msg, sizeof msg) != CR_CUDA_OK || count <= 0)
      {
        g_strlcpy (state->reason, *msg != '\0' ? msg : "no CUDA device was found",
                   sizeof state->reason);
        return NULL;
      }
    if (state->api.init (msg, sizeof msg) != CR_CUDA_OK)
      {
        g_strlcpy (state->reason, msg, sizeof state->reason);
        return NULL;
      }
    if (state->api.device_name (0, state->device_name, sizeof state->device_name,
                                msg, sizeof msg) != CR_CUDA_OK)
      g_strlcpy (state->device_name, "CUDA device 0", sizeof state->device_name);
    state->n_devices = count;
    cr_cuda_backend_install (&state->api);
  }
  return NULL;
}

static CudaState *
cuda (void)
{
  static GOnce once = G_ONCE_INIT;
  g_once (&once, load_cuda_module, &cuda_state);
  return &cuda_state;
}

gboolean
cr_cuda_is_available (void)
{
  return cuda ()->n_devices > 0;
}

int
cr_cuda_device_count (void)
{
  return cuda ()->n_devices;
}

const char *
cr_cuda_unavailable_reason (void)
{
  CudaState *state = cuda ();
  return state->n_devices > 0 ? NULL : state->reason;
}

static __thread CrDeviceType default_device = CR_DEVICE_CPU;

void
cr_device_set_default (CrDeviceType type)
{
  default_device = type;
}

CrDeviceType
cr_device_get_default (void)
{
  return default_device;
}

const char *
cr_cuda_get_device_name (void)
{
  CudaState *state = cuda ();
  return state->n_devices > 0 ? state->device_name : NULL;
}

const char *
cr_device_name (CrDeviceType type)
{
  return type == CR_DEVICE_CUDA ? "cuda:0" : "cpu";
}

gboolean
cr_device_parse (const char    *text,
                 CrDeviceType  *out_type,
                 int           *out_index,
                 GError       **error)
{
  const char *colon = strchr (text, ':');
  gsize type_len = colon != NULL ? (gsize) (colon - text) : strlen (text);
  int index = -1;

  if (colon != NULL)
    {
      char *end = NULL;
      gint64 parsed = g_ascii_strtoll (colon + 1, &end, 10);
      if (colon[1] == '\0' || *end != '\0' || parsed < 0 || parsed > G_MAXINT)
        {
          g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Invalid device string: '%s'", text);
          return FALSE;
        }
      index = (int) parsed;
    }

  if (type_len == 3 && strncmp (text, "cpu", 3) == 0)
    *out_type = CR_DEVICE_CPU;
  else if (type_len == 4 && strncmp (text, "cuda", 4) == 0)
    *out_type = CR_DEVICE_CUDA;
  else
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                   "fpga, ort, xla, lazy, vulkan, mps, meta, hpu, privateuseone device type at "
                   "start of device string: %s", text);
      return FALSE;
    }
  if (out_index != NULL)
    *out_index = index;
  return TRUE;
}

gboolean
cr_device_check_usable (CrDeviceType   type,
                        GError       **error)
{
  if (type == CR_DEVICE_CPU)
    return TRUE;
  if (!cr_cuda_is_available ())
    {
      g_set_error (error, CR_CORE_ERROR, CR_EXC_RUNTIME_ERROR,
                   "Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
                   "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx "
                   "(Chainrule: %s)", cr_cuda_unavailable_reason ());
      return FALSE;
    }
  return TRUE;
}
