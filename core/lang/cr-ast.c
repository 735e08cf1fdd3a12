/* cr-ast.c — the syntax tree's memory, and small helpers around it.
 *
 * A module's nodes and arrays come from a bump allocator (blocks of 32 KiB),
 * its strings from a GStringChunk: parsing allocates nothing per node from
 * malloc, and freeing a module is a handful of free () calls.
 */
#include "cr-ast-private.h"

#include <string.h>

#define BLOCK_SIZE (32 * 1024)

struct _CrArena {
  GPtrArray    *blocks;      /* of g_malloc'ed blocks */
  char         *cur;
  gsize         left;
  GStringChunk *strings;
  gsize         bytes;       /* blocks and strings so far */
};

CrArena *
cr_arena_new (void)
{
  CrArena *self = g_new0 (CrArena, 1);

  self->blocks = g_ptr_array_new_with_free_func (g_free);
  self->strings = g_string_chunk_new (4096);
  return self;
}

void
cr_arena_free (CrArena *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->blocks);
  g_string_chunk_free (self->strings);
  g_free (self);
}

gpointer
cr_arena_alloc (CrArena *self,
                gsize    size)
{
  gpointer mem;

  size = (size + 7) & ~(gsize) 7;
  if (size > self->left)
    {
      if (size > BLOCK_SIZE / 4)
        {
          /* A big array gets a block of its own; the current one stays. */
          mem = g_malloc0 (size);
          g_ptr_array_add (self->blocks, mem);
          self->bytes += size;
          return mem;
        }
      self->cur = g_malloc (BLOCK_SIZE);
      self->left = BLOCK_SIZE;
      self->bytes += BLOCK_SIZE;
      g_ptr_array_add (self->blocks, self->cur);
    }
  mem = self->cur;
  self->cur += size;
  self->left -= size;
  memset (mem, 0, size);
  return mem;
}

gpointer
cr_arena_memdup (CrArena       *self,
                 gconstpointer  data,
                 gsize          size)
{
  gpointer mem;

  if (size == 0)
    return NULL;
  mem = cr_arena_alloc (self, size);
  memcpy (mem, data, size);
  return mem;
}

const char *
cr_arena_strndup (CrArena    *self,
                  const char *s,
                  gsize       len)
{
  self->bytes += len + 1;
  return g_string_chunk_insert_len (self->strings, s, (gssize) len);
}

const char *
cr_arena_intern (CrArena    *self,
                 const char *s,
                 gsize       len)
{
  char stack_buf[64];
  const char *result;

  /* Counted as if new: an upper bound. */
  self->bytes += len + 1;
  if (len < sizeof stack_buf)
    {
      memcpy (stack_buf, s, len);
      stack_buf[len] = '\0';
      return g_string_chunk_insert_const (self->strings, stack_buf);
    }
  else
    {
      char *tmp = g_strndup (s, len);

      result = g_string_chunk_insert_const (self->strings, tmp);
      g_free (tmp);
      return result;
    }
}

gsize
cr_arena_size (CrArena *self)
{
  return self->bytes;
}

void
cr_ast_module_free (CrAstModule *module)
{
  if (module == NULL)
    return;
  cr_arena_free (module->arena);
  g_free (module->filename);
  g_free (module->source);
  g_free (module);
}

/* Where line (from 1) starts in source, or NULL past its last line. */
static const char *
line_start (const char *source,
            int         line)
{
  const char *p = source;
  for (int i = 1; i < line; i++)
    {
      p = strpbrk (p, "\r\n");
      if (p == NULL)
        return NULL;
      /* "\r\n" and a lone "\r" end a line too, as in Python. */
      if (p[0] == '\r' && p[1] == '\n')
        p++;
      p++;
    }
  return p;
}

char *
cr_source_line (const char *source,
                int         line)
{
  const char *p = source && line >= 1 ? line_start (source, line) : NULL;
  if (p == NULL)
    return g_strdup ("");
  return g_strndup (p, strcspn (p, "\r\n"));
}

