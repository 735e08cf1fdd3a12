/* cr-graph-canvas.h — the graph of a run: drawn by the Cairo renderer in the
 * libadwaita light or dark style, with zoom (ctrl+scroll, pinch, +/-), pan
 * (drag), fit (0), node selection (click, Tab/Shift+Tab) and the current
 * backward step highlighted, its gradient travelling along the edges it is
 * sent on. A new model of an edited script keeps the nodes that remain in
 * their places where possible and animates the change. */
#pragma once

#include <gtk/gtk.h>

#include "cr-graph-model.h"
#include "cr-graph-groups.h"
#include "cr-graph-highlight.h"

G_BEGIN_DECLS

#define CR_TYPE_GRAPH_CANVAS (cr_graph_canvas_get_type ())
G_DECLARE_FINAL_TYPE (CrGraphCanvas, cr_graph_canvas, CR, GRAPH_CANVAS, GtkWidget)

/* Properties: "step" (int), "n-steps" (uint), "selected" (int), "zoom"
 * (double, 1.0 = 100 %), "dimmed" (boolean), "presentation" (boolean). */
GtkWidget          *cr_graph_canvas_new         (void);
/* Takes model (NULL clears the canvas); lays it out. FALSE with error when the
 * layout failed (the canvas is then empty). The step goes back to -1; the
 * selection stays on the node with the same key, if any. */
gboolean            cr_graph_canvas_take_model  (CrGraphCanvas *self,
                                                 CrGraphModel  *model,
                                                 GError       **error);
const CrGraphModel *cr_graph_canvas_get_model   (CrGraphCanvas *self);
/* The module groups of the next model taken (cr_graph_groups_new() of it,
 * made on the run's worker: for a 5,000-node graph, 16 ms the main thread
 * need not spend); taken over, dropped unless that model comes next. */
void                cr_graph_canvas_offer_groups (CrGraphCanvas *self,
                                                  CrGraphGroups *groups);
guint               cr_graph_canvas_get_n_steps (CrGraphCanvas *self);
/* -1: before the backward call (nothing highlighted); 0 .. n_steps - 1. */
int                 cr_graph_canvas_get_step    (CrGraphCanvas *self);
void                cr_graph_canvas_set_step    (CrGraphCanvas *self,
                                                 int            step);

/* The selected node's id, or -1. Setting it scrolls the node into view. */
int                 cr_graph_canvas_get_selected (CrGraphCanvas *self);
void                cr_graph_canvas_set_selected (CrGraphCanvas *self,
                                                  int            node_id);
/* Tab order: left to right, then top to bottom; wraps around. */
void                cr_graph_canvas_select_next  (CrGraphCanvas *self,
                                                  gboolean       backwards);

double              cr_graph_canvas_get_zoom     (CrGraphCanvas *self);
void                cr_graph_canvas_set_zoom     (CrGraphCanvas *self,
                                                  double         zoom);
void                cr_graph_canvas_zoom_in      (CrGraphCanvas *self);
void                cr_graph_canvas_zoom_out     (CrGraphCanvas *self);
/* Zoom and pan so the whole graph fits (as a new model does at first). */
void                cr_graph_canvas_zoom_fit     (CrGraphCanvas *self);
/* Fits the view anew, as a new graph is (around the current step when the
 * whole would be too small to read), once the canvas has its next size: the
 * script was shown or hidden. */
void                cr_graph_canvas_refit        (CrGraphCanvas *self);

/* The last good graph while the script has an error: drawn faded. */
void                cr_graph_canvas_set_dimmed      (CrGraphCanvas *self,
                                                     gboolean       dimmed);
/* Presentation mode: larger type, thicker lines, high contrast. */
void                cr_graph_canvas_set_presentation (CrGraphCanvas *self,
                                                      gboolean       presentation);
/* Animations (the travelling gradient, layout changes) off, for tests. */
void                cr_graph_canvas_set_animate      (CrGraphCanvas *self,
                                                      gboolean       animate);

/* Module code (cr-graph-canvas-groups.c): a model with module calls shows
 * them as groups, those below the level closed (one node each, "+": a click
 * opens it). height: 1 + the deepest level, 0 without groups; level: the
 * groups above it are open (height: all). A new model opens to the level
 * showing about 40 nodes. */
guint               cr_graph_canvas_get_group_height (CrGraphCanvas *self);
guint               cr_graph_canvas_get_group_level  (CrGraphCanvas *self);
void                cr_graph_canvas_set_group_level  (CrGraphCanvas *self,
                                                      guint          level);
