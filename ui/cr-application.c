/* cr-application.c — starts GtkSourceView and opens a window: on the files
 * given, or on the first example. */
#include "cr-config.h"
#include "cr-application.h"

#include "cr-window.h"
#include "cr-examples.h"

#include <gtksourceview/gtksource.h>

#define DEFAULT_EXAMPLE "01-toy-network.py"

struct _CrApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (CrApplication, cr_application, ADW_TYPE_APPLICATION)

static void
open_in_new_window (CrApplication *self,
                    GFile         *file)
{
  CrWindow *window = cr_window_new (GTK_APPLICATION (self));
  g_autoptr (GError) error = NULL;
  if (file && !cr_window_open_file (window, file, &error))
    g_printerr ("chainrule: %s\n", error->message);
  gtk_window_present (GTK_WINDOW (window));
}

static void
cr_application_activate (GApplication *app)
{
  g_autofree char *path = g_build_filename (cr_examples_dir (), DEFAULT_EXAMPLE, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  open_in_new_window (CR_APPLICATION (app), g_file_query_exists (file, NULL) ? file : NULL);
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

static void
cr_application_startup (GApplication *app)
{
  G_APPLICATION_CLASS (cr_application_parent_class)->startup (app);
  gtk_source_init ();

}

static void
cr_application_class_init (CrApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

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
  return g_object_new (CR_TYPE_APPLICATION,
                       "application-id", CR_APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       NULL);
}
