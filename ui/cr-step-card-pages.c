/* cr-step-card-pages.c — the step card read in parts with a clicker's Page
 * Down / Page Up: the view moves to the start of the next block that is cut
 * off, never by a blind screenful, so a formula is not split across parts
 * unless it is taller than the view itself. */
#include "cr-config.h"
#include "cr-step-card-pages.h"

/* A move shorter than this share of the view would hardly show anything
 * new: the block starting there is nearly as tall as the view, and its own
 * blocks (a section's formulas) are better places to stop. */
#define MIN_ADVANCE  0.25
/* Where no block boundary helps (one tall matrix): a screenful less a strip
 * that stays in view for context. */
#define BLIND_ADVANCE 0.85
/* Room above a block brought to the top, so its heading does not touch
 * the edge. */
#define TOP_MARGIN   6.0
/* How long show_last waits for the new card's size (in µs). */
#define SHOW_LAST_WINDOW_US (G_USEC_PER_SEC / 2)

typedef struct {
  double top, bottom;   /* in the scrolled content's coordinates */
} Block;

static GtkWidget *
viewport_of (GtkScrolledWindow *scroller)
{
  return gtk_scrolled_window_get_child (scroller);
}

/* Positions are taken relative to the card, not to the viewport: right
 * after the view moved the viewport has not placed the card anew yet. */
static void
add_block (GArray    *blocks,
           GtkWidget *widget,
           GtkWidget *card)
{
  if (!gtk_widget_get_visible (widget) || gtk_widget_get_height (widget) <= 0)
    return;
  graphene_point_t origin = GRAPHENE_POINT_INIT (0, 0), at;
  if (!gtk_widget_compute_point (widget, card, &origin, &at))
    return;
  Block b = { at.y, at.y + gtk_widget_get_height (widget) };
  g_array_append_val (blocks, b);
}

/* Every child of `parent` that counts as a block (see the header), and
 * those further down inside sections. */
static void
collect (GArray    *blocks,
         GtkWidget *parent,
         gboolean   children_are_blocks,
         GtkWidget *card,
         int        depth)
{
  if (depth > 12)
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (parent); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      if (children_are_blocks)
        add_block (blocks, child, card);
      collect (blocks, child, gtk_widget_has_css_class (child, "cr-section"), card, depth + 1);
    }
}

static GArray *
blocks_of (GtkScrolledWindow *scroller)
{
  GArray *blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  GtkWidget *viewport = viewport_of (scroller);
  GtkWidget *card = viewport ? gtk_widget_get_first_child (viewport) : NULL;
  if (!card)
    return blocks;
  /* The card's content: the first widget down the chain of only children
   * that holds several (the card → its box of sections). */
  GtkWidget *content = card;
  while (gtk_widget_get_first_child (content)
         && gtk_widget_get_first_child (content) == gtk_widget_get_last_child (content))
    content = gtk_widget_get_first_child (content);
  collect (blocks, content, TRUE, card, 0);
  /* Positions in the card count from inside its padding (GTK's widget
   * coordinates); the scrolled window's from its outer edge. */
  GtkBorder padding, border;
  GtkStyleContext *style = gtk_widget_get_style_context (card);
  gtk_style_context_get_padding (style, &padding);
  gtk_style_context_get_border (style, &border);
  double inset = gtk_widget_get_margin_top (card) + border.top + padding.top;
  for (guint i = 0; i < blocks->len; i++)
    {
      g_array_index (blocks, Block, i).top += inset;
      g_array_index (blocks, Block, i).bottom += inset;
    }
  return blocks;
}

/* Where a part that starts with block b begins: TOP_MARGIN above it, but
 * not so far up that the tail of the block before it (a matrix's bracket)
 * shows as a sliver at the top. */
static double
part_start (const GArray *blocks,
            const Block  *b)
{
  double start = b->top - TOP_MARGIN;
  for (guint i = 0; i < blocks->len; i++)
    {
      const Block *c = &g_array_index (blocks, Block, i);
      if (c->bottom <= b->top + 0.5)
        start = MAX (start, c->bottom);
    }
  return MIN (start, b->top);
}

/* Where Page Down from `value` goes; `value` itself when the end is in view. */
static double
next_value (const GArray *blocks,
            double        value,
            double        page,
            double        upper)
{
  double last = MAX (upper - page, 0);
  if (page <= 0 || value >= last - 0.5)
    return value;
  double bottom = value + page;
  double target = G_MAXDOUBLE;
  for (guint i = 0; i < blocks->len; i++)
    {
      const Block *b = &g_array_index (blocks, Block, i);
      gboolean cut = b->bottom > bottom + 0.5;
      double start = part_start (blocks, b);
      if (cut && start >= value + page * MIN_ADVANCE)
        target = MIN (target, start);
    }
  if (target == G_MAXDOUBLE)
    target = value + page * BLIND_ADVANCE;
  return MIN (target, last);
}

/* Where Page Up from `value` goes: the highest start of a block from which
 * the view reaches down to where it starts now. */