/* n characters on from p, stopping at end. */
static const char *
skip_chars (const char *p,
            const char *end,
            glong       n)
{
  for (glong i = 0; i < n && p < end; i++)
    p = g_utf8_next_char (p);
  return MIN (p, end);
}

char *
cr_source_span_text (const char   *source,
                     const CrSpan *span)
{
  if (!source || span->line <= 0)
    return NULL;
  /* Read in place: the recorder asks for a span's text at every op of every
   * loop iteration. */
  const char *line = line_start (source, span->line);
  if (line == NULL)
    return g_strdup ("");
  const char *line_end = line + strcspn (line, "\r\n");
  glong start = span->column > 0 ? (glong) span->column - 1 : 0;
  const char *from = skip_chars (line, line_end, start);
  const char *to = line_end;
  if (span->end_line == span->line && span->end_column > span->column)
    to = skip_chars (from, line_end, (glong) span->end_column - 1 - start);
  return g_strstrip (g_strndup (from, (gsize) (to - from)));
}

const char *
cr_ast_kind_name (CrAstKind kind)
{
  static const char *const names[CR_AST_COUNT] = {
    [CR_AST_CONSTANT] = "Constant",
    [CR_AST_NAME] = "Name",
    [CR_AST_BINOP] = "BinOp",
    [CR_AST_UNARYOP] = "UnaryOp",
    [CR_AST_BOOLOP] = "BoolOp",
    [CR_AST_COMPARE] = "Compare",
    [CR_AST_CALL] = "Call",
    [CR_AST_ATTRIBUTE] = "Attribute",
    [CR_AST_SUBSCRIPT] = "Subscript",
    [CR_AST_SLICE] = "Slice",
    [CR_AST_TUPLE] = "Tuple",
    [CR_AST_LIST] = "List",
    [CR_AST_DICT] = "Dict",
    [CR_AST_IFEXP] = "IfExp",
    [CR_AST_LAMBDA] = "Lambda",
    [CR_AST_JOINEDSTR] = "JoinedStr",
    [CR_AST_FORMATTEDVALUE] = "FormattedValue",
    [CR_AST_LISTCOMP] = "ListComp",
    [CR_AST_STARRED] = "Starred",
    [CR_AST_ELLIPSIS] = "Ellipsis",
    [CR_AST_SET] = "Set",
    [CR_AST_YIELD] = "Yield",
    [CR_AST_YIELD_FROM] = "YieldFrom",
    [CR_AST_EXPR] = "Expr",
    [CR_AST_ASSIGN] = "Assign",
    [CR_AST_AUGASSIGN] = "AugAssign",
    [CR_AST_ANNASSIGN] = "AnnAssign",
    [CR_AST_IF] = "If",
    [CR_AST_FOR] = "For",
    [CR_AST_WHILE] = "While",
    [CR_AST_BREAK] = "Break",
    [CR_AST_CONTINUE] = "Continue",
    [CR_AST_PASS] = "Pass",
    [CR_AST_RETURN] = "Return",
    [CR_AST_FUNCTIONDEF] = "FunctionDef",
    [CR_AST_CLASSDEF] = "ClassDef",
    [CR_AST_WITH] = "With",
    [CR_AST_IMPORT] = "Import",
    [CR_AST_IMPORTFROM] = "ImportFrom",
    [CR_AST_ASSERT] = "Assert",
    [CR_AST_RAISE] = "Raise",
    [CR_AST_DEL] = "Delete",
    [CR_AST_GLOBAL] = "Global",
    [CR_AST_NONLOCAL] = "Nonlocal",
    [CR_AST_TRY] = "Try",
  };

  if ((guint) kind >= CR_AST_COUNT || names[kind] == NULL)
    return "?";
  return names[kind];
}
