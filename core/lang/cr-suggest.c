/* cr-suggest.c — the "Did you mean: 'x'?" that Python 3.11 adds to NameError
 * and AttributeError messages.
 *
 * The distance and the candidate lists follow CPython 3.11's
 * Python/suggestions.c, so a typo gets the same suggestion (or none) as
 * under Python: names of the frame's locals first, then the globals, then
 * the real builtins (all of them, also those Chainrule lacks); for
 * attributes, the sorted dir() of the object. */
#include "cr-interp-private.h"

#include <string.h>

#define MAX_CANDIDATE_ITEMS 750
#define MAX_STRING_SIZE 40
#define MOVE_COST 2
#define CASE_COST 1

/* Python 3.11's builtins module, in its dict order (ties go to the first). */
static const char *const python_builtins[] = {
  "__name__", "__doc__", "__package__", "__loader__", "__spec__", "__build_class__", "__import__",
  "abs", "all", "any", "ascii", "bin", "breakpoint", "callable", "chr", "compile", "delattr", "dir",
  "divmod", "eval", "exec", "format", "getattr", "globals", "hasattr", "hash", "hex", "id", "input",
  "isinstance", "issubclass", "iter", "aiter", "len", "locals", "max", "min", "next", "anext", "oct",
  "ord", "pow", "print", "repr", "round", "setattr", "sorted", "sum", "vars", "None", "Ellipsis",
  "NotImplemented", "False", "True", "bool", "memoryview", "bytearray", "bytes", "classmethod",
  "complex", "dict", "enumerate", "filter", "float", "frozenset", "property", "int", "list", "map",
  "object", "range", "reversed", "set", "slice", "staticmethod", "str", "super", "tuple", "type",
  "zip", "__debug__", "BaseException", "BaseExceptionGroup", "Exception", "GeneratorExit",
  "KeyboardInterrupt", "SystemExit", "ArithmeticError", "AssertionError", "AttributeError",
  "BufferError", "EOFError", "ImportError", "LookupError", "MemoryError", "NameError", "OSError",
  "ReferenceError", "RuntimeError", "StopAsyncIteration", "StopIteration", "SyntaxError",
  "SystemError", "TypeError", "ValueError", "Warning", "FloatingPointError", "OverflowError",
  "ZeroDivisionError", "BytesWarning", "DeprecationWarning", "EncodingWarning", "FutureWarning",
  "ImportWarning", "PendingDeprecationWarning", "ResourceWarning", "RuntimeWarning",
  "SyntaxWarning", "UnicodeWarning", "UserWarning", "BlockingIOError", "ChildProcessError",
  "ConnectionError", "FileExistsError", "FileNotFoundError", "InterruptedError",
  "IsADirectoryError", "NotADirectoryError", "PermissionError", "ProcessLookupError",
  "TimeoutError", "IndentationError", "IndexError", "KeyError", "ModuleNotFoundError",
  "NotImplementedError", "RecursionError", "UnboundLocalError", "UnicodeError", "BrokenPipeError",
  "ConnectionAbortedError", "ConnectionRefusedError", "ConnectionResetError", "TabError",
  "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeTranslateError", "ExceptionGroup",
  "EnvironmentError", "IOError", "open", "quit", "exit", "copyright", "credits", "license", "help",
};

/* A script's module globals that Python has before the first line runs. */
static const char *const module_dunders[] = {
  "__name__", "__doc__", "__package__", "__loader__", "__spec__", "__annotations__",
  "__builtins__", "__file__", "__cached__",
};

/* What dir() lists for any instance or class of a user class. */
static const char *const object_dunders[] = {
  "__class__", "__delattr__", "__dict__", "__dir__", "__doc__", "__eq__", "__format__", "__ge__",
  "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__", "__init_subclass__",
  "__le__", "__lt__", "__module__", "__ne__", "__new__", "__reduce__", "__reduce_ex__",
  "__repr__", "__setattr__", "__sizeof__", "__str__", "__subclasshook__", "__weakref__",
};

static inline gsize
substitution_cost (char a,
                   char b)
{
  if ((a & 31) != (b & 31))
    return MOVE_COST;
  if (a == b)
    return 0;
  if (g_ascii_tolower (a) == g_ascii_tolower (b))
    return CASE_COST;
  return MOVE_COST;
}

static gsize
levenshtein_distance (const char *a,
                      gsize       a_size,
                      const char *b,
                      gsize       b_size,
                      gsize       max_cost)
{
  gsize buffer[MAX_STRING_SIZE];

  while (a_size && b_size && a[0] == b[0])
    {
      a++, a_size--;
      b++, b_size--;
    }
  while (a_size && b_size && a[a_size - 1] == b[b_size - 1])
    a_size--, b_size--;
  if (a_size == 0 || b_size == 0)
    return (a_size + b_size) * MOVE_COST;
  if (a_size > MAX_STRING_SIZE || b_size > MAX_STRING_SIZE)
    return max_cost + 1;
  if (b_size < a_size)
    {
      const char *t = a;
      a = b, b = t;
      gsize t_size = a_size;
      a_size = b_size, b_size = t_size;
    }
  if ((b_size - a_size) * MOVE_COST > max_cost)
    return max_cost + 1;

  gsize tmp = MOVE_COST;
  for (gsize i = 0; i < a_size; i++)
    {
      buffer[i] = tmp;
      tmp += MOVE_COST;
    }
  gsize result = 0;
  for (gsize bi = 0; bi < b_size; bi++)
    {
      char code = b[bi];
      gsize distance = result = bi * MOVE_COST;
      gsize minimum = G_MAXSIZE;
      for (gsize i = 0; i < a_size; i++)
        {
          gsize substitute = distance + substitution_cost (code, a[i]);
          distance = buffer[i];
          gsize insert_delete = MIN (result, distance) + MOVE_COST;
          result = MIN (insert_delete, substitute);
          buffer[i] = result;
          minimum = MIN (minimum, result);
        }
      if (minimum > max_cost)
        return max_cost + 1;
    }
  return result;
}

