/* cr-graph-render.h — draw a laid-out CrGraphModel with Cairo and Pango:
 * the canvas and `chainrule export` share this. Sizes are in points at
 * scale 1; scale the Cairo context to zoom. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cr-graph-model.h"
#include "cr-graph-layout.h"
#include "cr-graph-groups.h"
#include "cr-graph-highlight.h"

G_BEGIN_DECLS

/* Presentation mode's type (and the spacing around it) is this much larger. */
#define CR_GRAPH_RENDER_PRESENT_TYPE 1.3
/* Type smaller than this many pixels is not drawn when the options say how
 * large the drawing is shown (text_scale): nobody can read it. */
#define CR_GRAPH_RENDER_MIN_TEXT_PX 5.0

typedef enum {
  CR_GRAPH_STYLE_LIGHT,
  CR_GRAPH_STYLE_DARK,
} CrGraphStyle;

/* The text of one model shaped once (Pango layouts and their sizes), so that
 * drawing a frame only paints: the canvas keeps one per model. */
typedef struct _CrGraphRenderCache CrGraphRenderCache;

typedef struct {
  CrGraphStyle  style;
  int           current_step;     /* highlight the node of this backward step; -1: none */
  gboolean      draw_background;  /* fill the whole drawing first */
  /* Set to defaults by cr_graph_render_options_init (): */
  int           selected;         /* node id drawn with the selection ring; -1: none */
  gboolean      dimmed;           /* the whole graph faded (a stale graph) */
  gboolean      presentation;     /* larger type, thicker lines, more contrast */
  double        pulse;            /* 0..1: where the current step's gradient is along its
                                   * edges (it travels against the arrows); < 0: no pulse */
  const double *node_alpha;       /* per node id opacity (fading in), or NULL: all opaque */
  CrGraphRenderCache *cache;      /* borrowed, made for this model and presentation
                                   * setting; NULL: shaped on the fly */
  const CrGraphCollapse *collapse;/* borrowed: when model is its collapsed model, its open
                                   * module calls are drawn as boxes (NULL: none) */
  const double *label_boxes;      /* borrowed: cr_graph_render_label_boxes () for this
                                   * layout, placed once for many drawings (the canvas's
                                   * tiles); NULL: placed at each call */
  double        text_scale;       /* pixels per point the drawing is shown at, for its
                                   * level of detail: the small type (captions, values,
                                   * edge labels) is left out where it would be under
                                   * CR_GRAPH_RENDER_MIN_TEXT_PX; 0: all drawn (export) */
  CrGraphHighlight *highlight;    /* borrowed: its part of the graph lit, the rest faded
                                   * (a path of the chain rule); NULL: none */
  const guint8 *forward;          /* borrowed: stepping the forward pass, each node's
                                   * CrGraphForwardState (cr-graph-forward.h): the op
                                   * computing ringed, what is not computed yet faint
                                   * and without values; NULL: all computed */
  gboolean      hide_step_gradients; /* practice: the gradients current_step sends are not
                                   * labelled yet (the learner works them out first);
                                   * stepping forward, the value computed now */
  GArray       *items;            /* borrowed: when set, nothing is drawn; each item drawn
                                   * is appended to it instead, clip or not
                                   * (cr-graph-items.h; the canvas keeps the tiles an
                                   * item does not touch) */
  GArray       *badges;           /* borrowed: when set, of CrGraphBadgeBox
                                   * (cr-graph-render-badges.h): each badge's box as
                                   * placed is appended to it (for tests) */
} CrGraphRenderOptions;

void            cr_graph_render_options_init (CrGraphRenderOptions       *options);

CrGraphRenderCache *cr_graph_render_cache_new  (const CrGraphModel       *model,
                                                gboolean                  presentation);
void            cr_graph_render_cache_free   (CrGraphRenderCache         *self);   /* NULL-safe */
/* Each node's size from the cache (width, height pairs by node id; borrowed). */
const double   *cr_graph_render_cache_sizes  (CrGraphRenderCache         *self);
/* The step (0-based) whose gradient travels along edge `edge`, -1: none. */
int             cr_graph_render_cache_edge_step (CrGraphRenderCache      *self,
                                                 guint                    edge);
/* The scales cache's text and lines were made at (type and spacing k, line
 * width lw: 1, or larger for presentation), as the badges take them. */
void            cr_graph_render_cache_scales (const CrGraphRenderCache   *self,
                                              double                     *k,
                                              double                     *lw);

/* Where each edge's shape label and tensor name are drawn with layout (made
 * with cache's sizes): cr_graph_badges_label_boxes ()'s array (new). */
double         *cr_graph_render_label_boxes  (CrGraphRenderCache         *cache,
                                              const CrGraphLayout        *layout);
/* Each node's size (width, height pairs by node id, new array of 2 * n_nodes). */
double         *cr_graph_render_measure      (const CrGraphModel         *model);
/* The font size edge labels are drawn at (for cr_graph_layout_new). */
double          cr_graph_render_label_size   (void);
/* Measure and lay out in one go. */
CrGraphLayout  *cr_graph_render_layout       (const CrGraphModel         *model,
                                              GError                    **error);
/* Lay out with the sizes of cache (made for model). */
CrGraphLayout  *cr_graph_render_layout_cached (const CrGraphModel        *model,
                                               CrGraphRenderCache        *cache,
                                               GError                   **error);
/* The same in the given direction (the two above: left to right). */
CrGraphLayout  *cr_graph_render_layout_directed (const CrGraphModel      *model,
                                                 CrGraphRenderCache      *cache,
                                                 CrGraphLayoutDirection   direction,
                                                 GError                 **error);
/* Draws what the clip covers (nodes and edges outside it are skipped). */
void            cr_graph_render              (cairo_t                    *cr,
                                              const CrGraphModel         *model,
                                              const CrGraphLayout        *layout,
                                              const CrGraphRenderOptions *options);
/* Only the travelling gradient of options->current_step at options->pulse
 * (options->cache is needed): drawn over a cached drawing made with pulse < 0. */
void            cr_graph_render_pulse        (cairo_t                    *cr,
                                              const CrGraphModel         *model,
                                              const CrGraphLayout        *layout,
                                              const CrGraphRenderOptions *options);
/* A soft ring around node (the one under the pointer), over a cached drawing. */
void            cr_graph_render_hover        (cairo_t                    *cr,
                                              const CrGraphModel         *model,
                                              const CrGraphLayout        *layout,
                                              const CrGraphRenderOptions *options,
                                              int                         node);
/* The whole drawing to a PNG (at twice the size for sharp text, smaller for
 * huge graphs), SVG or PDF file, chosen by path's extension. */
gboolean        cr_graph_render_to_file      (const CrGraphModel         *model,
                                              const CrGraphLayout        *layout,
                                              const CrGraphRenderOptions *options,
                                              const char                 *path,
                                              GError                    **error);
/* Adds a closed rectangle path with corners of radius r (at most half the
 * shorter side) to cr: the one card, pill and box shape every drawing uses. */
void            cr_graph_rounded_path        (cairo_t                    *cr,
                                              double                      x,
                                              double                      y,
                                              double                      w,
                                              double                      h,
                                              double                      r);

G_END_DECLS
