/* cr-graph-regions.h — the script's grad-mode regions (`with
 * torch.no_grad():`, enable_grad, set_grad_enabled(False), inference_mode,
 * @torch.no_grad()) drawn as boxes around the nodes made in them, titled on
 * their top edge ("no_grad · line 18"), behind the graph. They look unlike
 * a module call's box (blue, dashed): grey and hatched where gradients are
 * off, green where enable_grad turns them back on.
 *
 * A node is in region r when it draws a tensor made under it (the record's
 * CrRecordTensor.region), or a tensor whose source lies within the
 * region's lines (in the same loop iteration), or, for enable_grad, such an
 * op. Regions with no node in the
 * graph get no box. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cr-graph-layout.h"
#include "cr-graph-model.h"

G_BEGIN_DECLS

typedef struct {
  guint   region;               /* index in record->regions */
  char   *title;                /* "no_grad · line 18" (owned) */
  double  x, y, width, height;  /* the box, in layout points */
  double  title_x, title_y, title_width, title_height; /* its title's tag, on the top edge */
  GArray *nodes;                /* of guint: the model nodes in it (owned) */
} CrGraphRegionBox;

/* The boxes of the record's regions that hold a node of model as laid out
 * by layout, type scaled by k (1; presentation: larger): a new array of
 * CrGraphRegionBox (its clear func frees their fields), empty when none. */
GArray *cr_graph_regions_boxes (const CrGraphModel  *model,
                                const CrGraphLayout *layout,
                                double               k);
/* Draws the boxes (light or dark style), behind the edges and nodes ... */
void    cr_graph_regions_draw        (cairo_t             *cr,
                                      const CrGraphModel  *model,
                                      const CrGraphLayout *layout,
                                      gboolean             dark,
                                      double               k);
/* ... and their titles, over the edges that cross them. */
void    cr_graph_regions_draw_titles (cairo_t             *cr,
                                      const CrGraphModel  *model,
                                      const CrGraphLayout *layout,
                                      gboolean             dark,
                                      double               k);

G_END_DECLS
