/* cr-slab.h — small-object memory for the structs a graph is made of (tensors,
 * storages, backward nodes).
 *
 * A scalar script makes and frees several of these per op, and a graph of 150k
 * nodes holds them all at once: malloc's per-object headers, its free-list
 * work and one page fault per 4 KiB page were a third of such a run. Objects
 * here come from 2 MiB chunks (transparent huge pages where the system allows
 * them on request), in size classes of 64 bytes, each object aligned to a
 * cache line. Freed objects are kept per thread and handed between threads
 * in batches, so memory is reused by whichever thread allocates next: what is
 * held is bounded by the peak of live objects, never growing from one graph
 * to the next.
 *
 * Under AddressSanitizer every object is a plain g_malloc() so that a use
 * after free is still caught; with CHAINRULE_SLAB_MALLOC set too, so that
 * valgrind sees a leaked object or a use after free. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Objects larger than this are plain g_malloc() blocks. */
#define CR_SLAB_MAX_SIZE 1024

/* size bytes, 64-byte aligned when size <= CR_SLAB_MAX_SIZE, uninitialised. */
gpointer     cr_slab_alloc             (gsize     size);
/* The same, zero-filled. */
gpointer     cr_slab_alloc0            (gsize     size);
/* Gives back mem, which cr_slab_alloc{,0} (size) returned (NULL-safe). Any
 * thread may free what another allocated. */
void         cr_slab_free              (gpointer  mem,
                                        gsize     size);

/* Whether big blocks should ask for transparent huge pages: the system grants
 * them on request (/sys/kernel/mm/transparent_hugepage/enabled) and
 * CHAINRULE_NO_HUGEPAGES is not set. */
gboolean     cr_slab_huge_pages        (void);

G_END_DECLS
