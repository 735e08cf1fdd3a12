/* cr-window.c — the main window: the header bar, the example gallery and the
 * workspace (the script or an expression with the output on the left, the
 * graph with its stepper in the centre, the step card and the inspector on
 * the right), the editor <-> graph highlights and presentation mode.
 *
 * Running the script lives in cr-window-run.c, stepping in
 * cr-window-stepper.c, files in cr-window-files.c. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-about.h"
#include "cr-editor-wrap.h"
#include "cr-example-gallery.h"
#include "cr-graph-overview.h"
#include "cr-expression-panel.h"
#include "cr-inspector.h"
#include "cr-script-file.h"
#include "cr-settings.h"
#include "cr-step-card.h"

#include <math.h>
#include <stdlib.h>

#define DEFAULT_PRESENTATION_SCALE 1.4
#define HINT_SECONDS 3
/* The editor's text size (style.css's) and its zoom's bounds and step. */
#define EDITOR_FONT_PT 10.5
#define EDITOR_ZOOM_MIN 0.6
#define EDITOR_ZOOM_MAX 3.0
#define EDITOR_ZOOM_STEP 1.1

enum {
  SIGNAL_RUN_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (CrWindow, cr_window, ADW_TYPE_APPLICATION_WINDOW)

static GtkTextBuffer *
get_buffer (CrWindow *self)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
}

/* ---- title ---- */

void
cr_window_update_title (CrWindow *self)
{
  g_autofree char *name = self->file ? g_file_get_basename (self->file) : g_strdup ("New Script");
  gboolean modified = gtk_text_buffer_get_modified (get_buffer (self));
  g_autofree char *subtitle = modified ? g_strdup_printf ("• %s", name) : g_strdup (name);
  /* Nothing open yet (the gallery at start): no name to show. */
  if (!self->file && !modified && gtk_text_buffer_get_char_count (get_buffer (self)) == 0)
    g_clear_pointer (&subtitle, g_free);
  adw_window_title_set_subtitle (self->title, subtitle);
  g_autofree char *title = subtitle ? g_strdup_printf ("%s — Chainrule", name) : g_strdup ("Chainrule");
  gtk_window_set_title (GTK_WINDOW (self), title);
}

/* ---- editor <-> graph ---- */

/* Where the editor scrolls to show a line (the step's, the selection's). */
#define SCROLL_MARK "cr-scroll-to-line"

/* The line at the mark into the editor's view, 15 % from its top, unless
 * it shows already. By the view's own adjustment: gtk_text_view_scroll_to
 * _iter and _mark left a notebook's step line (156) out of sight, at lines
 * 114 to 148 and at the top. */
static void
scroll_to_line_mark (CrWindow *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (self->source_view);
  GtkTextMark *mark = gtk_text_buffer_get_mark (get_buffer (self), SCROLL_MARK);
  if (!mark || gtk_widget_has_focus (GTK_WIDGET (view)))
    return;
  GtkTextIter at;
  int y, height;
  gtk_text_buffer_get_iter_at_mark (get_buffer (self), &at, mark);
  gtk_text_view_get_line_yrange (view, &at, &y, &height);
  GtkAdjustment *v = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  double top = gtk_adjustment_get_value (v), page = gtk_adjustment_get_page_size (v);
  if (page > 0 && (y < top || y + height > top + page))
    gtk_adjustment_set_value (v, y - 0.15 * page);
}

/* The editor's lines are measured a while after it is shown or rewrapped
 * (F9, then a step at once): until they are, each new measure moves the
 * line, so the scroll follows for a moment. */
#define SCROLL_FOLLOW_US (1500 * G_TIME_SPAN_MILLISECOND)

static void
on_editor_measured (GtkAdjustment *adjustment,
                    CrWindow      *self)
{
  if (g_get_monotonic_time () < self->scroll_until)
    scroll_to_line_mark (self);
}

void
cr_window_highlight_lines (CrWindow          *self,
                           const char        *tag_name,
                           const CrGraphNode *node,
                           gboolean           scroll)
{
  GtkTextBuffer *buffer = get_buffer (self);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag_by_name (buffer, tag_name, &start, &end);
  if (!node || !self->model_from_editor || node->span.line <= 0)
    return;
  int last = MAX (node->span.end_line, node->span.line);
  gtk_text_buffer_get_iter_at_line (buffer, &start, node->span.line - 1);
  gtk_text_buffer_get_iter_at_line (buffer, &end, last - 1);
  gtk_text_iter_forward_line (&end);
  gtk_text_buffer_apply_tag_by_name (buffer, tag_name, &start, &end);
  /* Not while the person is working in the editor: the view stays put. */
  if (scroll && !gtk_widget_has_focus (GTK_WIDGET (self->source_view)))
    {
      GtkTextMark *mark = gtk_text_buffer_get_mark (buffer, SCROLL_MARK);
      if (mark)
        gtk_text_buffer_move_mark (buffer, mark, &start);
      else
        gtk_text_buffer_create_mark (buffer, SCROLL_MARK, &start, TRUE);
      scroll_to_line_mark (self);
      self->scroll_until = g_get_monotonic_time () + SCROLL_FOLLOW_US;
      if (!self->scroll_follows)
        {
          GtkAdjustment *v = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->source_view));
          g_signal_connect_object (v, "changed", G_CALLBACK (on_editor_measured), self, 0);
          self->scroll_follows = TRUE;
        }
    }
}

