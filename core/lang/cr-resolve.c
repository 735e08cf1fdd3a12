/* cr-resolve.c — decides, once per run, where every name of a script lives,
 * with Python's scoping rules: a name bound anywhere in a def is local to it
 * (unless declared global/nonlocal), a name read from an enclosing def is a
 * closure cell, class bodies are namespaces their methods do not see, and a
 * list comprehension's variable is its own (kept in a hidden local slot of
 * the enclosing scope, as Python 3.12 inlines comprehensions).
 *
 * The result is written into each CR_AST_NAME node's cache (a kind and an
 * index, see cr-interp-private.h), so that reading a variable at run time is
 * an array access. The encoding depends only on the tree, so running the
 * same tree twice writes the same values. */
#include "cr-interp-private.h"

#include <string.h>

typedef enum {
  SCOPE_MODULE,
  SCOPE_FUNCTION,
  SCOPE_CLASS,
} ScopeType;

enum {
  F_BOUND    = 1 << 0,
  F_GLOBAL   = 1 << 1,
  F_NONLOCAL = 1 << 2,
  F_PARAM    = 1 << 3,
};

typedef struct _Scope Scope;

typedef struct _Sym {
  const char   *name;
  int           flags;
  int           local;    /* slot in the scope's locals, or -1 */
  int           cell;     /* index in the scope's cells, or -1 */
  int           free;     /* index in the scope's frees, or -1 */
  struct _Sym  *source;   /* a free's symbol in the parent scope */
} Sym;

struct _Scope {
  Scope            *parent;
  ScopeType         type;
  const CrAstNode  *node;
  const char       *name;
  char             *qualname;
  GHashTable       *syms;        /* name -> Sym*: declared or bound names */
  GPtrArray        *order;       /* Sym* in first-binding order */
  GPtrArray        *locals;      /* Sym* by slot */
  GPtrArray        *cells;       /* Sym* */
  GPtrArray        *frees;       /* Sym* */
  GHashTable       *free_by_name;
  GPtrArray        *overlay;     /* comprehension variables in effect (Sym*) */
  GPtrArray        *snapshot;    /* the parent's overlay when this scope was made */
  int               loop_depth;
  gboolean          is_generator; /* a yield in a def or lambda */
  gboolean          is_genexpr;
  const char       *comprehension;/* "list comprehension" while inside one: no yield there */
};

typedef enum {
  PEND_GLOBAL,
  PEND_SYM,
  PEND_CLASS_GLOBAL,
  PEND_CLASS_FREE,
} PendKind;

typedef struct {
  CrAstNode *node;
  PendKind   kind;
  Sym       *sym;
  guint      global;
} Pending;

typedef struct {
  CrProgram  *program;
  GPtrArray  *all_syms;     /* owned Sym* */
  GPtrArray  *all_scopes;   /* owned Scope* */
  GArray     *pending;
  GError     *error;
  CrSpan      error_span;
} Resolver;

struct _CrProgram {
  CrCode      *module_code;
  GHashTable  *codes;          /* const CrAstNode* -> CrCode* (owned) */
  GPtrArray   *global_names;   /* const char* (borrowed from the tree) */
  GHashTable  *global_index;   /* name -> GUINT (index + 1) */
};

static void resolve_stmts (Resolver *r, Scope *s, CrAstNode *const *stmts, guint n);
static void resolve_expr  (Resolver *r, Scope *s, CrAstNode *node);

static void
fail_with (Resolver        *r,
           const CrAstNode *node,
           CrException      code,
           const char      *message)
{
  if (r->error)
    return;
  r->error = g_error_new_literal (CR_LANG_ERROR, code, message);
  r->error_span = node->span;
}

static void
fail (Resolver        *r,
      const CrAstNode *node,
      const char      *message)
{
  fail_with (r, node, CR_EXC_SYNTAX_ERROR, message);
}

static Sym *
sym_new (Resolver   *r,
         const char *name)
{
  Sym *sym = g_new0 (Sym, 1);
  sym->name = name;
  sym->local = sym->cell = sym->free = -1;
  g_ptr_array_add (r->all_syms, sym);
  return sym;
}