/* Whether groups were opened or closed by hand since the level was set (or
 * the model shown), so that no one level shows what is open. */
gboolean            cr_graph_canvas_get_group_level_mixed (CrGraphCanvas *self);
/* The step that "next" (direction +1) or "previous" (-1) goes to when a
 * closed group steps as one unit (cr_graph_collapse_next_step), clamped to
 * -1 .. n_steps - 1; without groups step ± 1. */
int                 cr_graph_canvas_step_unit        (CrGraphCanvas *self,
                                                      int            direction);
/* The keys' group (O, C): the selected node, else the current step's.
 * open_group opens it when it is a closed group; close_group closes the
 * innermost open group holding it and selects the closed group's node.
 * TRUE when something opened or closed. */
gboolean            cr_graph_canvas_open_group       (CrGraphCanvas *self);
gboolean            cr_graph_canvas_close_group      (CrGraphCanvas *self);
/* The depth control for the canvas's zoom bar: "Depth" with a spin button,
 * shown only while the graph has groups. */
GtkWidget          *cr_graph_depth_control_new       (CrGraphCanvas *canvas);

/* A part of the graph lit, the rest faded (cr-graph-canvas-highlight.c):
 * a path of the chain rule. highlight is taken (a reference); NULL: none. */
void                cr_graph_canvas_set_highlight (CrGraphCanvas    *self,
                                                   CrGraphHighlight *highlight);
CrGraphHighlight   *cr_graph_canvas_get_highlight (CrGraphCanvas    *self);

/* What the canvas shows (the whole graph, the current step and selection,
 * the current style) to a PNG, SVG or PDF file, chosen by path's extension. */
gboolean            cr_graph_canvas_export       (CrGraphCanvas *self,
                                                  const char    *path,
                                                  GError       **error);

/* The forward pass stepped (cr-graph-canvas-forward.c): the model's
 * forward ops in the order they ran (cr_graph_forward_ops), one of them
 * shown computing: it is ringed, and what is not computed yet is faint with
 * its values hidden. -1 (a new model's): none, every node computed. The
 * backward step is the canvas's "step", apart from this. */
guint               cr_graph_canvas_get_n_forward_steps (CrGraphCanvas *self);
int                 cr_graph_canvas_get_forward_step    (CrGraphCanvas *self);
void                cr_graph_canvas_set_forward_step    (CrGraphCanvas *self,
                                                         int            step);
/* The record op computing at the forward step shown, or -1. */
int                 cr_graph_canvas_get_forward_op      (CrGraphCanvas *self);
/* Whether node (an id of the drawn model) is computed as of the forward
 * step shown: its values may be shown. TRUE when no step is shown. */
gboolean            cr_graph_canvas_node_computed       (CrGraphCanvas *self,
                                                         int            node);

/* Activating a node (cr-graph-canvas-popover.c): a double-click on it, or
 * Enter or F2 while it is selected, emits "node-activated" (int node id,
 * returns gboolean: TRUE when a handler did something with it). */
gboolean            cr_graph_canvas_activate_node (CrGraphCanvas *self,
                                                   int            node_id);
/* What activating node_id of model does, in a line its tooltip adds (a
 * static string), or NULL where activating does nothing. */
typedef const char *(*CrGraphCanvasActionHint) (const CrGraphModel *model,
                                                guint               node_id,
                                                gpointer            user_data);
/* user_data is borrowed: it must outlive the canvas or be unset first. */
void                cr_graph_canvas_set_action_hint (CrGraphCanvas           *self,
                                                     CrGraphCanvasActionHint  func,
                                                     gpointer                 user_data);
/* Shows popover (taken: a floating or new reference) pointing at node_id,
 * following it as the view moves; it goes when it is closed, when another
 * is shown and when the graph is replaced (a re-run). */
void                cr_graph_canvas_popup_at_node (CrGraphCanvas *self,
                                                   GtkWidget     *popover,
                                                   int            node_id);
/* The popover shown at a node (borrowed), or NULL. */
GtkPopover         *cr_graph_canvas_get_popover   (CrGraphCanvas *self);

/* Practice (predict, then reveal): the gradients the current step sends
 * are not labelled on their edges until hide is FALSE again
 * (cr-graph-canvas-draw.c). */
void                cr_graph_canvas_set_hide_step_gradients (CrGraphCanvas *self,
                                                             gboolean       hide);

G_END_DECLS
