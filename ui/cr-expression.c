/* cr-expression.c — expression mode's language.
 *
 * A formula is one Python expression, parsed with the script parser itself so
 * that it means exactly what it would mean in a script. Only a small part of
 * the language is accepted: numbers, names, + - * / **, unary minus and plus,
 * parentheses and calls of the scalar functions below (also spelled
 * torch.log(...)); pi and e are constants. Everything else is an error that
 * says what is not allowed, so a formula always becomes a script that runs the
 * same in Chainrule and in PyTorch.
 *
 * The script is written from the tree, not from the text: functions get their
 * torch. prefix, pow(x, y) becomes x ** y, and parentheses are put back where
 * Python's precedence needs them. */
#include "cr-expression.h"

#include "cr-ast.h"
#include "cr-error.h"
#include "cr-pyformat.h"

#include <math.h>
#include <string.h>

/* The functions a formula may call: each is a torch function with a gradient,
 * the rows of core/cr-unary-ops.def with an EXPR column, and pow. math_name
 * spells it for an argument without variables (a plain number, where
 * torch.log(2) would fail in PyTorch); NULL: the number is made a tensor
 * first. The list in the unknown-function message is sorted by name. */
typedef struct {
  const char *name;
  const char *math_name;
  guint       n_args;
  gboolean    wants_positive;   /* defaults of variables inside are made positive */
  gboolean    in_formulas;      /* FALSE: a row without EXPR (skipped) */
} Func;

#define POSITIVE TRUE
#define ANY      FALSE
#define EXPR(math_name, positive) math_name, 1, positive, TRUE
#define NO_EXPR                   NULL, 1, FALSE, FALSE
#define CR_UNARY_OP(ID, name, alias, rule, errors, vec, F, D, I, B, grad_fn, symbol, save, \
                    formula, text, bind, expr, params)                                             \
  { name, expr },
static const Func funcs[] = {
#include "core/cr-unary-ops.def"
  { "pow", NULL, 2, FALSE, TRUE },
};
#undef POSITIVE
#undef ANY
#undef EXPR
#undef NO_EXPR

/* Names the script itself uses: a variable may not shadow them. */
static const char *const reserved_names[] = { "torch", "math", "print", "float", NULL };

/* Candidates for the result's name, the first one that is not a variable. */
static const char *const result_names[] = { "out", "result", "y", "f", "z", "out_", NULL };

/* Default values, in order of first use: varied signs and sizes so that each
 * gradient is different and the graph's numbers are worth reading. */
static const double default_cycle[] = { 2.0, -1.0, 0.5, 3.0, -2.0, 1.5, 4.0, -0.5 };

/* The neuron of Karpathy's micrograd lecture: tanh(w1*x1 + w2*x2 + b) gives
 * out = 0.7071 with these, the classic blackboard example. */
static const struct { const char *name; double value; } neuron_values[] = {
  { "x1", 2.0 }, { "x2", 0.0 }, { "w1", -3.0 }, { "w2", 1.0 }, { "b", 6.8813735870195432 },
};

/* Python's precedence levels, loosest first. */
enum { PREC_ADD = 1, PREC_MUL, PREC_UNARY, PREC_POW, PREC_ATOM };

typedef struct {
  CrAstModule *module;
  CrAstNode   *root;
  GPtrArray   *variables;   /* interned names (borrowed from the module), first use first */
  GHashTable  *positive;    /* names used inside log/sqrt: set of interned names */
} Expr;

static void
expr_clear (Expr *expr)
{
  g_clear_pointer (&expr->variables, g_ptr_array_unref);
  g_clear_pointer (&expr->positive, g_hash_table_unref);
  g_clear_pointer (&expr->module, cr_ast_module_free);
  expr->root = NULL;
}

static const Func *
find_func (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (funcs); i++)
    if (funcs[i].in_formulas && strcmp (funcs[i].name, name) == 0)
      return &funcs[i];
  return NULL;
}

static gboolean
is_constant_name (const char *name)
{
  return strcmp (name, "pi") == 0 || strcmp (name, "e") == 0;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static char *
known_functions_text (void)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (funcs); i++)
    if (funcs[i].in_formulas)
      g_ptr_array_add (names, (gpointer) funcs[i].name);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (text, "%s%s", i ? ", " : "", (const char *) names->pdata[i]);
  return g_string_free (text, FALSE);
}

/* The function a call calls: log(...) or torch.log(...); NULL with an error
 * for anything else. */
