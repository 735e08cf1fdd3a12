/* cr-window-paths.c — a leaf's paths to the loss walked on the graph: the
 * inspector's "Walk the Paths" (win.paths-walk) lights the first path from
 * the chosen leaf element (W: the first element of the leaf selected on
 * the graph), a card over the graph's corner writes out its
 * product of local derivatives, and the keys a stepper uses (the clicker's
 * Page Down / Page Up too) go from path to path and on to all of them
 * with their sum, the leaf's .grad (render/cr-path-tour.h). Esc leaves. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-graph-canvas.h"
#include "cr-path-tour.h"

#include <adwaita.h>

struct _CrWindowPaths
{
  CrPathTour *tour;       /* owned; NULL: no walk */
  GtkWidget  *card;       /* over the graph, bottom left (borrowed from the overlay) */
  GtkLabel   *title;
  GtkLabel   *chain;
  GtkLabel   *product;
  GtkWidget  *back_button;
  GtkWidget  *next_button;
};

static void
update_actions (CrWindow *self)
{
  CrWindowPaths *p = self->paths;
  gboolean walking = p && p->tour;
  guint view = walking ? cr_path_tour_get_view (p->tour) : 0;
  guint n = walking ? cr_path_tour_get_n_views (p->tour) : 0;
  static const char *const names[] = { "paths-next", "paths-back", "paths-close" };
  gboolean enabled[] = { walking && view + 1 < n, walking && view > 0, walking };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), names[i]);
      g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled[i]);
    }
}

/* The canvas lights the view's paths, the card says them. */
static void
show_view (CrWindow *self)
{
  CrWindowPaths *p = self->paths;
  g_autofree char *title = cr_path_tour_title (p->tour);
  g_autofree char *chain = cr_path_tour_chain (p->tour);
  g_autofree char *product = cr_path_tour_product (p->tour);
  gtk_label_set_label (p->title, title);
  gtk_label_set_label (p->chain, chain);
  gtk_label_set_label (p->product, product);
  gtk_widget_set_visible (p->card, TRUE);
  cr_graph_canvas_set_highlight (self->canvas, cr_path_tour_highlight (p->tour));
  update_actions (self);
}

void
cr_window_paths_close (CrWindow *self)
{
  CrWindowPaths *p = self->paths;
  if (!p || !p->tour)
    return;
  g_clear_pointer (&p->tour, cr_path_tour_free);
  gtk_widget_set_visible (p->card, FALSE);
  cr_graph_canvas_set_highlight (self->canvas, NULL);
  update_actions (self);
}

gboolean
cr_window_paths_walk (CrWindow  *self,
                      int        leaf,
                      gint64     element,
                      GError   **error)
{
  CrWindowPaths *p = self->paths;
  const CrGraphModel *model = self->models && self->model_index < self->models->len
                              ? self->models->pdata[self->model_index] : NULL;
  if (!model || !model->record || model->backward < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "The graph shown has no backward call: there are no paths to a loss");
      return FALSE;
    }
  CrPathTour *tour = cr_path_tour_new (model->record, model->backward, leaf, element, error);
  if (!tour)
    return FALSE;
  cr_window_stop_playing (self);
  gboolean was_walking = p->tour != NULL;
  g_clear_pointer (&p->tour, cr_path_tour_free);
  p->tour = tour;
  show_view (self);
  /* The whole graph over the card: every path shows from end to end. */
  if (!was_walking)
    cr_graph_canvas_zoom_fit (self->canvas);
  return TRUE;
}

const CrPathTour *
cr_window_paths_get_tour (CrWindow *self)
{
  return self->paths ? self->paths->tour : NULL;
}