static Scope *
scope_new (Resolver        *r,
           Scope           *parent,
           ScopeType        type,
           const CrAstNode *node,
           const char      *name)
{
  Scope *s = g_new0 (Scope, 1);
  s->parent = parent;
  s->type = type;
  s->node = node;
  s->name = name;
  s->syms = g_hash_table_new (g_str_hash, g_str_equal);
  s->order = g_ptr_array_new ();
  s->locals = g_ptr_array_new ();
  s->cells = g_ptr_array_new ();
  s->frees = g_ptr_array_new ();
  s->free_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  s->overlay = g_ptr_array_new ();
  s->snapshot = g_ptr_array_new ();
  if (parent)
    for (guint i = 0; i < parent->overlay->len; i++)
      g_ptr_array_add (s->snapshot, parent->overlay->pdata[i]);
  if (parent == NULL || parent->type == SCOPE_MODULE)
    s->qualname = g_strdup (name);
  else if (parent->type == SCOPE_CLASS)
    s->qualname = g_strdup_printf ("%s.%s", parent->qualname, name);
  else
    s->qualname = g_strdup_printf ("%s.<locals>.%s", parent->qualname, name);
  g_ptr_array_add (r->all_scopes, s);
  return s;
}

static void
scope_free (gpointer data)
{
  Scope *s = data;
  g_hash_table_unref (s->syms);
  g_ptr_array_unref (s->order);
  g_ptr_array_unref (s->locals);
  g_ptr_array_unref (s->cells);
  g_ptr_array_unref (s->frees);
  g_hash_table_unref (s->free_by_name);
  g_ptr_array_unref (s->overlay);
  g_ptr_array_unref (s->snapshot);
  g_free (s->qualname);
  g_free (s);
}

static guint global_index (Resolver *r, const char *name);

static Sym *
scope_sym (Resolver   *r,
           Scope      *s,
           const char *name)
{
  Sym *sym = g_hash_table_lookup (s->syms, name);
  if (!sym)
    {
      if (s->type == SCOPE_MODULE)
        global_index (r, name);
      sym = sym_new (r, name);
      g_hash_table_insert (s->syms, (gpointer) name, sym);
      g_ptr_array_add (s->order, sym);
    }
  return sym;
}

static guint
global_index (Resolver   *r,
              const char *name)
{
  CrProgram *p = r->program;
  gpointer idx = g_hash_table_lookup (p->global_index, name);
  if (idx)
    return GPOINTER_TO_UINT (idx) - 1;
  g_ptr_array_add (p->global_names, (gpointer) name);
  g_hash_table_insert (p->global_index, (gpointer) name, GUINT_TO_POINTER (p->global_names->len));
  return p->global_names->len - 1;
}

/* ---- pass A: what a scope binds ----------------------------------------------- */

static void
bind_target (Resolver  *r,
             Scope     *s,
             CrAstNode *target)
{
  if (!target)
    return;
  switch (target->kind)
    {
    case CR_AST_NAME:
      scope_sym (r, s, target->u.name.id)->flags |= F_BOUND;
      break;
    case CR_AST_TUPLE:
    case CR_AST_LIST:
      for (guint i = 0; i < target->u.seq.n_elts; i++)
        bind_target (r, s, target->u.seq.elts[i]);
      break;
    case CR_AST_STARRED:
      bind_target (r, s, target->u.starred.value);
      break;
    default:
      break;
    }
}

