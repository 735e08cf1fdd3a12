/* cr-editor-scrub.c — Ctrl+drag a number literal to scrub it
 * (cr-editor-scrub.h). */
#include "cr-config.h"
#include "cr-editor-scrub.h"

#include "cr-number-literal.h"

#include <math.h>
#include <string.h>

struct _CrEditorScrub {
  GObject          parent_instance;

  /* Borrowed */
  GtkTextView     *view;

  /* Owned */
  GtkGesture      *drag;      /* a reference; the view holds it too */
  GdkCursor       *saved_cursor; /* the view's own, while a drag shows ew-resize (a ref) */
  GtkEventController *keys;   /* Ctrl+Up/Down; the view owns it (valid while view is) */

  /* The drag in progress */
  gboolean         active;
  CrNumberLiteral  literal;   /* as it was when the drag started */
  int              start;     /* where it starts in the buffer (characters) */
  int              length;    /* its length now (characters: all ASCII) */
  gint64           steps;     /* the steps it has moved */
};

G_DEFINE_FINAL_TYPE (CrEditorScrub, cr_editor_scrub, G_TYPE_OBJECT)

enum {
  SIGNAL_STARTED,
  SIGNAL_ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

gboolean
cr_editor_scrub_begin (CrEditorScrub     *self,
                       const GtkTextIter *at)
{
  g_return_val_if_fail (CR_IS_EDITOR_SCRUB (self), FALSE);
  g_return_val_if_fail (at != NULL, FALSE);
  if (self->active || !self->view)
    return FALSE;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->view);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  g_autofree char *text = gtk_text_buffer_get_text (buffer, &start, &end, TRUE);
  const char *at_byte = g_utf8_offset_to_pointer (text, gtk_text_iter_get_offset (at));
  CrNumberLiteral literal;
  if (!cr_number_literal_at (text, -1, (gsize) (at_byte - text), &literal))
    return FALSE;
  self->literal = literal;
  self->start = (int) g_utf8_pointer_to_offset (text, text + literal.start);
  self->length = (int) (literal.end - literal.start);
  self->steps = 0;
  self->active = TRUE;
  /* The whole drag is one undo step. */
  gtk_text_buffer_begin_user_action (buffer);
  GtkTextIter first, last;
  gtk_text_buffer_get_iter_at_offset (buffer, &first, self->start);
  gtk_text_buffer_get_iter_at_offset (buffer, &last, self->start + self->length);
  gtk_text_buffer_select_range (buffer, &first, &last);
  g_signal_emit (self, signals[SIGNAL_STARTED], 0);
  return TRUE;
}

void
cr_editor_scrub_update (CrEditorScrub *self,
                        double         dx)
{
  g_return_if_fail (CR_IS_EDITOR_SCRUB (self));
  if (!self->active || !self->view || !isfinite (dx))
    return;
  gint64 steps = (gint64) CLAMP (trunc (dx / CR_EDITOR_SCRUB_PIXELS_PER_STEP), -1e15, 1e15);
  if (steps == self->steps)
    return;
  g_autofree char *text = cr_number_literal_stepped (&self->literal, steps);
  if (!text)
    return;
  self->steps = steps;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->view);
  GtkTextIter first, last;
  gtk_text_buffer_get_iter_at_offset (buffer, &first, self->start);
  gtk_text_buffer_get_iter_at_offset (buffer, &last, self->start + self->length);
  gtk_text_buffer_delete (buffer, &first, &last);
  gtk_text_buffer_insert (buffer, &first, text, -1);
  self->length = (int) strlen (text);
  gtk_text_buffer_get_iter_at_offset (buffer, &first, self->start);
  gtk_text_buffer_get_iter_at_offset (buffer, &last, self->start + self->length);
  gtk_text_buffer_select_range (buffer, &first, &last);
}

void
cr_editor_scrub_end (CrEditorScrub *self)
{
  g_return_if_fail (CR_IS_EDITOR_SCRUB (self));
  if (!self->active)
    return;
  self->active = FALSE;
  if (self->view)
    {
      gtk_text_buffer_end_user_action (gtk_text_view_get_buffer (self->view));
      gtk_widget_set_cursor (GTK_WIDGET (self->view), self->saved_cursor);
    }
  g_clear_object (&self->saved_cursor);
  g_signal_emit (self, signals[SIGNAL_ENDED], 0);
}

gboolean
cr_editor_scrub_is_active (CrEditorScrub *self)
{
  g_return_val_if_fail (CR_IS_EDITOR_SCRUB (self), FALSE);
  return self->active;
}

gboolean
cr_editor_scrub_step (CrEditorScrub *self,
                      int            steps)
{
  g_return_val_if_fail (CR_IS_EDITOR_SCRUB (self), FALSE);
  if (self->active || !self->view)
    return FALSE;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->view);
  GtkTextIter at;
  gtk_text_buffer_get_iter_at_mark (buffer, &at, gtk_text_buffer_get_insert (buffer));
  if (!cr_editor_scrub_begin (self, &at))
    return FALSE;
  /* The literal stays selected, the cursor at its start: the next press
   * finds it again. */
  cr_editor_scrub_update (self, steps * CR_EDITOR_SCRUB_PIXELS_PER_STEP);
  cr_editor_scrub_end (self);
  return TRUE;
}

