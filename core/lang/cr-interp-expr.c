/* cr-interp-expr.c — evaluating expressions: names (through the resolver's
 * slots), operators, calls, attributes, subscripts, displays, f-strings,
 * lambdas and list comprehensions.
 *
 * The hot path (a loop of tensor arithmetic) allocates nothing but the
 * result values: names are array reads, arguments live on the C stack. */
#include "cr-gen-object.h"
#include "cr-interp-private.h"
#include "cr-pyformat.h"

#include <string.h>

#define ARGS_ON_STACK 8

/* ---- names ---------------------------------------------------------------------------- */

static void
name_error (CrInterp   *self,
            CrFrame    *f,
            const char *name,
            GError    **error)
{
  const char *suggestion = cr_suggest_name (self, f, name);
  if (suggestion)
    cr_interp_set_error (error, CR_EXC_NAME_ERROR, "name '%s' is not defined. Did you mean: '%s'?",
                         name, suggestion);
  else
    cr_interp_set_error (error, CR_EXC_NAME_ERROR, "name '%s' is not defined", name);
}

static void
unbound_error (CrInterp   *self,
               CrFrame    *f,
               CrNameKind  kind,
               const char *name,
               GError    **error)
{
  if (kind == CR_NAME_LOCAL || kind == CR_NAME_CELL)
    cr_interp_set_error (error, CR_EXC_UNBOUND_LOCAL_ERROR,
                         "cannot access local variable '%s' where it is not associated with a value",
                         name);
  else if (kind == CR_NAME_FREE)
    cr_interp_set_error (error, CR_EXC_NAME_ERROR,
                         "cannot access free variable '%s' where it is not associated with a value"
                         " in enclosing scope", name);
  else
    name_error (self, f, name, error);
}

static inline CrValue *
load_name (CrInterp  *self,
           CrFrame   *f,
           CrAstNode *n,
           GError   **error)
{
  guint enc = GPOINTER_TO_UINT (n->u.name.cache);
  guint i = CR_NAME_INDEX (enc);
  CrNameKind kind = CR_NAME_KIND (enc);
  CrValue *v = NULL;
  switch (kind)
    {
    case CR_NAME_LOCAL:
      v = f->locals[i];
      break;
    case CR_NAME_CELL:
      v = f->cells[i]->value;
      break;
    case CR_NAME_FREE:
      v = f->closure[i]->value;
      break;
    case CR_NAME_GLOBAL:
      v = self->globals[i].value;
      if (!v)
        v = self->globals[i].builtin;
      break;
    case CR_NAME_CLASS_GLOBAL:
      v = g_hash_table_lookup (f->class_ns, n->u.name.id);
      if (!v)
        v = self->globals[i].value ? self->globals[i].value : self->globals[i].builtin;
      break;
    case CR_NAME_CLASS_FREE:
      v = g_hash_table_lookup (f->class_ns, n->u.name.id);
      if (!v)
        v = f->closure[i]->value;
      break;
    default:
      name_error (self, f, n->u.name.id, error);
      return NULL;
    }
  if (G_UNLIKELY (v == NULL))
    {
      unbound_error (self, f, kind == CR_NAME_CLASS_FREE ? CR_NAME_FREE : kind, n->u.name.id, error);
      return NULL;
    }
  return cr_value_ref (v);
}

static gboolean
store_name (CrInterp  *self,
            CrFrame   *f,
            CrAstNode *n,
            CrValue   *value)
{
  guint enc = GPOINTER_TO_UINT (n->u.name.cache);
  guint i = CR_NAME_INDEX (enc);
  CrValue **slot;
  switch (CR_NAME_KIND (enc))
    {
    case CR_NAME_LOCAL:
      slot = &f->locals[i];
      break;
    case CR_NAME_CELL:
      slot = &f->cells[i]->value;
      break;
    case CR_NAME_FREE:
      slot = &f->closure[i]->value;
      break;
    case CR_NAME_GLOBAL:
      slot = &self->globals[i].value;
      break;
    case CR_NAME_CLASS_GLOBAL:
    case CR_NAME_CLASS_FREE:
      g_hash_table_insert (f->class_ns, g_strdup (n->u.name.id), cr_value_ref (value));
      return TRUE;
    default:
      return FALSE;
    }
  CrValue *old = *slot;
  *slot = cr_value_ref (value);
  cr_value_unref (old);
  return TRUE;
}

gboolean
cr_delete_name (CrInterp  *self,
                CrFrame   *f,
                CrAstNode *n,
                GError   **error)
{
  guint enc = GPOINTER_TO_UINT (n->u.name.cache);
  guint i = CR_NAME_INDEX (enc);
  CrNameKind kind = CR_NAME_KIND (enc);
  CrValue **slot = NULL;
  switch (kind)
    {
    case CR_NAME_LOCAL:  slot = &f->locals[i]; break;
    case CR_NAME_CELL:   slot = &f->cells[i]->value; break;
    case CR_NAME_FREE:   slot = &f->closure[i]->value; break;
    case CR_NAME_GLOBAL: slot = &self->globals[i].value; break;
    case CR_NAME_CLASS_GLOBAL:
    case CR_NAME_CLASS_FREE:
      if (g_hash_table_remove (f->class_ns, n->u.name.id))
        return TRUE;
      break;
    default:
      break;
    }
  if (!slot || !*slot)
    {
      unbound_error (self, f, kind, n->u.name.id, error);
      return FALSE;
    }
  CrValue *old = *slot;
  *slot = NULL;
  cr_value_unref (old);
  return TRUE;
}