static void
collect (Resolver         *r,
         Scope            *s,
         CrAstNode *const *stmts,
         guint             n)
{
  for (guint i = 0; i < n; i++)
    {
      CrAstNode *st = stmts[i];
      switch (st->kind)
        {
        case CR_AST_ASSIGN:
        case CR_AST_ANNASSIGN:
          for (guint t = 0; t < st->u.assign.n_targets; t++)
            bind_target (r, s, st->u.assign.targets[t]);
          break;
        case CR_AST_AUGASSIGN:
          bind_target (r, s, st->u.augassign.target);
          break;
        case CR_AST_FOR:
          bind_target (r, s, st->u.for_stmt.target);
          collect (r, s, st->u.for_stmt.body, st->u.for_stmt.n_body);
          collect (r, s, st->u.for_stmt.orelse, st->u.for_stmt.n_orelse);
          break;
        case CR_AST_WHILE:
          collect (r, s, st->u.while_stmt.body, st->u.while_stmt.n_body);
          collect (r, s, st->u.while_stmt.orelse, st->u.while_stmt.n_orelse);
          break;
        case CR_AST_IF:
          collect (r, s, st->u.if_stmt.body, st->u.if_stmt.n_body);
          collect (r, s, st->u.if_stmt.orelse, st->u.if_stmt.n_orelse);
          break;
        case CR_AST_WITH:
          for (guint k = 0; k < st->u.with_stmt.n_items; k++)
            bind_target (r, s, st->u.with_stmt.items[k].optional_vars);
          collect (r, s, st->u.with_stmt.body, st->u.with_stmt.n_body);
          break;
        case CR_AST_TRY:
          collect (r, s, st->u.try_stmt.body, st->u.try_stmt.n_body);
          for (guint k = 0; k < st->u.try_stmt.n_handlers; k++)
            {
              const CrAstExceptHandler *h = &st->u.try_stmt.handlers[k];
              if (h->name)
                scope_sym (r, s, h->name)->flags |= F_BOUND;
              collect (r, s, h->body, h->n_body);
            }
          collect (r, s, st->u.try_stmt.orelse, st->u.try_stmt.n_orelse);
          collect (r, s, st->u.try_stmt.finalbody, st->u.try_stmt.n_finalbody);
          break;
        case CR_AST_FUNCTIONDEF:
          scope_sym (r, s, st->u.func.name)->flags |= F_BOUND;
          break;
        case CR_AST_CLASSDEF:
          scope_sym (r, s, st->u.cls.name)->flags |= F_BOUND;
          break;
        case CR_AST_IMPORT:
          for (guint k = 0; k < st->u.import.n_names; k++)
            {
              const CrAstAlias *a = &st->u.import.names[k];
              if (a->asname)
                scope_sym (r, s, a->asname)->flags |= F_BOUND;
              else
                {
                  /* `import torch.nn` binds "torch": the tree's strings are
                   * arena-owned, so the first component is interned here. */
                  const char *dot = strchr (a->name, '.');
                  const char *first = a->name;
                  if (dot)
                    {
                      g_autofree char *head = g_strndup (a->name, dot - a->name);
                      first = g_intern_string (head);
                    }
                  scope_sym (r, s, first)->flags |= F_BOUND;
                }
            }
          break;
        case CR_AST_IMPORTFROM:
          for (guint k = 0; k < st->u.import.n_names; k++)
            {
              const CrAstAlias *a = &st->u.import.names[k];
              if (strcmp (a->name, "*") == 0)
                continue;
              scope_sym (r, s, a->asname ? a->asname : a->name)->flags |= F_BOUND;
            }
          break;
        case CR_AST_DEL:
          for (guint k = 0; k < st->u.seq.n_elts; k++)
            bind_target (r, s, st->u.seq.elts[k]);
          break;
        case CR_AST_GLOBAL:
          for (guint k = 0; k < st->u.names.n_names; k++)
            scope_sym (r, s, st->u.names.names[k])->flags |= F_GLOBAL;
          break;
        case CR_AST_NONLOCAL:
          if (s->type == SCOPE_MODULE)
            fail (r, st, "nonlocal declaration not allowed at module level");
          for (guint k = 0; k < st->u.names.n_names; k++)
            scope_sym (r, s, st->u.names.names[k])->flags |= F_NONLOCAL;
          break;
        default:
          break;
        }
    }
}

/* ---- pass B: where each use goes ------------------------------------------------ */

static void
mark_cell (Scope *s,
           Sym   *sym)
{
  if (sym->cell < 0)
    {
      sym->cell = (int) s->cells->len;
      g_ptr_array_add (s->cells, sym);
    }
}

static Sym *
free_lookup (Resolver   *r,
             Scope      *s,
             const char *name)
{
  Sym *f = g_hash_table_lookup (s->free_by_name, name);
  if (f)
    return f;
  Scope *p = s->parent;
  if (!p)
    return NULL;

  Sym *src = NULL;
  for (guint i = s->snapshot->len; i > 0 && !src; i--)
    {
      Sym *hidden = s->snapshot->pdata[i - 1];
      if (strcmp (hidden->name, name) == 0)
        {
          src = hidden;
          mark_cell (p, hidden);
        }
    }
  if (!src)
    {
      if (p->type == SCOPE_MODULE)
        return NULL;
      Sym *ps = g_hash_table_lookup (p->syms, name);
      if (ps && (ps->flags & F_GLOBAL))
        return NULL;
      if (p->type == SCOPE_FUNCTION && ps && !(ps->flags & F_NONLOCAL) && (ps->flags & F_BOUND))
        {
          src = ps;
          mark_cell (p, ps);
        }
      else
        {
          src = free_lookup (r, p, name);
          if (!src)
            return NULL;
        }
    }
  f = sym_new (r, name);
  f->free = (int) s->frees->len;
  f->source = src;
  g_ptr_array_add (s->frees, f);
  g_hash_table_insert (s->free_by_name, (gpointer) name, f);
  return f;
}