static void
on_selected_changed (CrGraphCanvas *canvas,
                     GParamSpec    *pspec,
                     CrWindow      *self)
{
  const CrGraphModel *model = cr_graph_canvas_get_model (canvas);
  int id = cr_graph_canvas_get_selected (canvas);
  const CrGraphNode *node = model && id >= 0 && (guint) id < model->nodes->len
                            ? g_ptr_array_index (model->nodes, id) : NULL;
  if (self->inspector)
    cr_inspector_show_node (CR_INSPECTOR (self->inspector), model, id);
  cr_window_highlight_lines (self, "selected-line", node, !self->syncing);
  /* A click shows the node; the editor's cursor only updates it quietly. */
  if (node && !self->syncing)
    gtk_stack_set_visible_child_name (self->sidebar_stack, "node");
}

static void
on_cursor_moved (GtkTextBuffer *buffer,
                 GParamSpec    *pspec,
                 CrWindow      *self)
{
  if (self->syncing || !self->model_from_editor
      || !gtk_widget_has_focus (GTK_WIDGET (self->source_view)))
    return;
  const CrGraphModel *model = cr_graph_canvas_get_model (self->canvas);
  if (!model)
    return;
  GtkTextIter iter;
  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  const CrGraphNode *node = cr_graph_model_find_line (model, gtk_text_iter_get_line (&iter) + 1);
  if (!node || (int) node->id == cr_graph_canvas_get_selected (self->canvas))
    return;
  self->syncing = TRUE;
  cr_graph_canvas_set_selected (self->canvas, (int) node->id);
  self->syncing = FALSE;
}

static void
on_zoom_changed (CrGraphCanvas *canvas,
                 GParamSpec    *pspec,
                 CrWindow      *self)
{
  g_autofree char *label = g_strdup_printf ("%ld %%", lround (cr_graph_canvas_get_zoom (canvas) * 100));
  gtk_button_set_label (self->zoom_fit_button, label);
}

/* ---- editor setup ---- */

/* The editor follows the light/dark style like the rest of the window. */
static void
update_editor_scheme (CrWindow *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (get_buffer (self));
  gboolean dark = adw_style_manager_get_dark (style);
  const char *id = dark ? "Adwaita-dark" : "Adwaita";

  gtk_source_buffer_set_style_scheme (buffer, gtk_source_style_scheme_manager_get_scheme (schemes, id));

  GtkTextTagTable *tags = gtk_text_buffer_get_tag_table (GTK_TEXT_BUFFER (buffer));
  GdkRGBA selected, step;
  gdk_rgba_parse (&selected, dark ? "rgba(120,174,237,0.22)" : "rgba(53,132,228,0.16)");
  gdk_rgba_parse (&step, dark ? "rgba(248,228,92,0.20)" : "rgba(246,211,45,0.34)");
  g_object_set (gtk_text_tag_table_lookup (tags, "selected-line"), "paragraph-background-rgba", &selected, NULL);
  g_object_set (gtk_text_tag_table_lookup (tags, "step-line"), "paragraph-background-rgba", &step, NULL);

  /* Adwaita's error colour, readable on either background. */
  GdkRGBA red;
  gdk_rgba_parse (&red, dark ? "#ff7b63" : "#c01c28");
  g_object_set (gtk_text_tag_table_lookup (tags, "error-span"), "underline-rgba", &red, NULL);
  GtkTextTagTable *output = gtk_text_buffer_get_tag_table (gtk_text_view_get_buffer (self->output_view));
  g_object_set (gtk_text_tag_table_lookup (output, "error"), "foreground-rgba", &red, NULL);
}

static void
setup_editor (CrWindow *self)
{
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = GTK_SOURCE_BUFFER (get_buffer (self));
  gtk_source_buffer_set_language (buffer, gtk_source_language_manager_get_language (languages, "python3"));

  gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (buffer), "error-span",
                              "underline", PANGO_UNDERLINE_ERROR, NULL);
  /* The step's line under the selection's: the selection is what was clicked last. */
  gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (buffer), "step-line", NULL);
  gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (buffer), "selected-line", NULL);
  GtkTextBuffer *output = gtk_text_view_get_buffer (self->output_view);
  gtk_text_buffer_create_tag (output, "error", NULL);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_editor_scheme), self, G_CONNECT_SWAPPED);
  update_editor_scheme (self);

  g_signal_connect (buffer, "notify::cursor-position", G_CALLBACK (on_cursor_moved), self);
  g_signal_connect_swapped (buffer, "modified-changed", G_CALLBACK (cr_window_update_title), self);
}

/* ---- the gallery ---- */

