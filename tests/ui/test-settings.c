/* test-settings.c — the app's GSettings schema is found uninstalled (compiled
 * into the build tree) with the documented keys and defaults. */
#include "cr-config.h"
#include "cr-settings.h"

static void
test_defaults (void)
{
  g_autoptr (GSettings) settings = cr_settings_new ();
  g_assert_nonnull (settings);

  g_autoptr (GSettingsSchema) schema = NULL;
  g_object_get (settings, "settings-schema", &schema, NULL);
  g_assert_cmpstr (g_settings_schema_get_id (schema), ==, CR_APP_ID);

  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1280);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 800);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));
  g_autofree char *last = g_settings_get_string (settings, "last-file");
  g_assert_cmpstr (last, ==, "");
  g_assert_cmpfloat (g_settings_get_double (settings, "zoom"), ==, 1.0);
  g_assert_cmpfloat (g_settings_get_double (settings, "presentation-scale"), ==, 1.4);
}

static void
test_write (void)
{
  g_autoptr (GSettings) settings = cr_settings_new ();
  g_assert_nonnull (settings);
  g_assert_true (g_settings_set_string (settings, "last-file", "file:///tmp/a.py"));
  g_assert_true (g_settings_set_double (settings, "presentation-scale", 2.0));

  /* Another GSettings on the same backend sees the values. */
  g_autoptr (GSettings) other = cr_settings_new ();
  g_autofree char *last = g_settings_get_string (other, "last-file");
  g_assert_cmpstr (last, ==, "file:///tmp/a.py");
  g_assert_cmpfloat (g_settings_get_double (other, "presentation-scale"), ==, 2.0);
  g_settings_reset (settings, "last-file");
  g_settings_reset (settings, "presentation-scale");
}

int
main (int    argc,
      char **argv)
{
  /* Never the person's own settings (dconf), whatever the environment. */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/settings/defaults", test_defaults);
  g_test_add_func ("/ui/settings/write", test_write);
  return g_test_run ();
}