static void
pend (Resolver  *r,
      CrAstNode *node,
      PendKind   kind,
      Sym       *sym,
      guint      global)
{
  Pending p = { node, kind, sym, global };
  g_array_append_val (r->pending, p);
}

static void
resolve_name (Resolver  *r,
              Scope     *s,
              CrAstNode *node)
{
  const char *name = node->u.name.id;
  for (guint i = s->overlay->len; i > 0; i--)
    {
      Sym *hidden = s->overlay->pdata[i - 1];
      if (strcmp (hidden->name, name) == 0)
        {
          pend (r, node, PEND_SYM, hidden, 0);
          return;
        }
    }
  if (s->type == SCOPE_MODULE)
    {
      pend (r, node, PEND_GLOBAL, NULL, global_index (r, name));
      return;
    }
  Sym *sym = g_hash_table_lookup (s->syms, name);
  if (sym && (sym->flags & F_GLOBAL))
    {
      pend (r, node, PEND_GLOBAL, NULL, global_index (r, name));
      return;
    }
  if (sym && (sym->flags & F_NONLOCAL))
    {
      Sym *f = free_lookup (r, s, name);
      if (!f)
        {
          g_autofree char *msg = g_strdup_printf ("no binding for nonlocal '%s' found", name);
          fail (r, node, msg);
          return;
        }
      pend (r, node, PEND_SYM, f, 0);
      return;
    }
  if (s->type == SCOPE_FUNCTION)
    {
      if (sym && (sym->flags & F_BOUND))
        {
          pend (r, node, PEND_SYM, sym, 0);
          return;
        }
      Sym *f = free_lookup (r, s, name);
      if (f)
        pend (r, node, PEND_SYM, f, 0);
      else
        pend (r, node, PEND_GLOBAL, NULL, global_index (r, name));
      return;
    }
  /* A class body. */
  Sym *f = free_lookup (r, s, name);
  if (sym && (sym->flags & F_BOUND))
    {
      if (f)
        pend (r, node, PEND_CLASS_FREE, f, 0);
      else
        pend (r, node, PEND_CLASS_GLOBAL, NULL, global_index (r, name));
    }
  else if (f)
    pend (r, node, PEND_SYM, f, 0);
  else
    pend (r, node, PEND_GLOBAL, NULL, global_index (r, name));
}

static void
add_comp_targets (Resolver  *r,
                  Scope     *s,
                  CrAstNode *target)
{
  switch (target->kind)
    {
    case CR_AST_NAME:
      {
        Sym *hidden = sym_new (r, target->u.name.id);
        hidden->flags = F_BOUND;
        hidden->local = (int) s->locals->len;
        g_ptr_array_add (s->locals, hidden);
        g_ptr_array_add (s->overlay, hidden);
        break;
      }
    case CR_AST_TUPLE:
    case CR_AST_LIST:
      for (guint i = 0; i < target->u.seq.n_elts; i++)
        add_comp_targets (r, s, target->u.seq.elts[i]);
      break;
    case CR_AST_STARRED:
      add_comp_targets (r, s, target->u.starred.value);
      break;
    default:
      break;
    }
}

static CrCode *finish_scope (Resolver *r, Scope *s);

/* Python's name for a comprehension in "'yield' inside ...". */
static const char *
comprehension_name (const CrAstNode *node)
{
  return node->u.comp.key ? "dict comprehension"
       : node->u.comp.is_set ? "set comprehension"
       : node->u.comp.is_generator ? "generator expression" : "list comprehension";
}

