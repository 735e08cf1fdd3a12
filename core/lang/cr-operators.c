/* cr-operators.c — Python's operators on Python values: int arithmetic with
 * floor-division and modulo signs, float arithmetic with CPython's special
 * cases and messages, sequence concatenation and repetition, comparisons,
 * `in`, user classes' dunder methods, and the hand-off to the torch layer
 * whenever a tensor is involved. Also format() and the % operator on str. */
#include "cr-interp-private.h"
#include "cr-pyformat.h"

#include <math.h>
#include <string.h>

static const char *const binop_symbols[CR_BINOP_COUNT] = {
  [CR_BINOP_ADD] = "+",      [CR_BINOP_SUB] = "-",      [CR_BINOP_MUL] = "*",
  [CR_BINOP_MATMUL] = "@",   [CR_BINOP_DIV] = "/",      [CR_BINOP_FLOORDIV] = "//",
  [CR_BINOP_MOD] = "%",      [CR_BINOP_POW] = "**",     [CR_BINOP_LSHIFT] = "<<",
  [CR_BINOP_RSHIFT] = ">>",  [CR_BINOP_BITOR] = "|",    [CR_BINOP_BITXOR] = "^",
  [CR_BINOP_BITAND] = "&",
};

static const char *const binop_dunders[CR_BINOP_COUNT][3] = {
  [CR_BINOP_ADD]      = { "__add__", "__radd__", "__iadd__" },
  [CR_BINOP_SUB]      = { "__sub__", "__rsub__", "__isub__" },
  [CR_BINOP_MUL]      = { "__mul__", "__rmul__", "__imul__" },
  [CR_BINOP_MATMUL]   = { "__matmul__", "__rmatmul__", "__imatmul__" },
  [CR_BINOP_DIV]      = { "__truediv__", "__rtruediv__", "__itruediv__" },
  [CR_BINOP_FLOORDIV] = { "__floordiv__", "__rfloordiv__", "__ifloordiv__" },
  [CR_BINOP_MOD]      = { "__mod__", "__rmod__", "__imod__" },
  [CR_BINOP_POW]      = { "__pow__", "__rpow__", "__ipow__" },
  [CR_BINOP_LSHIFT]   = { "__lshift__", "__rlshift__", "__ilshift__" },
  [CR_BINOP_RSHIFT]   = { "__rshift__", "__rrshift__", "__irshift__" },
  [CR_BINOP_BITOR]    = { "__or__", "__ror__", "__ior__" },
  [CR_BINOP_BITXOR]   = { "__xor__", "__rxor__", "__ixor__" },
  [CR_BINOP_BITAND]   = { "__and__", "__rand__", "__iand__" },
};

const char *
cr_binop_symbol (CrBinOp op)
{
  return (guint) op < CR_BINOP_COUNT ? binop_symbols[op] : "?";
}

static CrValue *
unsupported (CrBinOp   op,
             CrValue  *a,
             CrValue  *b,
             GError  **error)
{
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "unsupported operand type(s) for %s: '%s' and '%s'",
                       op == CR_BINOP_POW ? "** or pow()" : binop_symbols[op],
                       cr_value_type_name (a), cr_value_type_name (b));
  return NULL;
}

static CrValue *
overflow (GError **error)
{
  cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR,
                       "integer result too large (Chainrule's ints are 64-bit)");
  return NULL;
}

/* ---- numbers -------------------------------------------------------------------- */

static CrValue *
float_pow (double    x,
           double    y,
           GError  **error)
{
  if (x == 0.0 && y < 0.0)
    {
      cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR,
                           "0.0 cannot be raised to a negative power");
      return NULL;
    }
  if (x < 0.0 && y != floor (y) && isfinite (y))
    {
      cr_interp_set_error (error, CR_EXC_VALUE_ERROR,
                           "complex numbers are not supported (a negative number raised to a "
                           "fractional power)");
      return NULL;
    }
  double r = pow (x, y);
  if (isinf (r) && isfinite (x) && isfinite (y))
    {
      cr_interp_set_error (error, CR_EXC_OVERFLOW_ERROR, "(34, 'Numerical result out of range')");
      return NULL;
    }
  return cr_value_new_float (r);
}

static void
float_divmod (double  vx,
              double  wx,
              double *out_div,
              double *out_mod)
{
  double mod = fmod (vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0)
    {
      if ((wx < 0) != (mod < 0))
        {
          mod += wx;
          div -= 1.0;
        }
    }
  else
    mod = copysign (0.0, wx);
  double floordiv;
  if (div != 0.0)
    {
      floordiv = floor (div);
      if (div - floordiv > 0.5)
        floordiv += 1.0;
    }
  else
    floordiv = copysign (0.0, vx / wx);
  *out_div = floordiv;
  *out_mod = mod;
}

static CrValue *
float_binop (CrBinOp   op,
             double    x,
             double    y,
             CrValue  *a,
             CrValue  *b,
             GError  **error)
{
  double d, m;
  switch (op)
    {
    case CR_BINOP_ADD: return cr_value_new_float (x + y);
    case CR_BINOP_SUB: return cr_value_new_float (x - y);
    case CR_BINOP_MUL: return cr_value_new_float (x * y);
    case CR_BINOP_DIV:
      if (y == 0.0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR, "float division by zero");
          return NULL;
        }
      return cr_value_new_float (x / y);
    case CR_BINOP_FLOORDIV:
      if (y == 0.0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR, "float floor division by zero");
          return NULL;
        }
      float_divmod (x, y, &d, &m);
      return cr_value_new_float (d);
    case CR_BINOP_MOD:
      if (y == 0.0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR, "float modulo");
          return NULL;
        }
      float_divmod (x, y, &d, &m);
      return cr_value_new_float (m);
    case CR_BINOP_POW:
      return float_pow (x, y, error);
    default:
      return unsupported (op, a, b, error);
    }
}

static gint64
floor_div_int (gint64 x,
               gint64 y)
{
  gint64 q = x / y;
  if ((x % y != 0) && ((x < 0) != (y < 0)))
    q--;
  return q;
}

