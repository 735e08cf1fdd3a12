/* cr-value.h — the values a script computes with: Python's None, bool, int,
 * float, str, list, tuple, dict, slice, range, functions, classes and
 * instances, modules, tensors, and native objects (torch.dtype, grad_fn nodes,
 * torch.no_grad(), optimizers ...) described by a CrObjectType.
 *
 * Values are reference counted: _new returns a reference the caller owns,
 * cr_value_unref (NULL-safe) drops it. Functions that take `CrValue *` borrow
 * unless their name says _take. A list/tuple/dict owns refs on its items.
 */
#pragma once

#include "cr-types.h"
#include "cr-error.h"

G_BEGIN_DECLS

typedef struct _CrValue      CrValue;
typedef struct _CrInterp     CrInterp;
typedef struct _CrObjectType CrObjectType;
typedef struct _CrFunction   CrFunction;   /* private to the interpreter */
typedef struct _CrDict       CrDict;       /* private to cr-value.c: insertion-ordered */
typedef struct _CrObjectExtra CrObjectExtra; /* cr-object.h: a builtin subclass's class */

typedef enum {
  CR_VALUE_NONE,
  CR_VALUE_BOOL,
  CR_VALUE_INT,
  CR_VALUE_FLOAT,
  CR_VALUE_STR,
  CR_VALUE_LIST,
  CR_VALUE_TUPLE,        /* also torch.Size (u.seq.is_size) */
  CR_VALUE_DICT,
  CR_VALUE_SLICE,
  CR_VALUE_RANGE,
  CR_VALUE_ELLIPSIS,
  CR_VALUE_FUNCTION,     /* def / lambda */
  CR_VALUE_NATIVE,       /* a function written in C, maybe bound to self */
  CR_VALUE_BOUND_METHOD, /* a def bound to an instance */
  CR_VALUE_CLASS,
  CR_VALUE_INSTANCE,
  CR_VALUE_MODULE,
  CR_VALUE_TENSOR,
  CR_VALUE_OBJECT,       /* native object: see CrObjectType */
} CrValueKind;

typedef struct {
  const char *name;
  CrValue    *value;     /* borrowed */
} CrKwarg;

/* A function written in C. self is the bound object (NULL when unbound); data
 * is what the native was created with. Returns a new ref, or NULL with error. */
typedef CrValue *(*CrNativeFunc) (CrInterp        *interp,
                                  CrValue         *self,
                                  CrValue *const  *args,
                                  guint            n_args,
                                  const CrKwarg   *kwargs,
                                  guint            n_kwargs,
                                  gpointer         data,
                                  GError         **error);

struct _CrValue {
  gint         ref_count;
  CrValueKind  kind;
  union {
    gboolean b;
    gint64   i;
    double   f;
    struct { char *data; gsize len; } str;                       /* UTF-8, owned */
    struct {
      GPtrArray *items;
      gboolean   is_size;
      guint      n_charged;   /* items counted against the memory budget */
      CrObjectExtra *extra;   /* owned, NULL but for an object of a script's
                               * subclass of list or tuple (cr-object.h) */
    } seq;                                                       /* LIST, TUPLE */
    CrDict  *dict;
    struct { CrValue *start, *stop, *step; } slice;              /* owned; NONE when omitted */
    struct { gint64 start, stop, step; } range;
    CrFunction *function;
    struct {
      const char   *name;        /* static string */
      CrNativeFunc  fn;
      CrValue      *self;        /* owned, may be NULL */
      gpointer      data;
    } native;
    struct { CrValue *func; CrValue *self; } bound;              /* owned */
    struct {
      char        *name;
      CrValue     *base;         /* owned, NULL: object */
      GHashTable  *attrs;        /* char* -> CrValue* (owned) */
    } cls;
    struct {
      CrValue    *cls;
      GHashTable *attrs;
      GPtrArray  *order;     /* attrs' keys (borrowed) as first set: __dict__'s order */
      CrValue    *dict;      /* NULL until __dict__ is read; then the attributes'
                              * dict, which the script may change (cr-object.c) */
    } instance;                                                  /* owned */
    struct { char *name; GHashTable *attrs; } module;            /* owned */
    CrTensor *tensor;       /* owned; opaque here: the torch binding's (cr-binding.h) */
    struct { const CrObjectType *type; gpointer data; } object;
  } u;
};

