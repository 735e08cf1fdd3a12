/* test-parser.c — the script language's parser.
 *
 * Structures are checked against Python 3.11's own ast module: each program
 * of the structure table was parsed by /usr/bin/python3 and dumped in the
 * compact form dump () below writes; spans come from ast's lineno,
 * col_offset + 1, end_lineno, end_col_offset + 1. The error table holds what
 * compile () raised in Python 3.11.7 (SyntaxError.msg, .lineno, .offset).
 */
#include "cr-ast.h"
#include "cr-error.h"

#include <pthread.h>
#include <string.h>

static CrAstModule *
parse_ok (const char *src)
{
  g_autoptr(GError) error = NULL;
  CrSpan span;
  CrAstModule *module = cr_parse (src, -1, "test.py", &span, &error);

  if (error != NULL)
    g_error ("%s: %s at %d:%d", src, error->message, span.line, span.column);
  g_assert_nonnull (module);
  return module;
}

static void
assert_error (const char *src,
              int         code,
              const char *message,
              int         line,
              int         column)
{
  g_autoptr(GError) error = NULL;
  CrSpan span = { -1, -1, -1, -1 };
  CrAstModule *module = cr_parse (src, -1, "test.py", &span, &error);

  if (module != NULL)
    g_error ("%s: parsed, expected \"%s\"", src, message);
  g_assert_error (error, CR_LANG_ERROR, code);
  if (g_strcmp0 (error->message, message) != 0 || span.line != line || span.column != column)
    g_error ("%s:\n  got      %s at %d:%d\n  expected %s at %d:%d", src, error->message,
             span.line, span.column, message, line, column);
  /* A span is never empty or reversed. */
  g_assert_true (span.end_line > span.line ||
                 (span.end_line == span.line && span.end_column > span.column) ||
                 span.column == 0);
}

static void
assert_span (const CrSpan *s,
             int           line,
             int           column,
             int           end_line,
             int           end_column)
{
  if (s->line != line || s->column != column || s->end_line != end_line ||
      s->end_column != end_column)
    g_error ("span %d:%d-%d:%d, expected %d:%d-%d:%d", s->line, s->column, s->end_line,
             s->end_column, line, column, end_line, end_column);
}

/* ---- a dump in the form of the structure table ---- */

static const char *const binops[] = {
  "Add", "Sub", "Mult", "MatMult", "Div", "FloorDiv", "Mod", "Pow", "LShift", "RShift",
  "BitOr", "BitXor", "BitAnd",
};
static const char *const unops[] = { "USub", "UAdd", "Not", "Invert" };
static const char *const cmpops[] = {
  "Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn",
};

static void dump (GString *out, const CrAstNode *n);

static void
dump_list (GString          *out,
           CrAstNode *const *items,
           guint             n)
{
  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      dump (out, items[i]);
    }
  g_string_append_c (out, ']');
}

static void
dump_params (GString          *out,
             const CrAstParam *params,
             guint             n)
{
  static const char *const prefix[] = { "p", "*", "**", "kw" };

  g_string_append_c (out, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append_printf (out, "%s%s", prefix[params[i].kind], params[i].name);
      if (params[i].default_value)
        {
          g_string_append_c (out, '=');
          dump (out, params[i].default_value);
        }
    }
  g_string_append_c (out, ']');
}

static void
dump_str (GString    *out,
          const char *s,
          gsize       n)
{
  g_string_append_c (out, '"');
  for (gsize i = 0; i < n; i++)
    {
      guchar c = s[i];

      if (c == '\\' || c == '"')
        g_string_append_printf (out, "\\%c", c);
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_c (out, c);
    }
  g_string_append_c (out, '"');
}

static void
dump_body (GString          *out,
           const char       *head,
           const CrAstNode  *first,
           CrAstNode *const *body,
           guint             n_body,
           CrAstNode *const *orelse,
           guint             n_orelse)
{
  g_string_append (out, head);
  dump (out, first);
  g_string_append_c (out, ',');
  dump_list (out, body, n_body);
  g_string_append_c (out, ',');
  dump_list (out, orelse, n_orelse);
  g_string_append_c (out, ')');
}