static gint64
floor_mod_int (gint64 x,
               gint64 y)
{
  gint64 r = x % y;
  if (r != 0 && ((r < 0) != (y < 0)))
    r += y;
  return r;
}

static CrValue *
int_binop (CrBinOp   op,
           gint64    x,
           gint64    y,
           CrValue  *a,
           CrValue  *b,
           GError  **error)
{
  gint64 r;
  switch (op)
    {
    case CR_BINOP_ADD:
      if (__builtin_add_overflow (x, y, &r))
        return overflow (error);
      return cr_value_new_int (r);
    case CR_BINOP_SUB:
      if (__builtin_sub_overflow (x, y, &r))
        return overflow (error);
      return cr_value_new_int (r);
    case CR_BINOP_MUL:
      if (__builtin_mul_overflow (x, y, &r))
        return overflow (error);
      return cr_value_new_int (r);
    case CR_BINOP_DIV:
      if (y == 0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR, "division by zero");
          return NULL;
        }
      return cr_value_new_float ((double) x / (double) y);
    case CR_BINOP_FLOORDIV:
      if (y == 0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR,
                               "integer division or modulo by zero");
          return NULL;
        }
      if (x == G_MININT64 && y == -1)
        return overflow (error);
      return cr_value_new_int (floor_div_int (x, y));
    case CR_BINOP_MOD:
      if (y == 0)
        {
          cr_interp_set_error (error, CR_EXC_ZERO_DIVISION_ERROR, "integer modulo by zero");
          return NULL;
        }
      if (y == -1)
        return cr_value_new_int (0);
      return cr_value_new_int (floor_mod_int (x, y));
    case CR_BINOP_POW:
      {
        if (y < 0)
          return float_pow ((double) x, (double) y, error);
        gint64 result = 1, base = x;
        while (y > 0)
          {
            if (y & 1)
              if (__builtin_mul_overflow (result, base, &result))
                return overflow (error);
            y >>= 1;
            if (y > 0 && __builtin_mul_overflow (base, base, &base))
              return overflow (error);
          }
        return cr_value_new_int (result);
      }
    case CR_BINOP_LSHIFT:
      if (y < 0)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "negative shift count");
          return NULL;
        }
      if (x == 0)
        return cr_value_new_int (0);
      if (y >= 63 || (x > 0 ? x > (G_MAXINT64 >> y) : x < (G_MININT64 >> y)))
        return overflow (error);
      return cr_value_new_int ((gint64) ((guint64) x << y));
    case CR_BINOP_RSHIFT:
      if (y < 0)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "negative shift count");
          return NULL;
        }
      return cr_value_new_int (y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
    case CR_BINOP_BITOR:  return cr_value_new_int (x | y);
    case CR_BINOP_BITXOR: return cr_value_new_int (x ^ y);
    case CR_BINOP_BITAND: return cr_value_new_int (x & y);
    default:
      return unsupported (op, a, b, error);
    }
}

static gboolean
as_number (CrValue  *v,
           double   *f,
           gint64   *i,
           gboolean *is_float)
{
  switch (v->kind)
    {
    case CR_VALUE_INT:   *i = v->u.i; *f = (double) v->u.i; *is_float = FALSE; return TRUE;
    case CR_VALUE_BOOL:  *i = v->u.b; *f = v->u.b; *is_float = FALSE; return TRUE;
    case CR_VALUE_FLOAT: *i = 0; *f = v->u.f; *is_float = TRUE; return TRUE;
    default:             return FALSE;
    }
}

/* ---- sequences ------------------------------------------------------------------------ */

static CrValue *
seq_concat (CrValue  *a,
            CrValue  *b,
            GError  **error)
{
  gsize n = (gsize) a->u.seq.items->len + b->u.seq.items->len;
  if (!cr_value_check_alloc_n (n > G_MAXUINT ? G_MAXSIZE : n, CR_VALUE_ITEM_BYTES, error))
    return NULL;
  GPtrArray *items = g_ptr_array_new_full (a->u.seq.items->len + b->u.seq.items->len, NULL);
  for (guint i = 0; i < a->u.seq.items->len; i++)
    g_ptr_array_add (items, cr_value_ref (a->u.seq.items->pdata[i]));
  for (guint i = 0; i < b->u.seq.items->len; i++)
    g_ptr_array_add (items, cr_value_ref (b->u.seq.items->pdata[i]));
  CrValue *r = a->kind == CR_VALUE_LIST ? cr_value_new_list_take (items)
                                        : cr_value_new_tuple_take (items);
  if (a->kind == CR_VALUE_TUPLE)
    r->u.seq.is_size = a->u.seq.is_size;
  return r;
}

/* The largest block copied between two checkpoints of a repeat. */
#define REPEAT_CHUNK_BYTES ((gsize) 64 << 20)

/* s * n: the size is checked against the memory budget before anything is
 * allocated; then copies that double what is done, a checkpoint between
 * two, so that 'ab' * 10**9 can still be cancelled. */
static CrValue *
str_repeat (CrInterp  *self,
            CrValue   *str,
            gint64     n,
            GError   **error)
{
  gsize len = str->u.str.len, total;
  if (!g_size_checked_mul (&total, len, (gsize) n) || total == G_MAXSIZE
      || !cr_value_check_alloc (total, error))
    {
      g_clear_error (error);
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR, "");
      return NULL;
    }
  char *s = g_try_malloc (total + 1);
  if (s == NULL)
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR, "");
      return NULL;
    }
  gsize done = MIN (len, total);
  memcpy (s, str->u.str.data, done);
  while (done < total)
    {
      gsize chunk = MIN (MIN (done, total - done), REPEAT_CHUNK_BYTES);
      memcpy (s + done, s, chunk);
      done += chunk;
      if (!cr_value_checkpoint (self, 0, error))
        {
          g_free (s);
          return NULL;
        }
    }
  s[total] = '\0';
  return cr_value_new_str_take_len (s, total);
}

