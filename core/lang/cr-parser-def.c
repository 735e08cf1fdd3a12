/* cr-parser-def.c — definitions: def and class statements (with their
 * decorators and the scope flags their bodies parse under) and the
 * parameters of def and lambda.
 */
#include "cr-parser-private.h"

#include <string.h>

/* A def's or class's block, parsed in the new scope: inside a function
 * (or not, for a class body) and never inside a loop or at module level;
 * the node's span then ends with the last statement. */
static CrAstNode *
definition_body (CrParser     *p,
                 CrAstNode    *node,
                 gboolean      is_func,
                 const char   *what,
                 CrSpan        start,
                 int           line,
                 guint        *n_body,
                 CrAstNode  ***body)
{
  gboolean in_func = p->in_func, in_loop = p->in_loop, at_module = p->at_module;
  gboolean ok;

  p->in_func = is_func;
  p->in_loop = FALSE;
  p->at_module = FALSE;
  ok = cr_parser_block (p, what, line, node, n_body, body);
  p->in_func = in_func;
  p->in_loop = in_loop;
  p->at_module = at_module;
  if (!ok)
    return NULL;
  node->span = cr_parser_span_to_last (start, *body, *n_body);
  return node;
}

static CrAstNode *
funcdef (CrParser *p,
         guint     decorators_base)
{
  CrSpan start = CUR (p)->span;   /* Python's span starts at 'def', not at a decorator */
  CrAstNode *node;
  int line = CUR (p)->span.line;

  node = cr_parser_node (p, CR_AST_FUNCTIONDEF, start);
  node->u.func.decorators = cr_parser_take (p, decorators_base, &node->u.func.n_decorators, node);
  p->pos++;   /* def */
  if (CUR_KIND (p) != CR_TOK_NAME)
    return cr_parser_fail (p);
  node->u.func.name = cr_parser_intern (p, CUR (p));
  p->pos++;
  if (!cr_parser_accept (p, CR_TOK_LPAR))
    return cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, CUR (p)->span, "expected '('");
  if (!cr_parser_parameters (p, FALSE, &node->u.func.n_params, &node->u.func.params))
    return NULL;
  if (!cr_parser_accept (p, CR_TOK_RPAR))
    return cr_parser_fail (p);
  for (guint i = 0; i < node->u.func.n_params; i++)
    cr_parser_child (p, node, node->u.func.params[i].default_value);
  if (CUR_KIND (p) == CR_TOK_RARROW)
    {
      /* The return annotation is parsed and dropped. Python's parser drops
       * an unparsable one too and then insists on the ':' (&&':'). */
      guint arrow = p->pos;

      p->pos++;
      if (cr_parser_expression (p) == NULL)
        {
          if (p->raised)
            return NULL;
          p->failed = FALSE;
          p->pos = arrow;
        }
    }
  if (!cr_parser_expect_colon (p, TRUE))
    return NULL;
  return definition_body (p, node, TRUE, "function definition", start, line,
                          &node->u.func.n_body, &node->u.func.body);
}

static CrAstNode *
classdef (CrParser *p,
          guint     decorators_base)
{
  CrSpan start = CUR (p)->span;
  CrAstNode *node;
  int line = CUR (p)->span.line;

  node = cr_parser_node (p, CR_AST_CLASSDEF, start);
  node->u.cls.decorators = cr_parser_take (p, decorators_base, &node->u.cls.n_decorators, node);
  p->pos++;   /* class */
  if (CUR_KIND (p) != CR_TOK_NAME)
    return cr_parser_fail (p);
  node->u.cls.name = cr_parser_intern (p, CUR (p));
  p->pos++;
  if (CUR_KIND (p) == CR_TOK_LPAR)
    {
      /* The bases are parsed as a call's arguments. */
      CrAstNode *call = cr_parser_arguments_call (p, NULL, CUR (p)->span);

      if (call == NULL)
        return NULL;
      node->u.cls.bases = call->u.call.args;
      node->u.cls.n_bases = call->u.call.n_args;
      cr_parser_child (p, node, call);
      if (call->u.call.n_keywords > 0)
        cr_parser_unsupported (p, call->span, "class keyword arguments are");
      for (guint i = 0; i < node->u.cls.n_bases; i++)
        if (node->u.cls.bases[i]->kind == CR_AST_STARRED)
          cr_parser_unsupported (p, node->u.cls.bases[i]->span, "starred base classes are");
    }
  if (!cr_parser_expect_colon (p, FALSE))
    return NULL;
  return definition_body (p, node, FALSE, "class definition", start, line,
                          &node->u.cls.n_body, &node->u.cls.body);
}

