/* cr-about.c — the About window, filled by hand (libadwaita 1.2 has no
 * AdwAboutWindow loaded from AppStream data). */
#include "cr-config.h"
#include "cr-about.h"

#include <adwaita.h>

#define CR_WEBSITE "https://github.com/chainrule/chainrule"

void
cr_about_present (GtkWindow *parent)
{
  static const char *developers[] = { "The Chainrule developers", NULL };

  GtkWidget *about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                                   "application-icon", CR_APP_ID,
                                   "application-name", "Chainrule",
                                   "version", CR_VERSION,
                                   "developer-name", "The Chainrule developers",
                                   "developers", developers,
                                   "comments", "Watch backpropagation step by step: the "
                                               "graph of a PyTorch-style script, and the "
                                               "chain rule at every node in numbers.",
                                   "license-type", GTK_LICENSE_GPL_3_0,
                                   "website", CR_WEBSITE,
                                   "issue-url", CR_WEBSITE "/issues",
                                   "copyright", "© 2026 The Chainrule developers",
                                   "modal", parent != NULL,
                                   "transient-for", parent,
                                   NULL);
  gtk_window_present (GTK_WINDOW (about));
}