static CrValue *
seq_repeat (CrInterp  *self,
            CrValue   *seq,
            gint64     n,
            GError   **error)
{
  if (n < 0)
    n = 0;
  if (seq->kind == CR_VALUE_STR)
    return str_repeat (self, seq, n, error);
  guint len = seq->u.seq.items->len;
  gsize total;
  if (!g_size_checked_mul (&total, len, (gsize) n) || total > G_MAXUINT
      || !cr_value_check_alloc_n (total, CR_VALUE_ITEM_BYTES, error))
    {
      g_clear_error (error);
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR, "");
      return NULL;
    }
  GPtrArray *items = g_ptr_array_new_full ((guint) total, NULL);
  for (gint64 k = 0; k < n; k++)
    for (guint i = 0; i < len; i++)
      {
        if (G_UNLIKELY (!cr_value_poll (self, items->len + 1, 0, error)))
          {
            g_ptr_array_set_free_func (items, (GDestroyNotify) cr_value_unref);
            g_ptr_array_unref (items);
            return NULL;
          }
        g_ptr_array_add (items, cr_value_ref (seq->u.seq.items->pdata[i]));
      }
  CrValue *r = seq->kind == CR_VALUE_LIST ? cr_value_new_list_take (items)
                                          : cr_value_new_tuple_take (items);
  if (seq->kind == CR_VALUE_TUPLE)
    r->u.seq.is_size = seq->u.seq.is_size;
  return r;
}

static gboolean
is_seq (CrValue *v)
{
  return v->kind == CR_VALUE_LIST || v->kind == CR_VALUE_TUPLE || v->kind == CR_VALUE_STR;
}

static CrValue *
sequence_binop (CrInterp  *self,
                CrBinOp    op,
                CrValue   *a,
                CrValue   *b,
                gboolean  *handled,
                GError   **error)
{
  *handled = TRUE;
  if (op == CR_BINOP_ADD && is_seq (a))
    {
      if (a->kind != b->kind)
        {
          const char *an = a->kind == CR_VALUE_TUPLE ? "tuple" : cr_value_type_name (a);
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "can only concatenate %s (not \"%s\") to %s",
                               an, cr_value_type_name (b), an);
          return NULL;
        }
      if (a->kind == CR_VALUE_STR)
        {
          gsize len = a->u.str.len + b->u.str.len;
          if (!cr_value_check_alloc (len, error))
            return NULL;
          char *s = g_malloc (len + 1);
          memcpy (s, a->u.str.data, a->u.str.len);
          memcpy (s + a->u.str.len, b->u.str.data, b->u.str.len);
          s[len] = '\0';
          return cr_value_new_str_take_len (s, len);
        }
      return seq_concat (a, b, error);
    }
  if (op == CR_BINOP_MUL && (is_seq (a) || is_seq (b)))
    {
      CrValue *seq = is_seq (a) ? a : b, *n = is_seq (a) ? b : a;
      gint64 count;
      if (n->kind == CR_VALUE_INT || n->kind == CR_VALUE_BOOL)
        {
          count = n->kind == CR_VALUE_INT ? n->u.i : n->u.b;
          return seq_repeat (self, seq, count, error);
        }
      if (n->kind != CR_VALUE_TENSOR && n->kind != CR_VALUE_INSTANCE)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "can't multiply sequence by non-int of type '%s'",
                               cr_value_type_name (n));
          return NULL;
        }
    }
  if (op == CR_BINOP_MOD && a->kind == CR_VALUE_STR)
    {
      char *s = cr_percent_format (self, a->u.str.data, b, error);
      return s ? cr_value_new_str_take (s) : NULL;
    }
  if (op == CR_BINOP_BITOR && a->kind == CR_VALUE_DICT && b->kind == CR_VALUE_DICT)
    {
      CrValue *d = cr_value_new_dict ();
      for (guint i = 0; i < cr_dict_len (a); i++)
        cr_dict_set (d, cr_dict_key_at (a, i), cr_dict_value_at (a, i), NULL);
      for (guint i = 0; i < cr_dict_len (b); i++)
        cr_dict_set (d, cr_dict_key_at (b, i), cr_dict_value_at (b, i), NULL);
      return d;
    }
  *handled = FALSE;
  return NULL;
}

/* ---- user classes ------------------------------------------------------------------------ */

/* Calls obj.name(arg) when obj's class defines it. *handled is FALSE when it
 * does not, or returned NotImplemented. */
static CrValue *
try_dunder (CrInterp    *self,
            CrValue     *obj,
            const char  *name,
            CrValue     *arg,
            gboolean    *handled,
            GError     **error)
{
  *handled = FALSE;
  CrValue *m = cr_instance_method (obj, name);
  if (!m)
    return NULL;
  CrValue *r = cr_interp_call_method (self, obj, m, &arg, 1, error);
  if (!r)
    {
      *handled = TRUE;
      return NULL;
    }
  if (r == cr_value_not_implemented ())
    return NULL;
  *handled = TRUE;
  return r;
}

/* ---- binary operators ------------------------------------------------------------------------ */

