/* cr-tensor-view.h — a tensor as a person reads it: a scalar as a number, a
 * small vector or matrix as a grid of numbers, a large tensor as its shape,
 * statistics and a heat map. Used by the step card and the inspector. */
#pragma once

#include <gtk/gtk.h>

#include "cr-tensor-snapshot.h"

G_BEGIN_DECLS

/* A new widget showing snapshot (NULL: "None"). Copies what it needs. */
GtkWidget *cr_tensor_view_new (const CrTensorSnapshot *snapshot);

/* Whether widget is the heat map of a large tensor's view, and whether two
 * heat maps show the same cells (cr-widget-same.h). */
gboolean   cr_tensor_view_is_heat_map   (GtkWidget *widget);
gboolean   cr_tensor_view_same_heat_map (GtkWidget *a,
                                         GtkWidget *b);
/* Whether widget is a small tensor's matrix of numbers, and whether two show
 * the same numbers. A matrix writes its numbers shorter while its window is
 * presenting (at presentation's type four columns of four decimals are wider
 * than the sidebar), so its labels are not what to compare. */
gboolean   cr_tensor_view_is_number_matrix   (GtkWidget *widget);
gboolean   cr_tensor_view_same_number_matrix (GtkWidget *a,
                                              GtkWidget *b);

G_END_DECLS