/* ---- assignment targets --------------------------------------------------------------------- */

static gboolean store_target (CrInterp *self, CrFrame *f, CrAstNode *target, CrValue *value,
                              gboolean note, GError **error);

static gboolean
unpack_into (CrInterp  *self,
             CrFrame   *f,
             CrAstNode *target,
             CrValue   *value,
             gboolean   note,
             GError   **error)
{
  guint n_targets = target->u.seq.n_elts;
  CrAstNode *const *targets = target->u.seq.elts;
  int star = -1;
  for (guint i = 0; i < n_targets; i++)
    if (targets[i]->kind == CR_AST_STARRED)
      {
        if (star >= 0)
          {
            cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR,
                                 "multiple starred expressions in assignment");
            return FALSE;
          }
        star = (int) i;
      }

  CrValue *list = NULL;
  if (value->kind == CR_VALUE_LIST || value->kind == CR_VALUE_TUPLE)
    list = cr_value_ref (value);
  else
    {
      GError *local = NULL;
      CrIter it;
      if (!cr_iter_init (self, &it, value, &local))
        {
          if (local->code == CR_EXC_TYPE_ERROR && value->kind != CR_VALUE_TENSOR)
            {
              g_clear_error (&local);
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "cannot unpack non-iterable %s object",
                                   cr_value_type_name (value));
            }
          else
            g_propagate_error (error, local);
          return FALSE;
        }
      cr_iter_clear (&it);
      list = cr_iter_to_list (self, value, error);
      if (!list)
        return FALSE;
    }

  GPtrArray *items = list->u.seq.items;
  gboolean ok = TRUE;
  if (star < 0)
    {
      if (items->len > n_targets)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR, "too many values to unpack (expected %u)",
                               n_targets);
          ok = FALSE;
        }
      else if (items->len < n_targets)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR,
                               "not enough values to unpack (expected %u, got %u)",
                               n_targets, items->len);
          ok = FALSE;
        }
      for (guint i = 0; ok && i < n_targets; i++)
        ok = store_target (self, f, targets[i], items->pdata[i], note, error);
    }
  else
    {
      guint before = (guint) star, after = n_targets - before - 1;
      if (items->len < before + after)
        {
          cr_interp_set_error (error, CR_EXC_VALUE_ERROR,
                               "not enough values to unpack (expected at least %u, got %u)",
                               before + after, items->len);
          ok = FALSE;
        }
      for (guint i = 0; ok && i < before; i++)
        ok = store_target (self, f, targets[i], items->pdata[i], note, error);
      if (ok)
        {
          guint n_mid = items->len - before - after;
          GPtrArray *mid = g_ptr_array_new_full (n_mid, NULL);
          for (guint k = 0; k < n_mid; k++)
            g_ptr_array_add (mid, cr_value_ref (items->pdata[before + k]));
          CrValue *midlist = cr_value_new_list_take (mid);
          ok = store_target (self, f, targets[star]->u.starred.value, midlist, note, error);
          cr_value_unref (midlist);
        }
      for (guint i = 0; ok && i < after; i++)
        ok = store_target (self, f, targets[before + 1 + i],
                           items->pdata[items->len - after + i], note, error);
    }
  cr_value_unref (list);
  return ok;
}


static gboolean
store_target (CrInterp  *self,
              CrFrame   *f,
              CrAstNode *target,
              CrValue   *value,
              gboolean   note,
              GError   **error)
{
  switch (target->kind)
    {
    case CR_AST_NAME:
      if (note)
        cr_interp_note_binding (self, value, target->u.name.id);
      store_name (self, f, target, value);
      return TRUE;
    case CR_AST_TUPLE:
    case CR_AST_LIST:
      if (!unpack_into (self, f, target, value, note, error))
        {
          cr_interp_locate (self, target);
          return FALSE;
        }
      return TRUE;
    case CR_AST_ATTRIBUTE:
      {
        CrValue *obj = cr_eval (self, f, target->u.attribute.value, error);
        if (!obj)
          return FALSE;
        gboolean ok = cr_interp_setattr (self, obj, target->u.attribute.attr, value, error);
        cr_value_unref (obj);
        if (!ok)
          cr_interp_locate (self, target);
        return ok;
      }
    case CR_AST_SUBSCRIPT:
      {
        CrValue *obj, *index;
        if (!cr_eval_subscript (self, f, target, &obj, &index, error))
          return FALSE;
        gboolean ok = cr_interp_setitem (self, obj, index, value, error);
        cr_value_unref (index);
        cr_value_unref (obj);
        if (!ok)
          cr_interp_locate (self, target);
        return ok;
      }
    case CR_AST_STARRED:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR,
                           "starred assignment target must be in a list or tuple");
      return FALSE;
    default:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR, "cannot assign to %s",
                           cr_ast_kind_name (target->kind));
      return FALSE;
    }
}

