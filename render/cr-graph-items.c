/* cr-graph-items.c — a drawing told as its items (cr-graph-items.h). */
#include "cr-graph-items.h"

#include <string.h>

#define FNV_PRIME G_GUINT64_CONSTANT (1099511628211)

guint64
cr_graph_digest_bytes (guint64       digest,
                       gconstpointer bytes,
                       gsize         n)
{
  const guint8 *p = bytes;
  for (gsize i = 0; i < n; i++)
    digest = (digest ^ p[i]) * FNV_PRIME;
  return digest;
}

guint64
cr_graph_digest_string (guint64     digest,
                        const char *text)
{
  if (!text)
    return cr_graph_digest_int (digest, -1);
  return cr_graph_digest_bytes (digest, text, strlen (text) + 1);
}

guint64
cr_graph_digest_double (guint64 digest,
                        double  value)
{
  return cr_graph_digest_bytes (digest, &value, sizeof value);
}

guint64
cr_graph_digest_int (guint64 digest,
                     gint64  value)
{
  return cr_graph_digest_bytes (digest, &value, sizeof value);
}

GArray *
cr_graph_items_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (CrGraphItem));
}

void
cr_graph_items_add (GArray  *items,
                    double   x0,
                    double   y0,
                    double   x1,
                    double   y1,
                    double   margin,
                    guint64  digest)
{
  if (!items)
    return;
  CrGraphItem item = { MIN (x0, x1) - margin, MIN (y0, y1) - margin, MAX (x0, x1) + margin,
                       MAX (y0, y1) + margin, digest };
  g_array_append_val (items, item);
}

/* The box is part of what is compared: the digest first, as it differs
 * most. */
static int
compare_items (gconstpointer pa,
               gconstpointer pb)
{
  const CrGraphItem *a = pa, *b = pb;
  if (a->digest != b->digest)
    return a->digest < b->digest ? -1 : 1;
  const double va[4] = { a->x0, a->y0, a->x1, a->y1 }, vb[4] = { b->x0, b->y0, b->x1, b->y1 };
  for (int i = 0; i < 4; i++)
    if (va[i] != vb[i])
      return va[i] < vb[i] ? -1 : 1;
  return 0;
}

static gboolean
is_whole (const CrGraphItem *item)
{
  return item->x1 - item->x0 >= CR_GRAPH_ITEM_WHOLE;
}

static gboolean
add_dirty (GArray            *dirty,
           const CrGraphItem *item)
{
  if (is_whole (item))
    return FALSE;
  double r[4] = { item->x0, item->y0, item->x1, item->y1 };
  g_array_append_vals (dirty, r, 4);
  return TRUE;
}

gboolean
cr_graph_items_diff (GArray *a,
                     GArray *b,
                     GArray *dirty)
{
  g_return_val_if_fail (a != NULL && b != NULL && dirty != NULL, FALSE);
  g_array_sort (a, compare_items);
  g_array_sort (b, compare_items);
  guint start = dirty->len, i = 0, j = 0;
  gboolean ok = TRUE;
  while (ok && (i < a->len || j < b->len))
    {
      const CrGraphItem *p = i < a->len ? &g_array_index (a, CrGraphItem, i) : NULL;
      const CrGraphItem *q = j < b->len ? &g_array_index (b, CrGraphItem, j) : NULL;
      int c = !p ? 1 : !q ? -1 : compare_items (p, q);
      if (c == 0)
        {
          i++;
          j++;
        }
      else if (c < 0)
        {
          ok = add_dirty (dirty, p);
          i++;
        }
      else
        {
          ok = add_dirty (dirty, q);
          j++;
        }
    }
  if (!ok)
    g_array_set_size (dirty, start);
  return ok;
}