CrValue *
cr_binary_op (CrInterp  *self,
              CrBinOp    op,
              CrValue   *a,
              CrValue   *b,
              GError   **error)
{
  double fa, fb;
  gint64 ia, ib;
  gboolean a_float, b_float;

  if (G_LIKELY (a->kind == CR_VALUE_INT && b->kind == CR_VALUE_INT))
    return int_binop (op, a->u.i, b->u.i, a, b, error);
  if (as_number (a, &fa, &ia, &a_float) && as_number (b, &fb, &ib, &b_float))
    {
      if (a_float || b_float)
        return float_binop (op, fa, fb, a, b, error);
      if (a->kind == CR_VALUE_BOOL && b->kind == CR_VALUE_BOOL
          && (op == CR_BINOP_BITAND || op == CR_BINOP_BITOR || op == CR_BINOP_BITXOR))
        return cr_value_new_bool (op == CR_BINOP_BITAND ? (ia & ib)
                                  : op == CR_BINOP_BITOR ? (ia | ib) : (ia ^ ib));
      return int_binop (op, ia, ib, a, b, error);
    }

  if (cr_value_is_set (a) && cr_value_is_set (b)
      && (op == CR_BINOP_BITOR || op == CR_BINOP_BITAND || op == CR_BINOP_SUB
          || op == CR_BINOP_BITXOR))
    return cr_set_binop (a, b, op == CR_BINOP_BITOR ? '|' : op == CR_BINOP_BITAND ? '&'
                                : op == CR_BINOP_SUB ? '-' : '^', error);

  if (a->kind == CR_VALUE_INSTANCE || b->kind == CR_VALUE_INSTANCE)
    {
      gboolean handled;
      CrValue *r;
      if (a->kind == CR_VALUE_INSTANCE)
        {
          r = try_dunder (self, a, binop_dunders[op][0], b, &handled, error);
          if (handled)
            return r;
        }
      if (b->kind == CR_VALUE_INSTANCE)
        {
          r = try_dunder (self, b, binop_dunders[op][1], a, &handled, error);
          if (handled)
            return r;
        }
      return unsupported (op, a, b, error);
    }

  if (a->kind == CR_VALUE_TENSOR || b->kind == CR_VALUE_TENSOR)
    {
      GError *local = NULL;
      CrValue *r = self->tensor_slots->binary_op (self, op, a, b, &local);
      if (local)
        {
          cr_value_unref (r);
          g_propagate_error (error, local);
          return NULL;
        }
      if (r)
        return r;
      return unsupported (op, a, b, error);
    }

  gboolean handled;
  CrValue *r = sequence_binop (self, op, a, b, &handled, error);
  if (handled)
    return r;
  return unsupported (op, a, b, error);
}

CrValue *
cr_inplace_op (CrInterp  *self,
               CrBinOp    op,
               CrValue   *a,
               CrValue   *b,
               GError   **error)
{
  switch (a->kind)
    {
    case CR_VALUE_TENSOR:
      {
        GError *local = NULL;
        if (self->tensor_slots->inplace_op (self, op, a, b, &local))
          return cr_value_ref (a);
        if (local)
          {
            g_propagate_error (error, local);
            return NULL;
          }
        break;
      }
    case CR_VALUE_LIST:
      if (op == CR_BINOP_ADD)
        {
          CrValue *items = cr_iter_to_list (self, b, error);
          if (!items)
            return NULL;
          for (guint i = 0; i < items->u.seq.items->len; i++)
            cr_list_append (a, items->u.seq.items->pdata[i]);
          cr_value_unref (items);
          return cr_value_ref (a);
        }
      break;
    case CR_VALUE_DICT:
      if (op == CR_BINOP_BITOR && b->kind == CR_VALUE_DICT)
        {
          for (guint i = 0; i < cr_dict_len (b); i++)
            cr_dict_set (a, cr_dict_key_at (b, i), cr_dict_value_at (b, i), NULL);
          return cr_value_ref (a);
        }
      break;
    case CR_VALUE_INSTANCE:
      {
        gboolean handled;
        CrValue *r = try_dunder (self, a, binop_dunders[op][2], b, &handled, error);
        if (handled)
          return r;
        break;
      }
    default:
      break;
    }
  return cr_binary_op (self, op, a, b, error);
}

/* ---- unary operators -------------------------------------------------------------------------- */

CrValue *
cr_unary_op (CrInterp  *self,
             CrUnOp     op,
             CrValue   *a,
             GError   **error)
{
  static const char *const symbols[] = { "-", "+", "not", "~" };
  static const char *const dunders[] = { "__neg__", "__pos__", NULL, "__invert__" };
  switch (a->kind)
    {
    case CR_VALUE_INT:
    case CR_VALUE_BOOL:
      {
        gint64 i = a->kind == CR_VALUE_INT ? a->u.i : a->u.b;
        if (op == CR_UNOP_NEG)
          {
            if (i == G_MININT64)
              return overflow (error);
            return cr_value_new_int (-i);
          }
        if (op == CR_UNOP_POS)
          return cr_value_new_int (i);
        if (op == CR_UNOP_INVERT)
          return cr_value_new_int (~i);
        break;
      }
    case CR_VALUE_FLOAT:
      if (op == CR_UNOP_NEG)
        return cr_value_new_float (-a->u.f);
      if (op == CR_UNOP_POS)
        return cr_value_ref (a);
      break;
    case CR_VALUE_TENSOR:
      {
        GError *local = NULL;
        CrValue *r = self->tensor_slots->unary_op (self, op, a, &local);
        if (local)
          {
            cr_value_unref (r);
            g_propagate_error (error, local);
            return NULL;
          }
        if (r)
          return r;
        break;
      }
    case CR_VALUE_INSTANCE:
      if (dunders[op])
        {
          CrValue *m = cr_instance_method (a, dunders[op]);
          if (m)
            return cr_interp_call_method (self, a, m, NULL, 0, error);
        }
      break;
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "bad operand type for unary %s: '%s'",
                       symbols[op], cr_value_type_name (a));
  return NULL;
}

/* ---- comparisons ------------------------------------------------------------------------------- */

static const char *const cmp_symbols[] = { "==", "!=", "<", "<=", ">", ">=" };
static const char *const cmp_dunders[] = { "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__" };
static const CrCmpOp cmp_reflected[] = { CR_CMP_EQ, CR_CMP_NE, CR_CMP_GT, CR_CMP_GE, CR_CMP_LT, CR_CMP_LE };

static gboolean
cmp_result (CrCmpOp op,
            int     c)
{
  switch (op)
    {
    case CR_CMP_EQ: return c == 0;
    case CR_CMP_NE: return c != 0;
    case CR_CMP_LT: return c < 0;
    case CR_CMP_LE: return c <= 0;
    case CR_CMP_GT: return c > 0;
    case CR_CMP_GE: return c >= 0;
    default:        return FALSE;
    }
}

static int order_compare (CrInterp *self, CrCmpOp op, CrValue *a, CrValue *b, GError **error);

