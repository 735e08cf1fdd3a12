/* cr-ast.h — the syntax tree of a script (a sandboxed Python subset).
 *
 * Every node keeps its source span, so an error, a graph node or a backward
 * step can point at its line and column. A tree is owned by its CrAstModule and
 * freed with it (nodes live in the module's arena: no per-node free).
 *
 * The shapes follow Python's own ast module (3.11), with these conventions:
 * - Identifiers (Name.id, attribute names, parameter names, ...) are interned
 *   in the module: two equal names in one module are the same pointer.
 * - Spans are 1-based, columns count code points, the end is exclusive. A
 *   parenthesized expression's span is the expression's, without the
 *   parentheses (as in Python); a parenthesized tuple's includes them.
 * - A subscript's index is one node: `a[1:2, ::2, None, ...]` is a TUPLE of
 *   SLICE, SLICE, CONSTANT None and ELLIPSIS.
 * - Generator expressions (`sum(x*x for x in v)`, `(x for x in v)`) are
 *   LISTCOMP with comp.is_generator set; the resolver makes each a scope of
 *   its own (as Python does), run lazily by the interpreter.
 * - `[e for a in x if c for b in y]`: the LISTCOMP holds the first clause
 *   (target a, iter x, ifs [c]) and comp.inner the next one, a LISTCOMP whose
 *   elt is NULL (target b, iter y); elt is evaluated in the innermost clause.
 * - A dict comprehension `{k: v for ...}` is a LISTCOMP with comp.key set
 *   (k) and elt v.
 * - Targets (ASSIGN, AUGASSIGN, FOR, WITH ... as, comprehension, DEL) are
 *   NAME, ATTRIBUTE, SUBSCRIPT, or TUPLE/LIST of targets with at most one
 *   STARRED element; the parser has checked that already.
 * - A call's `**kw` is a keyword with name NULL; `*args` is a STARRED arg.
 *   A dict display's `**d` has a NULL key.
 * - The parser also makes the checks Python's compiler makes before running
 *   anything ('return' outside function, 'break' outside loop, duplicate
 *   argument names, keyword argument repeated, starred targets), so that a
 *   module that parses is one Python would have compiled.
 */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

typedef struct _CrAstNode CrAstNode;

typedef enum {
  /* ---- expressions ---- */
  CR_AST_CONSTANT,      /* constant: int, float, str, bool, None */
  CR_AST_NAME,          /* name */
  CR_AST_BINOP,         /* binop */
  CR_AST_UNARYOP,       /* unaryop */
  CR_AST_BOOLOP,        /* boolop: a and b and c */
  CR_AST_COMPARE,       /* compare: a < b <= c */
  CR_AST_CALL,          /* call */
  CR_AST_ATTRIBUTE,     /* attribute */
  CR_AST_SUBSCRIPT,     /* subscript: value[index] (index may be a TUPLE of items) */
  CR_AST_SLICE,         /* slice: lower:upper:step (only inside a subscript) */
  CR_AST_TUPLE,         /* seq */
  CR_AST_LIST,          /* seq */
  CR_AST_DICT,          /* dict */
  CR_AST_IFEXP,         /* ifexp: body if test else orelse */
  CR_AST_LAMBDA,        /* func (name "<lambda>", body = one RETURN statement) */
  CR_AST_JOINEDSTR,     /* seq of CONSTANT str and FORMATTEDVALUE */
  CR_AST_FORMATTEDVALUE,/* formatted: {value!conv:spec} */
  CR_AST_LISTCOMP,      /* comp: [elt for target in iter if cond] */
  CR_AST_STARRED,       /* starred: *value in a call or a target */
  CR_AST_ELLIPSIS,      /* ... */
  CR_AST_SET,           /* seq: {a, b} */
  CR_AST_YIELD,         /* yield_expr: yield value (value NULL: yield None) */
  CR_AST_YIELD_FROM,    /* yield_expr: yield from value */

  /* ---- statements ---- */
  CR_AST_EXPR,          /* expr_stmt: value */
  CR_AST_ASSIGN,        /* assign: targets = value (a = b = value: 2 targets) */
  CR_AST_AUGASSIGN,     /* augassign: target op= value */
  CR_AST_ANNASSIGN,     /* assign with one target (x: int = 3); value NULL for `x: int` */
  CR_AST_IF,            /* if_stmt */
  CR_AST_FOR,           /* for_stmt */
  CR_AST_WHILE,         /* while_stmt */
  CR_AST_BREAK,
  CR_AST_CONTINUE,
  CR_AST_PASS,
  CR_AST_RETURN,        /* ret: value may be NULL */
  CR_AST_FUNCTIONDEF,   /* func */
  CR_AST_CLASSDEF,      /* cls */
  CR_AST_WITH,          /* with_stmt */
  CR_AST_IMPORT,        /* import: import a.b as c, d (module NULL, names "a.b" and "d") */
  CR_AST_IMPORTFROM,    /* import: from a.b import c as d, e (module NULL for `from . import x`;
                         * level: the number of leading dots; name "*" for `import *`) */
  CR_AST_ASSERT,        /* assert_stmt */
  CR_AST_RAISE,         /* raise: exc may be NULL */
  CR_AST_DEL,           /* seq: targets */
  CR_AST_GLOBAL,        /* names */
  CR_AST_NONLOCAL,      /* names */
  CR_AST_TRY,           /* try_stmt */
  CR_AST_COUNT
} CrAstKind;