gboolean
cr_store_target (CrInterp  *self,
                 CrFrame   *frame,
                 CrAstNode *target,
                 CrValue   *value,
                 GError   **error)
{
  return store_target (self, frame, target, value, TRUE, error);
}

gboolean
cr_store_target_unnamed (CrInterp  *self,
                         CrFrame   *frame,
                         CrAstNode *target,
                         CrValue   *value,
                         GError   **error)
{
  return store_target (self, frame, target, value, FALSE, error);
}

/* ---- functions --------------------------------------------------------------------------------- */

CrValue *
cr_make_function (CrInterp  *self,
                  CrFrame   *frame,
                  CrAstNode *node,
                  GError   **error)
{
  CrCode *code = cr_program_code_for (self->program, node);
  if (!code)
    {
      cr_interp_set_error (error, CR_EXC_RUNTIME_ERROR, "internal error: unresolved function");
      return NULL;
    }
  CrValue **defaults = g_new0 (CrValue *, code->n_params + 1);
  for (guint i = 0; i < code->n_params; i++)
    if (code->params[i].default_value)
      {
        defaults[i] = cr_eval (self, frame, code->params[i].default_value, error);
        if (!defaults[i])
          {
            for (guint k = 0; k < i; k++)
              cr_value_unref (defaults[k]);
            g_free (defaults);
            return NULL;
          }
      }
  CrFunction *fn = g_new0 (CrFunction, 1);
  fn->code = code;
  fn->qualname = g_strdup (code->qualname);
  fn->scope = self->scope;
  fn->defaults = defaults;
  fn->closure = cr_build_closure (frame, code);
  CrValue *v = cr_value_alloc (CR_VALUE_FUNCTION);
  v->u.function = fn;
  return v;
}

/* ---- calls ----------------------------------------------------------------------------------------- */

typedef struct {
  CrValue   **args;
  guint       n_args;
  CrKwarg    *kwargs;
  guint       n_kwargs;
  CrValue    *arg_buf[ARGS_ON_STACK];
  CrKwarg     kw_buf[ARGS_ON_STACK];
  GPtrArray  *arg_heap;
  GArray     *kw_heap;
  GPtrArray  *keep;       /* values that kwargs names point into */
} CallArgs;

static void
call_args_clear (CallArgs *ca)
{
  for (guint i = 0; i < ca->n_args; i++)
    cr_value_unref (ca->args[i]);
  for (guint i = 0; i < ca->n_kwargs; i++)
    cr_value_unref (ca->kwargs[i].value);
  if (ca->arg_heap)
    g_ptr_array_unref (ca->arg_heap);
  if (ca->kw_heap)
    g_array_unref (ca->kw_heap);
  if (ca->keep)
    g_ptr_array_unref (ca->keep);
}

static void
add_arg (CallArgs *ca,
         CrValue  *v)
{
  if (ca->arg_heap)
    {
      g_ptr_array_add (ca->arg_heap, v);
      ca->args = (CrValue **) ca->arg_heap->pdata;
    }
  else
    ca->args[ca->n_args] = v;
  ca->n_args++;
}

static void
add_kwarg (CallArgs   *ca,
           const char *name,
           CrValue    *v)
{
  CrKwarg kw = { name, v };
  if (ca->kw_heap)
    {
      g_array_append_val (ca->kw_heap, kw);
      ca->kwargs = (CrKwarg *) ca->kw_heap->data;
    }
  else
    ca->kwargs[ca->n_kwargs] = kw;
  ca->n_kwargs++;
}

