/* cr-path-tour.h — the multivariate chain rule walked on the graph: for
 * one element of a leaf, each of its paths to the loss in turn (the
 * path's nodes and edges lit, the product of its local derivatives
 * written out), then a last view of all of them lit with their sum, which
 * equals the leaf's .grad there. No GTK: the window (ui/cr-window-paths.c)
 * and the tests show what it says. The paths: core/teach/cr-paths.h. */
#pragma once

#include <glib.h>

#include "cr-graph-highlight.h"
#include "cr-paths.h"
#include "cr-run-record.h"

G_BEGIN_DECLS

/* At most this many paths are walked one by one; past them the last view
 * sums the paths found (and says it is cut). */
#define CR_PATH_TOUR_MAX_PATHS 64

typedef struct _CrPathTour CrPathTour;

/* The tour of element `element` (row-major) of leaf `leaf` (record tensor
 * index) in backward call `backward` (-1: the first .backward() that
 * reaches it), at its first path. NULL with error as cr_path_sum_new (an
 * op whose per-element derivatives the record does not keep, a leaf not
 * reached ...). record is referenced. */
CrPathTour       *cr_path_tour_new          (CrRunRecord  *record,
                                             int           backward,
                                             int           leaf,
                                             gint64        element,
                                             GError      **error);
void              cr_path_tour_free         (CrPathTour   *self);   /* NULL-safe */

/* The paths' sum (borrowed). */
const CrPathSum  *cr_path_tour_get_sum      (const CrPathTour *self);
/* Views: one per path, then the sum: n_paths + 1. */
guint             cr_path_tour_get_n_views  (const CrPathTour *self);
guint             cr_path_tour_get_view     (const CrPathTour *self);
/* Clamped to the last view. */
void              cr_path_tour_set_view     (CrPathTour   *self,
                                             guint         view);
/* Whether the view shown is the sum of all paths. */
gboolean          cr_path_tour_is_sum_view  (const CrPathTour *self);
/* The record items the view lights (new reference). */
CrGraphHighlight *cr_path_tour_highlight    (const CrPathTour *self);
/* "Path 2 of 3 from a[0, 0]", "All 3 paths from a[0, 0]" (new string). */
char             *cr_path_tour_title        (const CrPathTour *self);
/* The path as a chain, "a[0, 0] → b[0, 0] → d[0, 0] → L", or for the sum
 * view, "path 1 + path 2 + path 3" (new string). */
char             *cr_path_tour_chain        (const CrPathTour *self);
/* The arithmetic: "0.25 × (-0.5) × 1 × (-1) × 1 = 0.125", or for the sum
 * view, "0.125 + (-1) = -0.875 = a.grad[0, 0]" (new string). */
char             *cr_path_tour_product      (const CrPathTour *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrPathTour, cr_path_tour_free)

G_END_DECLS
