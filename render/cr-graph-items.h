/* cr-graph-items.h — a drawing told as its items: each thing drawn (a
 * node, an edge, a label, a badge) as the box it is drawn within and a
 * digest of everything that decides how it looks.
 *
 * Two drawings' items say where they differ: an item found in one and not
 * in the other was drawn, moved or changed there, and only the pixels in
 * its boxes can differ. The canvas keeps its painted tiles but those; a
 * step, a highlight or a re-run then paints a few tiles, not all of them.
 * What the whole drawing shares (the style, the type's size, the module
 * boxes) is one item whose box covers everything (CR_GRAPH_ITEM_WHOLE).
 * The items are made by cr_graph_render () itself (options->items), next
 * to the code that draws them, so that what is drawn and what is compared
 * cannot part. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A box that covers the whole drawing, whatever its size. */
#define CR_GRAPH_ITEM_WHOLE 1e30

typedef struct {
  double  x0, y0, x1, y1;      /* layout points: every pixel it draws is inside */
  guint64 digest;              /* of how it is drawn (FNV-1a over its inputs) */
} CrGraphItem;

/* Building a digest: start with CR_GRAPH_DIGEST_INIT, then feed it. */
#define CR_GRAPH_DIGEST_INIT G_GUINT64_CONSTANT (14695981039346656037)

guint64  cr_graph_digest_bytes  (guint64        digest,
                                 gconstpointer  bytes,
                                 gsize          n);
/* A string and its end (NULL differs from ""). */
guint64  cr_graph_digest_string (guint64        digest,
                                 const char    *text);
guint64  cr_graph_digest_double (guint64        digest,
                                 double         value);
guint64  cr_graph_digest_int    (guint64        digest,
                                 gint64         value);

/* A new array of CrGraphItem. */
GArray  *cr_graph_items_new     (void);
/* Appends the item drawn within x0 .. x1, y0 .. y1 grown by margin on
 * every side. items: NULL does nothing. */
void     cr_graph_items_add     (GArray        *items,
                                 double         x0,
                                 double         y0,
                                 double         x1,
                                 double         y1,
                                 double         margin,
                                 guint64        digest);
/* Where drawing b differs from drawing a: the box of each item of one not
 * found (its box and digest alike) in the other, appended to dirty (of
 * double: x0, y0, x1, y1 in layout points). FALSE, with nothing appended:
 * a whole item differs (everything must be drawn again). Sorts a and b. */
gboolean cr_graph_items_diff    (GArray        *a,
                                 GArray        *b,
                                 GArray        *dirty);

G_END_DECLS