/* '@' named_expression NEWLINE ... then def or class. */
CrAstNode *
cr_parser_definition (CrParser *p)
{
  guint base = p->stack->len;

  while (cr_parser_accept (p, CR_TOK_AT))
    {
      CrAstNode *d = cr_parser_named_expression (p);

      if (d == NULL)
        return NULL;
      g_ptr_array_add (p->stack, d);
      if (!cr_parser_accept (p, CR_TOK_NEWLINE))
        return cr_parser_fail (p);
    }
  if (CUR_KIND (p) == CR_TOK_KW_DEF)
    return funcdef (p, base);
  if (CUR_KIND (p) == CR_TOK_KW_CLASS)
    return classdef (p, base);
  if (CUR_KIND (p) == CR_TOK_KW_ASYNC && PEEK_KIND (p, 1) == CR_TOK_KW_DEF)
    {
      cr_parser_unsupported (p, CUR (p)->span, "'async' and 'await' are");
      p->pos++;
      return funcdef (p, base);
    }
  return cr_parser_fail (p);
}

/* ---- parameters (def and lambda) ---- */

static gboolean
param_fail (CrParser   *p,
            CrSpan      span,
            const char *message)
{
  if (p->invalid_rules)
    cr_parser_raise (p, CR_EXC_SYNTAX_ERROR, span, "%s", message);
  cr_parser_fail (p);
  return FALSE;
}

/* A parameter's name, annotation (def only, dropped) and default. */
static gboolean
param (CrParser    *p,
       gboolean     is_lambda,
       CrParamKind  kind,
       gboolean     may_default,
       CrAstParam  *out)
{
  memset (out, 0, sizeof *out);
  if (CUR_KIND (p) != CR_TOK_NAME)
    return cr_parser_fail (p) != NULL;
  out->name = cr_parser_intern (p, CUR (p));
  out->span = CUR (p)->span;
  out->kind = kind;
  p->pos++;
  if (!is_lambda && cr_parser_accept (p, CR_TOK_COLON))
    {
      if (kind == CR_PARAM_VARARGS && CUR_KIND (p) == CR_TOK_STAR)
        p->pos++;   /* *args: *Ts */
      if (cr_parser_expression (p) == NULL)
        return FALSE;
    }
  if (CUR_KIND (p) == CR_TOK_EQUAL)
    {
      CrSpan eq = CUR (p)->span;
      CrTokKind next = PEEK_KIND (p, 1);

      if (!may_default)
        return param_fail (p, eq, kind == CR_PARAM_VARARGS
                                  ? "var-positional argument cannot have default value"
                                  : "var-keyword argument cannot have default value");
      /* Python's invalid_default: '=' &(')' | ','), for lambdas too. */
      if (next == CR_TOK_COMMA || next == CR_TOK_RPAR)
        return param_fail (p, eq, "expected default value expression");
      p->pos++;
      out->default_value = cr_parser_expression (p);
      if (out->default_value == NULL)
        return FALSE;
    }
  return TRUE;
}