/* -1/0/1 ordering of two values for op, or 2 with an error set. */
static int
order_compare (CrInterp  *self,
               CrCmpOp    op,
               CrValue   *a,
               CrValue   *b,
               GError   **error)
{
  double fa, fb;
  gint64 ia, ib;
  gboolean a_float, b_float;
  if (as_number (a, &fa, &ia, &a_float) && as_number (b, &fb, &ib, &b_float))
    {
      if (!a_float && !b_float)
        return ia < ib ? -1 : ia > ib;
      if (isnan (fa) || isnan (fb))
        return 3;   /* unordered: every ordering comparison is false */
      if (!a_float)
        {
          /* exact int/float comparison */
          if (fb >= 9.3e18) return -1;
          if (fb <= -9.3e18) return 1;
          double fl = floor (fb);
          gint64 bi = (gint64) fl;
          if (ia != bi)
            return ia < bi ? -1 : 1;
          return fb > fl ? -1 : 0;
        }
      if (!b_float)
        {
          int c = order_compare (self, op, b, a, error);
          return c == 2 || c == 3 ? c : -c;
        }
      return fa < fb ? -1 : fa > fb;
    }
  if (a->kind == CR_VALUE_STR && b->kind == CR_VALUE_STR)
    {
      gsize n = MIN (a->u.str.len, b->u.str.len);
      int c = memcmp (a->u.str.data, b->u.str.data, n);
      if (c != 0)
        return c < 0 ? -1 : 1;
      return a->u.str.len < b->u.str.len ? -1 : a->u.str.len > b->u.str.len;
    }
  if ((a->kind == CR_VALUE_LIST || a->kind == CR_VALUE_TUPLE) && a->kind == b->kind)
    {
      static __thread int depth;
      GPtrArray *x = a->u.seq.items, *y = b->u.seq.items;
      guint n = MIN (x->len, y->len);
      for (guint i = 0; i < n; i++)
        {
          CrValue *p = x->pdata[i], *q = y->pdata[i];
          if (p == q || cr_value_equal (p, q))
            continue;
          if (op == CR_CMP_EQ || op == CR_CMP_NE)
            return 1;
          if (depth > 2000 || cr_stack_guard_exhausted ())
            {
              cr_interp_set_error (error, CR_EXC_RECURSION_ERROR,
                                   "maximum recursion depth exceeded in comparison");
              return 2;
            }
          depth++;
          int c = order_compare (self, op, p, q, error);
          depth--;
          return c;
        }
      return x->len < y->len ? -1 : x->len > y->len;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' not supported between instances of '%s' and '%s'",
                       cmp_symbols[op], cr_value_type_name (a), cr_value_type_name (b));
  return 2;
}

static gboolean
is_identical (CrValue *a,
              CrValue *b)
{
  if (a == b)
    return TRUE;
  if (a->kind != b->kind)
    return FALSE;
  switch (a->kind)
    {
    case CR_VALUE_TENSOR:
      return cr_binding.tensor_slots->identity (a) == cr_binding.tensor_slots->identity (b);
    case CR_VALUE_OBJECT:
      if (a->u.object.type != b->u.object.type)
        return FALSE;
      if (a->u.object.type->identity)
        return a->u.object.type->identity (a) == b->u.object.type->identity (b);
      return a->u.object.data == b->u.object.data;
    case CR_VALUE_NONE:
    case CR_VALUE_ELLIPSIS:
      return TRUE;
    case CR_VALUE_BOOL:
      return a->u.b == b->u.b;
    default:
      return FALSE;
    }
}

/* `item in it` for what has no __contains__: Python iterates, and an
 * iterator (a generator, zip...) is consumed up to the item. */
static int
contains_by_iteration (CrInterp  *self,
                       CrValue   *container,
                       CrValue   *item,
                       GError   **error)
{
  CrIter it;
  if (!cr_iter_init (self, &it, container, error))
    return -1;
  CrValue *x = NULL;
  int r;
  int found = 0;
  gsize n_seen = 0;
  while (found == 0 && (r = cr_iter_next (self, &it, &x, error)) == 1)
    {
      if (!cr_value_poll (self, ++n_seen, 0, error))
        found = -1;
      else if (is_identical (x, item))
        found = 1;
      else
        {
          CrValue *eq = cr_compare_op (self, CR_CMP_EQ, item, x, error);
          gboolean t = FALSE;
          found = eq && cr_value_truthy (self, eq, &t, error) ? t : -1;
          cr_value_unref (eq);
        }
      cr_value_unref (x);
    }
  cr_iter_clear (&it);
  return found != 0 ? found : r;
}