static const Func *
callee_func (const CrAstNode  *callee,
             GError          **error)
{
  const char *name = NULL;
  if (callee->kind == CR_AST_NAME)
    name = callee->u.name.id;
  else if (callee->kind == CR_AST_ATTRIBUTE
           && callee->u.attribute.value->kind == CR_AST_NAME
           && strcmp (callee->u.attribute.value->u.name.id, "torch") == 0)
    name = callee->u.attribute.attr;
  if (name == NULL)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "Only functions can be called in a formula, such as log(x)");
      return NULL;
    }
  const Func *func = find_func (name);
  if (func == NULL)
    {
      g_autofree char *known = known_functions_text ();
      g_set_error (error, CR_LANG_ERROR, CR_EXC_NAME_ERROR,
                   "Unknown function '%s': a formula can use %s", name, known);
    }
  return func;
}

/* What a node that is not allowed is called in the error message. */
static const char *
construct_name (const CrAstNode *node)
{
  switch (node->kind)
    {
    case CR_AST_COMPARE: return "Comparisons";
    case CR_AST_BOOLOP: return "'and' and 'or'";
    case CR_AST_IFEXP: return "Conditional expressions";
    case CR_AST_LAMBDA: return "Lambdas";
    case CR_AST_SUBSCRIPT: return "Subscripts";
    case CR_AST_TUPLE: return "Tuples";
    case CR_AST_LIST: case CR_AST_LISTCOMP: return "Lists";
    case CR_AST_DICT: return "Dictionaries";
    case CR_AST_SET: return "Sets";
    case CR_AST_JOINEDSTR: case CR_AST_FORMATTEDVALUE: return "Strings";
    case CR_AST_ATTRIBUTE: return "Attributes";
    case CR_AST_STARRED: return "Starred arguments";
    default: return "This construct";
    }
}

static void
add_variable (Expr       *expr,
              const char *name,
              gboolean    positive)
{
  /* Names are interned in the module: pointers compare. */
  gboolean seen = FALSE;
  for (guint i = 0; i < expr->variables->len && !seen; i++)
    seen = g_ptr_array_index (expr->variables, i) == name;
  if (!seen)
    g_ptr_array_add (expr->variables, (gpointer) name);
  if (positive)
    g_hash_table_add (expr->positive, (gpointer) name);
}

/* Checks node and collects its variables. */
static gboolean
check_node (Expr             *expr,
            const CrAstNode  *node,
            gboolean          positive,
            GError          **error)
{
  switch (node->kind)
    {
    case CR_AST_CONSTANT:
      if (node->u.constant.kind == CR_CONST_INT || node->u.constant.kind == CR_CONST_FLOAT)
        return TRUE;
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "A formula holds numbers, not %s",
                   node->u.constant.kind == CR_CONST_STR ? "strings"
                   : node->u.constant.kind == CR_CONST_BOOL ? "True or False" : "None");
      return FALSE;

    case CR_AST_NAME:
      {
        const char *name = node->u.name.id;
        if (is_constant_name (name))
          return TRUE;
        if (find_func (name) != NULL)
          {
            g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                         "'%s' is a function: call it, as in %s(x)", name, name);
            return FALSE;
          }
        for (guint i = 0; reserved_names[i]; i++)
          if (strcmp (reserved_names[i], name) == 0)
            {
              g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                           "'%s' cannot be a variable's name in a formula", name);
              return FALSE;
            }
        add_variable (expr, name, positive);
        return TRUE;
      }

    case CR_AST_ATTRIBUTE:
      /* math.pi, math.e and torch.pi are the constants. */
      if (node->u.attribute.value->kind == CR_AST_NAME
          && (strcmp (node->u.attribute.value->u.name.id, "math") == 0
              || strcmp (node->u.attribute.value->u.name.id, "torch") == 0)
          && is_constant_name (node->u.attribute.attr))
        return TRUE;
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "Attributes (x.y) are not allowed in a formula; use plain names such as x");
      return FALSE;

    case CR_AST_BINOP:
      switch (node->u.binop.op)
        {
        case CR_BINOP_ADD: case CR_BINOP_SUB: case CR_BINOP_MUL:
        case CR_BINOP_DIV: case CR_BINOP_POW:
          break;
        default:
          g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                       "A formula uses + - * / and ** only");
          return FALSE;
        }
      return check_node (expr, node->u.binop.left, positive, error)
             && check_node (expr, node->u.binop.right, positive, error);

    case CR_AST_UNARYOP:
      if (node->u.unaryop.op != CR_UNOP_NEG && node->u.unaryop.op != CR_UNOP_POS)
        {
          g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                       "A formula uses + - * / and ** only");
          return FALSE;
        }
      return check_node (expr, node->u.unaryop.operand, positive, error);

    case CR_AST_CALL:
      {
        const Func *func = callee_func (node->u.call.func, error);
        if (func == NULL)
          return FALSE;
        if (node->u.call.n_keywords > 0)
          {
            g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                         "%s() takes no keyword arguments in a formula", func->name);
            return FALSE;
          }
        if (node->u.call.n_args != func->n_args)
          {
            g_set_error (error, CR_LANG_ERROR, CR_EXC_TYPE_ERROR,
                         "%s() takes %u argument%s (%u given)", func->name, func->n_args,
                         func->n_args == 1 ? "" : "s", node->u.call.n_args);
            return FALSE;
          }
        for (guint i = 0; i < node->u.call.n_args; i++)
          if (!check_node (expr, node->u.call.args[i], positive || func->wants_positive, error))
            return FALSE;
        return TRUE;
      }

    default:
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "%s are not allowed in a formula", construct_name (node));
      return FALSE;
    }
}

