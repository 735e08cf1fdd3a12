/* cr-torch-args.c — matching a call's arguments to a torch function's
 * parameters, and converting them, with the messages PyTorch's argument
 * parser prints ("add(): argument 'other' (position 1) must be Tensor, not
 * str"). */
#include "cr-cuda.h"
#include "cr-torch-private.h"

#include <string.h>

static void
type_error (GError    **error,
            const char *format,
            ...) G_GNUC_PRINTF (2, 3);

static void
type_error (GError    **error,
            const char *format,
            ...)
{
  va_list ap;
  char *message;

  va_start (ap, format);
  message = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, message);
  g_free (message);
}

const char *
cr_torch_type_name (CrValue *v)
{
  if (v == NULL)
    return "NoneType";
  return cr_value_type_name (v);
}

gboolean
cr_torch_args_parse (CrTorchArgs     *a,
                     const char      *fname,
                     const char      *spec,
                     CrValue         *self,
                     CrValue *const  *args,
                     guint            n_args,
                     const CrKwarg   *kwargs,
                     guint            n_kwargs,
                     GError         **error)
{
  /* Spec words, parsed on each call: a handful of characters, cheaper than
   * the allocation of the result tensor. */
  char buffer[256];
  guint n_required = 0, n_positional = 0;
  gboolean optional = FALSE, keyword_only = FALSE;
  guint first = 0, given;
  const char *p = spec;

  a->fname = fname;
  a->n_params = 0;

  while (*p != '\0')
    {
      const char *start;

      while (*p == ' ')
        p++;
      if (*p == '\0')
        break;
      if (*p == '|')
        {
          optional = TRUE;
          p++;
          continue;
        }
      if (*p == '*')
        {
          keyword_only = TRUE;
          p++;
          continue;
        }
      start = p;
      while (*p != ' ' && *p != '\0')
        p++;
      if (a->n_params == CR_TORCH_MAX_ARGS)
        {
          /* A programmer error in a spec, reported rather than aborting. */
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "%s(): too many parameters in its signature", fname);
          return FALSE;
        }
      /* Names point into the static spec: they are used only for lookups and
       * messages, with their lengths recovered from the spec below. */
      a->names[a->n_params] = start;
      a->values[a->n_params] = NULL;
      a->positions[a->n_params] = 0;
      if (!optional)
        n_required++;
      if (!keyword_only)
        n_positional++;
      a->n_params++;
    }

  if (self != NULL)
    {
      a->values[0] = self;
      first = 1;
    }

  given = n_args + first;
  if (given > n_positional)
    {
      guint shown_max = n_positional - first;
      guint shown_given = n_args;

      /* x.exp(1) is a method of the C base class in PyTorch's message. */
      if (self != NULL && shown_max == 0)
        type_error (error, "_TensorBase.%s() takes no arguments (%u given)", fname, shown_given);
      else
        type_error (error, "%s() takes %u positional argument%s but %u %s given",
                    fname, shown_max, shown_max == 1 ? "" : "s", shown_given,
                    shown_given == 1 ? "was" : "were");
      return FALSE;
    }

  for (guint i = 0; i < n_args; i++)
    {
      a->values[first + i] = args[i];
      /* torch.f(x, y): y is position 2; x.f(y): y is position 1. */
      a->positions[first + i] = (int) (i + 1);
    }

  for (guint k = 0; k < n_kwargs; k++)
    {
      const char *name = kwargs[k].name;
      const char *wanted = name;   /* the parameter it names */
      gsize name_len = strlen (name);
      guint j;

      /* PyTorch's argument parser takes numpy's spellings keepdims= for
       * keepdim= and axis= for dim= (d2l's x.sum(axis=0, keepdims=True));
       * norm, written in Python there, does not. */
      if (strcmp (fname, "norm") != 0)
        {
          if (strcmp (name, "keepdims") == 0)
            name_len = strlen ("keepdim");
          else if (strcmp (name, "axis") == 0)
            wanted = "dim", name_len = strlen ("dim");
        }
      for (j = first; j < a->n_params; j++)
        {
          const char *pn = a->names[j];
          if (strncmp (pn, wanted, name_len) == 0 && (pn[name_len] == ' ' || pn[name_len] == '\0'))
            break;
        }
      if (j == a->n_params)
        {
          if (self != NULL && a->n_params == 1)
            type_error (error, "_TensorBase.%s() takes no keyword arguments", fname);
          else
            type_error (error, "%s() got an unexpected keyword argument '%s'", fname, name);
          return FALSE;
        }
      if (a->values[j] != NULL)
        {
          type_error (error, "%s() got multiple values for argument '%s'", fname, name);
          return FALSE;
        }
      a->values[j] = kwargs[k].value;
      a->positions[j] = 0;
    }

  for (guint j = 0; j < n_required; j++)
    if (a->values[j] == NULL)
      {
        gsize len = strcspn (a->names[j], " ");
        g_snprintf (buffer, sizeof buffer, "%.*s", (int) len, a->names[j]);
        type_error (error, "%s() missing 1 required positional arguments: \"%s\"", fname, buffer);
        return FALSE;
      }

  return TRUE;
}

