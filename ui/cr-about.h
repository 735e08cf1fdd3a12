/* cr-about.h — the About window. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Shows the About window, transient for parent (may be NULL). */
void cr_about_present (GtkWindow *parent);

G_END_DECLS