gboolean
cr_parser_parameters (CrParser    *p,
                      gboolean     is_lambda,
                      guint       *out_n,
                      CrAstParam **out_params)
{
  CrTokKind close = is_lambda ? CR_TOK_COLON : CR_TOK_RPAR;
  guint base = p->params->len;
  gboolean seen_default = FALSE, seen_star = FALSE, seen_kwargs = FALSE, seen_slash = FALSE;

  while (CUR_KIND (p) != close)
    {
      CrSpan at = CUR (p)->span;
      CrAstParam prm;

      if (seen_kwargs)
        return param_fail (p, at, "arguments cannot follow var-keyword argument");

      switch (CUR_KIND (p))
        {
        case CR_TOK_SLASH:
          if (p->params->len == base)
            return param_fail (p, at, "at least one argument must precede /");
          if (seen_slash)
            return param_fail (p, at, "/ may appear only once");
          if (seen_star)
            return param_fail (p, at, "/ must be ahead of *");
          seen_slash = TRUE;
          p->pos++;
          break;

        case CR_TOK_STAR:
          if (seen_star)
            {
              /* Python's rule wants a parameter (or ',') after the second '*'. */
              CrTokKind next;

              if (!p->invalid_rules)
                return cr_parser_fail (p) != NULL;
              next = PEEK_KIND (p, 1);
              if (next == CR_TOK_COMMA ||
                  (next == CR_TOK_NAME &&
                   (PEEK_KIND (p, 2) == CR_TOK_COMMA || PEEK_KIND (p, 2) == close ||
                    (!is_lambda && PEEK_KIND (p, 2) == CR_TOK_COLON))))
                return param_fail (p, at, "* argument may appear only once");
              return cr_parser_fail (p) != NULL;
            }
          seen_star = TRUE;
          p->pos++;
          if (CUR_KIND (p) == CR_TOK_NAME)
            {
              if (!param (p, is_lambda, CR_PARAM_VARARGS, FALSE, &prm))
                return FALSE;
              g_array_append_val (p->params, prm);
            }
          else
            {
              /* A bare '*' needs a keyword-only parameter after it. */
              if (CUR_KIND (p) == close ||
                  (CUR_KIND (p) == CR_TOK_COMMA &&
                   (PEEK_KIND (p, 1) == close || PEEK_KIND (p, 1) == CR_TOK_DOUBLESTAR)))
                {
                  /* Python's lambda rule has no location: the furthest token. */
                  if (is_lambda && p->invalid_rules)
                    {
                      cr_parser_raise_here (p, "named arguments must follow bare *");
                      return FALSE;
                    }
                  return param_fail (p, at, "named arguments must follow bare *");
                }
              if (CUR_KIND (p) != CR_TOK_COMMA)
                return cr_parser_fail (p) != NULL;
            }
          break;

        case CR_TOK_DOUBLESTAR:
          p->pos++;
          if (!param (p, is_lambda, CR_PARAM_KWARGS, FALSE, &prm))
            return FALSE;
          g_array_append_val (p->params, prm);
          seen_kwargs = TRUE;
          break;

        case CR_TOK_NAME:
          if (!param (p, is_lambda, seen_star ? CR_PARAM_KWONLY : CR_PARAM_NORMAL, TRUE, &prm))
            return FALSE;
          if (prm.kind == CR_PARAM_NORMAL)
            {
              if (prm.default_value != NULL)
                seen_default = TRUE;
              else if (seen_default)
                return param_fail (p, prm.span, "non-default argument follows default argument");
            }
          g_array_append_val (p->params, prm);
          break;

        case CR_TOK_LPAR:
          if (p->invalid_rules)
            {
              guint save = p->pos;

              p->pos++;
              while (CUR_KIND (p) == CR_TOK_NAME)
                {
                  p->pos++;
                  if (!cr_parser_accept (p, CR_TOK_COMMA))
                    break;
                }
              if (CUR_KIND (p) == CR_TOK_RPAR && p->pos > save + 1)
                return param_fail (p, cr_span_join (at, CUR (p)->span),
                                   is_lambda ? "Lambda expression parameters cannot be "
                                               "parenthesized"
                                             : "Function parameters cannot be parenthesized");
              p->pos = save;
            }
          return cr_parser_fail (p) != NULL;

        default:
          return cr_parser_fail (p) != NULL;
        }
      if (!cr_parser_accept (p, CR_TOK_COMMA))
        break;
    }

  /* Python's symtable: duplicate names. */
  for (guint i = base; i < p->params->len; i++)
    for (guint j = base; j < i; j++)
      if (g_array_index (p->params, CrAstParam, i).name ==
          g_array_index (p->params, CrAstParam, j).name)
        {
          CrAstParam *dup = &g_array_index (p->params, CrAstParam, i);

          cr_parser_late_error (p, CR_LATE_SYMTABLE, CR_EXC_SYNTAX_ERROR, dup->span,
                                "duplicate argument '%s' in function definition", dup->name);
          break;
        }
  *out_params = cr_parser_take_array (p, p->params, base, out_n);
  return TRUE;
}