static void
open_example_then (CrWindow *self,
                   gpointer  user_data)
{
  g_autofree char *path = g_steal_pointer (&self->pending_open);
  if (!path)
    return;
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  if (!cr_window_open_file (self, file, &error))
    cr_window_toast (self, error->message);
}

static void
open_example (CrWindow   *self,
              const char *path)
{
  /* Kept here rather than passed along: a cancelled prompt never calls back. */
  g_free (self->pending_open);
  self->pending_open = g_strdup (path);
  cr_window_confirm_discard (self, G_CALLBACK (open_example_then), NULL);
}

static void
on_example_activated (GtkWidget  *gallery,
                      const char *path,
                      CrWindow   *self)
{
  open_example (self, path);
}

static void
open_example_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  open_example (CR_WINDOW (user_data), g_variant_get_string (parameter, NULL));
}

static void
gallery_changed (GSimpleAction *action,
                 GVariant      *value,
                 gpointer       user_data)
{
  cr_window_show_gallery (CR_WINDOW (user_data), g_variant_get_boolean (value));
}

/* ---- expression mode ---- */

static void
on_expression_changed (GtkWidget  *panel,
                       const char *script,
                       CrWindow   *self)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->editor_stack), "expression") == 0)
    cr_window_schedule_run (self);
}

static void
open_as_script_then (CrWindow *self,
                     gpointer  user_data)
{
  g_autofree char *script = g_steal_pointer (&self->pending_script);
  if (!script)
    return;
  /* A new script: saving it must not overwrite the file that was open. */
  g_clear_object (&self->file);
  GtkTextBuffer *buffer = get_buffer (self);
  gtk_text_buffer_set_text (buffer, script, -1);
  gtk_text_buffer_set_modified (buffer, TRUE);
  cr_window_update_title (self);
  gtk_stack_set_visible_child_name (self->editor_stack, "script");
  gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
}

static void
on_open_as_script (GtkWidget  *panel,
                   const char *script,
                   CrWindow   *self)
{
  g_free (self->pending_script);
  self->pending_script = g_strdup (script);
  cr_window_confirm_discard (self, G_CALLBACK (open_as_script_then), NULL);
}

static void
on_editor_page_changed (GtkStack   *stack,
                        GParamSpec *pspec,
                        CrWindow   *self)
{
  /* The other page's script is what the graph shows now. */
  cr_window_schedule_run (self);
}

static void place_panes (CrWindow *self);

/* ---- text sizes: presentation's scale and the editor's zoom ---- */

/* CSS wants a '.' whatever the locale. */
static void
append_pt (GString    *css,
           const char *selector,
           double      pt)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (css, "%s { font-size: %spt; }\n", selector,
                          g_ascii_formatd (number, sizeof number, "%.1f", pt));
}

static double
presentation_scale (CrWindow *self)
{
  double scale = self->settings ? g_settings_get_double (self->settings, "presentation-scale")
                                : DEFAULT_PRESENTATION_SCALE;
  return scale >= 0.5 && scale <= 4.0 ? scale : DEFAULT_PRESENTATION_SCALE;
}

/* Presenting, the script's long lines wrap, their further rows hanging in
 * columns of its type now (cr-editor-wrap.h). */
static void
update_editor_wrap (CrWindow *self)
{
  gboolean presenting = gtk_widget_has_css_class (GTK_WIDGET (self), "presentation");
  cr_editor_wrap_set (GTK_TEXT_VIEW (self->source_view), presenting,
                      EDITOR_FONT_PT * presentation_scale (self) * self->editor_zoom);
}

static void
update_scale_css (CrWindow *self)
{
  double scale = presentation_scale (self);
  g_autoptr (GString) css = g_string_new (NULL);
  char number[G_ASCII_DTOSTR_BUF_SIZE];
  /* The base size scales everything that inherits it; Adwaita's title
   * classes have sizes of their own (in pt), scaled here too. */
  g_string_append_printf (css, "window.presentation { font-size: %s%%; }\n",
                          g_ascii_formatd (number, sizeof number, "%.0f", scale * 100));
  append_pt (css, "window.presentation .title-1", 20 * scale);
  append_pt (css, "window.presentation .title-2", 15 * scale);
  append_pt (css, "window.presentation .title-3", 15 * scale);
  append_pt (css, "window.presentation .title-4", 13 * scale);
  append_pt (css, "window.presentation .caption", 9 * scale);
  append_pt (css, "window.presentation .heading", 11 * scale);
  append_pt (css, ".cr-editor", EDITOR_FONT_PT * self->editor_zoom);
  append_pt (css, "window.presentation .cr-editor", EDITOR_FONT_PT * scale * self->editor_zoom);
  /* A 1366 px projector is short of width for the graph: the sidebar's
   * pages give it 0.5 em of each side of their padding (1.1 em, the card
   * style's), place_panes as much of the sidebar, their text as wide. */
  g_string_append (css, "window.presentation cr-step-card, window.presentation cr-inspector "
                        "{ padding-left: 0.6em; padding-right: 0.6em; }\n");
  gtk_css_provider_load_from_data (self->scale_css, css->str, -1);
  update_editor_wrap (self);
  /* The presented script's room is counted in columns of its type. */
  place_panes (self);
}