static gboolean
eval_call_args (CrInterp  *self,
                CrFrame   *f,
                CrAstNode *n,
                CallArgs  *ca,
                GError   **error)
{
  guint n_args = n->u.call.n_args, n_kw = n->u.call.n_keywords;
  gboolean dynamic_args = n_args > ARGS_ON_STACK, dynamic_kw = n_kw > ARGS_ON_STACK;
  for (guint i = 0; i < n_args && !dynamic_args; i++)
    if (n->u.call.args[i]->kind == CR_AST_STARRED)
      dynamic_args = TRUE;
  for (guint i = 0; i < n_kw && !dynamic_kw; i++)
    if (n->u.call.keywords[i].name == NULL)
      dynamic_kw = TRUE;

  ca->args = ca->arg_buf;
  ca->kwargs = ca->kw_buf;
  ca->n_args = ca->n_kwargs = 0;
  ca->arg_heap = dynamic_args ? g_ptr_array_new () : NULL;
  ca->kw_heap = dynamic_kw ? g_array_new (FALSE, FALSE, sizeof (CrKwarg)) : NULL;
  ca->keep = NULL;
  if (ca->arg_heap)
    ca->args = (CrValue **) ca->arg_heap->pdata;
  if (ca->kw_heap)
    ca->kwargs = (CrKwarg *) ca->kw_heap->data;

  for (guint i = 0; i < n_args; i++)
    {
      CrAstNode *a = n->u.call.args[i];
      if (a->kind == CR_AST_STARRED)
        {
          CrValue *seq = cr_eval (self, f, a->u.starred.value, error);
          if (!seq)
            return FALSE;
          CrValue *list = cr_iter_to_list (self, seq, error);
          cr_value_unref (seq);
          if (!list)
            return FALSE;
          for (guint k = 0; k < list->u.seq.items->len; k++)
            add_arg (ca, cr_value_ref (list->u.seq.items->pdata[k]));
          cr_value_unref (list);
          continue;
        }
      CrValue *v = cr_eval (self, f, a, error);
      if (!v)
        return FALSE;
      add_arg (ca, v);
    }
  for (guint i = 0; i < n_kw; i++)
    {
      const CrAstKeyword *kw = &n->u.call.keywords[i];
      CrValue *v = cr_eval (self, f, kw->value, error);
      if (!v)
        return FALSE;
      if (kw->name)
        {
          add_kwarg (ca, kw->name, v);
          continue;
        }
      if (v->kind != CR_VALUE_DICT)
        {
          cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                               "argument after ** must be a mapping, not %s", cr_value_type_name (v));
          cr_value_unref (v);
          return FALSE;
        }
      if (!ca->keep)
        ca->keep = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
      g_ptr_array_add (ca->keep, v);
      for (guint k = 0; k < cr_dict_len (v); k++)
        {
          CrValue *key = cr_dict_key_at (v, k);
          if (key->kind != CR_VALUE_STR)
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "keywords must be strings");
              return FALSE;
            }
          for (guint j = 0; j < ca->n_kwargs; j++)
            if (strcmp (ca->kwargs[j].name, key->u.str.data) == 0)
              {
                cr_interp_set_error (error, CR_EXC_TYPE_ERROR,
                                     "got multiple values for keyword argument '%s'",
                                     key->u.str.data);
                return FALSE;
              }
          add_kwarg (ca, key->u.str.data, cr_value_ref (cr_dict_value_at (v, k)));
        }
    }
  return TRUE;
}

static CrValue *
eval_call (CrInterp  *self,
           CrFrame   *f,
           CrAstNode *n,
           GError   **error)
{
  CrAstNode *fnode = n->u.call.func;
  CrValue *callee = NULL, *self_arg = NULL;

  if (fnode->kind == CR_AST_ATTRIBUTE)
    {
      CrValue *obj = cr_eval (self, f, fnode->u.attribute.value, error);
      if (!obj)
        return NULL;
      /* obj.method(...) on an instance calls the def directly, without
       * making a bound method. */
      if (obj->kind == CR_VALUE_INSTANCE
          && !g_hash_table_contains (obj->u.instance.attrs, fnode->u.attribute.attr))
        {
          CrValue *m = cr_class_lookup (obj->u.instance.cls, fnode->u.attribute.attr);
          if (m && m->kind == CR_VALUE_FUNCTION)
            {
              callee = cr_value_ref (m);
              self_arg = obj;
            }
        }
      if (!callee)
        {
          callee = cr_interp_getattr (self, obj, fnode->u.attribute.attr, error);
          cr_value_unref (obj);
          if (!callee)
            {
              cr_interp_locate (self, fnode);
              return NULL;
            }
        }
    }
  else
    {
      callee = cr_eval (self, f, fnode, error);
      if (!callee)
        return NULL;
    }

  CallArgs ca;
  CrValue *result = NULL;
  if (eval_call_args (self, f, n, &ca, error))
    {
      if (self_arg)
        {
          CrValue *buf[ARGS_ON_STACK + 1];
          CrValue **all = ca.n_args + 1 <= G_N_ELEMENTS (buf) ? buf
                                                              : g_new (CrValue *, ca.n_args + 1);
          all[0] = self_arg;
          if (ca.n_args)
            memcpy (all + 1, ca.args, sizeof (CrValue *) * ca.n_args);
          result = cr_interp_call (self, callee, all, ca.n_args + 1, ca.kwargs, ca.n_kwargs,
                                   error);
          if (all != buf)
            g_free (all);
        }
      else
        result = cr_interp_call (self, callee, ca.args, ca.n_args, ca.kwargs, ca.n_kwargs, error);
    }
  call_args_clear (&ca);
  cr_value_unref (self_arg);
  cr_value_unref (callee);
  return result;
}

/* ---- subscripts -------------------------------------------------------------------------------------- */

static CrValue *
eval_opt (CrInterp  *self,
          CrFrame   *f,
          CrAstNode *n,
          GError   **error)
{
  return n ? cr_eval (self, f, n, error) : cr_value_none ();
}

