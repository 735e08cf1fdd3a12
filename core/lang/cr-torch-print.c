/* cr-torch-print.c — torch.set_printoptions: the run's precision, threshold,
 * edgeitems, linewidth, profile and sci_mode, as torch._tensor_str keeps
 * them. A run starts with the defaults (cr_interp_new). */
#include "cr-torch-native.h"
#include "cr-tensor-format.h"

#include <math.h>
#include <string.h>

static gboolean
non_negative_int (CrTorchArgs *a,
                  guint        i,
                  int         *out,
                  GError     **error)
{
  gint64 v;

  if (!cr_torch_args_has (a, i))
    return TRUE;
  if (!cr_torch_args_int (a, i, 0, &v, error))
    return FALSE;
  *out = (int) CLAMP (v, G_MININT, G_MAXINT);
  return TRUE;
}

NATIVE (native_set_printoptions)
{
  CrPrintOptions *options = cr_interp_get_print_options (interp);
  PARSE ("set_printoptions",
         "| precision threshold edgeitems linewidth profile sci_mode");

  if (cr_torch_args_has (&a, 4))
    {
      const char *profile;
      if (a.values[4]->kind != CR_VALUE_STR)
        {
          cr_torch_args_type_error (&a, 4, "str", error);
          return NULL;
        }
      /* An unknown profile name changes nothing, as in PyTorch. */
      profile = a.values[4]->u.str.data;
      if (strcmp (profile, "default") == 0 || strcmp (profile, "full") == 0)
        {
          cr_print_options_init_default (options);
          if (profile[0] == 'f')
            options->threshold = G_MAXINT64;
        }
      else if (strcmp (profile, "short") == 0)
        {
          cr_print_options_init_default (options);
          options->precision = 2;
          options->edgeitems = 2;
        }
    }
  if (!non_negative_int (&a, 0, &options->precision, error))
    return NULL;
  if (cr_torch_args_has (&a, 1))
    {
      double threshold;
      if (!cr_torch_args_double (&a, 1, 1000.0, &threshold, error))
        return NULL;
      /* threshold=float('inf') (profile 'full') never summarises. */
      options->threshold = threshold >= 9.2e18 ? G_MAXINT64
                           : threshold < 0.0 ? -1 : (gint64) floor (threshold);
    }
  if (!non_negative_int (&a, 2, &options->edgeitems, error)
      || !non_negative_int (&a, 3, &options->linewidth, error))
    return NULL;
  /* sci_mode is set on every call: leaving it out puts it back to None. */
  if (cr_torch_args_has (&a, 5))
    {
      gboolean sci;
      if (!cr_torch_args_bool (&a, 5, FALSE, &sci, error))
        return NULL;
      options->sci_mode = sci ? 1 : 0;
    }
  else
    options->sci_mode = -1;
  return cr_value_none ();
}

const CrTorchFunc cr_torch_print_funcs[] = {
  { "set_printoptions", native_set_printoptions, CR_TORCH_IN_TORCH, NULL },
};
const guint cr_torch_n_print_funcs = G_N_ELEMENTS (cr_torch_print_funcs);