/* GSettings' "zoom" is the editor's text zoom. The graph's zoom belongs to
 * each graph (a new one is fitted to the view, an edit keeps the view), so a
 * remembered graph zoom would only fight the fit; the size of the code is a
 * person's and a room's choice (a lecturer's projector) worth keeping.
 * Ctrl+plus, Ctrl+minus and Ctrl+0 zoom the editor while it has the
 * keyboard, the graph otherwise. */
static void
set_editor_zoom (CrWindow *self,
                 double    zoom)
{
  self->editor_zoom = CLAMP (zoom, EDITOR_ZOOM_MIN, EDITOR_ZOOM_MAX);
  if (self->settings && g_settings_get_double (self->settings, "zoom") != self->editor_zoom)
    g_settings_set_double (self->settings, "zoom", self->editor_zoom);
  update_scale_css (self);
}

static void
on_settings_changed (GSettings  *settings,
                     const char *key,
                     CrWindow   *self)
{
  /* Another window's zoom, or a change from outside (gsettings set). */
  if (g_strcmp0 (key, "zoom") == 0)
    self->editor_zoom = CLAMP (g_settings_get_double (settings, "zoom"), EDITOR_ZOOM_MIN, EDITOR_ZOOM_MAX);
  update_scale_css (self);
}

static gboolean
editor_has_keyboard (CrWindow *self)
{
  return gtk_widget_has_focus (GTK_WIDGET (self->source_view));
}

/* ---- presentation mode ---- */

static gboolean
hide_hint_cb (gpointer user_data)
{
  CrWindow *self = user_data;
  self->hint_timeout_id = 0;
  gtk_revealer_set_reveal_child (self->hint_revealer, FALSE);
  return G_SOURCE_REMOVE;
}

static void
show_hint (CrWindow *self)
{
  gtk_revealer_set_reveal_child (self->hint_revealer, TRUE);
  g_clear_handle_id (&self->hint_timeout_id, g_source_remove);
  self->hint_timeout_id = g_timeout_add_seconds (HINT_SECONDS, hide_hint_cb, self);
}

static void
set_editor_hidden (CrWindow *self,
                   gboolean  hidden)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "hide-editor");
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (hidden));
  gtk_toggle_button_set_active (self->editor_button, !hidden);
  gtk_widget_set_visible (self->editor_column, !hidden);
  place_panes (self);
}

/* The header bar's button shows the script (active) or hides it, like F9. */
static void
on_editor_button_toggled (GtkToggleButton *button,
                          CrWindow        *self)
{
  gboolean hidden = !gtk_toggle_button_get_active (button);
  if (hidden != !gtk_widget_get_visible (self->editor_column))
    g_action_group_change_action_state (G_ACTION_GROUP (self), "hide-editor",
                                        g_variant_new_boolean (hidden));
}

void
cr_window_set_presentation (CrWindow *self,
                            gboolean  presentation)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "presentation");
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (presentation));
  if (presentation == gtk_widget_has_css_class (GTK_WIDGET (self), "presentation"))
    return;
  if (presentation)
    {
      self->editor_was_hidden = !gtk_widget_get_visible (self->editor_column);
      gtk_widget_add_css_class (GTK_WIDGET (self), "presentation");
      gtk_window_fullscreen (GTK_WINDOW (self));
      cr_window_show_gallery (self, FALSE);
      /* The room goes to the code; the output is a click away. */
      self->output_was_open = gtk_toggle_button_get_active (self->output_toggle);
      gtk_toggle_button_set_active (self->output_toggle, FALSE);
      /* The graph and the step card get the room: at 20 px type few graphs
       * fit beside the code. F9 shows it (the graph refits). */
      set_editor_hidden (self, TRUE);
      show_hint (self);
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self), "presentation");
      gtk_window_unfullscreen (GTK_WINDOW (self));
      set_editor_hidden (self, self->editor_was_hidden);
      gtk_toggle_button_set_active (self->output_toggle, self->output_was_open);
      g_clear_handle_id (&self->hint_timeout_id, g_source_remove);
      gtk_revealer_set_reveal_child (self->hint_revealer, FALSE);
    }
  /* The panes make room for the larger type (and back). */
  self->outer_moved = self->inner_moved = FALSE;
  place_panes (self);
  gtk_widget_set_visible (GTK_WIDGET (self->header_bar), !presentation);
  gtk_widget_set_visible (self->stepper_buttons, !presentation);
  /* In presentation the step's label heads the step card, off the graph. */
  gtk_widget_set_visible (self->stepper_bar, !presentation && cr_graph_canvas_get_model (self->canvas));
  gtk_widget_set_visible (self->present_header, presentation);
  /* A presentation shows the graph and the steps, not the controls: the
   * keys zoom, and the page (script or expression) stays as it was. */
  gtk_widget_set_visible (self->editor_switcher_bar, !presentation);
  gtk_widget_set_visible (self->zoom_bar, !presentation && cr_graph_canvas_get_model (self->canvas));
  gtk_widget_set_visible (self->depth_bar, !presentation);
  /* A clicker cannot scroll sideways, and a line cut at the editor's edge
   * hides what the room should read. */
  update_editor_wrap (self);
  cr_graph_canvas_set_presentation (self->canvas, presentation);
  gtk_widget_grab_focus (GTK_WIDGET (self->canvas));
}