CrValue *
cr_eval_index (CrInterp  *self,
               CrFrame   *f,
               CrAstNode *n,
               GError   **error)
{
  if (n->kind == CR_AST_SLICE)
    {
      CrValue *lo = eval_opt (self, f, n->u.slice.lower, error);
      if (!lo)
        return NULL;
      CrValue *hi = eval_opt (self, f, n->u.slice.upper, error);
      if (!hi)
        {
          cr_value_unref (lo);
          return NULL;
        }
      CrValue *st = eval_opt (self, f, n->u.slice.step, error);
      if (!st)
        {
          cr_value_unref (lo);
          cr_value_unref (hi);
          return NULL;
        }
      CrValue *s = cr_value_new_slice (lo, hi, st);
      cr_value_unref (lo);
      cr_value_unref (hi);
      cr_value_unref (st);
      return s;
    }
  if (n->kind == CR_AST_TUPLE)
    {
      GPtrArray *items = g_ptr_array_new_full (n->u.seq.n_elts, NULL);
      for (guint i = 0; i < n->u.seq.n_elts; i++)
        {
          CrValue *v = cr_eval_index (self, f, n->u.seq.elts[i], error);
          if (!v)
            {
              g_ptr_array_set_free_func (items, (GDestroyNotify) cr_value_unref);
              g_ptr_array_unref (items);
              return NULL;
            }
          g_ptr_array_add (items, v);
        }
      return cr_value_new_tuple_take (items);
    }
  return cr_eval (self, f, n, error);
}

/* ---- displays ------------------------------------------------------------------------------------------- */

static CrValue *
eval_seq (CrInterp  *self,
          CrFrame   *f,
          CrAstNode *n,
          GError   **error)
{
  GPtrArray *items = g_ptr_array_new_full (n->u.seq.n_elts, (GDestroyNotify) cr_value_unref);
  for (guint i = 0; i < n->u.seq.n_elts; i++)
    {
      CrAstNode *e = n->u.seq.elts[i];
      if (e->kind == CR_AST_STARRED)
        {
          CrValue *seq = cr_eval (self, f, e->u.starred.value, error);
          CrValue *list = seq ? cr_iter_to_list (self, seq, error) : NULL;
          cr_value_unref (seq);
          if (!list)
            {
              g_ptr_array_unref (items);
              return NULL;
            }
          for (guint k = 0; k < list->u.seq.items->len; k++)
            g_ptr_array_add (items, cr_value_ref (list->u.seq.items->pdata[k]));
          cr_value_unref (list);
          continue;
        }
      CrValue *v = cr_eval (self, f, e, error);
      if (!v)
        {
          g_ptr_array_unref (items);
          return NULL;
        }
      g_ptr_array_add (items, v);
    }
  if (n->kind == CR_AST_SET)
    {
      CrValue *set = cr_set_new ();
      for (guint i = 0; i < items->len; i++)
        if (!cr_set_add (set, items->pdata[i], error))
          {
            cr_value_unref (set);
            g_ptr_array_unref (items);
            return NULL;
          }
      g_ptr_array_unref (items);
      return set;
    }
  return n->kind == CR_AST_LIST ? cr_value_new_list_take (items) : cr_value_new_tuple_take (items);
}

static CrValue *
eval_dict (CrInterp  *self,
           CrFrame   *f,
           CrAstNode *n,
           GError   **error)
{
  CrValue *d = cr_value_new_dict ();
  for (guint i = 0; i < n->u.dict.n_values; i++)
    {
      CrAstNode *knode = i < n->u.dict.n_keys ? n->u.dict.keys[i] : NULL;
      if (!knode)
        {
          CrValue *other = cr_eval (self, f, n->u.dict.values[i], error);
          if (!other)
            goto fail;
          if (other->kind != CR_VALUE_DICT)
            {
              cr_interp_set_error (error, CR_EXC_TYPE_ERROR, "'%s' object is not a mapping",
                                   cr_value_type_name (other));
              cr_value_unref (other);
              goto fail;
            }
          for (guint k = 0; k < cr_dict_len (other); k++)
            cr_dict_set (d, cr_dict_key_at (other, k), cr_dict_value_at (other, k), NULL);
          cr_value_unref (other);
          continue;
        }
      CrValue *key = cr_eval (self, f, knode, error);
      if (!key)
        goto fail;
      CrValue *value = cr_eval (self, f, n->u.dict.values[i], error);
      if (!value)
        {
          cr_value_unref (key);
          goto fail;
        }
      gboolean ok = cr_dict_set (d, key, value, error);
      cr_value_unref (key);
      cr_value_unref (value);
      if (!ok)
        goto fail;
    }
  return d;
fail:
  cr_value_unref (d);
  return NULL;
}

