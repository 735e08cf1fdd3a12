/* cr-scalar-view.h — "Inside one tensor op": a small op of the run drawn as
 * its scalar graph (core/teach/cr-op-scalars.h, drawn by render/ like the
 * run's graph), over the graph in the canvas's overlay. A bar on top names
 * the op and walks its backward step element by element (◀ element k of n
 * ▶, and the keys Left/Right, Page Up/Down, Home/End); the line under the
 * drawing says the current element's equation and what each input element
 * gets from it. Close (the button, or Escape) hides it and emits "closed". */
#pragma once

#include <gtk/gtk.h>

#include "cr-run-record.h"
#include "cr-op-scalars.h"

G_BEGIN_DECLS

#define CR_TYPE_SCALAR_VIEW (cr_scalar_view_get_type ())
G_DECLARE_FINAL_TYPE (CrScalarView, cr_scalar_view, CR, SCALAR_VIEW, GtkWidget)

GtkWidget         *cr_scalar_view_new          (void);
/* Shows op (index in record->ops) with the gradients of its step `step` of
 * backward call `backward` (-1, -1: its first step anywhere), at position
 * 0 (before any element). FALSE with error when it cannot be opened
 * (cr_op_scalars_new's errors); the view is unchanged then. Keeps a
 * reference on record. */
gboolean           cr_scalar_view_open         (CrScalarView *self,
                                                CrRunRecord  *record,
                                                int           op,
                                                int           backward,
                                                int           step,
                                                GError      **error);
/* The record shown (borrowed), NULL: none. */
CrRunRecord       *cr_scalar_view_get_record   (CrScalarView *self);
/* The op shown (index in record->ops), -1: none. */
int                cr_scalar_view_get_op       (CrScalarView *self);
/* The scalar graph shown (borrowed), NULL: none. */
const CrOpScalars *cr_scalar_view_get_scalars  (CrScalarView *self);
/* The position: 0 before any element, k + 1 after output element k
 * (cr_op_scalars_format_position). */
guint              cr_scalar_view_get_position (CrScalarView *self);
void               cr_scalar_view_set_position (CrScalarView *self,
                                                guint         position);
/* Handles a key the way the view's bar does (Left, Right, Page Up/Down,
 * Home, End, space, Escape); whether it was one. The window calls it while
 * the view shows, before its own stepper sees the key. */
gboolean           cr_scalar_view_handle_key   (CrScalarView *self,
                                                guint         keyval);
/* Larger type for presentation mode. */
void               cr_scalar_view_set_presentation (CrScalarView *self,
                                                    gboolean      presentation);
/* The text under the drawing (for tests). */
const char        *cr_scalar_view_get_text     (CrScalarView *self);
/* Hides the view, emits "closed". */
void               cr_scalar_view_close        (CrScalarView *self);

G_END_DECLS