static void
presentation_changed (GSimpleAction *action,
                      GVariant      *value,
                      gpointer       user_data)
{
  cr_window_set_presentation (CR_WINDOW (user_data), g_variant_get_boolean (value));
}

static void
hide_editor_changed (GSimpleAction *action,
                     GVariant      *value,
                     gpointer       user_data)
{
  set_editor_hidden (CR_WINDOW (user_data), g_variant_get_boolean (value));
}

/* The way back from Escape: the keys to the editor, shown if hidden. In
 * presentation the arrows and Home step the story unless the editor has
 * the focus, and Ctrl+Shift+Tab need not reach it; with it, Ctrl+Up and
 * Ctrl+Down play with the numbers in front of the room. */
static void
focus_editor_activated (GSimpleAction *action,
                        GVariant      *parameter,
                        gpointer       user_data)
{
  CrWindow *self = user_data;
  if (!gtk_widget_get_visible (self->editor_column))
    g_action_group_change_action_state (G_ACTION_GROUP (self), "hide-editor", g_variant_new_boolean (FALSE));
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->editor_stack), "script") == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
  else
    gtk_widget_child_focus (gtk_stack_get_visible_child (self->editor_stack), GTK_DIR_TAB_FORWARD);
}

/* In presentation mode the hint comes back when the pointer goes to the top
 * edge, where the header bar would be. */
static void
on_pointer_motion (GtkEventControllerMotion *motion,
                   double                    x,
                   double                    y,
                   CrWindow                 *self)
{
  if (y < 24 && gtk_widget_has_css_class (GTK_WIDGET (self), "presentation")
      && !gtk_revealer_get_reveal_child (self->hint_revealer))
    show_hint (self);
}

/* ---- other actions ---- */

static void
zoom_in_activated (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  if (editor_has_keyboard (self))
    set_editor_zoom (self, self->editor_zoom * EDITOR_ZOOM_STEP);
  else
    cr_graph_canvas_zoom_in (self->canvas);
}

static void
zoom_out_activated (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  if (editor_has_keyboard (self))
    set_editor_zoom (self, self->editor_zoom / EDITOR_ZOOM_STEP);
  else
    cr_graph_canvas_zoom_out (self->canvas);
}

static void
zoom_fit_activated (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  if (editor_has_keyboard (self))
    set_editor_zoom (self, 1.0);
  else
    cr_graph_canvas_zoom_fit (self->canvas);
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  cr_about_present (GTK_WINDOW (user_data));
}

static void
on_output_toggled (GtkToggleButton *toggle,
                   CrWindow        *self)
{
  gtk_image_set_from_icon_name (self->output_arrow, gtk_toggle_button_get_active (toggle)
                                                    ? "pan-down-symbolic" : "pan-end-symbolic");
}

/* ---- layout ---- */

/* The panes keep in proportion to the window rather than at fixed pixels,
 * until the person drags a handle: then their choice stays. The graph gets
 * the room: the code about 30 % (in presentation a quarter, or what holds
 * its 30 columns: presented_editor_width), the sidebar a
 * readable width for the step card's matrices. */
static int
max_position (GtkPaned *paned)
{
  int max = 0;
  g_object_get (paned, "max-position", &max, NULL);
  return max;
}

/* Presenting, the script shown (F9) holds a statement such as
 * "    optimizer.zero_grad()" on one row at presentation's type: a quarter
 * of a 1366 px projector held 24 columns. It gets room for this many
 * columns of code, past its line numbers (4 columns), up to a share that
 * leaves the graph its room. */
#define PRESENTED_EDITOR_COLUMNS 30
#define EDITOR_GUTTER_COLUMNS 4
#define PRESENTED_EDITOR_MAX_SHARE 0.31

static int
presented_editor_width (CrWindow *self,
                        int       width)
{
  double column = cr_editor_wrap_column_width (GTK_TEXT_VIEW (self->source_view),
                                               EDITOR_FONT_PT * presentation_scale (self) * self->editor_zoom);
  double wanted = column * (PRESENTED_EDITOR_COLUMNS + EDITOR_GUTTER_COLUMNS);
  return (int) CLAMP (wanted, width * 0.25, width * PRESENTED_EDITOR_MAX_SHARE);
}