static gboolean
append_formatted (CrInterp  *self,
                  CrFrame   *f,
                  CrAstNode *n,
                  GString   *out,
                  GError   **error)
{
  CrValue *v = cr_eval (self, f, n->u.formatted.value, error);
  if (!v)
    return FALSE;
  if (n->u.formatted.conversion == 'r' || n->u.formatted.conversion == 'a'
      || n->u.formatted.conversion == 's')
    {
      char *s = n->u.formatted.conversion == 's' ? cr_value_str (self, v, error)
                                                  : cr_value_repr (self, v, error);
      cr_value_unref (v);
      if (!s)
        return FALSE;
      v = cr_value_new_str_take (s);
    }
  char *spec = NULL;
  if (n->u.formatted.format_spec)
    {
      CrValue *sv = cr_eval (self, f, n->u.formatted.format_spec, error);
      if (!sv)
        {
          cr_value_unref (v);
          return FALSE;
        }
      spec = g_strdup (sv->kind == CR_VALUE_STR ? sv->u.str.data : "");
      cr_value_unref (sv);
    }
  char *s = cr_format_value (self, v, spec ? spec : "", error);
  g_free (spec);
  cr_value_unref (v);
  if (!s)
    return FALSE;
  g_string_append (out, s);
  g_free (s);
  return TRUE;
}

static CrValue *
eval_joined (CrInterp  *self,
             CrFrame   *f,
             CrAstNode *n,
             GError   **error)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n->u.seq.n_elts; i++)
    {
      CrAstNode *e = n->u.seq.elts[i];
      /* Each piece fits the budget; together they must too. */
      if (G_UNLIKELY (!cr_value_check_alloc (out->len, error)))
        {
          g_string_free (out, TRUE);
          return NULL;
        }
      if (e->kind == CR_AST_CONSTANT && e->u.constant.kind == CR_CONST_STR)
        g_string_append_len (out, e->u.constant.s, e->u.constant.s_len);
      else if (e->kind == CR_AST_FORMATTEDVALUE)
        {
          if (!append_formatted (self, f, e, out, error))
            {
              g_string_free (out, TRUE);
              return NULL;
            }
        }
      else
        {
          CrValue *v = cr_eval (self, f, e, error);
          char *s = v ? cr_value_str (self, v, error) : NULL;
          cr_value_unref (v);
          if (!s)
            {
              g_string_free (out, TRUE);
              return NULL;
            }
          g_string_append (out, s);
          g_free (s);
        }
    }
  gsize len = out->len;
  return cr_value_new_str_take_len (g_string_free (out, FALSE), len);
}

/* One for-clause of a comprehension: its items, its conditions, then the
 * next clause or, in the innermost one, the element. */
static gboolean
comp_clause (CrInterp  *self,
             CrFrame   *f,
             CrAstNode *outer,
             CrAstNode *clause,
             GPtrArray *items,
             GError   **error)
{
  CrValue *seq = cr_eval (self, f, clause->u.comp.iter, error);
  if (!seq)
    return FALSE;
  CrIter it;
  gboolean ok = cr_iter_init (self, &it, seq, error);
  cr_value_unref (seq);
  if (!ok)
    return FALSE;
  CrValue *item;
  int r;
  gsize n_seen = 0;
  while ((r = cr_iter_next (self, &it, &item, error)) == 1)
    {
      /* A comprehension is a loop too: it stops for an edit, a timeout or
       * the memory budget (counting the list it is building). */
      if (G_UNLIKELY (!cr_value_poll (self, ++n_seen, items->len * CR_VALUE_ITEM_BYTES, error)))
        {
          cr_value_unref (item);
          ok = FALSE;
          break;
        }
      ok = store_target (self, f, clause->u.comp.target, item, FALSE, error);
      cr_value_unref (item);
      if (!ok)
        break;
      gboolean keep = TRUE;
      for (guint i = 0; ok && keep && i < clause->u.comp.n_ifs; i++)
        {
          CrValue *c = cr_eval (self, f, clause->u.comp.ifs[i], error);
          ok = c && cr_value_truthy (self, c, &keep, error);
          cr_value_unref (c);
        }
      if (!ok)
        break;
      if (!keep)
        continue;
      if (clause->u.comp.inner)
        {
          if (!(ok = comp_clause (self, f, outer, clause->u.comp.inner, items, error)))
            break;
          continue;
        }
      if (outer->u.comp.key)
        {
          /* Python 3.8+ evaluates the key first. */
          CrValue *k = cr_eval (self, f, outer->u.comp.key, error);
          if (!(ok = k != NULL))
            break;
          g_ptr_array_add (items, k);
        }
      CrValue *v = cr_eval (self, f, outer->u.comp.elt, error);
      if (!(ok = v != NULL))
        break;
      g_ptr_array_add (items, v);
    }
  cr_iter_clear (&it);
  return ok && r >= 0;
}

