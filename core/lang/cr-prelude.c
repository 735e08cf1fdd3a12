/* cr-prelude.c — runs the prelude's modules (cr-prelude.h): each in a scope
 * of its own (its globals, its file name in tracebacks), switched to when a
 * function it defined is called (cr_interp_scope_enter). */
#include "cr-prelude.h"
#include "cr-interp-private.h"

#include <string.h>

/* Tracebacks through prelude code name its files as PyTorch's would be,
 * under a prefix that says where they really are. */
#define PRELUDE_PATH_PREFIX "<chainrule>/"

const CrPreludeSource *
cr_prelude_find (const char *dotted)
{
  for (guint i = 0; i < cr_prelude_n_sources; i++)
    if (strcmp (cr_prelude_sources[i].module, dotted) == 0)
      return &cr_prelude_sources[i];
  return NULL;
}

/* ---- parsed once per process ------------------------------------------------------------- */

typedef struct {
  CrAstModule *module;
  CrProgram   *program;
} ParsedPrelude;

static GMutex         parse_lock;
static ParsedPrelude *parsed;   /* cr_prelude_n_sources entries, filled on first use; never
                                 * freed: shared, read only, by every run of the process */

/* The parsed and resolved tree of source (borrowed), or NULL with an error:
 * a prelude that does not parse is Chainrule's bug, said as such. */
static const ParsedPrelude *
parse_prelude (const CrPreludeSource *source,
               GError               **error)
{
  guint index = source - cr_prelude_sources;
  const ParsedPrelude *result = NULL;

  g_mutex_lock (&parse_lock);
  if (parsed == NULL)
    parsed = g_new0 (ParsedPrelude, cr_prelude_n_sources);
  ParsedPrelude *p = &parsed[index];
  if (p->program == NULL)
    {
      g_autofree char *filename = g_strconcat (PRELUDE_PATH_PREFIX, source->path, NULL);
      GError *local = NULL;
      CrSpan span = { 0 };
      CrAstModule *module = cr_parse (source->source, -1, filename, &span, &local);
      CrProgram *program = module ? cr_program_new (module, &span, &local) : NULL;
      if (program)
        {
          p->module = module;
          p->program = program;
        }
      else
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_RUNTIME_ERROR,
                       "Chainrule's %s does not compile (line %d): %s", filename, span.line,
                       local ? local->message : "?");
          g_clear_error (&local);
          cr_ast_module_free (module);
        }
    }
  if (p->program)
    result = p;
  g_mutex_unlock (&parse_lock);
  return result;
}

/* ---- run once per interpreter ------------------------------------------------------------ */

typedef struct {
  CrScope   scope;
  CrValue  *namespace;   /* the module value (owned) */
} PreludeModule;

static void
prelude_module_free (gpointer data)
{
  PreludeModule *pm = data;

  /* Modules refer to each other (torch.nn.modules.module imports torch):
   * emptying each namespace breaks those cycles. */
  for (guint i = 0; i < pm->scope.n_globals; i++)
    g_clear_pointer (&pm->scope.globals[i].value, cr_value_unref);
  g_free (pm->scope.globals);
  g_hash_table_remove_all (pm->namespace->u.module.attrs);
  cr_value_unref (pm->namespace);
  g_free (pm);
}

void
cr_prelude_scopes_free (CrInterp *self)
{
  /* The last run first: a module's globals may hold what a later one made. */
  if (self->prelude_scopes)
    while (self->prelude_scopes->len > 0)
      prelude_module_free (g_ptr_array_steal_index (self->prelude_scopes,
                                                     self->prelude_scopes->len - 1));
  g_clear_pointer (&self->prelude_scopes, g_ptr_array_unref);
}