static void
place_panes (CrWindow *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self->outer_paned));
  int height = gtk_widget_get_height (GTK_WIDGET (self->outer_paned));
  if (width <= 0)
    return;
  gboolean presenting = gtk_widget_has_css_class (GTK_WIDGET (self), "presentation");
  if (!self->outer_moved)
    {
      self->outer_set = presenting ? presented_editor_width (self, width) : (int) (width * 0.30);
      self->outer_max_set = max_position (self->outer_paned);
      gtk_paned_set_position (self->outer_paned, self->outer_set);
    }
  /* The inner paned as it is now: when the outer handle has just moved,
   * it is about to grow or shrink, and the sidebar keeps its width then
   * (resize-end-child is false), so the handle lands where asked either
   * way, and place_panes runs again on its new max-position. */
  int inner = gtk_widget_get_width (GTK_WIDGET (self->inner_paned));
  if (inner > 0)
    {
      /* Presentation's larger type needs a wider step card; at 1366 px
       * the graph gets what the card can spare, and the 20 px its
       * narrower sides give (update_scale_css: 2 × 0.5 em at
       * presentation's type). A dragged sidebar keeps its width (back to
       * it after a wide card widened it). */
      int sidebar = self->inner_moved ? self->sidebar_dragged
                    : presenting ? (int) (width * 0.30) - 20
                    : width >= 1800 ? 400 : width >= 1500 ? 340 : 305;
      self->inner_set = MAX (inner - sidebar, 0);
      self->inner_max_set = max_position (self->inner_paned);
      if (gtk_paned_get_position (self->inner_paned) != self->inner_set)
        gtk_paned_set_position (self->inner_paned, self->inner_set);
    }
  /* The output under the code: a fifth of the height, the code the rest. */
  int output = CLAMP (height / 5, 100, 220);
  int old;
  gtk_widget_get_size_request (self->output_scroller, NULL, &old);
  if (height > 0 && output != old)
    gtk_widget_set_size_request (self->output_scroller, -1, output);
}

static gboolean
place_panes_idle (gpointer user_data)
{
  CrWindow *self = user_data;
  g_object_steal_data (G_OBJECT (self), "cr-place-panes-idle");
  place_panes (self);
  return G_SOURCE_REMOVE;
}

static void
remove_source (gpointer id)
{
  g_source_remove (GPOINTER_TO_UINT (id));
}

/* The window's size changed: this runs while GTK lays the panes out, where
 * moving a handle would leave a pane drawn without a size in this frame
 * (GTK warns); the panes move once the frame is done. */
static void
on_pane_max_position (GtkPaned   *paned,
                      GParamSpec *pspec,
                      CrWindow   *self)
{
  if (g_object_get_data (G_OBJECT (self), "cr-place-panes-idle"))
    return;
  guint id = g_idle_add_full (G_PRIORITY_DEFAULT, place_panes_idle, self, NULL);
  g_object_set_data_full (G_OBJECT (self), "cr-place-panes-idle", GUINT_TO_POINTER (id), remove_source);
}

/* Whether position is where GTK clamped a handle that place_panes put
 * beyond a pane's reach: a child's minimum size (the step card's widest
 * matrix widens the sidebar) moves the handle, not the person. */
static gboolean
clamped (GtkPaned *paned,
         int       set,
         int       position)
{
  int min = 0, max = 0;
  g_object_get (paned, "min-position", &min, "max-position", &max, NULL);
  return (set > max && position == max) || (set < min && position == min);
}

static void
on_pane_position (GtkPaned   *paned,
                  GParamSpec *pspec,
                  CrWindow   *self)
{
  int position = gtk_paned_get_position (paned);
  if (clamped (paned, paned == self->outer_paned ? self->outer_set : self->inner_set, position))
    return;
  /* Only a drag moves a handle anywhere but where place_panes put it (a
   * clamp to a too small window stays within a few pixels). GTK moves the
   * inner handle too when the outer one moves (the inner paned grows and
   * its sidebar keeps its width): that comes with a new max-position, and
   * place_panes puts the handle back (the graph pane was 614 or 644 px wide
   * depending on which came first). */
  if (paned == self->outer_paned && abs (position - self->outer_set) > 8
      && gtk_widget_get_mapped (GTK_WIDGET (paned)) && self->outer_set > 0
      && max_position (paned) == self->outer_max_set)
    self->outer_moved = TRUE;
  if (paned == self->inner_paned && abs (position - self->inner_set) > 8
      && gtk_widget_get_mapped (GTK_WIDGET (paned)) && self->inner_set > 0
      && max_position (paned) == self->inner_max_set)
    {
      self->inner_moved = TRUE;
      self->sidebar_dragged = gtk_widget_get_width (GTK_WIDGET (paned)) - position;
      self->inner_set = position;
    }
}

/* ---- the GObject ---- */