static CrValue *
eval_listcomp (CrInterp  *self,
               CrFrame   *f,
               CrAstNode *n,
               GError   **error)
{
  GPtrArray *items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_value_unref);
  if (!comp_clause (self, f, n, n, items, error))
    {
      g_ptr_array_unref (items);
      return NULL;
    }
  if (n->u.comp.key)
    {
      CrValue *dict = cr_value_new_dict ();
      for (guint i = 0; i + 1 < items->len; i += 2)
        if (!cr_dict_set (dict, items->pdata[i], items->pdata[i + 1], error))
          {
            cr_value_unref (dict);
            g_ptr_array_unref (items);
            return NULL;
          }
      g_ptr_array_unref (items);
      return dict;
    }
  if (n->u.comp.is_set)
    {
      CrValue *set = cr_set_new ();
      for (guint i = 0; i < items->len; i++)
        if (!cr_set_add (set, items->pdata[i], error))
          {
            cr_value_unref (set);
            g_ptr_array_unref (items);
            return NULL;
          }
      g_ptr_array_unref (items);
      return set;
    }
  g_ptr_array_set_free_func (items, NULL);
  return cr_value_new_list_take (items);
}

/* ---- operators ----------------------------------------------------------------------------------------- */

static CrValue *
eval_boolop (CrInterp  *self,
             CrFrame   *f,
             CrAstNode *n,
             GError   **error)
{
  CrValue *v = NULL;
  for (guint i = 0; i < n->u.boolop.n_values; i++)
    {
      cr_value_unref (v);
      v = cr_eval (self, f, n->u.boolop.values[i], error);
      if (!v)
        return NULL;
      if (i + 1 == n->u.boolop.n_values)
        break;
      gboolean t;
      if (!cr_value_truthy (self, v, &t, error))
        {
          cr_value_unref (v);
          return NULL;
        }
      if (n->u.boolop.is_and ? !t : t)
        break;
    }
  return v;
}

static CrValue *
eval_compare (CrInterp  *self,
              CrFrame   *f,
              CrAstNode *n,
              GError   **error)
{
  CrValue *left = cr_eval (self, f, n->u.compare.left, error);
  if (!left)
    return NULL;
  for (guint i = 0; i < n->u.compare.n_ops; i++)
    {
      CrValue *right = cr_eval (self, f, n->u.compare.comparators[i], error);
      if (!right)
        {
          cr_value_unref (left);
          return NULL;
        }
      CrValue *r = cr_compare_op (self, n->u.compare.ops[i], left, right, error);
      cr_value_unref (left);
      if (!r)
        {
          cr_value_unref (right);
          return NULL;
        }
      if (i + 1 == n->u.compare.n_ops)
        {
          cr_value_unref (right);
          return r;
        }
      gboolean t;
      if (!cr_value_truthy (self, r, &t, error))
        {
          cr_value_unref (r);
          cr_value_unref (right);
          return NULL;
        }
      if (!t)
        {
          cr_value_unref (right);
          return r;
        }
      cr_value_unref (r);
      left = right;
    }
  return left;
}

static inline void
note_expr (CrInterp  *self,
           CrValue   *v,
           CrAstNode *n)
{
  if (G_UNLIKELY (self->labels_enabled) && v && !self->in_prelude)
    cr_binding.note_value (self, v, n);
}

