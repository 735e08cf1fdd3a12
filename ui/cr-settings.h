/* cr-settings.h — the app's GSettings (schema io.github.chainrule.Chainrule):
 * window-width, window-height, window-maximized, last-file, zoom,
 * presentation-scale. Found installed, else compiled in the build tree. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A new GSettings, or NULL when the schema is nowhere (the app then runs
 * with defaults and remembers nothing). */
GSettings *cr_settings_new (void);

G_END_DECLS
