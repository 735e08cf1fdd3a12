/* cr-application.c — starts GtkSourceView and opens a window: on each file
 * given, or, without files, on the example gallery; the first window offers
 * back the drafts an earlier run left. */
#include "cr-config.h"
#include "cr-application.h"

#include "cr-window.h"

#include <gtksourceview/gtksource.h>

struct _CrApplication
{
  AdwApplication parent_instance;
  gboolean       drafts_offered;  /* once, on the first window */
  char          *select_name;     /* --select NAME: the node selected in each window */
};

G_DEFINE_FINAL_TYPE (CrApplication, cr_application, ADW_TYPE_APPLICATION)

static void
open_in_new_window (CrApplication *self,
                    GFile         *file)
{
  CrWindow *window = cr_window_new (GTK_APPLICATION (self));
  g_autoptr (GError) error = NULL;
  if (file && !cr_window_open_file (window, file, &error))
    {
      /* The window still opens (on the gallery), and says why. */
      g_printerr ("chainrule: %s\n", error->message);
      cr_window_toast (window, error->message);
    }
  if (file && self->select_name)
    cr_window_select_named_on_run (window, self->select_name);
  gtk_window_present (GTK_WINDOW (window));
  /* What an earlier run left unsaved (a crash, a kill) is offered back. */
  if (!self->drafts_offered)
    {
      self->drafts_offered = TRUE;
      cr_window_offer_drafts (window);
    }
}

static void
cr_application_activate (GApplication *app)
{
  open_in_new_window (CR_APPLICATION (app), NULL);
}

static void
cr_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    open_in_new_window (CR_APPLICATION (app), files[i]);
}

/* Closes the windows one by one, so each can ask about unsaved changes. */
static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  /* A copy: a closed window leaves the application's list. */
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));
  for (GList *l = windows; l; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
  g_list_free (windows);
}

static void
cr_application_startup (GApplication *app)
{
  static const GActionEntry actions[] = {
    { .name = "quit", .activate = quit_activated },
  };
  static const char *const quit_accels[] = { "<Control>q", NULL };

  G_APPLICATION_CLASS (cr_application_parent_class)->startup (app);
  gtk_source_init ();
  g_action_map_add_action_entries (G_ACTION_MAP (app), actions, G_N_ELEMENTS (actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
}

static int
cr_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  CrApplication *self = CR_APPLICATION (app);
  g_clear_pointer (&self->select_name, g_free);
  g_variant_dict_lookup (options, "select", "s", &self->select_name);
  return -1;   /* Go on: open the files. */
}

static void
cr_application_finalize (GObject *object)
{
  g_free (CR_APPLICATION (object)->select_name);
  G_OBJECT_CLASS (cr_application_parent_class)->finalize (object);
}

static void
cr_application_class_init (CrApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = cr_application_finalize;
  app_class->handle_local_options = cr_application_handle_local_options;

  app_class->activate = cr_application_activate;
  app_class->open = cr_application_open;
  app_class->startup = cr_application_startup;
}

static void
cr_application_init (CrApplication *self)
{
}

CrApplication *
cr_application_new (void)
{
  /* Non-unique: each `chainrule FILE` is its own process, so tests and
   * screenshots never talk to a running instance over D-Bus. */
  GApplication *app = g_object_new (CR_TYPE_APPLICATION,
                                    "application-id", CR_APP_ID,
                                    "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                                    NULL);
  /* For a lesson's first view and for screenshots: a leaf selected, W walks it. */
  g_application_add_main_option (app, "select", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_STRING,
                                 "Select the tensor NAME on the graph (a leaf: W walks its paths)",
                                 "NAME");
  return CR_APPLICATION (app);
}
