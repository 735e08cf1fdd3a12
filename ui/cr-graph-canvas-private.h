/* cr-graph-canvas-private.h — the canvas's state, shared by its source
 * files (cr-graph-canvas.c: the model, view and animations;
 * cr-graph-canvas-draw.c: a frame; cr-graph-canvas-input.c: pointer, touch
 * and keys), and what the tests reach: the hit test and a click, without
 * synthesising pointer events. */
#pragma once

#include "cr-graph-canvas.h"
#include "cr-graph-layout.h"
#include "cr-graph-render.h"
#include "cr-graph-tiles.h"

G_BEGIN_DECLS

#define CR_GRAPH_CANVAS_ZOOM_MIN 0.05
#define CR_GRAPH_CANVAS_ZOOM_MAX 4.0
/* Space kept around the graph when fitting, in pixels. */
#define CR_GRAPH_CANVAS_MARGIN   16.0

struct _CrGraphCanvas
{
  GtkWidget           parent_instance;

  CrGraphModel       *model;
  CrGraphLayout      *layout;
  CrGraphRenderCache *cache;
  guint              *tab_order;       /* node ids, left to right then top to bottom */
  int                 step;
  int                 selected;
  gboolean            dimmed, presentation, animate;

  /* The view: a graph point p is drawn at (tx + zoom * p.x, ty + zoom * p.y). */
  double              zoom, tx, ty;
  gboolean            need_fit;        /* fit at the next allocation */
  gboolean            auto_view;       /* nobody moved the view since it was fitted */
  int                 last_width, last_height;

  /* Nodes gliding to their new places: each node's offset from its place
   * at the start (graph units; 0 for new nodes), and their opacity. */
  CrGraphLayout      *display;         /* the layout as drawn during the morph */
  double             *morph_dx, *morph_dy;
  gboolean           *morph_new;
  double             *alpha;
  gint64              morph_start;
  gboolean            morphing;

  gint64              pulse_start;
  gboolean            pulsing;
  double              pulse;

  /* The view gliding to another: zoom and the graph point at the centre. */
  gboolean            gliding;
  gint64              glide_start;
  double              glide_from[3], glide_to[3];

  guint               tick_id;

  /* The cached drawing in tiles (cr-graph-canvas-draw.c), each with its
   * render node, of the kind the renderer paints fastest (tiles_as_cairo);
   * an idle source draws the tiles around the view ahead of a pan. */
  CrGraphTiles       *tiles;
  gboolean            tiles_as_cairo;
  guint               tiles_idle;
  /* The edge labels' places (cr_graph_render_label_boxes), placed once for
   * all the tiles of a layout: the model, layout and cache they are for. */
  double             *label_boxes;
  gconstpointer       label_boxes_for[3];
  /* After a re-run: the tiles of the drawing before it and the items they
   * show (owned), until the next frame keeps those where the new drawing
   * does not differ (cr-graph-canvas-draw.c). */
  struct _CrGraphCanvasKept *kept;

  /* Gestures. */
  double              drag_tx, drag_ty;
  gboolean            dragging;
  double              pinch_zoom, pinch_tx, pinch_ty;
  double              pointer_x, pointer_y;
  gboolean            has_pointer;
  gboolean            pointer_moved;   /* since it came in: only then a node is hovered */
  double              pointer_rest[2]; /* where it came in, on the window's surface */
  int                 hovered;         /* the node under the pointer, or -1 */

  /* The overlay whose controls float over the canvas (borrowed; see
   * cr-graph-canvas-floating.c), watched for controls coming and going. */
  GtkWidget          *floating_parent;

  /* Module code (cr-graph-canvas-groups.c): the model as run, its groups,
   * which are open (by group id), and the collapse drawn: self->model is
   * collapse->model while groups exist. */
  CrGraphModel       *full_model;
  CrGraphGroups      *groups;
  gboolean           *groups_open;
  CrGraphCollapse    *collapse;
  guint               groups_level;    /* the level last set (a click opens more) */
  gboolean           *groups_open_at_level; /* what groups_level opened (owned): a view
                                        * that differs was opened or closed by hand */
  CrGraphGroups      *offered_groups;  /* the next model's, made on a worker (owned) */

  /* Which way the graph flows (cr-graph-canvas.c: follows the pane's
   * shape, kept across edits), and the model laid out the other way
   * (owned, made when a fit asks which reads better; NULL: not yet). */
  CrGraphLayoutDirection direction;
  CrGraphLayout      *other_layout;

  /* A path of the chain rule lit (cr-graph-canvas-highlight.c; owned), NULL. */
  CrGraphHighlight   *highlight;

  /* The forward pass stepped (cr-graph-canvas-forward.c): the model's
   * forward ops (record op indices, owned), the one shown (-1: none, all
   * computed) and each drawn node's CrGraphForwardState then (owned, NULL
   * when none is shown). */
  GArray             *forward_ops;
  int                 forward_step;
  guint8             *forward_states;