static int
contains (CrInterp  *self,
          CrValue   *container,
          CrValue   *item,
          GError   **error)
{
  switch (container->kind)
    {
    case CR_VALUE_LIST:
    case CR_VALUE_TUPLE:
      {
        GPtrArray *items = container->u.seq.items;
        for (guint i = 0; i < items->len; i++)
          {
            if (G_UNLIKELY (!cr_value_poll (self, i + 1, 0, error)))
              return -1;
            CrValue *x = items->pdata[i];
            if (is_identical (x, item))
              return 1;
            if (x->kind == CR_VALUE_TENSOR || item->kind == CR_VALUE_TENSOR
                || x->kind == CR_VALUE_INSTANCE || item->kind == CR_VALUE_INSTANCE)
              {
                CrValue *r = cr_compare_op (self, CR_CMP_EQ, item, x, error);
                if (!r)
                  return -1;
                gboolean t;
                gboolean ok = cr_value_truthy (self, r, &t, error);
                cr_value_unref (r);
                if (!ok)
                  return -1;
                if (t)
                  return 1;
              }
            else if (cr_value_equal (x, item))
              return 1;
          }
        return 0;
      }
    case CR_VALUE_STR:
      if (item->kind != CR_VALUE_STR)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "'in <string>' requires string as left operand, not %s",
                               cr_value_type_name (item));
          return -1;
        }
      if (item->u.str.len == 0)
        return 1;
      if (item->u.str.len > container->u.str.len)
        return 0;
      for (gsize i = 0; i + item->u.str.len <= container->u.str.len; i++)
        if (memcmp (container->u.str.data + i, item->u.str.data, item->u.str.len) == 0)
          return 1;
      return 0;
    case CR_VALUE_DICT:
      {
        CrValue *v = cr_dict_get (container, item, error);
        if (!v && error && *error)
          return -1;
        return v != NULL;
      }
    case CR_VALUE_RANGE:
      {
        gint64 i;
        if (item->kind == CR_VALUE_FLOAT)
          {
            /* No int64 range holds a float past +-2**63 (nor nan). */
            if (item->u.f != floor (item->u.f) || !(fabs (item->u.f) < 9.2e18))
              return 0;
            i = (gint64) item->u.f;
          }
        else if (item->kind == CR_VALUE_INT || item->kind == CR_VALUE_BOOL)
          i = item->kind == CR_VALUE_INT ? item->u.i : item->u.b;
        else
          return 0;
        gint64 start = container->u.range.start, stop = container->u.range.stop;
        gint64 step = container->u.range.step;
        if (cr_range_len (container) == 0)
          return 0;
        /* Distances in unsigned arithmetic: range(-2**63, 2**63 - 1) spans
         * more than an int64 holds. */
        if (step > 0)
          return i >= start && i < stop && ((guint64) i - (guint64) start) % (guint64) step == 0;
        return i <= start && i > stop
               && ((guint64) start - (guint64) i) % ((guint64) 0 - (guint64) step) == 0;
      }
    case CR_VALUE_TENSOR:
      return self->tensor_slots->contains (self, container, item, error);
    case CR_VALUE_OBJECT:
      if (container->u.object.type == &cr_set_type)
        {
          GError *local = NULL;
          CrValue *found = cr_dict_get (cr_set_dict (container), item, &local);
          if (local)
            {
              g_propagate_error (error, local);
              return -1;
            }
          return found != NULL;
        }
      if (container->u.object.type->next)
        return contains_by_iteration (self, container, item, error);
      if (container->u.object.type == &cr_seq_view_type)
        {
          CrValue *items = cr_seq_view_items (container);
          int r = contains (self, items, item, error);
          cr_value_unref (items);
          return r;
        }
      break;
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (container, "__contains__");
        if (m)
          {
            CrValue *r = cr_interp_call_method (self, container, m, &item, 1, error);
            if (!r)
              return -1;
            gboolean t;
            gboolean ok = cr_value_truthy (self, r, &t, error);
            cr_value_unref (r);
            return ok ? t : -1;
          }
        if (cr_instance_method (container, "__iter__") || cr_instance_method (container, "__getitem__"))
          return contains_by_iteration (self, container, item, error);
        break;
      }
    default:
      break;
    }
  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "argument of type '%s' is not iterable",
                       cr_value_type_name (container));
  return -1;
}

CrValue *
cr_compare_op (CrInterp  *self,
               CrCmpOp    op,
               CrValue   *a,
               CrValue   *b,
               GError   **error)
{
  switch (op)
    {
    case CR_CMP_IS:
      return cr_value_new_bool (is_identical (a, b));
    case CR_CMP_IS_NOT:
      return cr_value_new_bool (!is_identical (a, b));
    case CR_CMP_IN:
    case CR_CMP_NOT_IN:
      {
        int r = contains (self, b, a, error);
        if (r < 0)
          return NULL;
        return cr_value_new_bool (op == CR_CMP_IN ? r : !r);
      }
    default:
      break;
    }

  if (G_LIKELY (a->kind == CR_VALUE_INT && b->kind == CR_VALUE_INT))
    return cr_value_new_bool (cmp_result (op, a->u.i < b->u.i ? -1 : a->u.i > b->u.i));

  if (a->kind == CR_VALUE_INSTANCE || b->kind == CR_VALUE_INSTANCE)
    {
      gboolean handled;
      CrValue *r;
      if (a->kind == CR_VALUE_INSTANCE)
        {
          r = try_dunder (self, a, cmp_dunders[op], b, &handled, error);
          if (handled)
            return r;
        }
      if (b->kind == CR_VALUE_INSTANCE)
        {
          r = try_dunder (self, b, cmp_dunders[cmp_reflected[op]], a, &handled, error);
          if (handled)
            return r;
        }
      if (op == CR_CMP_NE && a->kind == CR_VALUE_INSTANCE && cr_instance_method (a, "__eq__"))
        {
          r = try_dunder (self, a, "__eq__", b, &handled, error);
          if (handled)
            {
              if (!r)
                return NULL;
              gboolean t;
              gboolean ok = cr_value_truthy (self, r, &t, error);
              cr_value_unref (r);
              return ok ? cr_value_new_bool (!t) : NULL;
            }
        }
      if (op == CR_CMP_EQ || op == CR_CMP_NE)
        return cr_value_new_bool ((a == b) == (op == CR_CMP_EQ));
    }
  else if (a->kind == CR_VALUE_TENSOR || b->kind == CR_VALUE_TENSOR)
    {
      GError *local = NULL;
      CrValue *r = self->tensor_slots->compare (self, op, a, b, &local);
      if (local)
        {
          cr_value_unref (r);
          g_propagate_error (error, local);
          return NULL;
        }
      if (r)
        return r;
      if (op == CR_CMP_EQ || op == CR_CMP_NE)
        return cr_value_new_bool (op == CR_CMP_NE);
    }

  if (op == CR_CMP_EQ)
    return cr_value_new_bool (cr_value_equal (a, b));
  if (op == CR_CMP_NE)
    return cr_value_new_bool (!cr_value_equal (a, b));
  int c = order_compare (self, op, a, b, error);
  if (c == 2)
    return NULL;
  if (c == 3)
    return cr_value_new_bool (FALSE);
  return cr_value_new_bool (cmp_result (op, c));
}

int
cr_less_than (CrInterp  *self,
              CrValue   *a,
              CrValue   *b,
              GError   **error)
{
  if (a->kind == CR_VALUE_INT && b->kind == CR_VALUE_INT)
    return a->u.i < b->u.i;
  CrValue *r = cr_compare_op (self, CR_CMP_LT, a, b, error);
  if (!r)
    return -1;
  gboolean t;
  gboolean ok = cr_value_truthy (self, r, &t, error);
  cr_value_unref (r);
  return ok ? t : -1;
}

/* ---- format() ------------------------------------------------------------------------------------ */