static const char *
statement_name (const CrAstNode *node)
{
  switch (node->kind)
    {
    case CR_AST_ASSIGN: case CR_AST_ANNASSIGN: case CR_AST_AUGASSIGN: return "an assignment";
    case CR_AST_IMPORT: case CR_AST_IMPORTFROM: return "an import";
    default: return "a statement";
    }
}

static gboolean
expr_parse (const char  *formula,
            Expr        *expr,
            GError     **error)
{
  memset (expr, 0, sizeof *expr);
  /* Leading spaces would be an "unexpected indent". */
  g_autofree char *text = g_strstrip (g_strdup (formula ? formula : ""));
  if (*text == '\0')
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "Type a formula, such as a*b + c");
      return FALSE;
    }
  CrSpan span = { 0 };
  GError *parse_error = NULL;
  expr->module = cr_parse (text, -1, "<formula>", &span, &parse_error);
  if (expr->module == NULL)
    {
      /* Say where, in the formula as typed (with its leading spaces). */
      if (span.line == 1 && span.column > 0)
        {
          const char *p = formula;
          int lead = 0;
          while (g_ascii_isspace (*p++))
            lead++;
          g_autofree char *message = g_steal_pointer (&parse_error->message);
          parse_error->message = g_strdup_printf ("%s (column %d)", message, span.column + lead);
        }
      g_propagate_error (error, parse_error);
      return FALSE;
    }
  if (expr->module->n_body == 0)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "Type a formula, such as a*b + c");
      expr_clear (expr);
      return FALSE;
    }
  if (expr->module->n_body > 1)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "A formula is one expression, not several statements");
      expr_clear (expr);
      return FALSE;
    }
  const CrAstNode *statement = expr->module->body[0];
  if (statement->kind != CR_AST_EXPR)
    {
      g_set_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR,
                   "A formula is an expression, not %s", statement_name (statement));
      expr_clear (expr);
      return FALSE;
    }
  expr->root = statement->u.expr_stmt.value;
  expr->variables = g_ptr_array_new ();
  expr->positive = g_hash_table_new (NULL, NULL);
  if (!check_node (expr, expr->root, FALSE, error))
    {
      expr_clear (expr);
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
cr_expression_variables (const char  *formula,
                         GError     **error)
{
  Expr expr;
  if (!expr_parse (formula, &expr, error))
    return NULL;
  GPtrArray *names = g_ptr_array_new_full (expr.variables->len, g_free);
  for (guint i = 0; i < expr.variables->len; i++)
    g_ptr_array_add (names, g_strdup (g_ptr_array_index (expr.variables, i)));
  expr_clear (&expr);
  return names;
}

static gboolean
is_neuron (const Expr *expr)
{
  gboolean has_w1 = FALSE, has_x1 = FALSE;
  for (guint i = 0; i < expr->variables->len; i++)
    {
      const char *name = g_ptr_array_index (expr->variables, i);
      gboolean known = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (neuron_values); k++)
        known |= strcmp (neuron_values[k].name, name) == 0;
      if (!known)
        return FALSE;
      has_w1 |= strcmp (name, "w1") == 0;
      has_x1 |= strcmp (name, "x1") == 0;
    }
  return has_w1 && has_x1;
}