/* The closest of candidates to name, or NULL (CPython's calculate_suggestions). */
static const char *
closest (const char         *name,
         const char *const  *candidates,
         guint               n)
{
  if (n >= MAX_CANDIDATE_ITEMS)
    return NULL;
  gsize name_size = strlen (name);
  gssize best_distance = G_MAXSSIZE;
  const char *best = NULL;
  for (guint i = 0; i < n; i++)
    {
      const char *item = candidates[i];
      if (strcmp (item, name) == 0)
        continue;
      gsize item_size = strlen (item);
      gssize max_distance = (gssize) ((name_size + item_size + 3) * MOVE_COST / 6);
      max_distance = MIN (max_distance, best_distance - 1);
      if (max_distance < 0)
        continue;
      gssize d = (gssize) levenshtein_distance (name, name_size, item, item_size, (gsize) max_distance);
      if (d > max_distance)
        continue;
      if (!best || d < best_distance)
        {
          best = item;
          best_distance = d;
        }
    }
  return best;
}

const char *
cr_suggest_among (const char        *name,
                  const char *const *candidates,
                  guint              n)
{
  return closest (name, candidates, n);
}

static const char *
closest_in_array (const char *name,
                  GPtrArray  *names)
{
  return closest (name, (const char *const *) names->pdata, names->len);
}

const char *
cr_suggest_name (CrInterp   *self,
                 CrFrame    *frame,
                 const char *name)
{
  /* A real builtin Chainrule lacks (open, eval): Python would have no
   * NameError to suggest for. */
  for (guint i = 0; i < G_N_ELEMENTS (python_builtins); i++)
    if (strcmp (python_builtins[i], name) == 0)
      return NULL;

  const char *s = NULL;
  if (frame && frame->code && frame->code->node)
    s = closest (name, frame->code->local_names, frame->code->n_locals);
  if (!s && self->program)
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      for (guint i = 0; i < G_N_ELEMENTS (module_dunders); i++)
        g_ptr_array_add (names, (gpointer) module_dunders[i]);
      for (guint i = 0; i < self->n_globals; i++)
        if (self->globals[i].value)
          g_ptr_array_add (names, (gpointer) cr_program_global_name (self->program, i));
      s = closest_in_array (name, names);
    }
  if (!s)
    s = closest (name, python_builtins, G_N_ELEMENTS (python_builtins));
  return s;
}

static void
add_keys (GPtrArray  *names,
          GHashTable *table)
{
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &key, NULL))
    if (!g_str_has_prefix (key, "__cr_"))
      g_ptr_array_add (names, key);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
cr_interp_dir (CrInterp *self,
               CrValue  *obj)
{
  GPtrArray *names = g_ptr_array_new ();
  CrValue *cls = NULL;
  CrObjectExtra *extra = cr_object_extra (obj, FALSE);
  if (extra && extra->attrs)
    add_keys (names, extra->attrs);
  switch (obj->kind)
    {
    case CR_VALUE_INSTANCE:
      add_keys (names, obj->u.instance.attrs);
      cls = obj->u.instance.cls;
      break;
    case CR_VALUE_CLASS:
      cls = obj;
      break;
    case CR_VALUE_MODULE:
      add_keys (names, obj->u.module.attrs);
      break;
    case CR_VALUE_TENSOR:
      {
        guint n;
        const char *const *tensor_names = self->tensor_slots->dir (&n);
        for (guint i = 0; i < n; i++)
          g_ptr_array_add (names, (gpointer) tensor_names[i]);
        cls = extra ? extra->cls : NULL;
        break;
      }
    default:
      {
        GHashTable *table = g_hash_table_lookup (self->method_tables, GINT_TO_POINTER (obj->kind));
        if (table)
          add_keys (names, table);
        cls = cr_object_script_class (obj);
        if (obj->kind == CR_VALUE_OBJECT && obj->u.object.type->dir)
          obj->u.object.type->dir (obj, names);
        break;
      }
    }
  if (cls)
    {
      for (CrValue *c = cls; c; c = c->u.cls.base)
        add_keys (names, c->u.cls.attrs);
      for (guint i = 0; i < G_N_ELEMENTS (object_dunders); i++)
        g_ptr_array_add (names, (gpointer) object_dunders[i]);
    }
  g_ptr_array_sort (names, compare_names);
  /* dir() lists a name once though several classes define it. */
  guint out = 0;
  for (guint i = 0; i < names->len; i++)
    if (out == 0 || strcmp (names->pdata[out - 1], names->pdata[i]) != 0)
      names->pdata[out++] = names->pdata[i];
  g_ptr_array_set_size (names, out);
  return names;
}

const char *
cr_suggest_attribute (CrInterp   *self,
                      CrValue    *obj,
                      const char *name)
{
  switch (obj->kind)
    {
    case CR_VALUE_INSTANCE:
    case CR_VALUE_CLASS:
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
    case CR_VALUE_DICT:
    case CR_VALUE_STR:
      break;
    case CR_VALUE_MODULE:
      /* dir(torch) is too long for Python to suggest anything (over 750
       * names); torch.nn's and math's are not. */
      if (strcmp (obj->u.module.name, "torch") == 0)
        return NULL;
      break;
    default:
      return NULL;
    }
  g_autoptr (GPtrArray) names = cr_interp_dir (self, obj);
  return closest_in_array (name, names);
}