static void
move (CrWindow *self,
      int       delta,
      gboolean  to_end)
{
  CrWindowPaths *p = self->paths;
  if (!p || !p->tour)
    return;
  guint n = cr_path_tour_get_n_views (p->tour);
  guint view = cr_path_tour_get_view (p->tour);
  if (to_end)
    view = delta > 0 ? n - 1 : 0;
  else if (delta < 0)
    view = view > 0 ? view - 1 : 0;
  else
    view = MIN (view + 1, n - 1);
  cr_path_tour_set_view (p->tour, view);
  show_view (self);
}

static void
walk_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       data)
{
  CrWindow *self = data;
  gint32 leaf = -1;
  gint64 element = 0;
  g_variant_get (parameter, "(ix)", &leaf, &element);
  g_autoptr (GError) error = NULL;
  if (!cr_window_paths_walk (self, leaf, element, &error))
    {
      AdwToast *toast = adw_toast_new (error->message);
      adw_toast_set_timeout (toast, 6);
      adw_toast_overlay_add_toast (self->toast_overlay, toast);
    }
}

static void
next_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       data)
{
  move (data, +1, FALSE);
}

static void
back_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       data)
{
  move (data, -1, FALSE);
}

static void
close_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       data)
{
  cr_window_paths_close (data);
}

/* W on a leaf (or its AccumulateGrad) selected: walk its first element's
 * paths. */
static gboolean
walk_selected (CrWindow *self)
{
  const CrGraphModel *shown = cr_graph_canvas_get_model (self->canvas);
  int selected = cr_graph_canvas_get_selected (self->canvas);
  if (!shown || selected < 0 || (guint) selected >= shown->nodes->len)
    return FALSE;
  const CrGraphNode *node = g_ptr_array_index (shown->nodes, selected);
  if ((node->kind != CR_GRAPH_NODE_LEAF && node->kind != CR_GRAPH_NODE_ACCUMULATE)
      || node->tensor < 0)
    return FALSE;
  g_autoptr (GError) error = NULL;
  if (!cr_window_paths_walk (self, node->tensor, 0, &error))
    {
      AdwToast *toast = adw_toast_new (error->message);
      adw_toast_set_timeout (toast, 6);
      adw_toast_overlay_add_toast (self->toast_overlay, toast);
    }
  return TRUE;
}

gboolean
cr_window_paths_key (CrWindow        *self,
                     guint            keyval,
                     GdkModifierType  state)
{
  CrWindowPaths *p = self->paths;
  if (!p || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)))
    return FALSE;
  if (!p->tour)
    return (keyval == GDK_KEY_w || keyval == GDK_KEY_W) && !cr_window_focus_takes_arrows (self)
           && walk_selected (self);
  switch (keyval)
    {
    /* The clicker's keys go from path to path wherever the focus is. */
    case GDK_KEY_Page_Down:
      move (self, +1, FALSE);
      return TRUE;
    case GDK_KEY_Page_Up:
      move (self, -1, FALSE);
      return TRUE;
    case GDK_KEY_Escape:
      cr_window_paths_close (self);
      return TRUE;
    default:
      break;
    }
  /* The arrows and Space are the editor's, the loss curve's, the element
   * grid's while they have the focus. */
  if (cr_window_focus_takes_arrows (self))
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_space:
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      move (self, +1, FALSE);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      move (self, -1, FALSE);
      return TRUE;
    case GDK_KEY_Home:
      move (self, -1, TRUE);
      return TRUE;
    case GDK_KEY_End:
      move (self, +1, TRUE);
      return TRUE;
    default:
      return FALSE;
    }
}

static GtkWidget *
icon_button (const char *icon,
             const char *action,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

static GtkLabel *
card_label (GtkWidget  *box,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 56);
  gtk_label_set_selectable (GTK_LABEL (label), FALSE);
  if (css_class)
    gtk_widget_add_css_class (label, css_class);
  gtk_box_append (GTK_BOX (box), label);
  return GTK_LABEL (label);
}

/* The card: the view's title and buttons on one line, the chain and the
 * arithmetic under them. */