gboolean
cr_torch_args_has (const CrTorchArgs *a,
                   guint              i)
{
  return i < a->n_params && a->values[i] != NULL && a->values[i]->kind != CR_VALUE_NONE;
}

void
cr_torch_args_type_error (const CrTorchArgs *a,
                          guint              i,
                          const char        *expected,
                          GError           **error)
{
  int len = (int) strcspn (a->names[i], " ");

  if (a->positions[i] > 0)
    type_error (error, "%s(): argument '%.*s' (position %d) must be %s, not %s",
                a->fname, len, a->names[i], a->positions[i], expected,
                cr_torch_type_name (a->values[i]));
  else
    type_error (error, "%s(): argument '%.*s' must be %s, not %s",
                a->fname, len, a->names[i], expected, cr_torch_type_name (a->values[i]));
}

/* TRUE when `name` is the parameter name of one of items[first..]. */
static gboolean
option_names (char *const *items,
              guint        first,
              const char  *name)
{
  for (guint i = first; items[i] != NULL; i++)
    {
      const char *last = strrchr (items[i], ' ');

      if (last != NULL && strcmp (last + 1, name) == 0)
        return TRUE;
    }
  return FALSE;
}

void
cr_torch_invalid_combination (const char        *fname,
                              const char *const *options,
                              CrValue *const    *args,
                              guint              n_args,
                              const CrKwarg     *kwargs,
                              guint              n_kwargs,
                              GError           **error)
{
  GString *msg = g_string_new (NULL);
  guint n_got = n_args + n_kwargs;

  /* PyTorch keeps the keywords in a std::unordered_map, which gives them
   * back newest first; the trailing ", " stays when nothing came by
   * position, as PyTorch prints it. */
  g_string_append_printf (msg, "%s() received an invalid combination of arguments - got (", fname);
  for (guint i = 0; i < n_args; i++)
    g_string_append_printf (msg, "%s, ", cr_torch_type_name (args[i]));
  for (guint k = n_kwargs; k-- > 0;)
    g_string_append_printf (msg, "%s=%s, ", kwargs[k].name, cr_torch_type_name (kwargs[k].value));
  if (n_args > 0)
    g_string_truncate (msg, msg->len - 2);
  g_string_append (msg, "), but expected one of:\n");

  for (guint o = 0; options[o] != NULL; o++)
    {
      g_auto(GStrv) items = g_strsplit (options[o], ", ", -1);
      guint n_items = g_strv_length (items);
      GString *unmatched = g_string_new (NULL);

      g_string_append_printf (msg, " * (%s)\n", options[o]);
      /* Only an overload with as many parameters (PyTorch counts the "*")
       * as the call has arguments names the keywords it does not take,
       * looking among its last n_kwargs parameters. */
      if (n_items == n_got && n_kwargs > 0)
        for (guint k = n_kwargs; k-- > 0;)
          if (!option_names (items, n_items - MIN (n_items, n_kwargs), kwargs[k].name))
            g_string_append_printf (unmatched, "%s%s", unmatched->len > 0 ? ", " : "",
                                    kwargs[k].name);
      if (unmatched->len > 0)
        g_string_append_printf (msg, "      didn't match because some of the keywords were "
                                "incorrect: %s\n", unmatched->str);
      g_string_free (unmatched, TRUE);
    }
  g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, msg->str);
  g_string_free (msg, TRUE);
}