typedef enum {
  CR_CONST_NONE,
  CR_CONST_BOOL,
  CR_CONST_INT,
  CR_CONST_FLOAT,
  CR_CONST_STR,
} CrConstKind;

/* Binary and augmented-assignment operators. */
typedef enum {
  CR_BINOP_ADD,       /* + */
  CR_BINOP_SUB,       /* - */
  CR_BINOP_MUL,       /* * */
  CR_BINOP_MATMUL,    /* @ */
  CR_BINOP_DIV,       /* / */
  CR_BINOP_FLOORDIV,  /* // */
  CR_BINOP_MOD,       /* % */
  CR_BINOP_POW,       /* ** */
  CR_BINOP_LSHIFT,    /* << */
  CR_BINOP_RSHIFT,    /* >> */
  CR_BINOP_BITOR,     /* | */
  CR_BINOP_BITXOR,    /* ^ */
  CR_BINOP_BITAND,    /* & */
  CR_BINOP_COUNT
} CrBinOp;

typedef enum {
  CR_UNOP_NEG,        /* -x */
  CR_UNOP_POS,        /* +x */
  CR_UNOP_NOT,        /* not x */
  CR_UNOP_INVERT,     /* ~x */
} CrUnOp;

typedef enum {
  CR_CMP_EQ, CR_CMP_NE, CR_CMP_LT, CR_CMP_LE, CR_CMP_GT, CR_CMP_GE,
  CR_CMP_IS, CR_CMP_IS_NOT, CR_CMP_IN, CR_CMP_NOT_IN,
} CrCmpOp;

/* A parameter of def/lambda: name, optional default; *args / **kwargs kinds. */
typedef enum {
  CR_PARAM_NORMAL,
  CR_PARAM_VARARGS,     /* *args */
  CR_PARAM_KWARGS,      /* **kwargs */
  CR_PARAM_KWONLY,      /* after * or *args */
} CrParamKind;

typedef struct {
  const char  *name;
  CrAstNode   *default_value;   /* NULL: none */
  CrParamKind  kind;
  CrSpan       span;
} CrAstParam;

typedef struct {
  const char  *name;            /* NULL for **expr in a call */
  CrAstNode   *value;
  CrSpan       span;
} CrAstKeyword;

/* import a.b.c as d  → module "a.b.c", asname "d" (NULL when absent).
 * from m import x as y → name "x", asname "y". */
typedef struct {
  const char  *name;
  const char  *asname;
  CrSpan       span;
} CrAstAlias;

typedef struct {
  CrAstNode   *context_expr;
  CrAstNode   *optional_vars;   /* NULL when no "as" */
} CrAstWithItem;

/* The deepest tree the parser accepts; deeper nesting is Python's
 * "RecursionError: maximum recursion depth exceeded during compilation"
 * (Python 3.11 stops at the same depth, about 3000). */