static void
dump (GString         *out,
      const CrAstNode *n)
{
  if (n == NULL)
    {
      g_string_append (out, "None");
      return;
    }
  switch (n->kind)
    {
    case CR_AST_CONSTANT:
      switch (n->u.constant.kind)
        {
        case CR_CONST_NONE: g_string_append (out, "Constant(None)"); break;
        case CR_CONST_BOOL:
          g_string_append_printf (out, "Constant(%s)", n->u.constant.b ? "True" : "False");
          break;
        case CR_CONST_INT:
          g_string_append_printf (out, "Constant(%" G_GINT64_FORMAT ")", n->u.constant.i);
          break;
        case CR_CONST_FLOAT:
          g_string_append_printf (out, "Constant(%.17g)", n->u.constant.f);
          break;
        case CR_CONST_STR:
        default:
          g_string_append (out, "Constant(");
          dump_str (out, n->u.constant.s, n->u.constant.s_len);
          g_string_append_c (out, ')');
          break;
        }
      break;
    case CR_AST_ELLIPSIS:
      g_string_append (out, "Constant(...)");
      break;
    case CR_AST_NAME:
      g_string_append_printf (out, "Name(%s)", n->u.name.id);
      break;
    case CR_AST_BINOP:
      g_string_append_printf (out, "BinOp(%s,", binops[n->u.binop.op]);
      dump (out, n->u.binop.left);
      g_string_append_c (out, ',');
      dump (out, n->u.binop.right);
      g_string_append_c (out, ')');
      break;
    case CR_AST_UNARYOP:
      g_string_append_printf (out, "UnaryOp(%s,", unops[n->u.unaryop.op]);
      dump (out, n->u.unaryop.operand);
      g_string_append_c (out, ')');
      break;
    case CR_AST_BOOLOP:
      g_string_append_printf (out, "BoolOp(%s,", n->u.boolop.is_and ? "And" : "Or");
      dump_list (out, n->u.boolop.values, n->u.boolop.n_values);
      g_string_append_c (out, ')');
      break;
    case CR_AST_COMPARE:
      g_string_append (out, "Compare(");
      dump (out, n->u.compare.left);
      g_string_append (out, ",[");
      for (guint i = 0; i < n->u.compare.n_ops; i++)
        g_string_append_printf (out, "%s%s", i ? "," : "", cmpops[n->u.compare.ops[i]]);
      g_string_append (out, "],");
      dump_list (out, n->u.compare.comparators, n->u.compare.n_comparators);
      g_string_append_c (out, ')');
      break;
    case CR_AST_CALL:
      g_string_append (out, "Call(");
      dump (out, n->u.call.func);
      g_string_append_c (out, ',');
      dump_list (out, n->u.call.args, n->u.call.n_args);
      g_string_append (out, ",[");
      for (guint i = 0; i < n->u.call.n_keywords; i++)
        {
          const CrAstKeyword *kw = &n->u.call.keywords[i];

          g_string_append_printf (out, "%s%s=", i ? "," : "", kw->name ? kw->name : "**");
          dump (out, kw->value);
        }
      g_string_append (out, "])");
      break;
    case CR_AST_ATTRIBUTE:
      g_string_append (out, "Attribute(");
      dump (out, n->u.attribute.value);
      g_string_append_printf (out, ",%s)", n->u.attribute.attr);
      break;
    case CR_AST_SUBSCRIPT:
      g_string_append (out, "Subscript(");
      dump (out, n->u.subscript.value);
      g_string_append_c (out, ',');
      dump (out, n->u.subscript.index);
      g_string_append_c (out, ')');
      break;
    case CR_AST_SLICE:
      g_string_append (out, "Slice(");
      dump (out, n->u.slice.lower);
      g_string_append_c (out, ',');
      dump (out, n->u.slice.upper);
      g_string_append_c (out, ',');
      dump (out, n->u.slice.step);
      g_string_append_c (out, ')');
      break;
    case CR_AST_TUPLE:
    case CR_AST_LIST:
    case CR_AST_JOINEDSTR:
    case CR_AST_DEL:
      g_string_append (out, n->kind == CR_AST_TUPLE ? "Tuple(" : n->kind == CR_AST_LIST ? "List("
                            : n->kind == CR_AST_DEL ? "Delete(" : "JoinedStr(");
      dump_list (out, n->u.seq.elts, n->u.seq.n_elts);
      g_string_append_c (out, ')');
      break;
    case CR_AST_DICT:
      g_string_append (out, "Dict(");
      dump_list (out, n->u.dict.keys, n->u.dict.n_keys);
      g_string_append_c (out, ',');
      dump_list (out, n->u.dict.values, n->u.dict.n_values);
      g_string_append_c (out, ')');
      break;
    case CR_AST_IFEXP:
      g_string_append (out, "IfExp(");
      dump (out, n->u.ifexp.test);
      g_string_append_c (out, ',');
      dump (out, n->u.ifexp.body);
      g_string_append_c (out, ',');
      dump (out, n->u.ifexp.orelse);
      g_string_append_c (out, ')');
      break;
    case CR_AST_LAMBDA:
      g_assert_cmpuint (n->u.func.n_body, ==, 1);
      g_assert_cmpint (n->u.func.body[0]->kind, ==, CR_AST_RETURN);
      g_assert_cmpstr (n->u.func.name, ==, "<lambda>");
      g_string_append (out, "Lambda(");
      dump_params (out, n->u.func.params, n->u.func.n_params);
      g_string_append_c (out, ',');
      dump (out, n->u.func.body[0]->u.ret.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_FORMATTEDVALUE:
      g_string_append (out, "FormattedValue(");
      dump (out, n->u.formatted.value);
      g_string_append_printf (out, ",%d,",
                              n->u.formatted.conversion ? n->u.formatted.conversion : -1);
      dump (out, n->u.formatted.format_spec);
      g_string_append_c (out, ')');
      break;
    case CR_AST_LISTCOMP:
      g_string_append (out, n->u.comp.is_generator ? "GeneratorExp(" : "ListComp(");
      dump (out, n->u.comp.elt);
      g_string_append (out, ",[");
      for (const CrAstNode *c = n; c != NULL; c = c->u.comp.inner)
        {
          if (c != n)
            {
              g_string_append_c (out, ',');
              g_assert_null (c->u.comp.elt);
            }
          g_string_append (out, "comprehension(");
          dump (out, c->u.comp.target);
          g_string_append_c (out, ',');
          dump (out, c->u.comp.iter);
          g_string_append_c (out, ',');
          dump_list (out, c->u.comp.ifs, c->u.comp.n_ifs);
          g_string_append_c (out, ')');
        }
      g_string_append (out, "])");
      break;
    case CR_AST_STARRED:
      g_string_append (out, "Starred(");
      dump (out, n->u.starred.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_EXPR:
      g_string_append (out, "Expr(");
      dump (out, n->u.expr_stmt.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_ASSIGN:
      g_string_append (out, "Assign(");
      dump_list (out, n->u.assign.targets, n->u.assign.n_targets);
      g_string_append_c (out, ',');
      dump (out, n->u.assign.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_ANNASSIGN:
      g_assert_cmpuint (n->u.assign.n_targets, ==, 1);
      g_string_append (out, "AnnAssign(");
      dump (out, n->u.assign.targets[0]);
      g_string_append_c (out, ',');
      dump (out, n->u.assign.annotation);
      g_string_append_c (out, ',');
      dump (out, n->u.assign.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_AUGASSIGN:
      g_string_append (out, "AugAssign(");
      dump (out, n->u.augassign.target);
      g_string_append_printf (out, ",%s,", binops[n->u.augassign.op]);
      dump (out, n->u.augassign.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_IF:
      dump_body (out, "If(", n->u.if_stmt.test, n->u.if_stmt.body, n->u.if_stmt.n_body,
                 n->u.if_stmt.orelse, n->u.if_stmt.n_orelse);
      break;
    case CR_AST_WHILE:
      dump_body (out, "While(", n->u.while_stmt.test, n->u.while_stmt.body,
                 n->u.while_stmt.n_body, n->u.while_stmt.orelse, n->u.while_stmt.n_orelse);
      break;
    case CR_AST_FOR:
      g_string_append (out, "For(");
      dump (out, n->u.for_stmt.target);
      g_string_append_c (out, ',');
      dump_body (out, "", n->u.for_stmt.iter, n->u.for_stmt.body, n->u.for_stmt.n_body,
                 n->u.for_stmt.orelse, n->u.for_stmt.n_orelse);
      break;
    case CR_AST_BREAK: g_string_append (out, "Break"); break;
    case CR_AST_CONTINUE: g_string_append (out, "Continue"); break;
    case CR_AST_PASS: g_string_append (out, "Pass"); break;
    case CR_AST_RETURN:
      g_string_append (out, "Return(");
      dump (out, n->u.ret.value);
      g_string_append_c (out, ')');
      break;
    case CR_AST_FUNCTIONDEF:
      g_string_append_printf (out, "FunctionDef(%s,", n->u.func.name);
      dump_params (out, n->u.func.params, n->u.func.n_params);
      g_string_append_c (out, ',');
      dump_list (out, n->u.func.body, n->u.func.n_body);
      g_string_append_c (out, ',');
      dump_list (out, n->u.func.decorators, n->u.func.n_decorators);
      g_string_append_c (out, ')');
      break;
    case CR_AST_CLASSDEF:
      g_string_append_printf (out, "ClassDef(%s,", n->u.cls.name);
      dump_list (out, n->u.cls.bases, n->u.cls.n_bases);
      g_string_append_c (out, ',');
      dump_list (out, n->u.cls.body, n->u.cls.n_body);
      g_string_append_c (out, ',');
      dump_list (out, n->u.cls.decorators, n->u.cls.n_decorators);
      g_string_append_c (out, ')');
      break;
    case CR_AST_WITH:
      g_string_append (out, "With([");
      for (guint i = 0; i < n->u.with_stmt.n_items; i++)
        {
          g_string_append (out, i ? ",withitem(" : "withitem(");
          dump (out, n->u.with_stmt.items[i].context_expr);
          g_string_append_c (out, ',');
          dump (out, n->u.with_stmt.items[i].optional_vars);
          g_string_append_c (out, ')');
        }
      g_string_append (out, "],");
      dump_list (out, n->u.with_stmt.body, n->u.with_stmt.n_body);
      g_string_append_c (out, ')');
      break;
    case CR_AST_IMPORT:
    case CR_AST_IMPORTFROM:
      if (n->kind == CR_AST_IMPORT)
        g_string_append (out, "Import([");
      else
        g_string_append_printf (out, "ImportFrom(%s,%d,[",
                                n->u.import.module ? n->u.import.module : "None",
                                n->u.import.level);
      for (guint i = 0; i < n->u.import.n_names; i++)
        g_string_append_printf (out, "%salias(%s,%s)", i ? "," : "", n->u.import.names[i].name,
                                n->u.import.names[i].asname ? n->u.import.names[i].asname
                                                            : "None");
      g_string_append (out, "])");
      break;
    case CR_AST_ASSERT:
      g_string_append (out, "Assert(");
      dump (out, n->u.assert_stmt.test);
      g_string_append_c (out, ',');
      dump (out, n->u.assert_stmt.msg);
      g_string_append_c (out, ')');
      break;
    case CR_AST_RAISE:
      g_string_append (out, "Raise(");
      dump (out, n->u.raise.exc);
      g_string_append_c (out, ',');
      dump (out, n->u.raise.cause);
      g_string_append_c (out, ')');
      break;
    case CR_AST_GLOBAL:
    case CR_AST_NONLOCAL:
      g_string_append (out, n->kind == CR_AST_GLOBAL ? "Global([" : "Nonlocal([");
      for (guint i = 0; i < n->u.names.n_names; i++)
        g_string_append_printf (out, "%s%s", i ? "," : "", n->u.names.names[i]);
      g_string_append (out, "])");
      break;
    default:
      g_error ("no dump for %s", cr_ast_kind_name (n->kind));
    }
}

static char *
dump_module (const CrAstModule *module)
{
  GString *out = g_string_new (NULL);

  dump_list (out, module->body, module->n_body);
  return g_string_free (out, FALSE);
}

/* ---- structures ---- */

static const struct {
  const char *src;
  const char *ast;   /* Python 3.11's ast, in dump ()'s form */
} structures[] = {
  { "-2**2\n",
    "[Expr(UnaryOp(USub,BinOp(Pow,Constant(2),Constant(2))))]" },
  { "2**-1\n",
    "[Expr(BinOp(Pow,Constant(2),UnaryOp(USub,Constant(1))))]" },
  { "a ** b ** c\n",
    "[Expr(BinOp(Pow,Name(a),BinOp(Pow,Name(b),Name(c))))]" },
  { "a - b - c\n",
    "[Expr(BinOp(Sub,BinOp(Sub,Name(a),Name(b)),Name(c)))]" },
  { "a if b else c or d\n",
    "[Expr(IfExp(Name(b),Name(a),BoolOp(Or,[Name(c),Name(d)])))]" },
  { "not a == b\n",
    "[Expr(UnaryOp(Not,Compare(Name(a),[Eq],[Name(b)])))]" },
  { "a < b < c\n",
    "[Expr(Compare(Name(a),[Lt,Lt],[Name(b),Name(c)]))]" },
  { "x @ w + b\n",
    "[Expr(BinOp(Add,BinOp(MatMult,Name(x),Name(w)),Name(b)))]" },
  { "a | b ^ c & d << e + f * g ** h\n",
    "[Expr(BinOp(BitOr,Name(a),BinOp(BitXor,Name(b),BinOp(BitAnd,Name(c),BinOp(LShift,Name(d),BinOp(Add,Name(e),BinOp(Mult,Name(f),BinOp(Pow,Name(g),Name(h)))))))))]" },
  { "a >> b << c // d % e / f\n",
    "[Expr(BinOp(LShift,BinOp(RShift,Name(a),Name(b)),BinOp(Div,BinOp(Mod,BinOp(FloorDiv,Name(c),Name(d)),Name(e)),Name(f))))]" },
  { "~a + +b - -c\n",
    "[Expr(BinOp(Sub,BinOp(Add,UnaryOp(Invert,Name(a)),UnaryOp(UAdd,Name(b))),UnaryOp(USub,Name(c))))]" },
  { "a and b or c and not d\n",
    "[Expr(BoolOp(Or,[BoolOp(And,[Name(a),Name(b)]),BoolOp(And,[Name(c),UnaryOp(Not,Name(d))])]))]" },
  { "a or b or c\n",
    "[Expr(BoolOp(Or,[Name(a),Name(b),Name(c)]))]" },
  { "a is not b, a not in b, a in b, a is b, a != b, a <= b, a >= b, a > b, a == b\n",
    "[Expr(Tuple([Compare(Name(a),[IsNot],[Name(b)]),Compare(Name(a),[NotIn],[Name(b)]),Compare(Name(a),[In],[Name(b)]),Compare(Name(a),[Is],[Name(b)]),Compare(Name(a),[NotEq],[Name(b)]),Compare(Name(a),[LtE],[Name(b)]),Compare(Name(a),[GtE],[Name(b)]),Compare(Name(a),[Gt],[Name(b)]),Compare(Name(a),[Eq],[Name(b)])]))]" },
  { "-x.y ** 2\n",
    "[Expr(UnaryOp(USub,BinOp(Pow,Attribute(Name(x),y),Constant(2))))]" },
  { "(a + b) * c\n",
    "[Expr(BinOp(Mult,BinOp(Add,Name(a),Name(b)),Name(c)))]" },
  { "lambda x, y=1: x if y else lambda: y\n",
    "[Expr(Lambda([px,py=Constant(1)],IfExp(Name(y),Name(x),Lambda([],Name(y)))))]" },
  { "import torch\nimport torch.nn.functional as F\nfrom torch import nn, optim\nfrom . import x\nfrom ..a import b as c\n",
    "[Import([alias(torch,None)]),Import([alias(torch.nn.functional,F)]),ImportFrom(torch,0,[alias(nn,None),alias(optim,None)]),ImportFrom(None,1,[alias(x,None)]),ImportFrom(a,2,[alias(b,c)])]" },
  { "a = b = 1\na, b = f()\n(a, b) = 1, 2\n[a, b] = x\na, *rest = x\n",
    "[Assign([Name(a),Name(b)],Constant(1)),Assign([Tuple([Name(a),Name(b)])],Call(Name(f),[],[])),Assign([Tuple([Name(a),Name(b)])],Tuple([Constant(1),Constant(2)])),Assign([List([Name(a),Name(b)])],Name(x)),Assign([Tuple([Name(a),Starred(Name(rest))])],Name(x))]" },
  { "x += 1\nx -= 1\nx *= 1\nx /= 1\nx //= 1\nx %= 1\nx **= 1\nx @= 1\nx |= 1\nx &= 1\nx ^= 1\nx <<= 1\nx >>= 1\n",
    "[AugAssign(Name(x),Add,Constant(1)),AugAssign(Name(x),Sub,Constant(1)),AugAssign(Name(x),Mult,Constant(1)),AugAssign(Name(x),Div,Constant(1)),AugAssign(Name(x),FloorDiv,Constant(1)),AugAssign(Name(x),Mod,Constant(1)),AugAssign(Name(x),Pow,Constant(1)),AugAssign(Name(x),MatMult,Constant(1)),AugAssign(Name(x),BitOr,Constant(1)),AugAssign(Name(x),BitAnd,Constant(1)),AugAssign(Name(x),BitXor,Constant(1)),AugAssign(Name(x),LShift,Constant(1)),AugAssign(Name(x),RShift,Constant(1))]" },
  { "t.requires_grad = True\nx[x < 0] = 0\nx: float = 1.0\ny: int\n",
    "[Assign([Attribute(Name(t),requires_grad)],Constant(True)),Assign([Subscript(Name(x),Compare(Name(x),[Lt],[Constant(0)]))],Constant(0)),AnnAssign(Name(x),Name(float),Constant(1)),AnnAssign(Name(y),Name(int),None)]" },
  { "x = 0x1F + 0o17 + 0b101 + 1_000 + 0_0\n",
    "[Assign([Name(x)],BinOp(Add,BinOp(Add,BinOp(Add,BinOp(Add,Constant(31),Constant(15)),Constant(5)),Constant(1000)),Constant(0)))]" },
  { "x = 1. + .5 + 1e-3 + 1_0.5\n",
    "[Assign([Name(x)],BinOp(Add,BinOp(Add,BinOp(Add,Constant(1),Constant(0.5)),Constant(0.001)),Constant(10.5)))]" },
  { "x = \"a\" 'b' \"\"\"c\"\"\" r\"\\n\" \"\\x41\\u00e9\"\n",
    "[Assign([Name(x)],Constant(\"abc\\\\nA\xc3\xa9""\"))]" },
  { "True, False, None, ...\n",
    "[Expr(Tuple([Constant(True),Constant(False),Constant(None),Constant(...)]))]" },
  { "f\"{x}{x!r}{x:.4f}{x:>{width}}{{}}{x=}{x = }{x=!s}{x=:.2f}\"\n",
    "[Expr(JoinedStr([FormattedValue(Name(x),-1,None),FormattedValue(Name(x),114,None),FormattedValue(Name(x),-1,JoinedStr([Constant(\".4f\")])),FormattedValue(Name(x),-1,JoinedStr([Constant(\">\"),FormattedValue(Name(width),-1,None)])),Constant(\"{}x=\"),FormattedValue(Name(x),114,None),Constant(\"x = \"),FormattedValue(Name(x),114,None),Constant(\"x=\"),FormattedValue(Name(x),115,None),Constant(\"x=\"),FormattedValue(Name(x),-1,JoinedStr([Constant(\".2f\")]))]))]" },
  { "f\"a\" \"b\" f\"{c}\" \"d\"\n",
    "[Expr(JoinedStr([Constant(\"ab\"),FormattedValue(Name(c),-1,None),Constant(\"d\")]))]" },
  { "(1, 2), (), (1,), [1, 2], [], {1: 2, **d}, {}\n",
    "[Expr(Tuple([Tuple([Constant(1),Constant(2)]),Tuple([]),Tuple([Constant(1)]),List([Constant(1),Constant(2)]),List([]),Dict([Constant(1),None],[Constant(2),Name(d)]),Dict([],[])]))]" },
  { "[e for x in it if c]\n",
    "[Expr(ListComp(Name(e),[comprehension(Name(x),Name(it),[Name(c)])]))]" },
  { "[x * y for x in a for y in b if x if y]\n",
    "[Expr(ListComp(BinOp(Mult,Name(x),Name(y)),[comprehension(Name(x),Name(a),[]),comprehension(Name(y),Name(b),[Name(x),Name(y)])]))]" },
  { "sum(x*x for x in v)\n",
    "[Expr(Call(Name(sum),[GeneratorExp(BinOp(Mult,Name(x),Name(x)),[comprehension(Name(x),Name(v),[])])],[]))]" },
  { "[x for i, (a, b) in enumerate(z)]\n",
    "[Expr(ListComp(Name(x),[comprehension(Tuple([Name(i),Tuple([Name(a),Name(b)])]),Call(Name(enumerate),[Name(z)],[]),[])]))]" },
  { "print(*args, sep=\"\", **kwargs)\n",
    "[Expr(Call(Name(print),[Starred(Name(args))],[sep=Constant(\"\"),**=Name(kwargs)]))]" },
  { "f(a)(b)[c].d\n",
    "[Expr(Attribute(Subscript(Call(Call(Name(f),[Name(a)],[]),[Name(b)],[]),Name(c)),d))]" },
  { "a[1:2, ::2, None, ...]\n",
    "[Expr(Subscript(Name(a),Tuple([Slice(Constant(1),Constant(2),None),Slice(None,None,Constant(2)),Constant(None),Constant(...)])))]" },
  { "a[:], a[1:], a[:2], a[::-1], a[1,]\n",
    "[Expr(Tuple([Subscript(Name(a),Slice(None,None,None)),Subscript(Name(a),Slice(Constant(1),None,None)),Subscript(Name(a),Slice(None,Constant(2),None)),Subscript(Name(a),Slice(None,None,UnaryOp(USub,Constant(1)))),Subscript(Name(a),Tuple([Constant(1)]))]))]" },
  { "if x:\n    pass\nelif y:\n    pass\nelse:\n    pass\n",
    "[If(Name(x),[Pass],[If(Name(y),[Pass],[Pass])])]" },
  { "if x: y; z\n",
    "[If(Name(x),[Expr(Name(y)),Expr(Name(z))],[])]" },
  { "while x:\n  break\nelse:\n  pass\n",
    "[While(Name(x),[Break],[Pass])]" },
  { "for i, (a, b) in enumerate(x):\n  continue\n",
    "[For(Tuple([Name(i),Tuple([Name(a),Name(b)])]),Call(Name(enumerate),[Name(x)],[]),[Continue],[])]" },
  { "def f(a, b=1, *args, c, d=2, **kwargs):\n    return a\n",
    "[FunctionDef(f,[pa,pb=Constant(1),*args,kwc,kwd=Constant(2),**kwargs],[Return(Name(a))],[])]" },
  { "def f(a, /, b, *, c): pass\n",
    "[FunctionDef(f,[pa,pb,kwc],[Pass],[])]" },
  { "@staticmethod\n@torch.no_grad()\ndef f(x: int) -> None:\n  return\n",
    "[FunctionDef(f,[px],[Return(None)],[Name(staticmethod),Call(Attribute(Name(torch),no_grad),[],[])])]" },
  { "class A(B, C):\n  def f(self):\n    return self.x\n",
    "[ClassDef(A,[Name(B),Name(C)],[FunctionDef(f,[pself],[Return(Attribute(Name(self),x))],[])],[])]" },
  { "with torch.no_grad():\n  pass\nwith a as b, c:\n  pass\nwith (a as b, c as d):\n  pass\n",
    "[With([withitem(Call(Attribute(Name(torch),no_grad),[],[]),None)],[Pass]),With([withitem(Name(a),Name(b)),withitem(Name(c),None)],[Pass]),With([withitem(Name(a),Name(b)),withitem(Name(c),Name(d))],[Pass])]" },
  { "assert x, \"msg\"\nraise X(1) from e\nraise\ndel x, y[1], z.a\n",
    "[Assert(Name(x),Constant(\"msg\")),Raise(Call(Name(X),[Constant(1)],[]),Name(e)),Raise(None,None),Delete([Name(x),Subscript(Name(y),Constant(1)),Attribute(Name(z),a)])]" },
  { "def f():\n  global a, b\n  c = 1\n  def g():\n    nonlocal c\n",
    "[FunctionDef(f,[],[Global([a,b]),Assign([Name(c)],Constant(1)),FunctionDef(g,[],[Nonlocal([c])],[])],[])]" },
  { "x = 1; y = 2;\n",
    "[Assign([Name(x)],Constant(1)),Assign([Name(y)],Constant(2))]" },
  { "x = (1 +\n     2)\ny = [\n  3,\n]\nz = 1 + \\\n  2\n",
    "[Assign([Name(x)],BinOp(Add,Constant(1),Constant(2))),Assign([Name(y)],List([Constant(3)])),Assign([Name(z)],BinOp(Add,Constant(1),Constant(2)))]" },
};

static void
test_structures (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (structures); i++)
    {
      g_autoptr(CrAstModule) module = parse_ok (structures[i].src);
      g_autofree char *got = dump_module (module);

      if (strcmp (got, structures[i].ast) != 0)
        g_error ("%s\n  got      %s\n  expected %s", structures[i].src, got, structures[i].ast);
    }
}

/* The first statement's expression (an Expr's, or an Assign's value). */
static CrAstNode *
first_value (CrAstModule *module)
{
  CrAstNode *stmt = module->body[0];

  if (stmt->kind == CR_AST_EXPR)
    return stmt->u.expr_stmt.value;
  g_assert_cmpint (stmt->kind, ==, CR_AST_ASSIGN);
  return stmt->u.assign.value;
}

static void
test_precedence (void)
{
  /* Walked by hand, the cases the brief names. */
  g_autoptr(CrAstModule) m1 = parse_ok ("-2**2\n");
  g_autoptr(CrAstModule) m2 = parse_ok ("a if b else c or d\n");
  g_autoptr(CrAstModule) m3 = parse_ok ("not a == b\n");
  g_autoptr(CrAstModule) m4 = parse_ok ("x @ w + b\n");
  g_autoptr(CrAstModule) m5 = parse_ok ("2**-1\n");
  CrAstNode *e;

  e = first_value (m1);
  g_assert_cmpint (e->kind, ==, CR_AST_UNARYOP);
  g_assert_cmpint (e->u.unaryop.op, ==, CR_UNOP_NEG);
  g_assert_cmpint (e->u.unaryop.operand->kind, ==, CR_AST_BINOP);
  g_assert_cmpint (e->u.unaryop.operand->u.binop.op, ==, CR_BINOP_POW);
  g_assert_cmpint (e->u.unaryop.operand->u.binop.left->u.constant.i, ==, 2);

  e = first_value (m2);
  g_assert_cmpint (e->kind, ==, CR_AST_IFEXP);
  g_assert_cmpstr (e->u.ifexp.body->u.name.id, ==, "a");
  g_assert_cmpstr (e->u.ifexp.test->u.name.id, ==, "b");
  g_assert_cmpint (e->u.ifexp.orelse->kind, ==, CR_AST_BOOLOP);
  g_assert_false (e->u.ifexp.orelse->u.boolop.is_and);
  g_assert_cmpuint (e->u.ifexp.orelse->u.boolop.n_values, ==, 2);

  e = first_value (m3);
  g_assert_cmpint (e->kind, ==, CR_AST_UNARYOP);
  g_assert_cmpint (e->u.unaryop.op, ==, CR_UNOP_NOT);
  g_assert_cmpint (e->u.unaryop.operand->kind, ==, CR_AST_COMPARE);
  g_assert_cmpint (e->u.unaryop.operand->u.compare.ops[0], ==, CR_CMP_EQ);

  e = first_value (m4);
  g_assert_cmpint (e->u.binop.op, ==, CR_BINOP_ADD);
  g_assert_cmpint (e->u.binop.left->u.binop.op, ==, CR_BINOP_MATMUL);

  e = first_value (m5);
  g_assert_cmpint (e->u.binop.op, ==, CR_BINOP_POW);
  g_assert_cmpint (e->u.binop.right->kind, ==, CR_AST_UNARYOP);

  /* Names are interned: the same pointer within a module. */
  {
    g_autoptr(CrAstModule) m = parse_ok ("abc = abc + 1\n");
    CrAstNode *a = m->body[0]->u.assign.targets[0];
    CrAstNode *b = m->body[0]->u.assign.value->u.binop.left;

    g_assert_true (a->u.name.id == b->u.name.id);
  }
}

static void
test_spans (void)
{
  /* Expected spans: Python 3.11's ast (lineno, col_offset + 1, ...). */
  {
    g_autoptr(CrAstModule) m = parse_ok ("y = a < b < c\n");
    CrAstNode *c = m->body[0]->u.assign.value;

    assert_span (&m->body[0]->span, 1, 1, 1, 14);
    assert_span (&c->span, 1, 5, 1, 14);
    assert_span (&c->u.compare.comparators[0]->span, 1, 9, 1, 10);
    assert_span (&c->u.compare.comparators[1]->span, 1, 13, 1, 14);
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("loss = (x @ w + b).sum()\n");
    CrAstNode *call = m->body[0]->u.assign.value;
    CrAstNode *attr = call->u.call.func;

    assert_span (&call->span, 1, 8, 1, 25);
    assert_span (&attr->span, 1, 8, 1, 23);
    assert_span (&attr->u.attribute.attr_span, 1, 20, 1, 23);
    assert_span (&attr->u.attribute.value->span, 1, 9, 1, 18);
    assert_span (&attr->u.attribute.value->u.binop.left->span, 1, 9, 1, 14);
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("f(x,\n  y)\n");
    CrAstNode *call = first_value (m);

    assert_span (&call->span, 1, 1, 2, 5);
    assert_span (&call->u.call.args[1]->span, 2, 3, 2, 4);
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("if x:\n    y = 1\nelse:\n    z = 2\n"
                                         "def f(a, b=2):\n    return a\n");

    assert_span (&m->body[0]->span, 1, 1, 4, 10);
    assert_span (&m->body[1]->span, 5, 1, 6, 13);
    assert_span (&m->body[1]->u.func.params[1].span, 5, 10, 5, 11);
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("x = a[1:2, ::3]\nx = -2**2\n");
    CrAstNode *index = m->body[0]->u.assign.value->u.subscript.index;

    assert_span (&index->span, 1, 7, 1, 15);
    assert_span (&index->u.seq.elts[0]->span, 1, 7, 1, 10);
    assert_span (&index->u.seq.elts[1]->span, 1, 12, 1, 15);
    assert_span (&m->body[1]->u.assign.value->span, 2, 5, 2, 10);
    assert_span (&m->body[1]->u.assign.value->u.unaryop.operand->span, 2, 6, 2, 10);
  }
  {
    /* Expressions inside f-strings point into the file, as in Python's ast. */
    g_autoptr(CrAstModule) m = parse_ok ("print(f\"{x + 1:>{w}}\")\n"
                                         "s = f\"\"\"\n  {a +\n b}\"\"\"\n");
    CrAstNode *js = first_value (m)->u.call.args[0];
    CrAstNode *fv = js->u.seq.elts[0];
    CrAstNode *ml;

    g_assert_cmpint (js->kind, ==, CR_AST_JOINEDSTR);
    assert_span (&js->span, 1, 7, 1, 22);
    /* Python gives a FormattedValue the whole string's span; Chainrule the
     * replacement field's, braces included. */
    assert_span (&fv->span, 1, 9, 1, 21);
    assert_span (&fv->u.formatted.value->span, 1, 10, 1, 15);
    assert_span (&fv->u.formatted.value->u.binop.left->span, 1, 10, 1, 11);
    assert_span (&fv->u.formatted.format_spec->u.seq.elts[1]->u.formatted.value->span,
                 1, 18, 1, 19);
    ml = m->body[1]->u.assign.value->u.seq.elts[1]->u.formatted.value;
    assert_span (&ml->span, 3, 4, 4, 3);
    assert_span (&ml->u.binop.right->span, 4, 2, 4, 3);
  }
  {
    /* Columns count code points (Python's ast counts UTF-8 bytes, its
     * error offsets count characters, as Chainrule does everywhere). */
    g_autoptr(CrAstModule) m = parse_ok ("\xc3\xa9 = '\xc3\xbc' + x\n");

    assert_span (&m->body[0]->u.assign.value->u.binop.right->span, 1, 11, 1, 12);
  }
}

static void
test_details (void)
{
  /* What the structure dump does not show. */
  {
    g_autoptr(CrAstModule) m = parse_ok ("f\"{x=}\" f'{y!a:>{w}}'\n");
    CrAstNode *js = first_value (m);

    g_assert_cmpuint (js->u.seq.n_elts, ==, 3);
    g_assert_cmpstr (js->u.seq.elts[0]->u.constant.s, ==, "x=");
    g_assert_cmpint (js->u.seq.elts[1]->u.formatted.conversion, ==, 'r');
    g_assert_cmpint (js->u.seq.elts[2]->u.formatted.conversion, ==, 'a');
    g_assert_cmpint (js->u.seq.elts[2]->u.formatted.format_spec->kind, ==, CR_AST_JOINEDSTR);
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("x = '\\x00a'\n");
    CrAstNode *c = first_value (m);

    g_assert_cmpuint (c->u.constant.s_len, ==, 2);
    g_assert_cmpmem (c->u.constant.s, 2, "\0a", 2);
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("from ... import a\nfrom .m import *\n");

    g_assert_cmpint (m->body[0]->u.import.level, ==, 3);
    g_assert_null (m->body[0]->u.import.module);
    g_assert_cmpint (m->body[1]->u.import.level, ==, 1);
    g_assert_cmpstr (m->body[1]->u.import.names[0].name, ==, "*");
  }
  {
    g_autoptr(CrAstModule) m = parse_ok ("a = [[1]]\nb = -(-(-x))\n");

    g_assert_cmpint (m->body[0]->u.assign.value->depth, ==, 3);
    g_assert_cmpint (m->body[1]->u.assign.value->depth, ==, 4);
  }
  {
    /* The module's source is the text as Python reads it. */
    g_autoptr(CrAstModule) m = parse_ok ("\xef\xbb\xbfx = 1\r\ny = 2");

    g_assert_cmpstr (m->source, ==, "x = 1\ny = 2\n");
    g_assert_cmpstr (m->filename, ==, "test.py");
    g_assert_cmpuint (m->n_body, ==, 2);
  }
}

static void
test_try (void)
{
  g_autoptr(CrAstModule) m =
    parse_ok ("try:\n    f()\n    g()\nexcept (A, B) as e:\n    pass\n"
              "except C:\n    pass\nexcept:\n    raise\nelse:\n    x = 1\n"
              "finally:\n    y = 2\n");
  g_assert_cmpuint (m->n_body, ==, 1);
  CrAstNode *t = m->body[0];
  g_assert_cmpint (t->kind, ==, CR_AST_TRY);
  g_assert_cmpstr (cr_ast_kind_name (t->kind), ==, "Try");
  g_assert_cmpuint (t->u.try_stmt.n_body, ==, 2);
  g_assert_cmpuint (t->u.try_stmt.n_handlers, ==, 3);
  g_assert_cmpint (t->u.try_stmt.handlers[0].type->kind, ==, CR_AST_TUPLE);
  g_assert_cmpstr (t->u.try_stmt.handlers[0].name, ==, "e");
  g_assert_cmpint (t->u.try_stmt.handlers[0].span.line, ==, 4);
  g_assert_cmpint (t->u.try_stmt.handlers[1].type->kind, ==, CR_AST_NAME);
  g_assert_null (t->u.try_stmt.handlers[1].name);
  g_assert_null (t->u.try_stmt.handlers[2].type);
  g_assert_cmpint (t->u.try_stmt.handlers[2].body[0]->kind, ==, CR_AST_RAISE);
  g_assert_cmpuint (t->u.try_stmt.n_orelse, ==, 1);
  g_assert_cmpuint (t->u.try_stmt.n_finalbody, ==, 1);
  /* The statement ends where its last block ends (Python's end_lineno 13). */
  g_assert_cmpint (t->span.line, ==, 1);
  g_assert_cmpint (t->span.end_line, ==, 13);

  /* {k: v for k, v in items if v}: key k, element v, one clause. */
  g_autoptr(CrAstModule) dc = parse_ok ("d = {k: v * 2 for k, v in items if v}\n");
  CrAstNode *comp = dc->body[0]->u.assign.value;
  g_assert_cmpint (comp->kind, ==, CR_AST_LISTCOMP);
  g_assert_cmpint (comp->u.comp.key->kind, ==, CR_AST_NAME);
  g_assert_cmpint (comp->u.comp.elt->kind, ==, CR_AST_BINOP);
  g_assert_cmpint (comp->u.comp.target->kind, ==, CR_AST_TUPLE);
  g_assert_cmpuint (comp->u.comp.n_ifs, ==, 1);
  g_assert_cmpint (comp->span.column, ==, 5);
  g_assert_cmpint (comp->span.end_column, ==, 38);

  /* {1, x} is a Set; {x for x in v} a set comprehension. */
  g_autoptr(CrAstModule) st = parse_ok ("s = {1, x}\nt = {y for y in s}\n");
  g_assert_cmpint (st->body[0]->u.assign.value->kind, ==, CR_AST_SET);
  g_assert_cmpuint (st->body[0]->u.assign.value->u.seq.n_elts, ==, 2);
  g_assert_true (st->body[1]->u.assign.value->u.comp.is_set);
  g_assert_null (st->body[1]->u.assign.value->u.comp.key);

  g_autoptr(CrAstModule) m2 = parse_ok ("try:\n    pass\nfinally:\n    pass\n");
  g_assert_cmpuint (m2->body[0]->u.try_stmt.n_handlers, ==, 0);
  g_assert_cmpuint (m2->body[0]->u.try_stmt.n_finalbody, ==, 1);
}

static void
test_yield (void)
{
  g_autoptr(CrAstModule) m = parse_ok ("def f():\n    yield\n    x = yield 1, 2\n    y = yield from g()\n");
  CrAstNode *const *body = m->body[0]->u.func.body;
  g_assert_cmpint (body[0]->u.expr_stmt.value->kind, ==, CR_AST_YIELD);
  g_assert_null (body[0]->u.expr_stmt.value->u.yield_expr.value);
  CrAstNode *value = body[1]->u.assign.value;
  g_assert_cmpint (value->kind, ==, CR_AST_YIELD);
  g_assert_cmpint (value->u.yield_expr.value->kind, ==, CR_AST_TUPLE);
  assert_span (&value->span, 3, 9, 3, 19);
  g_assert_cmpint (body[2]->u.assign.value->kind, ==, CR_AST_YIELD_FROM);
  g_assert_cmpint (body[2]->u.assign.value->u.yield_expr.value->kind, ==, CR_AST_CALL);
  /* Where a yield may stand is the resolver's question, not the parser's. */
  g_autoptr(CrAstModule) m2 = parse_ok ("yield 1\n");
  g_assert_cmpint (m2->body[0]->u.expr_stmt.value->kind, ==, CR_AST_YIELD);
}

static void
test_unsupported (void)
{
  /* Valid Python that Chainrule does not run: a SyntaxError at the construct. */
  /* Python 3.11: "SyntaxError: default 'except:' must be last" at line 3, offset 1. */
  assert_error ("try:\n    f()\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
                CR_EXC_SYNTAX_ERROR, "default 'except:' must be last", 3, 1);
  assert_error ("try:\n    f()\nx = 1\n", CR_EXC_SYNTAX_ERROR,
                "expected 'except' or 'finally' block", 3, 1);
  assert_error ("def f():\n    x = yield = 1\n", CR_EXC_SYNTAX_ERROR,
                "assignment to yield expression not possible", 2, 9);
  assert_error ("def f():\n    (yield) = 1\n", CR_EXC_SYNTAX_ERROR,
                "cannot assign to yield expression here. Maybe you meant '==' instead of '='?", 2, 6);
  assert_error ("def f():\n    del (yield)\n", CR_EXC_SYNTAX_ERROR,
                "cannot delete yield expression", 2, 10);
  assert_error ("def f():\n    yield *a\n", CR_EXC_SYNTAX_ERROR,
                "can't use starred expression here", 2, 11);
  assert_error ("async def f():\n    pass\n", CR_EXC_SYNTAX_ERROR,
                "'async' and 'await' are not supported in Chainrule scripts", 1, 1);
  assert_error ("if (n := 10) > 5:\n    pass\n", CR_EXC_SYNTAX_ERROR,
                "assignment expressions (':=') are not supported in Chainrule scripts", 1, 5);
  /* Python 3.11: "cannot assign to set display here. Maybe you meant '=='
   * instead of '='?" at offset 1. */
  assert_error ("{1, 2} = 1\n", CR_EXC_SYNTAX_ERROR,
                "cannot assign to set display here. Maybe you meant '==' instead of '='?", 1, 1);
  /* Python 3.11: "cannot assign to dict comprehension" at offset 1. */
  assert_error ("{k: 1 for k in x} = 1\n", CR_EXC_SYNTAX_ERROR,
                "cannot assign to dict comprehension here. Maybe you meant '==' instead of '='?", 1, 1);
  assert_error ("b = b'abc'\n", CR_EXC_SYNTAX_ERROR,
                "bytes literals are not supported in Chainrule scripts", 1, 5);
  assert_error ("z = 1 + 2j\n", CR_EXC_SYNTAX_ERROR,
                "complex numbers are not supported in Chainrule scripts", 1, 9);
  assert_error ("class A(metaclass=M):\n    pass\n", CR_EXC_SYNTAX_ERROR,
                "class keyword arguments are not supported in Chainrule scripts", 1, 8);
  assert_error ("n = 99999999999999999999\n", CR_EXC_SYNTAX_ERROR,
                "integer literal 99999999999999999999 is too large "
                "(Chainrule integers are 64-bit)", 1, 5);
  /* Like Python's compiler errors, these come only when everything parses:
   * Python 3.11 reports the later syntax error. */
  assert_error ("try:\n    pass\nfinally:\n    pass\nx = (1 2)\n", CR_EXC_SYNTAX_ERROR,
                "invalid syntax. Perhaps you forgot a comma?", 5, 6);
  assert_error ("return 1\nx = 1 +\n", CR_EXC_SYNTAX_ERROR, "invalid syntax", 2, 8);
  /* Python's parser errors inside a try statement come first. */
  assert_error ("try\n    pass\n", CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 4);
}

static void
test_depth (void)
{
  /* Python 3.11 compiles a chain of 2990 operands and refuses 2991
   * ("RecursionError: maximum recursion depth exceeded during compilation");
   * far deeper nesting is refused by the parser without a stack overflow. */
  GString *src = g_string_new ("x = 1");

  for (int i = 1; i < 2990; i++)
    g_string_append (src, "+1");
  g_string_append_c (src, '\n');
  {
    g_autoptr(CrAstModule) m = parse_ok (src->str);

    g_assert_cmpint (m->body[0]->u.assign.value->depth, ==, 2990);
  }
  g_string_insert (src, 4, "1+");
  assert_error (src->str, CR_EXC_RECURSION_ERROR,
                "maximum recursion depth exceeded during compilation", 1, 5);

  g_string_assign (src, "x = ");
  for (int i = 0; i < 100000; i++)
    g_string_append (src, "-");
  g_string_append (src, "1\n");
  {
    g_autoptr(GError) error = NULL;
    CrAstModule *m = cr_parse (src->str, -1, "deep.py", NULL, &error);

    g_assert_null (m);
    g_assert_error (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR);
  }
  for (guint k = 0; k < 6; k++)
    {
      static const char *const units[][3] = {
        { "x = ", "not ", "b\n" }, { "x = ", "2**", "b\n" }, { "x = ", "lambda: ", "b\n" },
        { "x = ", "1 if 1 else ", "b\n" }, { "x = ", "a.", "b\n" }, { "x = f", "()", "\n" },
      };
      g_autoptr(GError) error = NULL;
      CrAstModule *m;

      g_string_assign (src, units[k][0]);
      for (int i = 0; i < 50000; i++)
        g_string_append (src, units[k][1]);
      g_string_append (src, units[k][2]);
      m = cr_parse (src->str, -1, "deep.py", NULL, &error);
      g_assert_null (m);
      g_assert_error (error, CR_LANG_ERROR, CR_EXC_RECURSION_ERROR);
    }
  g_string_free (src, TRUE);
}

static void
test_robustness (void)
{
  /* Never a crash, a hang or a leak: an error or a module. */
  {
    g_autofree char *parens = g_strnfill (10000, '(');

    assert_error (parens, CR_EXC_SYNTAX_ERROR, "too many nested parentheses", 1, 201);
  }
  {
    GString *ifs = g_string_new (NULL);

    for (int i = 0; i < 1000; i++)
      {
        for (int j = 0; j < i; j++)
          g_string_append_c (ifs, ' ');
        g_string_append (ifs, "if x:\n");
      }
    assert_error (ifs->str, CR_EXC_INDENTATION_ERROR, "too many levels of indentation", 101, 1);
    g_string_free (ifs, TRUE);
  }
  {
    /* `python3 script.py`'s messages (the file reader's). */
    g_autoptr(GError) error = NULL;
    CrSpan span;

    g_assert_null (cr_parse ("x = 1\ny = \"\0\"\n", 12, "nul.py", &span, &error));
    g_assert_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR);
    g_assert_cmpstr (error->message, ==, "source code cannot contain null bytes");
    g_assert_cmpint (span.line, ==, 2);
    g_clear_error (&error);

    g_assert_null (cr_parse ("x = 1\ny = \"\xff\"\n", -1, "bad.py", &span, &error));
    g_assert_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR);
    g_assert_cmpstr (error->message, ==,
                     "Non-UTF-8 code starting with '\\xff' in file bad.py on line 2, but no "
                     "encoding declared; see https://peps.python.org/pep-0263/ for details");
    g_assert_cmpint (span.line, ==, 2);
    g_assert_cmpint (span.column, ==, 6);
  }
  {
    /* A 10 MB line, and one of a million f-string fields (linear time). */
    gsize n = 10 * 1000 * 1000;
    GString *big = g_string_sized_new (n + 16);

    g_string_append (big, "x = '");
    for (gsize i = 0; i < n; i++)
      g_string_append_c (big, 'a');
    g_string_append (big, "'\n");
    {
      g_autoptr(CrAstModule) m = parse_ok (big->str);

      g_assert_cmpuint (first_value (m)->u.constant.s_len, ==, n);
    }
    g_string_assign (big, "x = f\"");
    for (gsize i = 0; i < 1000000; i++)
      g_string_append (big, "{x}");
    g_string_append (big, "\"\n");
    {
      g_autoptr(CrAstModule) m = parse_ok (big->str);

      g_assert_cmpuint (first_value (m)->u.seq.n_elts, ==, 1000000);
    }
    g_string_free (big, TRUE);
  }
  {
    /* Unterminated everything, at the end of the input. */
    static const char *const texts[] = {
      "x = '", "x = '''", "x = f\"{", "x = f'{x", "x = (", "x = [1,", "x = {", "def f(",
      "if x:", "x = \\", "x = f'''{\n", "class A(", "x = a[", "@", "lambda", "'''\n\n",
      "f'{x!'", "f'{x:'", "f'{x:{'", "x = 1 if", "\t\t\t", "for", "from", "import",
    };

    for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
      {
        g_autoptr(GError) error = NULL;
        CrAstModule *m = cr_parse (texts[i], -1, "t.py", NULL, &error);

        if (i == 20)
          {
            /* Only blanks: an empty module. */
            g_assert_no_error (error);
            g_assert_cmpuint (m->n_body, ==, 0);
            cr_ast_module_free (m);
            continue;
          }
        g_assert_null (m);
        g_assert_nonnull (error);
        g_assert_true (error->code == CR_EXC_SYNTAX_ERROR ||
                       error->code == CR_EXC_INDENTATION_ERROR ||
                       error->code == CR_EXC_TAB_ERROR);
      }
  }
  {
    /* Random bytes and random token soup (fixed seeds): no crash. */
    static const char *const soup[] = {
      "(", ")", "[", "]", "{", "}", "x", "1", "'a'", "f'{", "}'", ":", ",", "=", "+", "*",
      "**", "\n", "    ", "if", "else", "for", "in", "lambda", "def", "not", ".", "\\\n",
      "\"", "#", "@", "->", "...", "\t", "yield", "try", ":=", "!", "1e", "0x",
    };
    GRand *rand = g_rand_new_with_seed (42);

    for (int round = 0; round < 2000; round++)
      {
        GString *text = g_string_new (NULL);
        int len = g_rand_int_range (rand, 0, 40);
        g_autoptr(GError) error = NULL;
        CrAstModule *m;

        for (int i = 0; i < len; i++)
          {
            if (round % 2)
              g_string_append_c (text, (char) g_rand_int_range (rand, 1, 128));
            else
              {
                g_string_append (text, soup[g_rand_int_range (rand, 0, G_N_ELEMENTS (soup))]);
                g_string_append_c (text, ' ');
              }
          }
        m = cr_parse (text->str, (gssize) text->len, "fuzz.py", NULL, &error);
        g_assert_true ((m == NULL) != (error == NULL));
        cr_ast_module_free (m);
        g_string_free (text, TRUE);
      }
    g_rand_free (rand);
  }
}

static void
test_helpers (void)
{
  g_autofree char *l1 = cr_source_line ("a = 1\nbb = 2\r\nccc\n", 2);
  g_autofree char *l2 = cr_source_line ("a = 1\nbb = 2\r\nccc", 3);
  g_autofree char *l3 = cr_source_line ("a = 1\n", 5);

  g_assert_cmpstr (l1, ==, "bb = 2");
  g_assert_cmpstr (l2, ==, "ccc");
  g_assert_cmpstr (l3, ==, "");
  g_assert_cmpstr (cr_ast_kind_name (CR_AST_CALL), ==, "Call");
  g_assert_cmpstr (cr_ast_kind_name (CR_AST_FUNCTIONDEF), ==, "FunctionDef");
  g_assert_cmpstr (cr_ast_kind_name (CR_AST_COUNT), ==, "?");
  cr_ast_module_free (NULL);
}

/* ---- errors: the same text, type, line and column as Python 3.11 ---- */

static const struct {
  const char *src;
  int         code;
  const char *message;
  int         line;
  int         column;
} errors[] = {
  { "x = (1 +\n",
    CR_EXC_SYNTAX_ERROR, "'(' was never closed", 1, 5 },
  { "print(a b)\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Perhaps you forgot a comma?", 1, 7 },
  { "x = [1, 2 3]\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Perhaps you forgot a comma?", 1, 9 },
  { "f(x) = 1\n",
    CR_EXC_SYNTAX_ERROR, "cannot assign to function call here. Maybe you meant '==' instead of '='?", 1, 1 },
  { "a + 1 = 2\n",
    CR_EXC_SYNTAX_ERROR, "cannot assign to expression here. Maybe you meant '==' instead of '='?", 1, 1 },
  { "x = f() = 1\n",
    CR_EXC_SYNTAX_ERROR, "cannot assign to function call", 1, 5 },
  { "if x = 1:\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 4 },
  { "if x\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 5 },
  { "for i in range(3)\n    print(i)\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 18 },
  { "def f()\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 8 },
  { "def f:\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected '('", 1, 6 },
  { "class A\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 8 },
  { "for x in y:\nprint(x)\n",
    CR_EXC_INDENTATION_ERROR, "expected an indented block after 'for' statement on line 1", 2, 1 },
  { "def f():\nreturn 1\n",
    CR_EXC_INDENTATION_ERROR, "expected an indented block after function definition on line 1", 2, 1 },
  { "x = 1\n  y = 2\n",
    CR_EXC_INDENTATION_ERROR, "unexpected indent", 2, 2 },
  { "if x:\n    a\n  b\n",
    CR_EXC_INDENTATION_ERROR, "unindent does not match any outer indentation level", 3, 4 },
  { "x = )\n",
    CR_EXC_SYNTAX_ERROR, "unmatched ')'", 1, 5 },
  { "x = (]\n",
    CR_EXC_SYNTAX_ERROR, "closing parenthesis ']' does not match opening parenthesis '('", 1, 6 },
  { "x = (\n]\n",
    CR_EXC_SYNTAX_ERROR, "closing parenthesis ']' does not match opening parenthesis '(' on line 1", 2, 1 },
  { "x = \"abc\ny = 2\n",
    CR_EXC_SYNTAX_ERROR, "unterminated string literal (detected at line 1)", 1, 5 },
  { "x = \"\"\"abc\ny = 2\n",
    CR_EXC_SYNTAX_ERROR, "unterminated triple-quoted string literal (detected at line 2)", 1, 5 },
  { "x = 1abc\n",
    CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 5 },
  { "x = 0x\n",
    CR_EXC_SYNTAX_ERROR, "invalid hexadecimal literal", 1, 6 },
  { "x = 0o8\n",
    CR_EXC_SYNTAX_ERROR, "invalid digit '8' in octal literal", 1, 7 },
  { "x = 012\n",
    CR_EXC_SYNTAX_ERROR, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", 1, 5 },
  { "x = 1_\n",
    CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 6 },
  { "x = a\xe2\x82\xac""\n",
    CR_EXC_SYNTAX_ERROR, "invalid character '\xe2\x82\xac""' (U+20AC)", 1, 6 },
  { "x = $\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 5 },
  { "x = 1 \\ y\n",
    CR_EXC_SYNTAX_ERROR, "unexpected character after line continuation character", 1, 8 },
  { "x = 1 +\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 8 },
  { "x = 1 if y\n",
    CR_EXC_SYNTAX_ERROR, "expected 'else' after 'if' expression", 1, 5 },
  { "print \"hello\"\n",
    CR_EXC_SYNTAX_ERROR, "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 1 },
  { "f(a=1, 2)\n",
    CR_EXC_SYNTAX_ERROR, "positional argument follows keyword argument", 1, 9 },
  { "f(a.b=1)\n",
    CR_EXC_SYNTAX_ERROR, "expression cannot contain assignment, perhaps you meant \"==\"?", 1, 3 },
  { "f(a for a in b, 1)\n",
    CR_EXC_SYNTAX_ERROR, "Generator expression must be parenthesized", 1, 3 },
  { "[x, y for x, y in z]\n",
    CR_EXC_SYNTAX_ERROR, "did you forget parentheses around the comprehension target?", 1, 2 },
  { "{1: 2, 3}\n",
    CR_EXC_SYNTAX_ERROR, "':' expected after dictionary key", 1, 8 },
  { "from a import b,\n",
    CR_EXC_SYNTAX_ERROR, "trailing comma not allowed without surrounding parentheses", 1, 17 },
  { "del f()\n",
    CR_EXC_SYNTAX_ERROR, "cannot delete function call", 1, 5 },
  { "for f() in y:\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "cannot assign to function call", 1, 5 },
  { "a, b += 1\n",
    CR_EXC_SYNTAX_ERROR, "'tuple' is an illegal expression for augmented assignment", 1, 1 },
  { "a, b: int\n",
    CR_EXC_SYNTAX_ERROR, "only single target (not tuple) can be annotated", 1, 1 },
  { "None = 1\n",
    CR_EXC_SYNTAX_ERROR, "cannot assign to None", 1, 1 },
  { "x = a if b else c = 1\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 1 },
  { "def f(x=1, y): pass\n",
    CR_EXC_SYNTAX_ERROR, "non-default argument follows default argument", 1, 12 },
  { "def f(*): pass\n",
    CR_EXC_SYNTAX_ERROR, "named arguments must follow bare *", 1, 7 },
  { "return 1\n",
    CR_EXC_SYNTAX_ERROR, "'return' outside function", 1, 1 },
  { "break\n",
    CR_EXC_SYNTAX_ERROR, "'break' outside loop", 1, 1 },
  { "def f():\n    continue\n",
    CR_EXC_SYNTAX_ERROR, "'continue' not properly in loop", 2, 5 },
  { "def f(x, x): pass\n",
    CR_EXC_SYNTAX_ERROR, "duplicate argument 'x' in function definition", 1, 10 },
  { "f(x=1, x=2)\n",
    CR_EXC_SYNTAX_ERROR, "keyword argument repeated: x", 1, 8 },
  { "x = *a\n",
    CR_EXC_SYNTAX_ERROR, "can't use starred expression here", 1, 5 },
  { "x = f\"{}\"\n",
    CR_EXC_SYNTAX_ERROR, "f-string: empty expression not allowed", 1, 10 },
  { "x = f\"{x!z}\"\n",
    CR_EXC_SYNTAX_ERROR, "f-string: invalid conversion character: expected 's', 'r', or 'a'", 1, 13 },
  { "x = f\"}\"\n",
    CR_EXC_SYNTAX_ERROR, "f-string: single '}' is not allowed", 1, 9 },
  { "x = f\"{x:{y:{z}}}\"\n",
    CR_EXC_SYNTAX_ERROR, "f-string: expressions nested too deeply", 1, 19 },
  { "x = \"\\x4\"\n",
    CR_EXC_SYNTAX_ERROR, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape", 1, 10 },
  { "x = \"abc\" b\"abc\"\n",
    CR_EXC_SYNTAX_ERROR, "cannot mix bytes and nonbytes literals", 1, 17 },
  { "x = 1 2\n\"abc\n",
    CR_EXC_SYNTAX_ERROR, "unterminated string literal (detected at line 2)", 2, 1 },
  { "x = (1 2\n",
    CR_EXC_SYNTAX_ERROR, "'(' was never closed", 1, 5 },
  { "x = 1\n  y = 2\nz = \"abc\n",
    CR_EXC_INDENTATION_ERROR, "unexpected indent", 2, 2 },
  { "if True:\n  x = 1\n else:\n  pass\n",
    CR_EXC_INDENTATION_ERROR, "unindent does not match any outer indentation level", 3, 7 },
  { "try\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 4 },
  { "lambda *: 1\n",
    CR_EXC_SYNTAX_ERROR, "named arguments must follow bare *", 1, 9 },
  { "x = a if f(c d) else a\n",
    CR_EXC_SYNTAX_ERROR, "expected 'else' after 'if' expression", 1, 5 },
  { "x = (c d)\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 8 },
  { "else:\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 1 },
  { "with a as b\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 12 },
  /* Second-pass subtleties: PEG backtracking, the first-pass furthest token. */
  { "a, b c = x\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 6 },
  { "f(**a, *b)\n",
    CR_EXC_SYNTAX_ERROR, "iterable argument unpacking follows keyword argument unpacking", 1, 8 },
  { "with (a as b, c as d)\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "expected ':'", 1, 22 },
  { "foo {a=1}\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 6 },
  { "x = f(a=c d)\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 11 },
  { "sum(*x for x in v)\n",
    CR_EXC_SYNTAX_ERROR, "iterable unpacking cannot be used in comprehension", 1, 5 },
  { "sum(1, *x for x in v)\n",
    CR_EXC_SYNTAX_ERROR, "Generator expression must be parenthesized", 1, 8 },
  { "@ w + b\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 0 },
  { "class A:\n  def f(self):\n@x\n",
    CR_EXC_INDENTATION_ERROR, "expected an indented block after function definition on line 2", 3, 0 },
  { "lambda x, y=: x\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 13 },
  { "def f(x, y=): pass\n",
    CR_EXC_SYNTAX_ERROR, "expected default value expression", 1, 11 },
  { "for x+ in y:\n    pass\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 6 },
  { "[e for x init if c]\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Perhaps you forgot a comma?", 1, 8 },
  { "x = [a, for a in b]\n",
    CR_EXC_SYNTAX_ERROR, "did you forget parentheses around the comprehension target?", 1, 6 },
  { "d = {1: *a}\n",
    CR_EXC_SYNTAX_ERROR, "cannot use a starred expression in a dictionary value", 1, 9 },
  { "a is not b, a not i\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 19 },
  { "print(end=\"\" sep=\"\")\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Perhaps you forgot a comma?", 1, 11 },
  { "x = torch.tensor([1.0 2.0])\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Perhaps you forgot a comma?", 1, 19 },
  { "y = x.sum(dim=0 keepdim=True)\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax. Perhaps you forgot a comma?", 1, 15 },
  { "w = torch.ones(2, requires_grad = T?rue)\n",
    CR_EXC_SYNTAX_ERROR, "invalid syntax", 1, 36 },
  { "if x:\n    pass\n  else:\n    pass\n",
    CR_EXC_INDENTATION_ERROR, "unindent does not match any outer indentation level", 3, 8 },
  { "x = 1\n\\\n",
    CR_EXC_SYNTAX_ERROR, "unexpected EOF while parsing", 2, 2 },
};

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (errors); i++)
    assert_error (errors[i].src, errors[i].code, errors[i].message, errors[i].line,
                  errors[i].column);

  /* Where Chainrule deliberately differs: an error inside an f-string's
   * expression. Python 3.11 gives it the position of the expression inside
   * "(a b)" (1, 2); Chainrule gives its place in the file. */
  assert_error ("x = 1\ny = f\"{a b}\"\n", CR_EXC_SYNTAX_ERROR,
                "f-string: invalid syntax. Perhaps you forgot a comma?", 2, 8);
  assert_error ("x = f\"{1abc}\"\n", CR_EXC_SYNTAX_ERROR, "invalid decimal literal", 1, 8);
}

/* head, unit * n, middle, close * n, tail */
static char *
nested_text (const char *head,
             const char *unit,
             const char *middle,
             const char *close,
             const char *tail,
             int         n)
{
  GString *s = g_string_new (head);

  for (int i = 0; i < n; i++)
    g_string_append (s, unit);
  g_string_append (s, middle);
  for (int i = 0; i < n; i++)
    g_string_append (s, close);
  g_string_append (s, tail);
  return g_string_free (s, FALSE);
}

static void
test_nested_linear (void)
{
  /* The second pass looks for "Perhaps you forgot a comma?" after each
   * operand that did not parse, which parses the rest of a nested text again:
   * `x = (a-(a-...` took 2.9 s and 1.4 GB at 24 levels, twice as much with
   * each level more. With the second pass memoised, 190 levels (the
   * tokenizer allows 200 brackets) of every shape parse at once. Messages and
   * columns at 12 levels: Python 3.11.7's compile (). */
  static const struct {
    const char *head, *unit, *middle, *close, *tail, *message;
    int column;
  } shapes[] = {
    { "x = ", "(a-", "", "", ")\n", "invalid syntax", 41 },
    { "x = ", "(a-", "", "", "\n", "'(' was never closed", 38 },
    { "x = ", "[a-", "", "", "]\n", "invalid syntax", 41 },
    { "x = ", "{a-", "", "", "}\n", "invalid syntax", 41 },
    { "x = ", "f(a-", "", "", ")\n", "invalid syntax", 53 },
    { "x = ", "f(a, ", "b c", ")", "\n", "invalid syntax. Perhaps you forgot a comma?", 65 },
    { "x = ", "lambda: ", "a b", "", "\n", "invalid syntax", 103 },
    { "x = ", "(lambda: a-", "", "", ")\n", "invalid syntax", 137 },
    { "x = ", "(not a-", "", "", ")\n", "invalid syntax", 89 },
    { "x = ", "not ", "a b", "", "\n", "invalid syntax", 55 },
    { "x = ", "(-a-", "", "", ")\n", "invalid syntax", 53 },
    { "x = ", "[a for a in ", "b c", "]", "\n", "invalid syntax", 151 },
    { "x = ", "a if (b-", "", "", ")\n", "invalid syntax", 101 },
    { "x = ", "a[b-", "", "", "]\n", "invalid syntax", 53 },
    { "x = ", "{a: b-", "", "", "}\n", "invalid syntax", 77 },
    { "x = ", "(a, b-", "", "", ")\n", "invalid syntax", 77 },
    { "x = ", "(a-", "b c", ")", "\n", "invalid syntax. Perhaps you forgot a comma?", 39 },
    { "x = ", "(a**-", "", "", ")\n", "invalid syntax", 65 },
    { "x = ", "(a.b-", "", "", ")\n", "invalid syntax", 65 },
    { "x = ", "[*a-", "", "", "]\n", "invalid syntax", 53 },
    { "x = ", "(a := b-", "", "", ")\n", "invalid syntax", 101 },
    { "x = ", "f(a=b-", "", "", ")\n", "invalid syntax", 77 },
    { "x = ", "(a < b-", "", "", ")\n", "invalid syntax", 89 },
    { "x = ", "(a and b-", "", "", ")\n", "invalid syntax", 113 },
    { "", "(a-", "", "", ") = 1\n", "invalid syntax", 37 },
    { "x = ", "a[b:c-", "", "", "]\n", "invalid syntax", 77 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autofree char *small = nested_text (shapes[i].head, shapes[i].unit, shapes[i].middle,
                                            shapes[i].close, shapes[i].tail, 12);
      g_autofree char *deep = nested_text (shapes[i].head, shapes[i].unit, shapes[i].middle,
                                           shapes[i].close, shapes[i].tail, 190);
      g_autoptr(GError) error = NULL;
      gint64 start;
      double seconds;

      assert_error (small, CR_EXC_SYNTAX_ERROR, shapes[i].message, 1, shapes[i].column);
      start = g_get_monotonic_time ();
      g_assert_null (cr_parse (deep, -1, "deep.py", NULL, &error));
      seconds = (g_get_monotonic_time () - start) / 1e6;
      g_assert_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR);
      if (seconds > 0.5)
        g_error ("%s...: %.2f s to parse 190 levels", shapes[i].unit, seconds);
    }

  /* Operators of two or more precedences before a bracket whose contents
   * fail (the fuzzer's parser-nested-brackets-superlinear and the others in
   * tests/fuzz/regressions): each precedence level used to try the failing
   * operand again, in both passes, so that `b(c>>e*[` took twice as long with
   * each level more (1.2 s and 835 MB at 20 levels). As deep as the
   * tokenizer's 200 brackets allow; messages and columns at 12 levels: Python
   * 3.11.7's compile (). */
  static const struct {
    const char *unit, *middle, *close, *message;
    int column;
  } operators[] = {
    { "b(c>>e*[", "q w", "])", "invalid syntax. Perhaps you forgot a comma?", 101 },
    { "b(c>>e*[", "+", "])", "invalid syntax", 102 },
    { "(c<<e>>e*[", "q w", "])", "invalid syntax. Perhaps you forgot a comma?", 125 },
    { "(a or c>>e*[", "q w", "])", "invalid syntax. Perhaps you forgot a comma?", 149 },
    { "(a or c>>e*[", "-", "])", "invalid syntax", 150 },
    { "{a!=b&c%{", "q w", "}}", "invalid syntax. Perhaps you forgot a comma?", 113 },
    { "{a!=b&c%{", "~", "}}", "invalid syntax", 114 },
    { "[a+b@+[", "q w", "]]", "invalid syntax. Perhaps you forgot a comma?", 89 },
    { "[a+b@+[", "+", "]]", "invalid syntax", 90 },
    { "f(a|b^c&d<<e+f*-[", "q w", "])", "invalid syntax. Perhaps you forgot a comma?", 209 },
    { "f(a|b^c&d<<e+f*-[", "-", "])", "invalid syntax", 210 },
    { "(a<b|c>d+e*[", "1 2", "])", "invalid syntax. Perhaps you forgot a comma?", 149 },
    { "(c>>e*(", "q w", "))", "invalid syntax. Perhaps you forgot a comma?", 89 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (operators); i++)
    {
      CrParseOptions budget = { .max_memory = 256 << 20 };
      int brackets = (int) strlen (operators[i].close);
      g_autofree char *small = nested_text ("x = ", operators[i].unit, operators[i].middle,
                                            operators[i].close, "\n", 12);
      g_autofree char *deep = nested_text ("x = ", operators[i].unit, operators[i].middle,
                                           operators[i].close, "\n", 198 / brackets);
      g_autoptr(GError) error = NULL;
      gint64 start;
      double seconds;

      assert_error (small, CR_EXC_SYNTAX_ERROR, operators[i].message, 1, operators[i].column);
      /* A regression ends in a MemoryError, not in the machine's swap. */
      start = g_get_monotonic_time ();
      g_assert_null (cr_parse_with_options (deep, -1, "deep.py", &budget, NULL, &error));
      seconds = (g_get_monotonic_time () - start) / 1e6;
      g_assert_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR);
      g_assert_cmpstr (error->message, ==, operators[i].message);
      if (seconds > 0.5)
        g_error ("%s...: %.2f s to parse %d levels", operators[i].unit, seconds,
                 198 / brackets);
    }

  /* The same inside an f-string's expression, which has its own second pass. */
  {
    g_autofree char *inner = nested_text ("", "(a-", "", "", "", 150);
    g_autofree char *text = g_strdup_printf ("x = f\"{%s}\"\n", inner);
    g_autoptr(GError) error = NULL;
    gint64 start = g_get_monotonic_time ();

    g_assert_null (cr_parse (text, -1, "deep.py", NULL, &error));
    g_assert_error (error, CR_LANG_ERROR, CR_EXC_SYNTAX_ERROR);
    g_assert_cmpfloat ((g_get_monotonic_time () - start) / 1e6, <, 0.5);
  }
}

static void
test_cancel (void)
{
  gint flag = 0;
  CrParseOptions options = { .cancel_flag = &flag };
  g_autoptr(GError) error = NULL;
  CrAstModule *module;

  module = cr_parse_with_options ("x = 1\n", -1, "t.py", &options, NULL, &error);
  g_assert_no_error (error);
  cr_ast_module_free (module);

  /* The runner's --timeout and the window's edit set the flag from elsewhere
   * while a long parse runs. */
  flag = 2;
  g_assert_null (cr_parse_with_options ("x = (1 +\n 2)\n", -1, "t.py", &options, NULL, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_TIMEOUT_ERROR);
  g_assert_cmpstr (error->message, ==, "the script did not finish within the time limit (--timeout)");
  g_clear_error (&error);

  flag = 1;
  g_assert_null (cr_parse_with_options ("pass\n", -1, "t.py", &options, NULL, &error));
  g_assert_error (error, CR_LANG_ERROR, CR_EXC_KEYBOARD_INTERRUPT);
  g_clear_error (&error);

  /* The memory budget: a tree bigger than it is a MemoryError. */
  {
    GString *big = g_string_new (NULL);

    for (int i = 0; i < 20000; i++)
      g_string_append (big, "x = [a + b * (c - d) for a in range(3)]\n");
    flag = 0;
    options.max_memory = 256 * 1024;
    g_assert_null (cr_parse_with_options (big->str, -1, "t.py", &options, NULL, &error));
    g_assert_error (error, CR_LANG_ERROR, CR_EXC_MEMORY_ERROR);
    g_clear_error (&error);
    options.max_memory = 256 * 1024 * 1024;
    module = cr_parse_with_options (big->str, -1, "t.py", &options, NULL, &error);
    g_assert_no_error (error);
    cr_ast_module_free (module);
    g_string_free (big, TRUE);
  }
}

static gpointer
parse_deep_texts (gpointer data)
{
  static const char *const units[] = { "-", "not ", "lambda: ", "(", "[", "a if b else " };
  gboolean *survived = data;

  for (guint k = 0; k < G_N_ELEMENTS (units); k++)
    for (int n = 10; n <= 2900; n *= 3)
      {
        GString *src = g_string_new ("x = ");
        g_autoptr(GError) error = NULL;
        CrAstModule *module;

        for (int i = 0; i < n; i++)
          g_string_append (src, units[k]);
        g_string_append (src, "1\n");
        module = cr_parse (src->str, -1, "deep.py", NULL, &error);
        /* Parsed, or an error: never past the end of the stack. */
        g_assert_true ((module != NULL) != (error != NULL));
        cr_ast_module_free (module);
        g_string_free (src, TRUE);
      }
  *survived = TRUE;
  return NULL;
}

static void
test_small_stack (void)
{
  /* The window parses on a worker thread, and `ulimit -s` makes any thread's
   * stack small: the parser's depth limit alone would run past it. */
  static const size_t sizes[] = { 256 * 1024, 128 * 1024 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      pthread_attr_t attr;
      pthread_t thread;
      gboolean survived = FALSE;

      g_assert_cmpint (pthread_attr_init (&attr), ==, 0);
      g_assert_cmpint (pthread_attr_setstacksize (&attr, sizes[i]), ==, 0);
      g_assert_cmpint (pthread_create (&thread, &attr, parse_deep_texts, &survived), ==, 0);
      g_assert_cmpint (pthread_join (thread, NULL), ==, 0);
      pthread_attr_destroy (&attr);
      g_assert_true (survived);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lang/parser/structures", test_structures);
  g_test_add_func ("/lang/parser/precedence", test_precedence);
  g_test_add_func ("/lang/parser/spans", test_spans);
  g_test_add_func ("/lang/parser/details", test_details);
  g_test_add_func ("/lang/parser/errors", test_errors);
  g_test_add_func ("/lang/parser/try", test_try);
  g_test_add_func ("/lang/parser/yield", test_yield);
  g_test_add_func ("/lang/parser/unsupported", test_unsupported);
  g_test_add_func ("/lang/parser/depth", test_depth);
  g_test_add_func ("/lang/parser/robustness", test_robustness);
  g_test_add_func ("/lang/parser/nested-linear", test_nested_linear);
  g_test_add_func ("/lang/parser/cancel-and-memory", test_cancel);
  g_test_add_func ("/lang/parser/small-stack", test_small_stack);
  g_test_add_func ("/lang/parser/helpers", test_helpers);
  return g_test_run ();
}