/* A keyboard user (and a lecturer at the keyboard, not the mouse) scrubs
 * with Ctrl+Up and Ctrl+Down; off a number the keys go on to the view. */
static gboolean
on_key_pressed (GtkEventControllerKey *keys,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                CrEditorScrub         *self)
{
  GdkModifierType mods = state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK | GDK_ALT_MASK | GDK_SUPER_MASK);
  if (mods != GDK_CONTROL_MASK)
    return FALSE;
  if (keyval == GDK_KEY_Up || keyval == GDK_KEY_KP_Up)
    return cr_editor_scrub_step (self, 1);
  if (keyval == GDK_KEY_Down || keyval == GDK_KEY_KP_Down)
    return cr_editor_scrub_step (self, -1);
  return FALSE;
}

static void
on_drag_begin (GtkGestureDrag *drag,
               double          x,
               double          y,
               CrEditorScrub  *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (drag));
  gboolean started = FALSE;
  if ((state & GDK_CONTROL_MASK) && self->view)
    {
      int bx = 0, by = 0;
      GtkTextIter at;
      gtk_text_view_window_to_buffer_coords (self->view, GTK_TEXT_WINDOW_WIDGET, (int) x, (int) y, &bx, &by);
      started = gtk_text_view_get_iter_at_location (self->view, &at, bx, by)
                && cr_editor_scrub_begin (self, &at);
    }
  if (!started)
    {
      /* Not ours: the text view selects, places the cursor, ... */
      gtk_gesture_set_state (GTK_GESTURE (drag), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  gtk_gesture_set_state (GTK_GESTURE (drag), GTK_EVENT_SEQUENCE_CLAIMED);
  g_set_object (&self->saved_cursor, gtk_widget_get_cursor (GTK_WIDGET (self->view)));
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->view), "ew-resize");
}

static void
on_drag_update (GtkGestureDrag *drag,
                double          dx,
                double          dy,
                CrEditorScrub  *self)
{
  cr_editor_scrub_update (self, dx);
}

static void
on_drag_end (GtkGestureDrag *drag,
             double          dx,
             double          dy,
             CrEditorScrub  *self)
{
  cr_editor_scrub_end (self);
}

static void
on_drag_cancel (GtkGesture       *gesture,
                GdkEventSequence *sequence,
                CrEditorScrub    *self)
{
  cr_editor_scrub_end (self);
}

static void
cr_editor_scrub_dispose (GObject *object)
{
  CrEditorScrub *self = CR_EDITOR_SCRUB (object);
  cr_editor_scrub_end (self);
  if (self->drag)
    {
      if (self->view)
        gtk_widget_remove_controller (GTK_WIDGET (self->view), GTK_EVENT_CONTROLLER (self->drag));
      g_signal_handlers_disconnect_by_data (self->drag, self);
      g_clear_object (&self->drag);
    }
  if (self->keys && self->view)
    {
      g_signal_handlers_disconnect_by_data (self->keys, self);
      gtk_widget_remove_controller (GTK_WIDGET (self->view), self->keys);
    }
  self->keys = NULL;
  g_clear_weak_pointer (&self->view);
  G_OBJECT_CLASS (cr_editor_scrub_parent_class)->dispose (object);
}

static void
cr_editor_scrub_class_init (CrEditorScrubClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = cr_editor_scrub_dispose;
  signals[SIGNAL_STARTED] = g_signal_new ("started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_ENDED] = g_signal_new ("ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
cr_editor_scrub_init (CrEditorScrub *self)
{
}

CrEditorScrub *
cr_editor_scrub_new (GtkTextView *view)
{
  g_return_val_if_fail (GTK_IS_TEXT_VIEW (view), NULL);
  CrEditorScrub *self = g_object_new (CR_TYPE_EDITOR_SCRUB, NULL);
  g_set_weak_pointer (&self->view, view);
  self->drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (self->drag), GDK_BUTTON_PRIMARY);
  /* Before the text view's own gestures, which would select text. */
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (self->drag), GTK_PHASE_CAPTURE);
  g_signal_connect (self->drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (self->drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (self->drag, "drag-end", G_CALLBACK (on_drag_end), self);
  g_signal_connect (self->drag, "cancel", G_CALLBACK (on_drag_cancel), self);
  gtk_widget_add_controller (GTK_WIDGET (view), GTK_EVENT_CONTROLLER (g_object_ref (self->drag)));
  /* Before the text view's Ctrl+Up, which moves by paragraph. */
  self->keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_name (self->keys, "cr-scrub-keys");
  gtk_event_controller_set_propagation_phase (self->keys, GTK_PHASE_CAPTURE);
  g_signal_connect (self->keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (view), self->keys);
  return self;
}