#define CR_AST_MAX_DEPTH 2990

/* Arrays: a count and a pointer into the module's arena. */
#define CR_AST_ARRAY(type, field) guint n_##field; type *field

/* except [type [as name]]: body. type NULL for a bare except. */
typedef struct {
  CrAstNode   *type;
  const char  *name;            /* NULL when no "as" */
  CR_AST_ARRAY (CrAstNode *, body);
  CrSpan       span;            /* the except line */
} CrAstExceptHandler;

struct _CrAstNode {
  CrAstKind  kind;
  CrSpan     span;
  int        depth;       /* nesting depth of this subtree (1: a leaf); at most
                           * CR_AST_MAX_DEPTH, so a recursive walk is bounded */
  union {
    struct { CrConstKind kind; gboolean b; gint64 i; double f; const char *s; gsize s_len; } constant;
    struct { const char *id; gpointer cache; } name;   /* cache: for the interpreter's use */
    struct { CrBinOp op; CrAstNode *left, *right; } binop;
    struct { CrUnOp op; CrAstNode *operand; } unaryop;
    struct { gboolean is_and; CR_AST_ARRAY (CrAstNode *, values); } boolop;
    struct { CrAstNode *left; CR_AST_ARRAY (CrCmpOp, ops); CR_AST_ARRAY (CrAstNode *, comparators); } compare;
    struct { CrAstNode *func; CR_AST_ARRAY (CrAstNode *, args); CR_AST_ARRAY (CrAstKeyword, keywords); } call;
    struct { CrAstNode *value; const char *attr; CrSpan attr_span; } attribute;
    struct { CrAstNode *value; CrAstNode *index; } subscript;
    struct { CrAstNode *lower, *upper, *step; } slice;          /* each may be NULL */
    struct { CR_AST_ARRAY (CrAstNode *, elts); } seq;           /* TUPLE, LIST, SET, JOINEDSTR, DEL */
    struct { CR_AST_ARRAY (CrAstNode *, keys); CR_AST_ARRAY (CrAstNode *, values); } dict;
    struct { CrAstNode *test, *body, *orelse; } ifexp;
    struct { CrAstNode *value; int conversion; CrAstNode *format_spec; } formatted; /* conversion: 0, 'r', 's', 'a'; spec: JOINEDSTR or NULL */
    struct {
      CrAstNode *elt;                 /* NULL in an inner clause; a dict
                                       * comprehension's value */
      CrAstNode *key;                 /* {key: elt for ...}; NULL otherwise */
      CrAstNode *target;
      CrAstNode *iter;
      CR_AST_ARRAY (CrAstNode *, ifs);
      CrAstNode *inner;               /* the next for-clause, or NULL */
      gboolean   is_generator;        /* (x for x in v) rather than [...] */
      gboolean   is_set;              /* {x for x in v} */
    } comp;
    struct { CrAstNode *value; } starred;
    struct { CrAstNode *value; } yield_expr;                    /* YIELD, YIELD_FROM */

    struct { CrAstNode *value; } expr_stmt;
    struct { CR_AST_ARRAY (CrAstNode *, targets); CrAstNode *value; CrAstNode *annotation; } assign;
    struct { CrAstNode *target; CrBinOp op; CrAstNode *value; } augassign;
    struct { CrAstNode *test; CR_AST_ARRAY (CrAstNode *, body); CR_AST_ARRAY (CrAstNode *, orelse); } if_stmt;
    struct { CrAstNode *target; CrAstNode *iter; CR_AST_ARRAY (CrAstNode *, body); CR_AST_ARRAY (CrAstNode *, orelse); } for_stmt;
    struct { CrAstNode *test; CR_AST_ARRAY (CrAstNode *, body); CR_AST_ARRAY (CrAstNode *, orelse); } while_stmt;
    struct { CrAstNode *value; } ret;
    struct {
      const char *name;
      CR_AST_ARRAY (CrAstParam, params);
      CR_AST_ARRAY (CrAstNode *, body);
      CR_AST_ARRAY (CrAstNode *, decorators);
    } func;
    struct {
      const char *name;
      CR_AST_ARRAY (CrAstNode *, bases);
      CR_AST_ARRAY (CrAstNode *, body);
      CR_AST_ARRAY (CrAstNode *, decorators);
    } cls;
    struct { CR_AST_ARRAY (CrAstWithItem, items); CR_AST_ARRAY (CrAstNode *, body); } with_stmt;
    struct { const char *module; int level; CR_AST_ARRAY (CrAstAlias, names); } import;
    struct { CrAstNode *test; CrAstNode *msg; } assert_stmt;
    struct { CrAstNode *exc; CrAstNode *cause; } raise;   /* raise exc from cause */
    struct { CR_AST_ARRAY (const char *, names); } names;
    struct {
      CR_AST_ARRAY (CrAstNode *, body);
      CR_AST_ARRAY (CrAstExceptHandler, handlers);
      CR_AST_ARRAY (CrAstNode *, orelse);
      CR_AST_ARRAY (CrAstNode *, finalbody);
    } try_stmt;
  } u;
};