CrTensor *
cr_torch_args_tensor (const CrTorchArgs *a,
                      guint              i,
                      GError           **error)
{
  CrValue *v = a->values[i];

  if (v != NULL && v->kind == CR_VALUE_TENSOR)
    return v->u.tensor;
  cr_torch_args_type_error (a, i, "Tensor", error);
  return NULL;
}

CrTensor *
cr_torch_args_tensor_or_number (const CrTorchArgs *a,
                                guint              i,
                                GError           **error)
{
  CrValue *v = a->values[i];

  if (v != NULL && v->kind == CR_VALUE_TENSOR)
    return cr_tensor_ref (v->u.tensor);
  if (v != NULL && cr_value_is_number (v))
    return cr_value_to_tensor (v, error);
  cr_torch_args_type_error (a, i, "Tensor", error);
  return NULL;
}

gboolean
cr_torch_value_is_int (CrValue *v,
                       gint64  *out)
{
  if (v == NULL)
    return FALSE;
  if (v->kind == CR_VALUE_INT)
    {
      *out = v->u.i;
      return TRUE;
    }
  if (v->kind == CR_VALUE_BOOL)
    {
      *out = v->u.b ? 1 : 0;
      return TRUE;
    }
  /* PyTorch takes a 0-d integer tensor where an int is expected. */
  if (v->kind == CR_VALUE_TENSOR && v->u.tensor->ndim == 0
      && cr_dtype_is_integral (v->u.tensor->dtype))
    {
      *out = cr_tensor_read_flat_int (v->u.tensor, 0);
      return TRUE;
    }
  return FALSE;
}

gboolean
cr_torch_value_is_number (CrValue *v,
                          double  *out)
{
  if (v == NULL)
    return FALSE;
  switch (v->kind)
    {
    case CR_VALUE_INT:
      *out = (double) v->u.i;
      return TRUE;
    case CR_VALUE_BOOL:
      *out = v->u.b ? 1.0 : 0.0;
      return TRUE;
    case CR_VALUE_FLOAT:
      *out = v->u.f;
      return TRUE;
    case CR_VALUE_TENSOR:
      if (v->u.tensor->numel == 1 && v->u.tensor->ndim == 0)
        {
          *out = cr_tensor_read_flat (v->u.tensor, 0);
          return TRUE;
        }
      return FALSE;
    default:
      return FALSE;
    }
}

gboolean
cr_torch_args_int (const CrTorchArgs *a,
                   guint              i,
                   gint64             fallback,
                   gint64            *out,
                   GError           **error)
{
  if (!cr_torch_args_has (a, i))
    {
      *out = fallback;
      return TRUE;
    }
  if (cr_torch_value_is_int (a->values[i], out))
    return TRUE;
  cr_torch_args_type_error (a, i, "int", error);
  return FALSE;
}

gboolean
cr_torch_args_double (const CrTorchArgs *a,
                      guint              i,
                      double             fallback,
                      double            *out,
                      GError           **error)
{
  if (!cr_torch_args_has (a, i))
    {
      *out = fallback;
      return TRUE;
    }
  if (cr_torch_value_is_number (a->values[i], out))
    return TRUE;
  cr_torch_args_type_error (a, i, "Number", error);
  return FALSE;
}

gboolean
cr_torch_args_bool (const CrTorchArgs *a,
                    guint              i,
                    gboolean           fallback,
                    gboolean          *out,
                    GError           **error)
{
  CrValue *v;

  if (!cr_torch_args_has (a, i))
    {
      *out = fallback;
      return TRUE;
    }
  v = a->values[i];
  if (v->kind == CR_VALUE_BOOL)
    {
      *out = v->u.b;
      return TRUE;
    }
  cr_torch_args_type_error (a, i, "bool", error);
  return FALSE;
}

static gboolean
dims_from_seq (const CrTorchArgs *a,
               guint              i,
               CrValue           *seq,
               int               *out_dims,
               int               *out_n,
               GError           **error)
{
  guint n = cr_seq_len (seq);

  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): too many dimensions (%u)", a->fname, n);
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      gint64 d;
      if (!cr_torch_value_is_int (cr_seq_get (seq, k), &d))
        {
          int len = (int) strcspn (a->names[i], " ");
          type_error (error, "%s(): argument '%.*s' must be tuple of ints, but found element of type %s at pos %u",
                      a->fname, len, a->names[i], cr_torch_type_name (cr_seq_get (seq, k)), k + 1);
          return FALSE;
        }
      out_dims[k] = (int) CLAMP (d, G_MININT, G_MAXINT);
    }
  *out_n = (int) n;
  return TRUE;
}

