/* cr-memory.h — the process-wide budget for host memory, which tensor
 * storage (cr-storage.c, where it is kept) and the interpreter's own
 * objects share. The language runtime counts its values with it without
 * knowing tensors. */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

/* One process-wide budget for host memory (default 4 GiB, `--max-memory`):
 * tensor storage and the interpreter's objects (lists, strings, dicts...)
 * both count against it; device memory is bounded by its own allocator. */
void         cr_memory_set_limit       (gsize          bytes);
gsize        cr_memory_get_limit       (void);
gsize        cr_memory_in_use          (void);

/* Accounting for memory that is not tensor storage. cr_memory_reserve
 * charges nbytes when they fit under the limit and returns FALSE (charging
 * nothing) when they do not: for allocations whose size is known before
 * they are made. cr_memory_charge charges or (negative) gives back bytes
 * unconditionally: for small growth, which cr_memory_exceeded reports at the
 * caller's next checkpoint. Every byte charged must be given back. */
gboolean     cr_memory_reserve         (gsize          nbytes);
void         cr_memory_charge          (gssize         nbytes);
/* TRUE when what is charged is over the limit. */
gboolean     cr_memory_exceeded        (void);
/* TRUE when nbytes more would still fit (charges nothing). */
gboolean     cr_memory_fits            (gsize          nbytes);

G_END_DECLS