/* Runs the module's statements in its own scope; FALSE with error. */
static gboolean
run_module_body (CrInterp       *self,
                 PreludeModule  *pm,
                 GError        **error)
{
  CrCode *code = cr_program_module_code (pm->scope.program);
  CrFrame frame = { 0 };
  CrScopeSaved saved;

  frame.back = self->frame;
  frame.code = code;
  frame.locals = g_new0 (CrValue *, code->n_locals + 1);
  frame.cells = g_new0 (CrCell *, code->n_cells + 1);
  for (guint i = 0; i < code->n_cells; i++)
    frame.cells[i] = cr_cell_new ();
  frame.stmt = code->n_body ? code->body[0] : NULL;

  cr_interp_scope_enter (self, &pm->scope, &saved);
  self->frame = &frame;
  self->depth++;
  CrExecStatus status = cr_exec_block (self, &frame, code->body, code->n_body, error);
  self->frame = frame.back;
  self->depth--;
  if (status == CR_EXEC_ERROR)
    cr_interp_traceback_push (self, &frame, error ? *error : NULL);
  cr_interp_scope_leave (self, &saved);

  for (guint i = 0; i < code->n_locals; i++)
    cr_value_unref (frame.locals[i]);
  for (guint i = 0; i < code->n_cells; i++)
    cr_cell_unref (frame.cells[i]);
  cr_value_unref (frame.retval);
  g_free (frame.locals);
  g_free (frame.cells);
  return status != CR_EXEC_ERROR;
}

CrValue *
cr_prelude_import (CrInterp    *self,
                   const char  *dotted,
                   gboolean    *handled,
                   GError     **error)
{
  const CrPreludeSource *source = cr_prelude_find (dotted);
  const char *last_dot = strrchr (dotted, '.');
  CrValue *parent = NULL;

  *handled = source != NULL;
  if (!source)
    return NULL;

  CrValue *cached = g_hash_table_lookup (self->modules, dotted);
  if (cached)
    return cr_value_ref (cached);

  /* As Python: the package first (torch.nn before torch.nn.modules). */
  if (last_dot)
    {
      g_autofree char *parent_name = g_strndup (dotted, last_dot - dotted);
      parent = cr_interp_import (self, parent_name, error);
      if (!parent)
        return NULL;
      /* The package's own code may have imported this module meanwhile. */
      cached = g_hash_table_lookup (self->modules, dotted);
      if (cached)
        {
          cr_value_unref (parent);
          return cr_value_ref (cached);
        }
    }

  const ParsedPrelude *p = parse_prelude (source, error);
  if (!p)
    {
      cr_value_unref (parent);
      return NULL;
    }

  PreludeModule *pm = g_new0 (PreludeModule, 1);
  pm->scope.name = source->module;
  pm->scope.module = p->module;
  pm->scope.program = p->program;
  pm->scope.n_globals = cr_program_n_globals (p->program);
  pm->scope.globals = g_new0 (CrGlobalSlot, pm->scope.n_globals + 1);
  pm->scope.is_prelude = TRUE;
  for (guint i = 0; i < pm->scope.n_globals; i++)
    pm->scope.globals[i].builtin = g_hash_table_lookup (self->builtins,
                                                        cr_program_global_name (p->program, i));
  pm->namespace = cr_value_new_module (dotted);
  pm->scope.namespace = pm->namespace;
  if (!self->prelude_scopes)
    self->prelude_scopes = g_ptr_array_new ();
  g_ptr_array_add (self->prelude_scopes, pm);

  /* Cached before it runs, so that the modules it imports may import it. */
  g_hash_table_insert (self->modules, g_strdup (dotted), cr_value_ref (pm->namespace));
  if (!run_module_body (self, pm, error))
    {
      g_hash_table_remove (self->modules, dotted);
      cr_value_unref (parent);
      return NULL;
    }

  /* The namespace is the module's globals once it has run. */
  for (guint i = 0; i < pm->scope.n_globals; i++)
    if (pm->scope.globals[i].value)
      cr_value_set_member (pm->namespace, cr_program_global_name (p->program, i),
                           pm->scope.globals[i].value);
  if (parent && parent->kind == CR_VALUE_MODULE)
    cr_value_set_member (parent, last_dot + 1, pm->namespace);
  cr_value_unref (parent);
  return cr_value_ref (pm->namespace);
}

CrValue *
cr_prelude_submodule (CrInterp    *self,
                      CrValue     *module,
                      const char  *name,
                      GError     **error)
{
  g_autofree char *dotted = g_strconcat (module->u.module.name, ".", name, NULL);

  if (!cr_prelude_find (dotted))
    return NULL;
  CrValue *sub = cr_interp_import (self, dotted, error);
  if (sub)
    cr_value_set_member (module, name, sub);
  return sub;
}
