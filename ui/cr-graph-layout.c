/* cr-graph-layout.c — run graphviz's `dot` on a CrGraphModel.
 *
 * Graphviz only places things: nodes are fixed-size empty boxes of the sizes
 * the renderer measured, and we read back their centres, the edge splines
 * and the label positions, flipping y (graphviz's grows upwards). */
#include "cr-graph-layout.h"

#include <gvc.h>

/* One context for the process: creating one loads graphviz's plugins. */
static GVC_t *
context (void)
{
  static gsize gvc;
  if (g_once_init_enter (&gvc))
    g_once_init_leave (&gvc, (gsize) gvContext ());
  return (GVC_t *) gvc;
}

static void
set_double (void       *obj,
            const char *name,
            double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.4f", value);
  agsafeset (obj, (char *) name, buf, "");
}

void
cr_graph_layout_free (CrGraphLayout *self)
{
  if (!self)
    return;
  for (guint i = 0; i < self->n_edges; i++)
    g_free (self->edges[i].points);
  g_free (self->edges);
  g_free (self->nodes);
  g_free (self);
}

/* The point halfway along a path, each Bézier segment taking an equal share. */
static void
path_middle (const CrGraphPath *p,
             double            *x,
             double            *y)
{
  guint n_seg = (p->n_points - 1) / 3;
  double s = n_seg / 2.0;
  guint i = MIN ((guint) s, n_seg - 1);
  double t = s - i, mt = 1 - t;
  const double *q = p->points + 6 * i;
  *x = mt * mt * mt * q[0] + 3 * mt * mt * t * q[2] + 3 * mt * t * t * q[4] + t * t * t * q[6];
  *y = mt * mt * mt * q[1] + 3 * mt * mt * t * q[3] + 3 * mt * t * t * q[5] + t * t * t * q[7];
}

CrGraphLayout *
cr_graph_layout_copy (const CrGraphLayout *self)
{
  if (!self)
    return NULL;
  CrGraphLayout *copy = g_memdup2 (self, sizeof *self);
  copy->nodes = g_memdup2 (self->nodes, sizeof (CrGraphBox) * (self->n_nodes + 1));
  copy->edges = g_memdup2 (self->edges, sizeof (CrGraphPath) * (self->n_edges + 1));
  for (guint i = 0; i < self->n_edges; i++)
    copy->edges[i].points = g_memdup2 (self->edges[i].points,
                                       sizeof (double) * 2 * self->edges[i].n_points);
  return copy;
}

CrGraphLayout *
cr_graph_layout_new (const CrGraphModel *model,
                     const double       *node_sizes,
                     double              label_font_size,
                     GError            **error)
{
  g_return_val_if_fail (model != NULL && (node_sizes != NULL || model->nodes->len == 0), NULL);

  GVC_t *gvc = context ();
  Agraph_t *g = agopen ((char *) "chainrule", Agdirected, NULL);
  agsafeset (g, (char *) "rankdir", (char *) "LR", "");
  agsafeset (g, (char *) "nodesep", (char *) "0.3", "");
  /* Room between ranks for an edge's shape label ("3×3", "scalar"). */
  set_double (g, "ranksep", (label_font_size * 4.2 + 12) / 72.0);
  agsafeset (g, (char *) "splines", (char *) "spline", "");
  agsafeset (g, (char *) "pad", (char *) "0.3", "");

  guint n_nodes = model->nodes->len;
  g_autofree Agnode_t **gnodes = g_new0 (Agnode_t *, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "n%u", i);
      Agnode_t *n = agnode (g, name, 1);
      agsafeset (n, (char *) "shape", (char *) "box", "");
      agsafeset (n, (char *) "fixedsize", (char *) "true", "");
      agsafeset (n, (char *) "label", (char *) "", "");
      set_double (n, "width", node_sizes[2 * i] / 72.0);
      set_double (n, "height", node_sizes[2 * i + 1] / 72.0);
      gnodes[i] = n;
    }
  guint n_edges = model->edges->len;
  g_autofree Agedge_t **gedges = g_new0 (Agedge_t *, n_edges + 1);
  for (guint i = 0; i < n_edges; i++)
    {
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      char name[32];
      g_snprintf (name, sizeof name, "e%u", i);
      Agedge_t *ge = agedge (g, gnodes[e->from], gnodes[e->to], name, 1);
      gedges[i] = ge;
    }

  if (gvLayout (gvc, g, "dot") != 0)
    {
      agclose (g);
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                           "graphviz could not lay out the graph (is its dot layout plugin installed?)");
      return NULL;
    }

  CrGraphLayout *self = g_new0 (CrGraphLayout, 1);
  boxf bb = GD_bb (g);
  double pad = 0.3 * 72;
  double x0 = bb.LL.x - pad;
  double top = bb.UR.y + pad;
  self->width = bb.UR.x - bb.LL.x + 2 * pad;
  self->height = bb.UR.y - bb.LL.y + 2 * pad;

  self->n_nodes = n_nodes;
  self->nodes = g_new0 (CrGraphBox, n_nodes + 1);
  for (guint i = 0; i < n_nodes; i++)
    {
      pointf c = ND_coord (gnodes[i]);
      CrGraphBox *b = &self->nodes[i];
      b->width = node_sizes[2 * i];
      b->height = node_sizes[2 * i + 1];
      b->x = c.x - x0 - b->width / 2;
      b->y = top - c.y - b->height / 2;
    }

  self->n_edges = n_edges;
  self->edges = g_new0 (CrGraphPath, n_edges + 1);
  for (guint i = 0; i < n_edges; i++)
    {
      Agedge_t *ge = gedges[i];
      CrGraphPath *p = &self->edges[i];
      splines *spl = ED_spl (ge);
      if (spl && spl->size > 0)
        {
          bezier *bz = &spl->list[0];
          p->n_points = (guint) bz->size;
          p->points = g_new (double, 2 * bz->size + 2);
          for (int k = 0; k < bz->size; k++)
            {
              p->points[2 * k] = bz->list[k].x - x0;
              p->points[2 * k + 1] = top - bz->list[k].y;
            }
          if (bz->eflag)
            {
              p->has_arrow = TRUE;
              p->arrow_x = bz->ep.x - x0;
              p->arrow_y = top - bz->ep.y;
            }
        }
      /* The shape label sits on the middle of its edge. Graphviz is not told
       * about it: its edge labels become virtual nodes that double the
       * space between ranks, and the graph turns twice as wide. */
      const CrGraphEdge *e = g_ptr_array_index (model->edges, i);
      if (e->label && p->n_points >= 4)
        {
          p->has_label = TRUE;
          path_middle (p, &p->label_x, &p->label_y);
        }
    }

  gvFreeLayout (gvc, g);
  agclose (g);
  return self;
}