static void
resolve_function (Resolver  *r,
                  Scope     *s,
                  CrAstNode *node)
{
  for (guint i = 0; i < node->u.func.n_params; i++)
    if (node->u.func.params[i].default_value)
      resolve_expr (r, s, node->u.func.params[i].default_value);
  for (guint i = 0; i < node->u.func.n_decorators; i++)
    resolve_expr (r, s, node->u.func.decorators[i]);

  Scope *child = scope_new (r, s, SCOPE_FUNCTION, node,
                            node->kind == CR_AST_LAMBDA ? "<lambda>" : node->u.func.name);
  for (guint i = 0; i < node->u.func.n_params; i++)
    {
      const CrAstParam *param = &node->u.func.params[i];
      Sym *sym = g_hash_table_lookup (child->syms, param->name);
      if (sym)
        {
          g_autofree char *msg = g_strdup_printf ("duplicate argument '%s' in function definition",
                                                  param->name);
          CrAstNode fake = { .span = param->span };
          fail (r, &fake, msg);
          continue;
        }
      sym = scope_sym (r, child, param->name);
      sym->flags |= F_BOUND | F_PARAM;
      sym->local = (int) child->locals->len;
      g_ptr_array_add (child->locals, sym);
    }
  collect (r, child, node->u.func.body, node->u.func.n_body);
  for (guint i = 0; i < child->order->len; i++)
    {
      Sym *sym = child->order->pdata[i];
      if ((sym->flags & F_BOUND) && !(sym->flags & (F_GLOBAL | F_NONLOCAL)) && sym->local < 0)
        {
          sym->local = (int) child->locals->len;
          g_ptr_array_add (child->locals, sym);
        }
    }
  resolve_stmts (r, child, node->u.func.body, node->u.func.n_body);
  finish_scope (r, child);
}

static void
resolve_class (Resolver  *r,
               Scope     *s,
               CrAstNode *node)
{
  for (guint i = 0; i < node->u.cls.n_bases; i++)
    resolve_expr (r, s, node->u.cls.bases[i]);
  for (guint i = 0; i < node->u.cls.n_decorators; i++)
    resolve_expr (r, s, node->u.cls.decorators[i]);
  Scope *child = scope_new (r, s, SCOPE_CLASS, node, node->u.cls.name);
  collect (r, child, node->u.cls.body, node->u.cls.n_body);
  resolve_stmts (r, child, node->u.cls.body, node->u.cls.n_body);
  finish_scope (r, child);
}

static void
resolve_expr (Resolver  *r,
              Scope     *s,
              CrAstNode *node)
{
  if (!node || r->error)
    return;
  if (G_UNLIKELY (cr_stack_guard_exhausted ()))
    {
      /* A small stack (a worker thread, `ulimit -s`) and a deep tree. */
      fail_with (r, node, CR_EXC_RECURSION_ERROR,
                 "maximum recursion depth exceeded during compilation");
      return;
    }
  switch (node->kind)
    {
    case CR_AST_CONSTANT:
    case CR_AST_ELLIPSIS:
      break;
    case CR_AST_NAME:
      resolve_name (r, s, node);
      break;
    case CR_AST_BINOP:
      resolve_expr (r, s, node->u.binop.left);
      resolve_expr (r, s, node->u.binop.right);
      break;
    case CR_AST_UNARYOP:
      resolve_expr (r, s, node->u.unaryop.operand);
      break;
    case CR_AST_BOOLOP:
      for (guint i = 0; i < node->u.boolop.n_values; i++)
        resolve_expr (r, s, node->u.boolop.values[i]);
      break;
    case CR_AST_COMPARE:
      resolve_expr (r, s, node->u.compare.left);
      for (guint i = 0; i < node->u.compare.n_comparators; i++)
        resolve_expr (r, s, node->u.compare.comparators[i]);
      break;
    case CR_AST_CALL:
      resolve_expr (r, s, node->u.call.func);
      for (guint i = 0; i < node->u.call.n_args; i++)
        resolve_expr (r, s, node->u.call.args[i]);
      for (guint i = 0; i < node->u.call.n_keywords; i++)
        resolve_expr (r, s, node->u.call.keywords[i].value);
      break;
    case CR_AST_ATTRIBUTE:
      resolve_expr (r, s, node->u.attribute.value);
      break;
    case CR_AST_SUBSCRIPT:
      resolve_expr (r, s, node->u.subscript.value);
      resolve_expr (r, s, node->u.subscript.index);
      break;
    case CR_AST_SLICE:
      resolve_expr (r, s, node->u.slice.lower);
      resolve_expr (r, s, node->u.slice.upper);
      resolve_expr (r, s, node->u.slice.step);
      break;
    case CR_AST_TUPLE:
    case CR_AST_LIST:
    case CR_AST_SET:
    case CR_AST_JOINEDSTR:
      for (guint i = 0; i < node->u.seq.n_elts; i++)
        resolve_expr (r, s, node->u.seq.elts[i]);
      break;
    case CR_AST_DICT:
      for (guint i = 0; i < node->u.dict.n_keys; i++)
        resolve_expr (r, s, node->u.dict.keys[i]);
      for (guint i = 0; i < node->u.dict.n_values; i++)
        resolve_expr (r, s, node->u.dict.values[i]);
      break;
    case CR_AST_IFEXP:
      resolve_expr (r, s, node->u.ifexp.test);
      resolve_expr (r, s, node->u.ifexp.body);
      resolve_expr (r, s, node->u.ifexp.orelse);
      break;
    case CR_AST_LAMBDA:
      resolve_function (r, s, node);
      break;
    case CR_AST_FORMATTEDVALUE:
      resolve_expr (r, s, node->u.formatted.value);
      resolve_expr (r, s, node->u.formatted.format_spec);
      break;
    case CR_AST_LISTCOMP:
      {
        /* The first iterable is evaluated outside the comprehension; every
         * later clause sees the variables of the clauses before it. A
         * generator expression runs later, lazily: a scope of its own. */
        resolve_expr (r, s, node->u.comp.iter);
        Scope *inner = s;
        if (node->u.comp.is_generator)
          {
            inner = scope_new (r, s, SCOPE_FUNCTION, node, "<genexpr>");
            inner->is_genexpr = TRUE;
          }
        guint mark = inner->overlay->len;
        const char *outer_comprehension = inner->comprehension;
        inner->comprehension = comprehension_name (node);
        for (CrAstNode *c = node; c; c = c->u.comp.inner)
          {
            if (c != node)
              resolve_expr (r, inner, c->u.comp.iter);
            add_comp_targets (r, inner, c->u.comp.target);
            resolve_expr (r, inner, c->u.comp.target);
            for (guint i = 0; i < c->u.comp.n_ifs; i++)
              resolve_expr (r, inner, c->u.comp.ifs[i]);
          }
        resolve_expr (r, inner, node->u.comp.key);
        resolve_expr (r, inner, node->u.comp.elt);
        inner->comprehension = outer_comprehension;
        g_ptr_array_set_size (inner->overlay, mark);
        if (inner != s)
          finish_scope (r, inner);
        break;
      }
    case CR_AST_YIELD:
    case CR_AST_YIELD_FROM:
      if (s->comprehension)
        {
          g_autofree char *msg = g_strdup_printf ("'yield' inside %s", s->comprehension);
          fail (r, node, msg);
        }
      else if (s->type != SCOPE_FUNCTION)
        fail (r, node, "'yield' outside function");
      s->is_generator = TRUE;
      resolve_expr (r, s, node->u.yield_expr.value);
      break;
    case CR_AST_STARRED:
      resolve_expr (r, s, node->u.starred.value);
      break;
    default:
      break;
    }
}