static void
cr_window_dispose (GObject *object)
{
  CrWindow *self = CR_WINDOW (object);

  /* Nothing may reach back into a half-disposed window. */
  GObject *emitters[] = {
    G_OBJECT (self->canvas), G_OBJECT (self->editor_stack), G_OBJECT (self->outer_paned),
    G_OBJECT (self->inner_paned), G_OBJECT (self->call_dropdown), G_OBJECT (self->device_dropdown),
    G_OBJECT (self->expression_panel), G_OBJECT (self->gallery),
    self->source_view ? G_OBJECT (get_buffer (self)) : NULL,
  };
  for (guint i = 0; i < G_N_ELEMENTS (emitters); i++)
    if (emitters[i])
      g_signal_handlers_disconnect_by_data (emitters[i], self);
  cr_window_run_dispose (self);
  cr_window_stepper_dispose (self);
  cr_window_paths_dispose (self);
  g_object_set_data (G_OBJECT (self), "cr-place-panes-idle", NULL);
  g_clear_handle_id (&self->hint_timeout_id, g_source_remove);
  if (self->scale_css)
    gtk_style_context_remove_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                                   GTK_STYLE_PROVIDER (self->scale_css));
  g_clear_object (&self->scale_css);
  if (self->settings)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);
  g_clear_object (&self->file);
  g_clear_pointer (&self->pending_open, g_free);
  g_clear_pointer (&self->pending_script, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), CR_TYPE_WINDOW);

  G_OBJECT_CLASS (cr_window_parent_class)->dispose (object);
}

static void
cr_window_class_init (CrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cr_window_dispose;

  signals[SIGNAL_RUN_FINISHED] =
    g_signal_new ("run-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  g_type_ensure (CR_TYPE_GRAPH_CANVAS);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/chainrule/Chainrule/cr-window.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, CrWindow, name)
  BIND (header_bar);
  BIND (title);
  BIND (gallery_button);
  BIND (editor_button);
  BIND (device_dropdown);
  BIND (call_dropdown);
  BIND (menu_button);
  BIND (toast_overlay);
  BIND (main_stack);
  BIND (gallery_scroller);
  BIND (outer_paned);
  BIND (inner_paned);
  BIND (editor_column);
  BIND (editor_switcher_bar);
  BIND (editor_stack);
  BIND (source_view);
  BIND (error_revealer);
  BIND (error_label);
  BIND (expression_box);
  BIND (output_toggle);
  BIND (output_arrow);
  BIND (output_revealer);
  BIND (output_scroller);
  BIND (output_view);
  BIND (canvas);
  BIND (empty_page);
  BIND (stepper_bar);
  BIND (zoom_bar);
  BIND (depth_bar);
  BIND (stepper_buttons);
  BIND (play_button);
  BIND (speed_button);
  BIND (step_label);
  BIND (zoom_fit_button);
  BIND (hint_revealer);
  BIND (present_header);
  BIND (running_revealer);
  BIND (running_spinner);
  BIND (sidebar);
  BIND (sidebar_stack);
  BIND (step_scroller);
  BIND (node_scroller);
#undef BIND

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.presentation", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, 0, "win.hide-editor", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK, "win.focus-editor", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "win.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "win.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "win.zoom-fit", NULL);
}

static void
add_child_widgets (CrWindow *self)
{
  self->gallery = cr_example_gallery_new ();
  gtk_scrolled_window_set_child (self->gallery_scroller, self->gallery);
  g_signal_connect (self->gallery, "example-activated", G_CALLBACK (on_example_activated), self);

  self->expression_panel = cr_expression_panel_new ();
  gtk_widget_set_vexpand (self->expression_panel, TRUE);
  gtk_box_append (self->expression_box, self->expression_panel);
  g_signal_connect (self->expression_panel, "script-changed", G_CALLBACK (on_expression_changed), self);
  g_signal_connect (self->expression_panel, "open-as-script", G_CALLBACK (on_open_as_script), self);

  self->step_card = cr_step_card_new ();
  gtk_scrolled_window_set_child (self->step_scroller, self->step_card);
  self->inspector = cr_inspector_new ();
  gtk_scrolled_window_set_child (self->node_scroller, self->inspector);
}

static void
cr_window_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "open-example", .activate = open_example_activated, .parameter_type = "s" },
    { .name = "gallery", .state = "false", .change_state = gallery_changed },
    { .name = "presentation", .state = "false", .change_state = presentation_changed },
    { .name = "hide-editor", .state = "false", .change_state = hide_editor_changed },
    { .name = "focus-editor", .activate = focus_editor_activated },
    { .name = "zoom-in", .activate = zoom_in_activated },
    { .name = "zoom-out", .activate = zoom_out_activated },
    { .name = "zoom-fit", .activate = zoom_fit_activated },
    { .name = "about", .activate = about_activated },
  };

  gtk_widget_init_template (GTK_WIDGET (self));
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  self->settings = cr_settings_new ();
  self->scale_css = gtk_css_provider_new ();
  gtk_style_context_add_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                              GTK_STYLE_PROVIDER (self->scale_css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
  self->editor_zoom = 1.0;
  if (self->settings)
    {
      self->editor_zoom = CLAMP (g_settings_get_double (self->settings, "zoom"), EDITOR_ZOOM_MIN, EDITOR_ZOOM_MAX);
      g_signal_connect (self->settings, "changed", G_CALLBACK (on_settings_changed), self);
    }
  update_scale_css (self);

  add_child_widgets (self);
  setup_editor (self);
  cr_window_run_init (self);
  cr_window_stepper_init (self);
  cr_window_present_init (self);
  cr_window_check_init (self);
  cr_window_handout_init (self);
  cr_window_paths_init (self);
  cr_window_practice_init (self);
  cr_window_scalars_init (self);
  cr_window_training_init (self);
  /* Module depth, floating at the top right (shown while the graph has groups). */
  GtkWidget *depth = cr_graph_depth_control_new (self->canvas);
  gtk_widget_set_margin_top (depth, 12);
  gtk_widget_set_margin_end (depth, 12);
  gtk_widget_add_css_class (depth, "osd");
  gtk_widget_add_css_class (depth, "toolbar");
  gtk_widget_add_css_class (depth, "cr-floating");
  gtk_box_append (GTK_BOX (self->depth_bar), depth);

  /* The minimap, top left over the graph (it shows only while the canvas
   * shows part of the graph). */
  GtkWidget *overview = cr_graph_overview_new (self->canvas);
  gtk_widget_set_halign (overview, GTK_ALIGN_START);
  gtk_widget_set_valign (overview, GTK_ALIGN_START);
  gtk_widget_set_margin_top (overview, 12);
  gtk_widget_set_margin_start (overview, 12);
  gtk_overlay_add_overlay (GTK_OVERLAY (gtk_widget_get_parent (GTK_WIDGET (self->canvas))), overview);

  g_signal_connect (self->canvas, "notify::selected", G_CALLBACK (on_selected_changed), self);
  g_signal_connect (self->canvas, "notify::zoom", G_CALLBACK (on_zoom_changed), self);
  g_signal_connect (self->editor_stack, "notify::visible-child", G_CALLBACK (on_editor_page_changed), self);
  g_signal_connect (self->output_toggle, "toggled", G_CALLBACK (on_output_toggled), self);
  g_signal_connect (self->editor_button, "toggled", G_CALLBACK (on_editor_button_toggled), self);
  g_signal_connect (self->outer_paned, "notify::max-position", G_CALLBACK (on_pane_max_position), self);
  g_signal_connect (self->inner_paned, "notify::max-position", G_CALLBACK (on_pane_max_position), self);
  g_signal_connect (self->outer_paned, "notify::position", G_CALLBACK (on_pane_position), self);
  g_signal_connect (self->inner_paned, "notify::position", G_CALLBACK (on_pane_position), self);

  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_pointer_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  cr_window_files_install (self);

  /* Until a file or an example is opened, the gallery is the way in. */
  cr_window_show_model (self, 0);
  cr_window_update_title (self);
  cr_window_show_gallery (self, TRUE);
}