static double
previous_value (const GArray *blocks,
                double        value,
                double        page)
{
  if (page <= 0 || value <= 0.5)
    return value;
  double target = G_MAXDOUBLE;
  for (guint i = 0; i < blocks->len; i++)
    {
      const Block *b = &g_array_index (blocks, Block, i);
      double start = part_start (blocks, b);
      if (start >= value - page && start <= value - page * MIN_ADVANCE)
        target = MIN (target, start);
    }
  if (target == G_MAXDOUBLE)
    target = value - page * BLIND_ADVANCE;
  /* Close to the top: the top itself, where the card's header is. */
  if (target < page * MIN_ADVANCE)
    target = 0;
  return MAX (target, 0);
}

static gboolean
move (GtkScrolledWindow *scroller,
      gboolean           forward)
{
  g_return_val_if_fail (GTK_IS_SCROLLED_WINDOW (scroller), FALSE);
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);
  g_object_set_data (G_OBJECT (adj), "cr-pages-last-until", NULL);
  g_object_set_data (G_OBJECT (adj), "cr-pages-end-idle", NULL);
  double value = gtk_adjustment_get_value (adj);
  double page = gtk_adjustment_get_page_size (adj);
  double upper = gtk_adjustment_get_upper (adj);
  g_autoptr (GArray) blocks = blocks_of (scroller);
  /* A card built a moment ago (two presses in quick succession) has no
   * size yet: nothing to page through that could be trusted, so the
   * press steps on. */
  if (blocks->len == 0)
    return FALSE;
  double target = forward ? next_value (blocks, value, page, upper)
                          : previous_value (blocks, value, page);
  if (forward ? target <= value + 0.5 : target >= value - 0.5)
    return FALSE;
  gtk_adjustment_set_value (adj, target);
  return TRUE;
}

gboolean
cr_step_card_pages_next (GtkScrolledWindow *scroller)
{
  return move (scroller, TRUE);
}

gboolean
cr_step_card_pages_previous (GtkScrolledWindow *scroller)
{
  return move (scroller, FALSE);
}

void
cr_step_card_pages_show_first (GtkScrolledWindow *scroller)
{
  g_return_if_fail (GTK_IS_SCROLLED_WINDOW (scroller));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);
  g_object_set_data (G_OBJECT (adj), "cr-pages-last-until", NULL);
  g_object_set_data (G_OBJECT (adj), "cr-pages-end-idle", NULL);
  gtk_adjustment_set_value (adj, gtk_adjustment_get_lower (adj));
}

static gboolean
go_to_end_idle (gpointer data)
{
  GtkAdjustment *adj = data;
  g_object_steal_data (G_OBJECT (adj), "cr-pages-end-idle");
  gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
  return G_SOURCE_REMOVE;
}

static void
remove_source (gpointer id)
{
  g_source_remove (GPOINTER_TO_UINT (id));
}

/* The card was rebuilt before it was measured: the adjustment learns the
 * new height at the next layout, and the view goes to the end then. Not
 * from here: this runs while the viewport is laid out, which would not
 * move its card for a value set now (the label said the last part while
 * the card showed its top); once the frame is done. */
static void
on_adjustment_changed (GtkAdjustment *adj,
                       gpointer       user_data)
{
  gint64 *until = g_object_get_data (G_OBJECT (adj), "cr-pages-last-until");
  if (!until || g_get_monotonic_time () > *until
      || g_object_get_data (G_OBJECT (adj), "cr-pages-end-idle"))
    return;
  guint id = g_idle_add_full (G_PRIORITY_DEFAULT, go_to_end_idle, adj, NULL);
  g_object_set_data_full (G_OBJECT (adj), "cr-pages-end-idle", GUINT_TO_POINTER (id), remove_source);
}

void
cr_step_card_pages_show_last (GtkScrolledWindow *scroller)
{
  g_return_if_fail (GTK_IS_SCROLLED_WINDOW (scroller));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);
  if (!g_object_get_data (G_OBJECT (adj), "cr-pages-watching"))
    {
      g_signal_connect (adj, "changed", G_CALLBACK (on_adjustment_changed), NULL);
      g_object_set_data (G_OBJECT (adj), "cr-pages-watching", GINT_TO_POINTER (1));
    }
  gint64 *until = g_new (gint64, 1);
  *until = g_get_monotonic_time () + SHOW_LAST_WINDOW_US;
  g_object_set_data_full (G_OBJECT (adj), "cr-pages-last-until", until, g_free);
  gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
}

guint
cr_step_card_pages_count (GtkScrolledWindow *scroller,
                          guint             *current)
{
  g_return_val_if_fail (GTK_IS_SCROLLED_WINDOW (scroller), 1);
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);
  double value = gtk_adjustment_get_value (adj);
  double page = gtk_adjustment_get_page_size (adj);
  double upper = gtk_adjustment_get_upper (adj);
  g_autoptr (GArray) blocks = blocks_of (scroller);
  guint count = 1, at = 0;
  /* The walk Page Down makes from the top; bounded, each move advances. */
  for (double v = 0; count < 64; count++)
    {
      double next = next_value (blocks, v, page, upper);
      if (next <= v + 0.5)
        break;
      if (next <= value + 0.5)
        at = count;
      v = next;
    }
  if (current)
    *current = MIN (at, count - 1);
  return count;
}