char *
cr_format_value (CrInterp    *self,
                 CrValue     *value,
                 const char  *spec,
                 GError     **error)
{
  switch (value->kind)
    {
    case CR_VALUE_INT:
      return cr_py_format_int (value->u.i, spec, error);
    case CR_VALUE_BOOL:
      if (!spec[0])
        return g_strdup (value->u.b ? "True" : "False");
      return cr_py_format_int (value->u.b, spec, error);
    case CR_VALUE_FLOAT:
      return cr_py_format_float (value->u.f, spec, error);
    case CR_VALUE_STR:
      return cr_py_format_str (value->u.str.data, spec, error);
    case CR_VALUE_TENSOR:
      return self->tensor_slots->format (self, value, spec, error);
    case CR_VALUE_INSTANCE:
      {
        CrValue *m = cr_instance_method (value, "__format__");
        if (m)
          {
            CrValue *arg = cr_value_new_str (spec);
            CrValue *r = cr_interp_call_method (self, value, m, &arg, 1, error);
            cr_value_unref (arg);
            if (!r)
              return NULL;
            if (r->kind != CR_VALUE_STR)
              {
                cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                     "__format__ must return a str, not %s", cr_value_type_name (r));
                cr_value_unref (r);
                return NULL;
              }
            char *s = g_strdup (r->u.str.data);
            cr_value_unref (r);
            return s;
          }
        break;
      }
    default:
      break;
    }
  if (spec[0])
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "unsupported format string passed to %s.__format__",
                           cr_value_type_name (value));
      return NULL;
    }
  return cr_value_str (self, value, error);
}

/* ---- printf-style formatting ------------------------------------------------------------------------ */

/* s padded with spaces to width characters; a MemoryError when that is
 * past the memory budget ('%*s' % (10**12, 'a')). */
static char *
pad (const char *s,
     gint64      width,
     gboolean    left,
     GError    **error)
{
  gint64 len = (gint64) g_utf8_strlen (s, -1);
  gsize n_spaces = width > len ? (gsize) (width - len) : 0, bytes = strlen (s);
  if (!cr_value_check_alloc (n_spaces <= G_MAXSIZE - bytes ? n_spaces + bytes : G_MAXSIZE, error))
    return NULL;
  char *out = g_malloc (n_spaces + bytes + 1);
  memset (left ? out + bytes : out, ' ', n_spaces);
  memcpy (left ? out : out + n_spaces, s, bytes);
  out[n_spaces + bytes] = '\0';
  return out;
}

/* A width or precision written in a %-format; ValueError past the largest
 * size (Python's "width too big", "precision too big"). */
static gboolean
read_percent_number (const char **p,
                     gint64      *out,
                     const char  *what,
                     GError     **error)
{
  gint64 value = 0;
  for (; g_ascii_isdigit (**p); (*p)++)
    {
      int digit = **p - '0';
      if (value > (G_MAXINT64 - digit) / 10)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "%s too big", what);
          return FALSE;
        }
      value = value * 10 + digit;
    }
  *out = value;
  return TRUE;
}

/* "%.5d" % 3: an integer with at least precision digits ("00003"), then
 * the sign, the 0x/0o of '#', and the width, as Python's printf-style
 * formatting does (a '0' flag still pads the width with zeros). */