/* A native object's behaviour. Every hook is optional. */
struct _CrObjectType {
  const char *name;                                /* Python type name: "torch.dtype" */
  void      (*destroy)   (gpointer data);
  /* Attribute read: a new ref; NULL without error means "no such attribute"
   * (the caller raises AttributeError with Python's text). */
  CrValue  *(*get_attr)  (CrInterp *interp, CrValue *self, const char *name, GError **error);
  gboolean  (*set_attr)  (CrInterp *interp, CrValue *self, const char *name, CrValue *value,
                          GError **error);
  CrValue  *(*call)      (CrInterp *interp, CrValue *self, CrValue *const *args, guint n_args,
                          const CrKwarg *kwargs, guint n_kwargs, GError **error);
  char     *(*repr)      (CrValue *self);          /* NULL: "<name object at 0x...>" */
  gboolean  (*equal)     (CrValue *a, CrValue *b); /* NULL: identity */
  /* `with obj:` */
  gboolean  (*enter)     (CrInterp *interp, CrValue *self, CrValue **out_as, GError **error);
  gboolean  (*exit)      (CrInterp *interp, CrValue *self, GError **error);
  /* The address shown in reprs; NULL: the data pointer. */
  gconstpointer (*identity) (CrValue *self);
  /* str() when it differs from repr() (print(torch.device) shows "cpu",
   * its repr "device(type='cpu')"); NULL: repr. */
  char     *(*str)       (CrValue *self);
  /* An object that also behaves as a tuple, for unpacking, indexing, len()
   * and iteration (torch.return_types.max: `values, indices = x.max(0)`):
   * the tuple (new ref); NULL hook: not a sequence. */
  CrValue  *(*as_tuple)  (CrValue *self);
  /* An iterator (a generator, zip, map, iter(list)...): its next item. 1:
   * *out is a new ref; 0: exhausted, no error; -1: error. iter() of such
   * an object is the object itself. NULL hook: not an iterator. */
  int       (*next)      (CrInterp *interp, CrValue *self, CrValue **out, GError **error);
  /* The object's own type name when objects of this CrObjectType are of
   * several Python types (a grad_fn node: "MulBackward0"); NULL: name. */
  const char *(*type_name) (CrValue *self);
  /* dir(): appends the object's attribute names (static or interned
   * strings) to names; the caller sorts them. NULL: none. */
  void      (*dir)       (CrValue *self, GPtrArray *names);
};

/* ---- construction (each returns a new ref) ---- */
CrValue  *cr_value_none          (void);
CrValue  *cr_value_new_bool      (gboolean b);
CrValue  *cr_value_new_int       (gint64 i);
CrValue  *cr_value_new_float     (double f);
CrValue  *cr_value_new_str       (const char *s);
CrValue  *cr_value_new_str_len   (const char *s, gsize len);
CrValue  *cr_value_new_str_take  (char *s);
/* Takes s, which holds len bytes and a NUL after them (may hold NULs). */
CrValue  *cr_value_new_str_take_len (char *s, gsize len);
CrValue  *cr_value_new_list      (void);
CrValue  *cr_value_new_tuple     (CrValue *const *items, guint n);   /* refs items */
/* torch.Size([..]) */
CrValue  *cr_value_new_size      (const gint64 *shape, int ndim);
CrValue  *cr_value_new_dict      (void);
/* A value of a kind whose payload the binding owns (CR_VALUE_TENSOR, in
 * u.tensor): takes payload's reference; the kind's free_payload slot
 * drops it. */
CrValue  *cr_value_new_handle    (CrValueKind kind, gpointer payload);
CrValue  *cr_value_new_native    (const char *name, CrNativeFunc fn, CrValue *self,
                                  gpointer data);
CrValue  *cr_value_new_object    (const CrObjectType *type, gpointer data); /* takes data */
CrValue  *cr_value_new_module    (const char *name);
CrValue  *cr_value_new_class     (const char *name, CrValue *base);

CrValue  *cr_value_ref           (CrValue *v);
void      cr_value_unref         (CrValue *v);                        /* NULL-safe */

/* ---- containers ---- */
void      cr_list_append         (CrValue *list, CrValue *item);      /* refs item */
/* After changing a list's items directly (g_ptr_array_*): brings what it
 * counts against the memory budget up (or down) to its length. */
void      cr_seq_account         (CrValue *seq);
guint     cr_seq_len             (CrValue *seq);                      /* LIST or TUPLE */
CrValue  *cr_seq_get             (CrValue *seq, guint i);             /* borrowed */
gboolean  cr_dict_set            (CrValue *dict, CrValue *key, CrValue *value, GError **error);
CrValue  *cr_dict_get            (CrValue *dict, CrValue *key, GError **error); /* borrowed; NULL (no error) when absent */
guint     cr_dict_len            (CrValue *dict);
CrValue  *cr_dict_key_at         (CrValue *dict, guint i);            /* borrowed, insertion order */
CrValue  *cr_dict_value_at       (CrValue *dict, guint i);            /* borrowed */
/* Module/class attributes (borrowed lookups; set refs value). */
void      cr_value_set_member    (CrValue *module_or_class, const char *name, CrValue *value);
CrValue  *cr_value_get_member    (CrValue *module_or_class, const char *name);

/* ---- the memory budget ----
 * Values count against the budget of cr-storage.h, as tensors do. A value
 * is charged when made and given back when freed; a thread batches the
 * charges of small values, so cr_value_flush_accounting hands the rest
 * over when a run ends. */