static GtkWidget *
card_new (CrWindowPaths *p)
{
  GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_add_css_class (card, "osd");
  gtk_widget_add_css_class (card, "cr-path-card");
  gtk_widget_set_halign (card, GTK_ALIGN_START);
  gtk_widget_set_valign (card, GTK_ALIGN_END);
  gtk_widget_set_margin_start (card, 12);
  gtk_widget_set_margin_end (card, 12);
  gtk_widget_set_margin_bottom (card, 12);
  GtkWidget *head = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 2);
  gtk_box_append (GTK_BOX (card), head);
  GtkWidget *title = gtk_label_new (NULL);
  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_box_append (GTK_BOX (head), title);
  p->title = GTK_LABEL (title);
  p->back_button = icon_button ("go-previous-symbolic", "win.paths-back", "Previous path (Left, Page Up)");
  p->next_button = icon_button ("go-next-symbolic", "win.paths-next",
                                "Next path, then all of them (Right, Page Down)");
  gtk_box_append (GTK_BOX (head), p->back_button);
  gtk_box_append (GTK_BOX (head), p->next_button);
  gtk_box_append (GTK_BOX (head), icon_button ("window-close-symbolic", "win.paths-close",
                                               "Leave the paths (Esc)"));
  p->chain = card_label (card, NULL);
  p->product = card_label (card, "numeric");
  gtk_widget_set_visible (card, FALSE);
  return card;
}

void
cr_window_paths_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "paths-walk", .parameter_type = "(ix)", .activate = walk_activated },
    { .name = "paths-next", .activate = next_activated },
    { .name = "paths-back", .activate = back_activated },
    { .name = "paths-close", .activate = close_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  CrWindowPaths *p = g_new0 (CrWindowPaths, 1);
  self->paths = p;
  p->card = card_new (p);
  GtkWidget *overlay = gtk_widget_get_parent (GTK_WIDGET (self->canvas));
  if (GTK_IS_OVERLAY (overlay))
    gtk_overlay_add_overlay (GTK_OVERLAY (overlay), p->card);
  update_actions (self);
}

void
cr_window_paths_dispose (CrWindow *self)
{
  if (!self->paths)
    return;
  g_clear_pointer (&self->paths->tour, cr_path_tour_free);
  g_clear_pointer (&self->paths, g_free);
}

/* ---- a node chosen from the command line (`chainrule --select a FILE`) ---- */

/* Selects the node drawing the tensor called name (a leaf first) and puts
 * the keyboard on the graph, so that W walks its paths. */
static gboolean
select_named (CrWindow   *self,
              const char *name)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  for (guint pass = 0; model && pass < 2; pass++)
    for (guint i = 0; i < model->nodes->len; i++)
      {
        const CrGraphNode *node = g_ptr_array_index (model->nodes, i);
        gboolean kind = pass == 0 ? node->kind == CR_GRAPH_NODE_LEAF : CR_GRAPH_NODE_KIND_IS_TENSOR (node->kind);
        if (kind && g_strcmp0 (node->title, name) == 0)
          {
            cr_graph_canvas_set_selected (self->canvas, (int) node->id);
            gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
            return TRUE;
          }
      }
  return FALSE;
}

static void
select_on_run (CrWindow *self,
               gpointer  user_data)
{
  const char *name = user_data;
  if (!select_named (self, name))
    {
      g_autofree char *message = g_strdup_printf ("No tensor called %s on the graph.", name);
      cr_window_toast (self, message);
    }
  /* The first run only: later edits choose for themselves. */
  g_signal_handlers_disconnect_by_func (self, select_on_run, user_data);
}

void
cr_window_select_named_on_run (CrWindow   *self,
                               const char *name)
{
  g_return_if_fail (CR_IS_WINDOW (self));
  g_return_if_fail (name != NULL);
  g_signal_connect_data (self, "run-finished", G_CALLBACK (select_on_run), g_strdup (name),
                         (GClosureNotify) (void (*) (void)) g_free, 0);
}