static CrValue *
eval_inner (CrInterp  *self,
            CrFrame   *f,
            CrAstNode *n,
            GError   **error)
{
  switch (n->kind)
    {
    case CR_AST_NAME:
      {
        CrValue *v = load_name (self, f, n, error);
        /* The run record reads an operand's tensor from its name too. */
        note_expr (self, v, n);
        return v;
      }
    case CR_AST_CONSTANT:
      switch (n->u.constant.kind)
        {
        case CR_CONST_INT:   return cr_value_new_int (n->u.constant.i);
        case CR_CONST_FLOAT: return cr_value_new_float (n->u.constant.f);
        case CR_CONST_BOOL:  return cr_value_new_bool (n->u.constant.b);
        case CR_CONST_STR:   return cr_value_new_str_len (n->u.constant.s, n->u.constant.s_len);
        default:             return cr_value_none ();
        }
    case CR_AST_BINOP:
      {
        CrValue *l = cr_eval (self, f, n->u.binop.left, error);
        if (!l)
          return NULL;
        CrValue *r = cr_eval (self, f, n->u.binop.right, error);
        if (!r)
          {
            cr_value_unref (l);
            return NULL;
          }
        CrValue *v = cr_binary_op (self, n->u.binop.op, l, r, error);
        cr_value_unref (l);
        cr_value_unref (r);
        note_expr (self, v, n);
        return v;
      }
    case CR_AST_UNARYOP:
      {
        CrValue *a = cr_eval (self, f, n->u.unaryop.operand, error);
        if (!a)
          return NULL;
        CrValue *v;
        if (n->u.unaryop.op == CR_UNOP_NOT)
          {
            gboolean t;
            v = cr_value_truthy (self, a, &t, error) ? cr_value_new_bool (!t) : NULL;
          }
        else
          v = cr_unary_op (self, n->u.unaryop.op, a, error);
        cr_value_unref (a);
        note_expr (self, v, n);
        return v;
      }
    case CR_AST_BOOLOP:
      return eval_boolop (self, f, n, error);
    case CR_AST_COMPARE:
      return eval_compare (self, f, n, error);
    case CR_AST_CALL:
      {
        if (G_UNLIKELY (!cr_interp_check_cancel (self, error)))
          return NULL;
        CrValue *v = eval_call (self, f, n, error);
        note_expr (self, v, n);
        return v;
      }
    case CR_AST_ATTRIBUTE:
      {
        CrValue *obj = cr_eval (self, f, n->u.attribute.value, error);
        if (!obj)
          return NULL;
        CrValue *v = cr_interp_getattr (self, obj, n->u.attribute.attr, error);
        cr_value_unref (obj);
        note_expr (self, v, n);
        return v;
      }
    case CR_AST_SUBSCRIPT:
      {
        CrValue *obj, *index;
        if (!cr_eval_subscript (self, f, n, &obj, &index, error))
          return NULL;
        CrValue *v = cr_interp_getitem (self, obj, index, error);
        cr_value_unref (index);
        cr_value_unref (obj);
        note_expr (self, v, n);
        return v;
      }
    case CR_AST_SLICE:
      return cr_eval_index (self, f, n, error);
    case CR_AST_TUPLE:
    case CR_AST_LIST:
    case CR_AST_SET:
      return eval_seq (self, f, n, error);
    case CR_AST_DICT:
      return eval_dict (self, f, n, error);
    case CR_AST_IFEXP:
      {
        CrValue *test = cr_eval (self, f, n->u.ifexp.test, error);
        if (!test)
          return NULL;
        gboolean t;
        gboolean ok = cr_value_truthy (self, test, &t, error);
        cr_value_unref (test);
        if (!ok)
          return NULL;
        return cr_eval (self, f, t ? n->u.ifexp.body : n->u.ifexp.orelse, error);
      }
    case CR_AST_LAMBDA:
      return cr_make_function (self, f, n, error);
    case CR_AST_JOINEDSTR:
      return eval_joined (self, f, n, error);
    case CR_AST_FORMATTEDVALUE:
      {
        GString *out = g_string_new (NULL);
        if (!append_formatted (self, f, n, out, error))
          {
            g_string_free (out, TRUE);
            return NULL;
          }
        return cr_value_new_str_take (g_string_free (out, FALSE));
      }
    case CR_AST_LISTCOMP:
      if (n->u.comp.is_generator)
        return cr_gen_object_new_genexpr (self, f, n, error);
      return eval_listcomp (self, f, n, error);
    case CR_AST_YIELD:
      {
        CrValue *v = n->u.yield_expr.value ? cr_eval (self, f, n->u.yield_expr.value, error)
                                           : cr_value_none ();
        return v ? cr_gen_object_yield (self, f, v, error) : NULL;
      }
    case CR_AST_YIELD_FROM:
      {
        CrValue *v = cr_eval (self, f, n->u.yield_expr.value, error);
        if (!v)
          return NULL;
        CrValue *r = cr_gen_object_yield_from (self, f, v, error);
        cr_value_unref (v);
        return r;
      }
    case CR_AST_ELLIPSIS:
      return cr_value_ellipsis ();
    case CR_AST_STARRED:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR, "can't use starred expression here");
      return NULL;
    default:
      cr_interp_set_error (error, CR_EXC_SYNTAX_ERROR, "unsupported expression (%s)",
                           cr_ast_kind_name (n->kind));
      return NULL;
    }
}

gboolean
cr_eval_subscript (CrInterp   *self,
                   CrFrame    *f,
                   CrAstNode  *n,
                   CrValue   **out_obj,
                   CrValue   **out_index,
                   GError    **error)
{
  *out_index = NULL;
  *out_obj = cr_eval (self, f, n->u.subscript.value, error);
  if (!*out_obj)
    return FALSE;
  *out_index = cr_eval_index (self, f, n->u.subscript.index, error);
  if (!*out_index)
    {
      g_clear_pointer (out_obj, cr_value_unref);
      return FALSE;
    }
  return TRUE;
}

void
cr_interp_note_failure (CrInterp        *self,
                        const CrAstNode *n,
                        GError         **error)
{
  /* A raise statement's exception (its instance) is no op's failure. */
  if (G_UNLIKELY (self->labels_enabled) && !self->err_located && !self->in_prelude
      && error && *error && self->exc_value_owner != *error)
    cr_binding.expr_failed (self, n, *error);
}

CrValue *
cr_eval (CrInterp  *self,
         CrFrame   *f,
         CrAstNode *n,
         GError   **error)
{
  /* Evaluation recurses over the tree (`1+1+...+1` is thousands deep). */
  if (G_UNLIKELY (cr_stack_guard_exhausted ()))
    {
      g_set_error_literal (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR,
                           "maximum recursion depth exceeded");
      cr_interp_locate (self, n);
      return NULL;
    }
  CrValue *v = eval_inner (self, f, n, error);
  if (G_UNLIKELY (v == NULL))
    {
      cr_interp_note_failure (self, n, error);
      cr_interp_locate (self, n);
    }
  return v;
}