static void
resolve_stmts (Resolver         *r,
               Scope            *s,
               CrAstNode *const *stmts,
               guint             n)
{
  for (guint i = 0; i < n && !r->error; i++)
    {
      CrAstNode *st = stmts[i];
      switch (st->kind)
        {
        case CR_AST_EXPR:
          resolve_expr (r, s, st->u.expr_stmt.value);
          break;
        case CR_AST_ASSIGN:
        case CR_AST_ANNASSIGN:
          resolve_expr (r, s, st->u.assign.value);
          for (guint t = 0; t < st->u.assign.n_targets; t++)
            resolve_expr (r, s, st->u.assign.targets[t]);
          break;
        case CR_AST_AUGASSIGN:
          resolve_expr (r, s, st->u.augassign.value);
          resolve_expr (r, s, st->u.augassign.target);
          break;
        case CR_AST_IF:
          resolve_expr (r, s, st->u.if_stmt.test);
          resolve_stmts (r, s, st->u.if_stmt.body, st->u.if_stmt.n_body);
          resolve_stmts (r, s, st->u.if_stmt.orelse, st->u.if_stmt.n_orelse);
          break;
        case CR_AST_FOR:
          resolve_expr (r, s, st->u.for_stmt.iter);
          resolve_expr (r, s, st->u.for_stmt.target);
          s->loop_depth++;
          resolve_stmts (r, s, st->u.for_stmt.body, st->u.for_stmt.n_body);
          s->loop_depth--;
          resolve_stmts (r, s, st->u.for_stmt.orelse, st->u.for_stmt.n_orelse);
          break;
        case CR_AST_WHILE:
          resolve_expr (r, s, st->u.while_stmt.test);
          s->loop_depth++;
          resolve_stmts (r, s, st->u.while_stmt.body, st->u.while_stmt.n_body);
          s->loop_depth--;
          resolve_stmts (r, s, st->u.while_stmt.orelse, st->u.while_stmt.n_orelse);
          break;
        case CR_AST_BREAK:
          if (s->loop_depth == 0)
            fail (r, st, "'break' outside loop");
          break;
        case CR_AST_CONTINUE:
          if (s->loop_depth == 0)
            fail (r, st, "'continue' not properly in loop");
          break;
        case CR_AST_RETURN:
          if (s->type != SCOPE_FUNCTION)
            fail (r, st, "'return' outside function");
          resolve_expr (r, s, st->u.ret.value);
          break;
        case CR_AST_FUNCTIONDEF:
          resolve_function (r, s, st);
          break;
        case CR_AST_CLASSDEF:
          resolve_class (r, s, st);
          break;
        case CR_AST_WITH:
          for (guint k = 0; k < st->u.with_stmt.n_items; k++)
            {
              resolve_expr (r, s, st->u.with_stmt.items[k].context_expr);
              resolve_expr (r, s, st->u.with_stmt.items[k].optional_vars);
            }
          resolve_stmts (r, s, st->u.with_stmt.body, st->u.with_stmt.n_body);
          break;
        case CR_AST_TRY:
          resolve_stmts (r, s, st->u.try_stmt.body, st->u.try_stmt.n_body);
          for (guint k = 0; k < st->u.try_stmt.n_handlers; k++)
            {
              const CrAstExceptHandler *h = &st->u.try_stmt.handlers[k];
              resolve_expr (r, s, h->type);
              resolve_stmts (r, s, h->body, h->n_body);
            }
          resolve_stmts (r, s, st->u.try_stmt.orelse, st->u.try_stmt.n_orelse);
          resolve_stmts (r, s, st->u.try_stmt.finalbody, st->u.try_stmt.n_finalbody);
          break;
        case CR_AST_ASSERT:
          resolve_expr (r, s, st->u.assert_stmt.test);
          resolve_expr (r, s, st->u.assert_stmt.msg);
          break;
        case CR_AST_RAISE:
          resolve_expr (r, s, st->u.raise.exc);
          resolve_expr (r, s, st->u.raise.cause);
          break;
        case CR_AST_DEL:
          for (guint k = 0; k < st->u.seq.n_elts; k++)
            resolve_expr (r, s, st->u.seq.elts[k]);
          break;
        case CR_AST_IMPORTFROM:
          if (s->type != SCOPE_MODULE)
            for (guint k = 0; k < st->u.import.n_names; k++)
              if (strcmp (st->u.import.names[k].name, "*") == 0)
                fail (r, st, "import * only allowed at module level");
          break;
        default:
          break;
        }
    }
}

