/* cr-settings.c — the app's GSettings: the installed schema when there is
 * one, else the one compiled into the build tree, so that build/app/chainrule
 * and the tests remember their settings without `meson install`. */
#include "cr-config.h"
#include "cr-settings.h"

GSettings *
cr_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  if (source)
    schema = g_settings_schema_source_lookup (source, CR_APP_ID, TRUE);

#ifdef CR_BUILD_SCHEMA_DIR
  if (!schema)
    {
      /* A missing or unreadable build folder (an installed binary whose build
       * tree is gone) only means there is no schema there. */
      g_autoptr (GSettingsSchemaSource) build_source =
        g_settings_schema_source_new_from_directory (CR_BUILD_SCHEMA_DIR, source, FALSE, NULL);
      if (build_source)
        schema = g_settings_schema_source_lookup (build_source, CR_APP_ID, FALSE);
    }
#endif

  if (!schema)
    return NULL;
  return g_settings_new_full (schema, NULL, NULL);
}