static char *
percent_int_precision (gint64      value,
                       char        conv,
                       gint64      precision,
                       gint64      width,
                       gboolean    left,
                       gboolean    zero,
                       gboolean    plus,
                       gboolean    space,
                       gboolean    alt,
                       GError    **error)
{
  char spec[3] = { 0 };
  spec[0] = alt ? '#' : conv == 'i' || conv == 'u' ? 'd' : conv;
  spec[1] = alt ? conv : 0;
  g_autofree char *plain = cr_py_format_int (value, spec, error);   /* "-0xff" */
  if (plain == NULL)
    return NULL;
  const char *digits = plain;
  gboolean negative = *digits == '-';
  if (negative)
    digits++;
  GString *head = g_string_new (negative ? "-" : plus ? "+" : space ? " " : "");
  if (alt && conv != 'd' && conv != 'i' && conv != 'u')
    {
      g_string_append_len (head, digits, 2);   /* 0x, 0X, 0o */
      digits += 2;
    }
  gsize n_digits = strlen (digits);
  gsize body = (gsize) MAX ((gint64) n_digits, precision);
  if (!cr_value_check_alloc_n (MAX (body, (gsize) MAX (width, 0)), 2, error))
    {
      g_string_free (head, TRUE);
      return NULL;
    }
  GString *out = g_string_new (NULL);
  gsize len = head->len + body;
  gsize pad = width > 0 && (gsize) width > len ? (gsize) width - len : 0;
  if (pad && !left && !zero)
    for (gsize i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_append_len (out, head->str, head->len);
  if (pad && !left && zero)
    for (gsize i = 0; i < pad; i++)
      g_string_append_c (out, '0');
  for (gsize i = n_digits; i < body; i++)
    g_string_append_c (out, '0');
  g_string_append (out, digits);
  if (pad && left)
    for (gsize i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_free (head, TRUE);
  return g_string_free (out, FALSE);
}

char *
cr_percent_format (CrInterp    *self,
                   const char  *format,
                   CrValue     *args,
                   GError     **error)
{
  CrValue *const *items = &args;
  guint n_items = 1, next = 0;
  gboolean mapping = args->kind == CR_VALUE_DICT;
  if (args->kind == CR_VALUE_TUPLE)
    {
      items = (CrValue *const *) args->u.seq.items->pdata;
      n_items = args->u.seq.items->len;
    }
  GString *out = g_string_new (NULL);
  const char *p = format;
  while (*p)
    {
      if (*p != '%')
        {
          g_string_append_c (out, *p++);
          continue;
        }
      p++;
      CrValue *arg = NULL;
      if (*p == '(')
        {
          const char *end = strchr (p, ')');
          if (!end || !mapping)
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "format requires a mapping");
              goto fail;
            }
          CrValue *key = cr_value_new_str_len (p + 1, end - p - 1);
          arg = cr_dict_get (args, key, NULL);
          if (!arg)
            {
              g_autofree char *r = cr_value_repr (self, key, NULL);
              g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_KEY_ERROR, r);
              cr_value_unref (key);
              goto fail;
            }
          cr_value_unref (key);
          p = end + 1;
        }
      gboolean left = FALSE, zero = FALSE, plus = FALSE, space = FALSE, alt = FALSE;
      for (;; p++)
        {
          if (*p == '-') left = TRUE;
          else if (*p == '0') zero = TRUE;
          else if (*p == '+') plus = TRUE;
          else if (*p == ' ') space = TRUE;
          else if (*p == '#') alt = TRUE;
          else break;
        }
      gint64 width = -1, precision = -1;
      if (*p == '*')
        {
          if (next >= n_items || !cr_value_as_index (items[next], &width))
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "* wants int");
              goto fail;
            }
          next++;
          p++;
          /* A negative width from * means '-' (left-justify). */
          if (width < 0)
            {
              left = TRUE;
              width = width == G_MININT64 ? G_MAXINT64 : -width;
            }
        }
      else if (g_ascii_isdigit (*p) && !read_percent_number (&p, &width, "width", error))
        goto fail;
      if (*p == '.')
        {
          p++;
          if (*p == '*')
            {
              if (next >= n_items || !cr_value_as_index (items[next], &precision))
                {
                  cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "* wants int");
                  goto fail;
                }
              next++;
              p++;
              precision = MAX (precision, 0);
            }
          else if (!read_percent_number (&p, &precision, "precision", error))
            goto fail;
        }
      while (*p == 'h' || *p == 'l' || *p == 'L')
        p++;
      char conv = *p;
      if (!conv)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "incomplete format");
          goto fail;
        }
      p++;
      if (conv == '%')
        {
          g_string_append_c (out, '%');
          continue;
        }
      if (!arg)
        {
          if (mapping)
            arg = args;
          else if (next < n_items)
            arg = items[next++];
          else
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "not enough arguments for format string");
              goto fail;
            }
        }
      char *piece = NULL;
      GString *spec = g_string_new (NULL);
      if (left)
        g_string_append_c (spec, '<');
      else if (!zero)
        g_string_append_c (spec, '>');
      if (plus)
        g_string_append_c (spec, '+');
      else if (space)
        g_string_append_c (spec, ' ');
      if (alt)
        g_string_append_c (spec, '#');
      if (zero && !left)
        g_string_append_c (spec, '0');
      if (width >= 0)
        g_string_append_printf (spec, "%" G_GINT64_FORMAT, width);
      switch (conv)
        {
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
          {
            gint64 iv;
            double dv;
            if (arg->kind == CR_VALUE_INT || arg->kind == CR_VALUE_BOOL)
              iv = arg->kind == CR_VALUE_INT ? arg->u.i : arg->u.b;
            else if (cr_value_to_double (arg, &dv, NULL) && arg->kind != CR_VALUE_STR)
              {
                /* As int(): NaN and infinity are Python's errors, and a value
                 * past 64 bits is an error, not a cast (undefined behaviour). */
                CrValue *as_int = cr_builtin_float_to_int (dv, error);
                if (as_int == NULL)
                  {
                    g_string_free (spec, TRUE);
                    goto fail;
                  }
                iv = as_int->u.i;
                cr_value_unref (as_int);
              }
            else
              {
                cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                     "%%%c format: %s is required, not %s", conv,
                                     conv == 'd' || conv == 'i' || conv == 'u'
                                     ? "a real number" : "an integer",
                                     cr_value_type_name (arg));
                g_string_free (spec, TRUE);
                goto fail;
              }
            if (precision >= 0)
              piece = percent_int_precision (iv, conv, precision, width, left, zero, plus,
                                             space, alt, error);
            else
              {
                g_string_append_c (spec, conv == 'i' || conv == 'u' ? 'd' : conv);
                piece = cr_py_format_int (iv, spec->str, error);
              }
            break;
          }
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
          {
            double dv;
            if (arg->kind == CR_VALUE_STR || !cr_value_to_double (arg, &dv, NULL))
              {
                cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "must be real number, not %s",
                                     cr_value_type_name (arg));
                g_string_free (spec, TRUE);
                goto fail;
              }
            g_string_append_printf (spec, ".%" G_GINT64_FORMAT "%c",
                                    precision >= 0 ? precision : 6, conv);
            piece = cr_py_format_float (dv, spec->str, error);
            break;
          }
        case 's': case 'r': case 'a': case 'c':
          {
            char *s;
            if (conv == 'c')
              {
                gint64 cp;
                if (arg->kind == CR_VALUE_STR)
                  s = g_strdup (arg->u.str.data);
                else if (cr_value_as_index (arg, &cp) && cp >= 0 && cp < 0x110000)
                  {
                    char buf[8] = { 0 };
                    g_unichar_to_utf8 ((gunichar) cp, buf);
                    s = g_strdup (buf);
                  }
                else
                  {
                    cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "%%c requires int or char");
                    g_string_free (spec, TRUE);
                    goto fail;
                  }
              }
            else
              s = conv == 's' ? cr_value_str (self, arg, error) : cr_value_repr (self, arg, error);
            if (!s)
              {
                g_string_free (spec, TRUE);
                goto fail;
              }
            if (precision >= 0 && (gint64) g_utf8_strlen (s, -1) > precision)
              {
                char *cut = g_utf8_offset_to_pointer (s, precision);
                *cut = '\0';
              }
            piece = pad (s, width, left, error);
            g_free (s);
            break;
          }
        default:
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR,
                               "unsupported format character '%c' (0x%x) at index %ld", conv,
                               (guint) (guchar) conv, (long) (p - format - 1));
          g_string_free (spec, TRUE);
          goto fail;
        }
      g_string_free (spec, TRUE);
      if (!piece)
        goto fail;
      gsize piece_len = strlen (piece);
      if (!cr_value_check_alloc (out->len + piece_len, error))
        {
          g_free (piece);
          goto fail;
        }
      g_string_append_len (out, piece, piece_len);
      g_free (piece);
    }
  if (!mapping && next < n_items)
    {
      cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                           "not all arguments converted during string formatting");
      goto fail;
    }
  return g_string_free (out, FALSE);
fail:
  g_string_free (out, TRUE);
  return NULL;
}