  /* Practice: the current step's gradients unlabelled until revealed. */
  gboolean            hide_step_gradients;

  /* Activating a node (cr-graph-canvas-popover.c): the popover shown at
   * popover_node (a child; NULL: none), and what its tooltip says. */
  GtkWidget          *popover;
  int                 popover_node;
  CrGraphCanvasActionHint action_hint;
  gpointer            action_hint_data;

  /* What the tiles show, as items (cr-graph-items.h; owned, NULL: not
   * known, as in miniature), and whether the drawing changed in what the
   * tiles' key does not hold (a highlight, the forward step): the next
   * frame paints again only the tiles where the items differ. */
  GArray             *tiles_items;
  gboolean            tiles_changed;
};

/* The node under (x, y) in widget coordinates, or -1. */
int      cr_graph_canvas_pick        (CrGraphCanvas *self,
                                      double         x,
                                      double         y);
/* What a primary click at (x, y) does: select the node there or clear. */
void     cr_graph_canvas_click_at    (CrGraphCanvas *self,
                                      double         x,
                                      double         y);
/* What a primary double click at (x, y) does: select the node there and
 * activate it; FALSE: no node there, or nothing handled it. */
gboolean cr_graph_canvas_double_click_at (CrGraphCanvas *self,
                                          double         x,
                                          double         y);
/* Where node_id's centre is drawn now, in widget coordinates. */
gboolean cr_graph_canvas_node_center (CrGraphCanvas *self,
                                      int            node_id,
                                      double        *x,
                                      double        *y);

/* For cr-graph-canvas-draw.c. */
void     cr_graph_canvas_snapshot    (GtkWidget     *widget,
                                      GtkSnapshot   *snapshot);
void     cr_graph_canvas_clear_scene (CrGraphCanvas *self);
/* What the tiles show changed (a highlight, the forward step, the
 * practice flag): the next frame paints again the tiles it touches. */
void     cr_graph_canvas_drawing_changed (CrGraphCanvas *self);
/* A new model is coming (a re-run): keeps the tiles and what they were
 * painted from, for the next frame to compare; call before the groups,
 * model, layout and text cache go. */
void     cr_graph_canvas_keep_drawing (CrGraphCanvas *self);
/* The tile cache gone for good (dispose). */
void     cr_graph_canvas_free_scene  (CrGraphCanvas *self);
void     cr_graph_canvas_fill_render_options (CrGraphCanvas        *self,
                                              CrGraphRenderOptions *options);

/* For cr-graph-canvas-input.c. */
void     cr_graph_canvas_init_input  (CrGraphCanvas *self);
void     cr_graph_canvas_update_cursor (CrGraphCanvas *self);
/* The layout as drawn now (mid-animation, or the model's). */
const CrGraphLayout *cr_graph_canvas_drawn_layout (CrGraphCanvas *self);
void     cr_graph_canvas_box_center  (const CrGraphBox *b,
                                      double           *x,
                                      double           *y);
/* Zoom to z keeping the graph point under (px, py) in place. */
void     cr_graph_canvas_zoom_around (CrGraphCanvas *self,
                                      double         z,
                                      double         px,
                                      double         py);
/* Pan: the layout's origin to (tx, ty) in widget coordinates. */
void     cr_graph_canvas_move_to     (CrGraphCanvas *self,
                                      double         tx,
                                      double         ty);
/* Bring b (graph points: a node's or an open group's box) into sight as
 * a step's node is: along an axis where it is out of sight or under a
 * floating control, centred as far as the graph goes; smoothly when
 * animating. */
void     cr_graph_canvas_scroll_to_box (CrGraphCanvas    *self,
                                        const CrGraphBox *b);

/* cr-graph-canvas-groups.c: takes full (the model as run) and returns the
 * model to show (a new ref): full itself without groups, else its collapse
 * with the groups open to the level that shows about 40 nodes. */
CrGraphModel *cr_graph_canvas_groups_take  (CrGraphCanvas *self,
                                            CrGraphModel  *full);
void     cr_graph_canvas_groups_clear      (CrGraphCanvas *self);
/* A click at (x, y) in widget coordinates, on node_id of the shown model
 * (-1: none): a closed group opens, a click on an open group's title
 * closes it (TRUE: done). */
gboolean cr_graph_canvas_groups_click      (CrGraphCanvas *self,
                                            int            node_id,
                                            double         x,
                                            double         y);
/* For cr-graph-canvas.c: show another collapse of the same run, keeping
 * the step and the nodes' places. */
void     cr_graph_canvas_show_collapsed    (CrGraphCanvas *self,
                                            CrGraphModel  *shown);

/* cr-graph-canvas-floating.c: the part of the canvas (area: x0, y0, x1,
 * y1 in widget pixels) that no control floating over it covers, with the
 * band for each control cut on the side that leaves a graph of gw × gh
 * points the most room (margin: kept on every side when fitting). The
 * whole canvas outside a GtkOverlay. */