/* ---- results ---------------------------------------------------------------------- */

static const char **
sym_names (GPtrArray *syms)
{
  const char **names = g_new0 (const char *, syms->len + 1);
  for (guint i = 0; i < syms->len; i++)
    names[i] = ((Sym *) syms->pdata[i])->name;
  return names;
}

static CrCode *
finish_scope (Resolver *r,
              Scope    *s)
{
  CrCode *code = g_new0 (CrCode, 1);
  const CrAstNode *node = s->node;
  code->node = node;
  code->name = s->name;
  code->qualname = g_strdup (s->qualname);
  code->varargs = code->kwargs = -1;
  code->is_generator = s->is_generator;
  code->is_genexpr = s->is_genexpr;
  if (node && (node->kind == CR_AST_FUNCTIONDEF || node->kind == CR_AST_LAMBDA))
    {
      code->n_params = node->u.func.n_params;
      code->params = node->u.func.params;
      for (guint i = 0; i < code->n_params; i++)
        {
          switch (code->params[i].kind)
            {
            case CR_PARAM_NORMAL:
              code->n_positional++;
              break;
            case CR_PARAM_VARARGS:
              code->varargs = (int) i;
              break;
            case CR_PARAM_KWARGS:
              code->kwargs = (int) i;
              break;
            default:
              break;
            }
        }
      code->n_body = node->u.func.n_body;
      code->body = node->u.func.body;
    }
  else if (node && node->kind == CR_AST_CLASSDEF)
    {
      code->is_class = TRUE;
      code->n_body = node->u.cls.n_body;
      code->body = node->u.cls.body;
    }
  code->n_locals = s->locals->len;
  code->local_names = sym_names (s->locals);
  code->n_cells = s->cells->len;
  code->cell_names = sym_names (s->cells);
  code->cell_param = g_new (int, s->cells->len + 1);
  for (guint i = 0; i < s->cells->len; i++)
    {
      Sym *sym = s->cells->pdata[i];
      code->cell_param[i] = (sym->flags & F_PARAM) ? sym->local : -1;
    }
  code->n_free = s->frees->len;
  code->free_names = sym_names (s->frees);
  code->free_sources = g_new0 (CrFreeSource, s->frees->len + 1);
  for (guint i = 0; i < s->frees->len; i++)
    {
      Sym *src = ((Sym *) s->frees->pdata[i])->source;
      if (src->free >= 0)
        code->free_sources[i] = (CrFreeSource) { FALSE, (guint) src->free };
      else
        code->free_sources[i] = (CrFreeSource) { TRUE, (guint) src->cell };
    }
  if (node)
    g_hash_table_insert (r->program->codes, (gpointer) node, code);
  return code;
}

