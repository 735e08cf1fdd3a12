/* cr-step-card-pages.h — the step card read in parts, for a presenter whose
 * clicker sends only Page Down and Page Up and cannot scroll.
 *
 * A part is what the card's scrolled window shows at once. Page Down moves
 * the view down to the next block of the card (a section such as
 * "Accumulated", or a formula inside a long section) that is not yet wholly
 * in view, so the block that was cut at the bottom comes up whole; Page Up
 * goes back the same way. Blocks are found in the card's widget tree: each
 * child of the card's content and each child of a widget with the CSS class
 * "cr-section", so the card decides what a block is and this file keeps no
 * knowledge of its sections. Nothing here holds state: the position is the
 * scrolled window's own. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Shows the next part of the card in scroller. FALSE (nothing moved) when
 * the end of the card is in view already: the caller goes to the next step. */
gboolean cr_step_card_pages_next       (GtkScrolledWindow *scroller);
/* Shows the previous part. FALSE when the top is in view already. */
gboolean cr_step_card_pages_previous   (GtkScrolledWindow *scroller);
/* The first part: for a step reached going forward. */
void     cr_step_card_pages_show_first (GtkScrolledWindow *scroller);
/* The last part, once the card just built has its size: for a step reached
 * going back, so Page Up returns to where the step ended. */
void     cr_step_card_pages_show_last  (GtkScrolledWindow *scroller);
/* How many parts the card has (1 when it fits) and which one is in view
 * (0-based), as Page Down would walk them from the top. */
guint    cr_step_card_pages_count      (GtkScrolledWindow *scroller,
                                        guint             *current);

G_END_DECLS