static double
default_value (const Expr *expr,
               const char *name)
{
  if (is_neuron (expr))
    for (guint k = 0; k < G_N_ELEMENTS (neuron_values); k++)
      if (strcmp (neuron_values[k].name, name) == 0)
        return neuron_values[k].value;
  guint index = 0;
  for (guint i = 0; i < expr->variables->len; i++)
    if (strcmp (g_ptr_array_index (expr->variables, i), name) == 0)
      {
        index = i;
        break;
      }
  double value = default_cycle[index % G_N_ELEMENTS (default_cycle)];
  if (g_hash_table_contains (expr->positive,
                             g_ptr_array_index (expr->variables, index)))
    value = fabs (value);
  return value;
}

double
cr_expression_default_value (const char *formula,
                             const char *name)
{
  Expr expr;
  if (name == NULL || !expr_parse (formula, &expr, NULL))
    return 1.0;
  double value = 1.0;
  for (guint i = 0; i < expr.variables->len; i++)
    if (strcmp (g_ptr_array_index (expr.variables, i), name) == 0)
      value = default_value (&expr, name);
  expr_clear (&expr);
  return value;
}

/* ---- writing the script ---------------------------------------------- */

typedef struct {
  GString  *out;
  gboolean  needs_math;
} Writer;

static int
precedence (const CrAstNode *node)
{
  if (node->kind == CR_AST_BINOP)
    switch (node->u.binop.op)
      {
      case CR_BINOP_ADD: case CR_BINOP_SUB: return PREC_ADD;
      case CR_BINOP_POW: return PREC_POW;
      default: return PREC_MUL;
      }
  if (node->kind == CR_AST_UNARYOP)
    return PREC_UNARY;
  if (node->kind == CR_AST_CALL)
    {
      /* pow(x, y) is written x ** y. */
      const Func *func = callee_func (node->u.call.func, NULL);
      if (func != NULL && strcmp (func->name, "pow") == 0)
        return PREC_POW;
    }
  return PREC_ATOM;
}

static gboolean
has_variables (const CrAstNode *node)
{
  switch (node->kind)
    {
    case CR_AST_NAME:
      return !is_constant_name (node->u.name.id);
    case CR_AST_BINOP:
      return has_variables (node->u.binop.left) || has_variables (node->u.binop.right);
    case CR_AST_UNARYOP:
      return has_variables (node->u.unaryop.operand);
    case CR_AST_CALL:
      for (guint i = 0; i < node->u.call.n_args; i++)
        if (has_variables (node->u.call.args[i]))
          return TRUE;
      return FALSE;
    default:
      return FALSE;
    }
}

static void write_node (Writer *w, const CrAstNode *node);

static void
write_operand (Writer          *w,
               const CrAstNode *node,
               gboolean         parens)
{
  if (parens)
    g_string_append_c (w->out, '(');
  write_node (w, node);
  if (parens)
    g_string_append_c (w->out, ')');
}

/* left OP right at precedence prec: Python's associativity decides which
 * side needs parentheses at the same level (** is right-associative and
 * binds tighter than a unary minus on its left, but not on its right). */
static void
write_binary (Writer          *w,
              const CrAstNode *left,
              const char      *op,
              const CrAstNode *right,
              int              prec)
{
  int lp = precedence (left), rp = precedence (right);
  if (prec == PREC_POW)
    {
      write_operand (w, left, lp <= PREC_POW);
      g_string_append_printf (w->out, " %s ", op);
      write_operand (w, right, rp < PREC_UNARY);
    }
  else
    {
      write_operand (w, left, lp < prec);
      g_string_append_printf (w->out, " %s ", op);
      write_operand (w, right, rp <= prec);
    }
}

