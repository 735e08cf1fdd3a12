/* cr-ast-private.h — the arena a CrAstModule's nodes, arrays and strings
 * live in (private to core/lang: the parser fills it, cr_ast_module_free
 * drops it in one go). */
#pragma once

#include "cr-ast.h"

G_BEGIN_DECLS

typedef struct _CrArena CrArena;

CrArena    *cr_arena_new       (void);
void        cr_arena_free      (CrArena     *self);   /* NULL-safe */

/* Zero-filled, 8-byte aligned, alive until the arena is freed. */
gpointer    cr_arena_alloc     (CrArena     *self,
                                gsize        size);
gpointer    cr_arena_memdup    (CrArena     *self,
                                gconstpointer data,
                                gsize        size);

/* A NUL-terminated copy of s[0, len) (s may hold NULs). */
const char *cr_arena_strndup   (CrArena     *self,
                                const char  *s,
                                gsize        len);

/* The one copy of the identifier s[0, len) in this arena. */
const char *cr_arena_intern    (CrArena     *self,
                                const char  *s,
                                gsize        len);

/* Bytes taken so far (an upper bound). */
gsize       cr_arena_size      (CrArena     *self);

G_END_DECLS
