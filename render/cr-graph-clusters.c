/* cr-graph-clusters.c — open module calls as graphviz clusters (see
 * cr-graph-clusters.h). */
#include "cr-graph-clusters.h"

/* The title's type size and the space around a cluster's nodes, as
 * cr-graph-groups-draw.c draws them: its pango type is sized at 96 dpi,
 * graphviz's at 72 (a point is a layout unit), so dot is given the size
 * the title has in layout units, and its font, to reserve room enough. */
#define CLUSTER_TITLE_SIZE (8.5 * 96.0 / 72.0)
#define CLUSTER_TITLE_FONT "Sans Bold"
#define CLUSTER_MARGIN     10.0

Agraph_t **
cr_graph_clusters_add (Agraph_t           *g,
                       const CrGraphModel *model,
                       Agnode_t          **gnodes,
                       double              label_font_size)
{
  if (!model->clusters || model->clusters->len == 0)
    return NULL;
  double k = label_font_size / CR_GRAPH_LAYOUT_LABEL_SIZE;
  guint n = model->clusters->len;
  Agraph_t **subgraphs = g_new0 (Agraph_t *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const CrGraphCluster *c = g_ptr_array_index (model->clusters, i);
      Agraph_t *parent = c->parent >= 0 && (guint) c->parent < i ? subgraphs[c->parent] : g;
      char name[32];
      g_snprintf (name, sizeof name, "cluster_%u", i);
      Agraph_t *sg = agsubg (parent, name, 1);
      subgraphs[i] = sg;
      /* Dot reserves the title's room; we draw the title ourselves. */
      agsafeset (sg, (char *) "label", c->title ? c->title : (char *) "", "");
      agsafeset (sg, (char *) "labeljust", (char *) "l", "");
      agsafeset (sg, (char *) "labelloc", (char *) "t", "");
      char buf[32];
      g_ascii_dtostr (buf, sizeof buf, CLUSTER_TITLE_SIZE * k);
      agsafeset (sg, (char *) "fontsize", buf, "");
      agsafeset (sg, (char *) "fontname", (char *) CLUSTER_TITLE_FONT, "");
      g_ascii_dtostr (buf, sizeof buf, CLUSTER_MARGIN * k);
      agsafeset (sg, (char *) "margin", buf, "");
      for (guint j = 0; j < c->nodes->len; j++)
        {
          guint node = g_array_index (c->nodes, guint, j);
          if (node < model->nodes->len && gnodes[node])
            agsubnode (sg, gnodes[node], 1);
        }
    }
  return subgraphs;
}

void
cr_graph_clusters_read (CrGraphLayout      *layout,
                        const CrGraphModel *model,
                        Agraph_t          **subgraphs,
                        double              x0,
                        double              top)
{
  if (!subgraphs)
    return;
  guint n = model->clusters->len;
  layout->n_clusters = n;
  layout->clusters = g_new0 (CrGraphBox, n + 1);
  for (guint i = 0; i < n; i++)
    {
      boxf bb = GD_bb (subgraphs[i]);
      CrGraphBox *b = &layout->clusters[i];
      b->x = bb.LL.x - x0;
      b->y = top - bb.UR.y;
      b->width = bb.UR.x - bb.LL.x;
      b->height = bb.UR.y - bb.LL.y;
    }
  g_free (subgraphs);
}