gboolean
cr_torch_args_dims (const CrTorchArgs *a,
                    guint              i,
                    int               *out_dims,
                    int               *out_n,
                    GError           **error)
{
  CrValue *v;
  gint64 d;

  *out_n = 0;
  if (!cr_torch_args_has (a, i))
    return TRUE;
  v = a->values[i];
  if (cr_torch_value_is_int (v, &d))
    {
      out_dims[0] = (int) CLAMP (d, G_MININT, G_MAXINT);
      *out_n = 1;
      return TRUE;
    }
  if (v->kind == CR_VALUE_TUPLE || v->kind == CR_VALUE_LIST)
    return dims_from_seq (a, i, v, out_dims, out_n, error);
  cr_torch_args_type_error (a, i, "tuple of ints", error);
  return FALSE;
}

gboolean
cr_torch_args_dtype (const CrTorchArgs *a,
                     guint              i,
                     CrDType           *out,
                     gboolean          *out_set,
                     GError           **error)
{
  *out_set = FALSE;
  if (!cr_torch_args_has (a, i))
    return TRUE;
  if (cr_torch_value_get_dtype (a->values[i], out))
    {
      *out_set = TRUE;
      return TRUE;
    }
  if (a->values[i]->kind == CR_VALUE_OBJECT
      && strcmp (a->values[i]->u.object.type->name, "torch.dtype") == 0)
    {
      char *repr = cr_value_repr (NULL, a->values[i], NULL);
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                   "dtype %s is not supported by Chainrule", repr);
      g_free (repr);
      return FALSE;
    }
  cr_torch_args_type_error (a, i, "torch.dtype", error);
  return FALSE;
}

gboolean
cr_torch_args_device (const CrTorchArgs *a,
                      guint              i,
                      CrDeviceType      *out,
                      gboolean          *out_set,
                      GError           **error)
{
  *out_set = FALSE;
  if (!cr_torch_args_has (a, i))
    return TRUE;
  if (!cr_torch_value_to_device (a->values[i], out, error))
    return FALSE;
  *out_set = TRUE;
  return TRUE;
}

gboolean
cr_torch_parse_size (const char     *fname,
                     const char     *pname,
                     CrValue *const *args,
                     guint           n_args,
                     gint64         *out_shape,
                     int            *out_ndim,
                     GError        **error)
{
  CrValue *const *items = args;
  guint n = n_args;
  g_autoptr(GPtrArray) seq_items = NULL;

  if (n_args == 1 && (args[0]->kind == CR_VALUE_TUPLE || args[0]->kind == CR_VALUE_LIST))
    {
      n = cr_seq_len (args[0]);
      seq_items = g_ptr_array_sized_new (n);
      for (guint k = 0; k < n; k++)
        g_ptr_array_add (seq_items, cr_seq_get (args[0], k));
      items = (CrValue *const *) seq_items->pdata;
    }
  else if (n_args == 1 && args[0]->kind != CR_VALUE_INT && args[0]->kind != CR_VALUE_BOOL)
    {
      gint64 d;
      if (!cr_torch_value_is_int (args[0], &d))
        {
          type_error (error, "%s(): argument '%s' (position 1) must be tuple of SymInts, not %s",
                      fname, pname, cr_torch_type_name (args[0]));
          return FALSE;
        }
    }

  if (n > CR_MAX_DIMS)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                   "%s(): Chainrule supports at most %d dimensions, got %u",
                   fname, CR_MAX_DIMS, n);
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    {
      gint64 d;
      if (!cr_torch_value_is_int (items[k], &d))
        {
          type_error (error, "%s(): argument '%s' must be tuple of SymInts, but found element of type %s at pos %u",
                      fname, pname, cr_torch_type_name (items[k]), k + 1);
          return FALSE;
        }
      out_shape[k] = d;
    }
  *out_ndim = (int) n;
  return TRUE;
}