static void
write_node (Writer          *w,
            const CrAstNode *node)
{
  switch (node->kind)
    {
    case CR_AST_CONSTANT:
      if (node->u.constant.kind == CR_CONST_INT)
        g_string_append_printf (w->out, "%" G_GINT64_FORMAT, node->u.constant.i);
      else
        {
          g_autofree char *repr = cr_py_float_repr (node->u.constant.f);
          if (isfinite (node->u.constant.f))
            g_string_append (w->out, repr);
          else
            g_string_append_printf (w->out, "float(\"%s\")", repr);
        }
      break;

    case CR_AST_NAME:
      if (is_constant_name (node->u.name.id))
        {
          g_string_append_printf (w->out, "math.%s", node->u.name.id);
          w->needs_math = TRUE;
        }
      else
        g_string_append (w->out, node->u.name.id);
      break;

    case CR_AST_ATTRIBUTE:   /* math.pi, torch.pi, math.e */
      g_string_append_printf (w->out, "math.%s", node->u.attribute.attr);
      w->needs_math = TRUE;
      break;

    case CR_AST_UNARYOP:
      g_string_append_c (w->out, node->u.unaryop.op == CR_UNOP_NEG ? '-' : '+');
      write_operand (w, node->u.unaryop.operand,
                     precedence (node->u.unaryop.operand) < PREC_UNARY);
      break;

    case CR_AST_BINOP:
      {
        static const char *const ops[CR_BINOP_COUNT] = {
          [CR_BINOP_ADD] = "+", [CR_BINOP_SUB] = "-", [CR_BINOP_MUL] = "*",
          [CR_BINOP_DIV] = "/", [CR_BINOP_POW] = "**",
        };
        write_binary (w, node->u.binop.left, ops[node->u.binop.op],
                      node->u.binop.right, precedence (node));
        break;
      }

    case CR_AST_CALL:
      {
        const Func *func = callee_func (node->u.call.func, NULL);
        const CrAstNode *arg = node->u.call.args[0];
        if (strcmp (func->name, "pow") == 0)
          write_binary (w, arg, "**", node->u.call.args[1], PREC_POW);
        else if (has_variables (arg))
          {
            g_string_append_printf (w->out, "torch.%s(", func->name);
            write_node (w, arg);
            g_string_append_c (w->out, ')');
          }
        else if (func->math_name != NULL)
          {
            /* A plain number: torch.log(2) is a TypeError in PyTorch. */
            g_string_append_printf (w->out, "%s(", func->math_name);
            write_node (w, arg);
            g_string_append_c (w->out, ')');
            w->needs_math |= g_str_has_prefix (func->math_name, "math.");
          }
        else
          {
            g_string_append_printf (w->out, "torch.%s(torch.tensor(float(", func->name);
            write_node (w, arg);
            g_string_append (w->out, ")))");
          }
        break;
      }

    default:
      /* check_node let nothing else through. */
      g_string_append (w->out, "None");
      break;
    }
}

static char *
value_text (double value)
{
  g_autofree char *repr = cr_py_float_repr (value);
  if (isfinite (value))
    return g_steal_pointer (&repr);
  return g_strdup_printf ("float(\"%s\")", repr);
}

char *
cr_expression_to_script (const char        *formula,
                         const char *const *names,
                         const double      *values,
                         guint              n_variables)
{
  Expr expr;
  if (!expr_parse (formula, &expr, NULL))
    return NULL;
  if (expr.variables->len == 0)
    {
      /* Nothing requires grad: there is no backward to show. */
      expr_clear (&expr);
      return NULL;
    }

  const char *result = NULL;
  for (guint r = 0; result_names[r] && result == NULL; r++)
    {
      result = result_names[r];
      for (guint i = 0; i < expr.variables->len; i++)
        if (strcmp (g_ptr_array_index (expr.variables, i), result) == 0)
          result = NULL;
    }
  if (result == NULL)
    result = "out__";

  Writer w = { g_string_new (NULL), FALSE };
  write_node (&w, expr.root);
  g_autofree char *body = g_string_free (w.out, FALSE);

  GString *script = g_string_new (NULL);
  g_autofree char *one_line = g_strdup (formula);
  g_strdelimit (g_strstrip (one_line), "\r\n", ' ');
  g_string_append_printf (script, "# Expression: %s = %s\n", result, one_line);
  g_string_append (script, "import torch\n");
  if (w.needs_math)
    g_string_append (script, "import math\n");
  g_string_append_c (script, '\n');

  for (guint i = 0; i < expr.variables->len; i++)
    {
      const char *name = g_ptr_array_index (expr.variables, i);
      double value = default_value (&expr, name);
      for (guint k = 0; k < n_variables && names != NULL && values != NULL; k++)
        if (names[k] != NULL && strcmp (names[k], name) == 0)
          value = values[k];
      g_autofree char *text = value_text (value);
      g_string_append_printf (script, "%s = torch.tensor(%s, requires_grad=True)\n", name, text);
    }

  g_string_append_printf (script, "\n%s = %s\n%s.backward()\n\n", result, body, result);
  g_string_append_printf (script, "print(f\"%s = {%s.item():.4f}\")\n", result, result);
  for (guint i = 0; i < expr.variables->len; i++)
    {
      const char *name = g_ptr_array_index (expr.variables, i);
      g_string_append_printf (script, "print(f\"\u2202%s/\u2202%s = {%s.grad.item():.4f}\")\n",
                              result, name, name);
    }
  expr_clear (&expr);
  return g_string_free (script, FALSE);
}