void     cr_graph_canvas_free_area       (CrGraphCanvas *self,
                                          double         gw,
                                          double         gh,
                                          double         margin,
                                          double         area[4]);
/* Moves a view of layout at zoom z (tx, ty: where its origin lands) the
 * least so that every node lies inside the canvas less margin and none
 * under a floating control: a graph that fits beside the zoom buttons
 * though not below their band. FALSE (tx, ty unchanged): no such place. */
gboolean cr_graph_canvas_clear_place     (CrGraphCanvas       *self,
                                          const CrGraphLayout *layout,
                                          double               z,
                                          double               margin,
                                          double              *tx,
                                          double              *ty);
/* Refit when a control floating over the canvas appears or goes. */
void     cr_graph_canvas_watch_floating  (CrGraphCanvas *self);
/* For cr-graph-canvas-floating.c: fit again if the view is still the one
 * the canvas chose (nobody moved it). */
void     cr_graph_canvas_refit_if_auto   (CrGraphCanvas *self);

/* For cr-graph-canvas-fit.c: the view and the drawing as cr-graph-canvas.c
 * keeps them. */
void     cr_graph_canvas_set_view         (CrGraphCanvas *self,
                                           double         z,
                                           double         tx,
                                           double         ty);
void     cr_graph_canvas_stop_gliding     (CrGraphCanvas *self);
void     cr_graph_canvas_end_morph        (CrGraphCanvas *self);
void     cr_graph_canvas_update_tab_order (CrGraphCanvas *self);

/* cr-graph-canvas-fit.c: the first view. Where along one axis a graph of
 * length g at zoom z goes in the free span v0..v1 (centred when it fits,
 * else around the anchor a0..a1, or at the far end for the output). */
double   cr_graph_canvas_place_axis       (double         v0,
                                           double         v1,
                                           double         g,
                                           double         z,
                                           double         a0,
                                           double         a1,
                                           gboolean       end,
                                           double         margin);
/* The margin kept around the layout fitted at zoom z (negative in
 * presentation: the layout's pad may go off screen). */
double   cr_graph_canvas_fit_margin       (CrGraphCanvas *self,
                                           double         z);
/* The view that fits the graph (whole: however small; else readable);
 * FALSE before the widget has a size. */
gboolean cr_graph_canvas_fitted_view      (CrGraphCanvas *self,
                                           gboolean       whole,
                                           double        *z_out,
                                           double        *tx_out,
                                           double        *ty_out);
/* Fit at once (a new graph, a new size). */
void     cr_graph_canvas_fit              (CrGraphCanvas *self,
                                           gboolean       whole);
/* The model laid out top to bottom with its leaves beside their ops (see
 * cr_graph_layout_new_beside), or NULL. */
CrGraphLayout *cr_graph_canvas_layout_beside (CrGraphCanvas *self,
                                              GError       **error);
/* The way the graph flows and whether its leaves stand beside their ops,
 * for the canvas's size (fresh: a new graph or mode). */
void     cr_graph_canvas_choose_direction (CrGraphCanvas *self,
                                           gboolean       fresh);

/* cr-graph-canvas-follow.c (presentation): a node's span, its box and
 * those of the nodes it is joined to by an edge (x0, y0, x1, y1 in graph
 * points); FALSE without one. */
gboolean cr_graph_canvas_node_span       (CrGraphCanvas *self,
                                          guint          node_id,
                                          double         span[4]);
/* The nodes the view keeps in sight with node_id at a step (new array of
 * guint): every node an edge joins it to; forward (a forward op): the
 * tensors it computes from (a leaf behind its AccumulateGrad too) and the
 * box of its result, not the ops that will use it. */
GArray  *cr_graph_canvas_step_neighbours (CrGraphCanvas *self,
                                          guint          node_id,
                                          gboolean       forward);
/* What the view shows of step at zoom z in room_w × room_h pixels: the
 * span of its node where it fits, else (along that axis) the node's own
 * box. FALSE when no node is the step's. */
gboolean cr_graph_canvas_step_span       (CrGraphCanvas *self,
                                          int            step,
                                          double         z,
                                          double         room_w,
                                          double         room_h,
                                          double         span[4]);

/* cr-graph-canvas-popover.c: the popover moved with its node (the view
 * changed), laid out (size_allocate), closed (a new graph, dispose); the
 * tooltip's line for what activating node_id does, or NULL. */
void        cr_graph_canvas_popover_follow   (CrGraphCanvas *self);
void        cr_graph_canvas_popover_present  (CrGraphCanvas *self);
void        cr_graph_canvas_popover_close    (CrGraphCanvas *self);
const char *cr_graph_canvas_node_action_hint (CrGraphCanvas *self,
                                              int            node_id);

/* cr-graph-canvas-forward.c: a new model shown (keep_step: the same run's
 * other view), and the canvas going away. */
void cr_graph_canvas_forward_model_changed (CrGraphCanvas *self,
                                            gboolean       keep_step);
void cr_graph_canvas_forward_dispose       (CrGraphCanvas *self);

G_END_DECLS
