/* cr-torch-storage.c — x.storage() and x.data_ptr(): what lecturers show to
 * explain views ("a view shares its base's storage", "x.t() is not a copy").
 *
 * x.storage() is PyTorch 1.13's TypedStorage of the whole memory block
 * behind x (not only the part x looks at), printed as
 *   " 1.0\n 2.0\n[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 2]"
 * with size(), len(), indexing, iteration, tolist(), data_ptr(),
 * element_size(), nbytes(), dtype and device. */
#include "cr-torch-native.h"
#include "cr-storage.h"

#include <string.h>

typedef struct {
  CrTensor *flat;   /* owned: a 1-d view over the whole storage */
} Storage;

static void
storage_free (gpointer data)
{
  Storage *s = data;
  cr_tensor_unref (s->flat);
  g_free (s);
}

static Storage *
storage_of (CrValue *self)
{
  return self->u.object.data;
}

static CrValue *
storage_as_tuple (CrValue *self)
{
  g_autoptr(CrValue) list = cr_torch_tensor_tolist (storage_of (self)->flat);
  if (list == NULL || list->kind != CR_VALUE_LIST)
    return cr_value_new_tuple (NULL, 0);
  return cr_value_new_tuple ((CrValue *const *) list->u.seq.items->pdata, cr_seq_len (list));
}

static char *
storage_repr (CrValue *self)
{
  CrTensor *flat = storage_of (self)->flat;
  g_autoptr(CrValue) items = storage_as_tuple (self);
  GString *out = g_string_new (" ");

  for (guint i = 0; i < cr_seq_len (items); i++)
    {
      g_autofree char *item = cr_value_repr (NULL, cr_seq_get (items, i), NULL);
      if (i > 0)
        g_string_append (out, "\n ");
      g_string_append (out, item);
    }
  g_string_append_printf (out, "\n[torch.storage.TypedStorage(dtype=%s, device=%s) of size %"
                          G_GINT64_FORMAT "]", cr_dtype_name (flat->dtype),
                          flat->device == CR_DEVICE_CPU ? "cpu" : "cuda:0", flat->numel);
  return g_string_free (out, FALSE);
}

static guintptr
address_of (const CrTensor *t,
            gint64          offset)
{
  return (guintptr) t->storage->data + (guintptr) offset * cr_dtype_size (t->dtype);
}

NATIVE (native_storage_method)
{
  const char *name = data;
  CrTensor *flat = storage_of (self)->flat;

  if (n_args != 0 || n_kwargs != 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR, "%s() takes no arguments", name);
      return NULL;
    }
  if (strcmp (name, "size") == 0)
    return cr_value_new_int (flat->numel);
  if (strcmp (name, "element_size") == 0)
    return cr_value_new_int ((gint64) cr_dtype_size (flat->dtype));
  if (strcmp (name, "nbytes") == 0)
    return cr_value_new_int (flat->numel * (gint64) cr_dtype_size (flat->dtype));
  if (strcmp (name, "data_ptr") == 0)
    return cr_value_new_int ((gint64) address_of (flat, 0));
  /* tolist */
  return cr_torch_tensor_tolist (flat);
}

static CrValue *
storage_get_attr (CrInterp    *interp,
                  CrValue     *self,
                  const char  *name,
                  GError     **error)
{
  static const char *const methods[] = { "size", "element_size", "nbytes", "data_ptr", "tolist" };

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (strcmp (name, methods[i]) == 0)
      return cr_value_new_native (methods[i], native_storage_method, self, (gpointer) methods[i]);
  if (strcmp (name, "dtype") == 0)
    return cr_torch_dtype_new (storage_of (self)->flat->dtype);
  return NULL;
}

static gconstpointer
storage_identity (CrValue *self)
{
  return storage_of (self)->flat->storage;
}

static const CrObjectType storage_type = {
  .name = "TypedStorage",
  .destroy = storage_free,
  .get_attr = storage_get_attr,
  .repr = storage_repr,
  .identity = storage_identity,
  .as_tuple = storage_as_tuple,
};

NATIVE (native_storage)
{
  CrTensor *t;
  Storage *s;
  gint64 n, one = 1;
  PARSE ("storage", "self");

  t = self->u.tensor;
  n = (gint64) (t->storage->nbytes / cr_dtype_size (t->dtype));
  s = g_new0 (Storage, 1);
  s->flat = cr_tensor_new_view (t, &n, 1, &one, 0);
  return cr_value_new_object (&storage_type, s);
}

/* x.data_ptr(): the address of x's first element (views at an offset
 * differ from their base by offset * element_size). */
NATIVE (native_data_ptr)
{
  PARSE ("data_ptr", "self");
  return cr_value_new_int ((gint64) address_of (self->u.tensor, self->u.tensor->offset));
}

const CrTorchFunc cr_torch_storage_funcs[] = {
  { "storage", native_storage, CR_TORCH_IN_TENSOR, NULL },
  { "data_ptr", native_data_ptr, CR_TORCH_IN_TENSOR, NULL },
};
const guint cr_torch_n_storage_funcs = G_N_ELEMENTS (cr_torch_storage_funcs);