/* A parsed script: its statements, its source (kept for tracebacks and the
 * editor), and the arena every node and string lives in. */
typedef struct {
  char        *filename;    /* owned, e.g. "toy.py" or "<stdin>" */
  char        *source;      /* owned copy of the text, as Python reads it: a
                             * UTF-8 BOM dropped, "\r\n" and "\r" made "\n",
                             * and a final "\n" added when missing */
  CR_AST_ARRAY (CrAstNode *, body);
  gpointer     arena;       /* private */
} CrAstModule;

/* Parse text (length -1: NUL-terminated). On error returns NULL and a
 * CR_LANG_ERROR with code CR_EXC_SYNTAX_ERROR (or CR_EXC_INDENTATION_ERROR)
 * whose message is Python's ("invalid syntax", "unexpected indent", "'(' was
 * never closed", ...) and whose span is written to *error_span (may be NULL);
 * the span is where Python 3.11 points (its SyntaxError lineno and offset;
 * column 0 where Python's offset is 0: the end of the input, a dedent, a NUL
 * byte), except inside an f-string's expression, where Python 3.11 points
 * into a copy of the expression and Chainrule into the file. A tree too deep to walk safely is CR_EXC_RECURSION_ERROR, like Python's
 * compiler. Constructs outside the language (async, bytes,
 * complex numbers, ...) are a SyntaxError "... are not supported in
 * Chainrule scripts", reported, like Python's compile-time errors, only when
 * the whole text is otherwise valid. */
CrAstModule *cr_parse            (const char   *source,
                                  gssize        length,
                                  const char   *filename,
                                  CrSpan       *error_span,
                                  GError      **error);

/* What a parse may be asked beyond cr_parse (). */
typedef struct {
  /* Set non-zero from any thread to stop the parse, as CrInterpOptions'
   * flag stops a run: 1 fails with CR_EXC_KEYBOARD_INTERRUPT, 2 with
   * CR_EXC_TIMEOUT_ERROR (the runner's --timeout). May be NULL. */
  const gint  *cancel_flag;
  /* Bytes the syntax tree and the parser's own tables may take (0: no
   * limit); past it the parse fails with CR_EXC_MEMORY_ERROR. */
  gsize        max_memory;
} CrParseOptions;

/* cr_parse () with options (NULL: none). */
CrAstModule *cr_parse_with_options (const char           *source,
                                    gssize                length,
                                    const char           *filename,
                                    const CrParseOptions *options,
                                    CrSpan               *error_span,
                                    GError              **error);
void         cr_ast_module_free  (CrAstModule  *module);   /* NULL-safe */

/* The text of line (1-based) of source, without its newline; a new string. */
char        *cr_source_line      (const char   *source,
                                  int           line);
/* The text span covers on its first line (to the line's end when the span
 * goes on), trimmed; a new string, "" when it covers nothing; NULL when
 * source is NULL or the span unknown (line <= 0). */
char        *cr_source_span_text (const char   *source,
                                  const CrSpan *span);

/* "Call", "Name", ... for debugging and tests. */
const char  *cr_ast_kind_name    (CrAstKind     kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrAstModule, cr_ast_module_free)

G_END_DECLS