/* ---- public API ---- */

CrWindow *
cr_window_new (GtkApplication *application)
{
  return g_object_new (CR_TYPE_WINDOW, "application", application, NULL);
}

gboolean
cr_window_open_file (CrWindow  *self,
                     GFile     *file,
                     GError   **error)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  g_autofree char *contents = cr_script_file_load (file, error);
  if (!contents)
    return FALSE;
  g_set_object (&self->file, file);
  GtkTextBuffer *buffer = get_buffer (self);
  /* Opening is not an edit to undo. */
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, contents, -1);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_set_modified (buffer, FALSE);
  GtkTextIter start;
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_view_scroll_to_iter (GTK_TEXT_VIEW (self->source_view), &start, 0, FALSE, 0, 0);
  gtk_stack_set_visible_child_name (self->editor_stack, "script");
  cr_window_update_title (self);
  cr_window_show_gallery (self, FALSE);
  /* The keys step through the graph at once; a click puts them in the editor. */
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->canvas));
  cr_window_schedule_run (self);
  return TRUE;
}

GFile *
cr_window_get_file (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), NULL);
  return self->file;
}

void
cr_window_set_file (CrWindow *self,
                    GFile    *file)
{
  g_return_if_fail (CR_IS_WINDOW (self));
  g_set_object (&self->file, file);
  cr_window_update_title (self);
}

char *
cr_window_get_text (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), NULL);
  GtkTextIter start, end;
  gtk_text_buffer_get_bounds (get_buffer (self), &start, &end);
  return gtk_text_buffer_get_text (get_buffer (self), &start, &end, TRUE);
}

GtkSourceView *
cr_window_get_source_view (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), NULL);
  return self->source_view;
}

CrGraphCanvas *
cr_window_get_canvas (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), NULL);
  return self->canvas;
}

void
cr_window_show_gallery (CrWindow *self,
                        gboolean  show)
{
  g_return_if_fail (CR_IS_WINDOW (self));
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "gallery");
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (show));
  gtk_stack_set_visible_child_name (self->main_stack, show ? "gallery" : "workspace");
  /* The script to show or hide is in the workspace. */
  gtk_widget_set_visible (GTK_WIDGET (self->editor_button), !show);
  if (show)
    gtk_widget_grab_focus (self->gallery);
}

void
cr_window_toast (CrWindow   *self,
                 const char *message)
{
  g_return_if_fail (CR_IS_WINDOW (self));
  AdwToast *toast = adw_toast_new (message);
  adw_toast_set_timeout (toast, 4);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

gboolean
cr_window_is_busy (CrWindow *self)
{
  g_return_val_if_fail (CR_IS_WINDOW (self), FALSE);
  return self->running || self->run_timeout_id != 0 || self->error_timeout_id != 0;
}