static void
code_free (gpointer data)
{
  CrCode *code = data;
  g_free (code->qualname);
  g_free (code->local_names);
  g_free (code->cell_names);
  g_free (code->cell_param);
  g_free (code->free_names);
  g_free (code->free_sources);
  g_free (code);
}

static void
write_caches (Resolver *r)
{
  for (guint i = 0; i < r->pending->len; i++)
    {
      Pending *p = &g_array_index (r->pending, Pending, i);
      guint enc = 0;
      switch (p->kind)
        {
        case PEND_GLOBAL:
          enc = CR_NAME_ENCODE (CR_NAME_GLOBAL, p->global);
          break;
        case PEND_CLASS_GLOBAL:
          enc = CR_NAME_ENCODE (CR_NAME_CLASS_GLOBAL, p->global);
          break;
        case PEND_CLASS_FREE:
          enc = CR_NAME_ENCODE (CR_NAME_CLASS_FREE, p->sym->free);
          break;
        case PEND_SYM:
          if (p->sym->free >= 0)
            enc = CR_NAME_ENCODE (CR_NAME_FREE, p->sym->free);
          else if (p->sym->cell >= 0)
            enc = CR_NAME_ENCODE (CR_NAME_CELL, p->sym->cell);
          else
            enc = CR_NAME_ENCODE (CR_NAME_LOCAL, p->sym->local);
          break;
        }
      p->node->u.name.cache = GUINT_TO_POINTER (enc);
    }
}

CrProgram *
cr_program_new (CrAstModule  *module,
                CrSpan       *error_span,
                GError      **error)
{
  Resolver r = { 0 };
  CrProgram *program = g_new0 (CrProgram, 1);
  program->codes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, code_free);
  program->global_names = g_ptr_array_new ();
  program->global_index = g_hash_table_new (g_str_hash, g_str_equal);
  r.program = program;
  r.all_syms = g_ptr_array_new_with_free_func (g_free);
  r.all_scopes = g_ptr_array_new_with_free_func (scope_free);
  r.pending = g_array_new (FALSE, FALSE, sizeof (Pending));

  Scope *top = scope_new (&r, NULL, SCOPE_MODULE, NULL, "<module>");
  collect (&r, top, module->body, module->n_body);
  resolve_stmts (&r, top, module->body, module->n_body);
  program->module_code = finish_scope (&r, top);
  program->module_code->n_body = module->n_body;
  program->module_code->body = module->body;

  if (!r.error)
    write_caches (&r);

  g_array_unref (r.pending);
  g_ptr_array_unref (r.all_scopes);
  g_ptr_array_unref (r.all_syms);
  if (r.error)
    {
      if (error_span)
        *error_span = r.error_span;
      g_propagate_error (error, r.error);
      cr_program_free (program);
      return NULL;
    }
  return program;
}

void
cr_program_free (CrProgram *program)
{
  if (!program)
    return;
  if (program->module_code)
    code_free (program->module_code);
  g_hash_table_unref (program->codes);
  g_ptr_array_unref (program->global_names);
  g_hash_table_unref (program->global_index);
  g_free (program);
}

CrCode *
cr_program_module_code (CrProgram *program)
{
  return program->module_code;
}

CrCode *
cr_program_code_for (CrProgram       *program,
                     const CrAstNode *node)
{
  return g_hash_table_lookup (program->codes, node);
}

guint
cr_program_n_globals (CrProgram *program)
{
  return program->global_names->len;
}

int
cr_program_global_lookup (CrProgram  *program,
                          const char *name)
{
  gpointer idx = g_hash_table_lookup (program->global_index, name);
  return idx ? (int) GPOINTER_TO_UINT (idx) - 1 : -1;
}

const char *
cr_program_global_name (CrProgram *program,
                        guint      index)
{
  return program->global_names->pdata[index];
}
