/* cr-window-handout.c — "Export Handout…" (win.export-handout): the
 * lecture notes `chainrule export --handout` writes (render/cr-handout.h),
 * written from the window's run record; no second run. The dialog offers
 * what the command line does: every backward call or the one shown, and
 * practice (--practice). The menu item goes under Export Graph…, added
 * here so the window's template is not touched. */
#include "cr-config.h"
#include "cr-window-private.h"

#include "cr-handout.h"

#include <adwaita.h>
#include <string.h>

gboolean
cr_window_export_handout (CrWindow    *self,
                          const char  *path,
                          guint       *n_pages,
                          GError     **error)
{
  return cr_window_export_handout_full (self, path, FALSE, FALSE, n_pages, error);
}

gboolean
cr_window_export_handout_full (CrWindow    *self,
                               const char  *path,
                               gboolean     every_call,
                               gboolean     practice,
                               guint       *n_pages,
                               GError     **error)
{
  const CrGraphModel *shown = cr_graph_canvas_get_model (self->canvas);
  if (!shown || !shown->record)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "There is no graph to export yet");
      return FALSE;
    }
  /* The record's model of the call shown: the canvas's may be collapsed
   * to the depth the window shows; the handout opens every group. */
  g_autoptr (CrGraphModel) model = cr_graph_model_new_from_run_record (shown->record, shown->backward);
  if (!model)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "There is no graph to export yet");
      return FALSE;
    }
  GFile *file = cr_window_get_file (self);
  g_autofree char *name = file ? g_file_get_basename (file) : g_strdup ("script.py");
  g_autoptr (GArray) calls = every_call ? cr_handout_default_calls (shown->record) : NULL;
  CrHandout handout = {
    .model = model,
    .script_name = name,
    .source = shown->record->source,
    .style = CR_GRAPH_STYLE_LIGHT,     /* paper */
    .calls = calls,
    .practice = practice,
  };
  return cr_handout_write_pdf (&handout, path, n_pages, error);
}

static void
handout_response_cb (GtkNativeDialog *native,
                     int              response,
                     gpointer         user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  g_autoptr (GFile) file = response == GTK_RESPONSE_ACCEPT
                           ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native)) : NULL;
  g_autofree char *path = file ? g_file_get_path (file) : NULL;
  if (file && !path)
    cr_window_toast (self, "The handout can only be written to a local file.");
  else if (path)
    {
      if (!g_str_has_suffix (path, ".pdf") && !g_str_has_suffix (path, ".PDF"))
        {
          char *with_pdf = g_strconcat (path, ".pdf", NULL);
          g_free (path);
          path = with_pdf;
        }
      guint n_pages = 0;
      g_autoptr (GError) error = NULL;
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *display = g_filename_display_name (base);
      GtkFileChooser *chooser = GTK_FILE_CHOOSER (native);
      gboolean every_call = g_strcmp0 (gtk_file_chooser_get_choice (chooser, "calls"), "shown") != 0;
      gboolean practice = g_strcmp0 (gtk_file_chooser_get_choice (chooser, "practice"), "true") == 0;
      g_autofree char *message = cr_window_export_handout_full (self, path, every_call, practice,
                                                                &n_pages, &error)
        ? g_strdup_printf ("Wrote the handout to “%s”: %u page%s", display, n_pages,
                           n_pages == 1 ? "" : "s")
        : g_strdup_printf ("Could not write the handout: %s", error->message);
      cr_window_toast (self, message);
    }
  g_object_unref (native);
  g_object_unref (self);
}

static void
export_handout_activated (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  CrWindow *self = CR_WINDOW (user_data);
  const CrGraphModel *shown = cr_graph_canvas_get_model (self->canvas);
  if (!shown || !shown->record)
    {
      cr_window_toast (self, "There is no graph to export yet");
      return;
    }
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Export Handout", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  GtkFileFilter *filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, "PDF document");
  gtk_file_filter_add_pattern (filter, "*.pdf");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  g_object_unref (filter);
  /* What `chainrule export --handout` offers: the calls, and --practice. */
  if (shown->record->backwards->len > 1)
    {
      static const char *const ids[] = { "every", "shown", NULL };
      static const char *const labels[] = { "Every backward call", "The backward call shown", NULL };
      gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (native), "calls", "Calls",
                                   (const char **) ids, (const char **) labels);
      gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (native), "calls", "every");
    }
  gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (native), "practice",
                               "Practice: a question page before each step", NULL, NULL);
  /* "toy-network-handout.pdf" */
  GFile *file = cr_window_get_file (self);
  g_autofree char *base = file ? g_file_get_basename (file) : g_strdup ("script.py");
  g_autofree char *display = g_filename_display_name (base);
  char *dot = strrchr (display, '.');
  if (dot && dot != display)
    *dot = '\0';
  g_autofree char *name = g_strconcat (display, "-handout.pdf", NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_signal_connect (native, "response", G_CALLBACK (handout_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* The menu section that holds action, its index in *position; NULL. */
static GMenu *
section_holding (GMenuModel *menu,
                 const char *action,
                 int        *position)
{
  for (int i = 0; menu && i < g_menu_model_get_n_items (menu); i++)
    {
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
      for (int k = 0; section && k < g_menu_model_get_n_items (section); k++)
        {
          g_autofree char *name = NULL;
          if (g_menu_model_get_item_attribute (section, k, G_MENU_ATTRIBUTE_ACTION, "s", &name)
              && g_strcmp0 (name, action) == 0 && G_IS_MENU (section))
            {
              *position = k;
              return G_MENU (section);
            }
        }
    }
  return NULL;
}

void
cr_window_handout_init (CrWindow *self)
{
  static const GActionEntry actions[] = {
    { .name = "export-handout", .activate = export_handout_activated },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  int position = 0;
  GMenu *section = section_holding (gtk_menu_button_get_menu_model (self->menu_button),
                                    "win.export-graph", &position);
  if (section)
    g_menu_insert (section, position + 1, "Export _Handout…", "win.export-handout");
}