/* MemoryError (no message, as Python's) unless nbytes more fit: called
 * before making anything whose size is known in advance. */
gboolean  cr_value_check_alloc   (gsize nbytes, GError **error);
/* The same for n items of item_bytes each (n * item_bytes may overflow). */
gboolean  cr_value_check_alloc_n (gsize n, gsize item_bytes, GError **error);
/* MemoryError when the budget is already spent (a checkpoint; inline, as
 * every loop iteration and call takes it). */
extern __thread gboolean cr_value_over_budget __attribute__ ((tls_model ("initial-exec")));  /* private: the thread's charges passed the limit */
gboolean  cr_value_check_memory_slow (GError **error);
static inline gboolean
cr_value_check_memory (GError **error)
{
  return G_LIKELY (!cr_value_over_budget) || cr_value_check_memory_slow (error);
}
void      cr_value_flush_accounting (void);
/* A checkpoint for long native loops: cancellation (cr_interp_check_cancel,
 * which also raises MemoryError once the budget is spent; interp may be
 * NULL) and room for building_bytes, the part of a result being built that
 * is not charged yet. cr_value_poll takes it every CR_POLL_INTERVAL items,
 * i being the loop's count: a loop of a billion steps then stops within
 * milliseconds of an edit, a --timeout or the budget's end. */
#define CR_POLL_INTERVAL 4096
gboolean  cr_value_checkpoint    (CrInterp *interp, gsize building_bytes, GError **error);
static inline gboolean
cr_value_poll (CrInterp *interp, gsize i, gsize building_bytes, GError **error)
{
  return G_LIKELY (i % CR_POLL_INTERVAL != 0) || cr_value_checkpoint (interp, building_bytes, error);
}
/* What a value of each kind costs at least (its struct and the allocator's
 * overhead), and what a list item and a str byte add. */
#define CR_VALUE_BYTES      ((gsize) sizeof (CrValue) + 16)
#define CR_VALUE_ITEM_BYTES ((gsize) sizeof (gpointer))

/* ---- inspection ---- */
/* Python's type name for messages: "int", "float", "str", "Tensor", "list", "NoneType"... */
const char *cr_value_type_name   (CrValue *v);
gboolean  cr_value_is_number     (CrValue *v);   /* bool, int, float */
/* Python truthiness (tensors: one element or RuntimeError "Boolean value of
 * Tensor with more than one value is ambiguous"). */
gboolean  cr_value_truthy        (CrInterp *interp, CrValue *v, gboolean *out, GError **error);
/* repr() and str() exactly as Python prints them (a value with type slots,
 * a tensor, through its repr slot). New strings. */
char     *cr_value_repr          (CrInterp *interp, CrValue *v, GError **error);
char     *cr_value_str           (CrInterp *interp, CrValue *v, GError **error);
/* == between non-tensors (tensors compare elementwise in the torch layer). */
gboolean  cr_value_equal         (CrValue *a, CrValue *b);

/* ---- conversions for natives (TypeError with Python-style text on mismatch) ---- */
gboolean  cr_value_to_double     (CrValue *v, double *out, GError **error);   /* bool/int/float, 1-element tensor */
gboolean  cr_value_to_int        (CrValue *v, gint64 *out, GError **error);   /* bool/int, int tensor */
gboolean  cr_value_to_bool       (CrValue *v, gboolean *out, GError **error);
/* A shape from (2, 3) / [2, 3] / torch.Size / the varargs 2, 3. */
gboolean  cr_value_to_shape      (CrValue *const *args, guint n_args, gint64 *out_shape,
                                  int *out_ndim, GError **error);

/* ---- argument parsing for natives ----
 * cr_args_parse (fname, args, n_args, kwargs, n_kwargs, error,
 *                "input", &input, "|dim", &dim, "$keepdim", &keepdim, NULL);
 * Each spec is a parameter name; '|' before a name marks the start of optional
 * parameters, '$' keyword-only ones. Outputs are borrowed CrValue* (NULL when
 * not given). TypeErrors as Python's: "sum() got an unexpected keyword argument
 * 'dims'", "mean() missing 1 required positional argument: 'input'", "takes
 * from 1 to 2 positional arguments but 3 were given". */
gboolean  cr_args_parse          (const char *fname, CrValue *const *args, guint n_args,
                                  const CrKwarg *kwargs, guint n_kwargs, GError **error,
                                  ...) G_GNUC_NULL_TERMINATED;
/* Python's "f() missing 2 required positional arguments: 'a' and 'b'" (kind:
 * "positional" or "keyword-only"), for natives and script functions alike. */
void      cr_args_missing_error  (GError **error, const char *fname, const char *kind,
                                  const char **names, guint n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrValue, cr_value_unref)

G_END_DECLS
