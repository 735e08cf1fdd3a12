/* test-gallery.c — the examples and their gallery: cr_examples_list() reads
 * every example's title and purpose; the gallery shows one card per example
 * with its title, a card's activation names its file, and every card gets a
 * drawn thumbnail of its graph (redrawn for the dark style). Runs under
 * xvfb-run. */
#include "cr-config.h"
#include "cr-example-gallery.h"
#include "cr-examples.h"
#include "ui-test-gui.h"

#include <adwaita.h>
#include <string.h>

/* data/examples holds 14 scripts (the seed tutorials' and the later ones). */
#define N_EXAMPLES 14

static GtkWidget *
find_descendant (GtkWidget *widget,
                 GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_descendant (child, type);
      if (found)
        return found;
    }
  return NULL;
}

/* The first label under widget with css_class, or NULL. */
static GtkLabel *
find_label (GtkWidget  *widget,
            const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class))
    return GTK_LABEL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = find_label (child, css_class);
      if (found)
        return found;
    }
  return NULL;
}

/* The flow box's children, in order (new array of borrowed widgets). */
static GPtrArray *
cards_of (GtkWidget *gallery)
{
  GtkWidget *flow_box = find_descendant (gallery, GTK_TYPE_FLOW_BOX);
  g_assert_nonnull (flow_box);
  GPtrArray *cards = g_ptr_array_new ();
  for (GtkWidget *child = gtk_widget_get_first_child (flow_box); child;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_FLOW_BOX_CHILD (child))
      g_ptr_array_add (cards, child);
  return cards;
}

static GtkWidget *
gallery_in_window (GtkWindow **out_window)
{
  GtkWidget *window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  GtkWidget *gallery = cr_example_gallery_new ();
  gtk_window_set_child (GTK_WINDOW (window), gallery);
  gtk_window_present (GTK_WINDOW (window));
  *out_window = GTK_WINDOW (window);
  return gallery;
}

static gboolean
loading_or_mapped (gpointer gallery)
{
  return cr_example_gallery_get_loading (gallery) || gtk_widget_get_mapped (gallery);
}

static gboolean
loaded (gpointer gallery)
{
  return !cr_example_gallery_get_loading (gallery);
}

static gboolean
loading (gpointer gallery)
{
  return cr_example_gallery_get_loading (gallery);
}

static void
wait_for_thumbnails (GtkWidget *gallery)
{
  /* Loading starts at the first map: wait for that, then for the end. */
  g_assert_true (cr_ui_test_wait_until (loading_or_mapped, gallery, 60));
  g_assert_true (cr_ui_test_wait_until (loaded, gallery, 60));
}

static void
test_examples_list (void)
{
  g_autoptr (GPtrArray) examples = cr_examples_list ();
  g_assert_cmpuint (examples->len, ==, N_EXAMPLES);
  for (guint i = 0; i < examples->len; i++)
    {
      const CrExample *example = g_ptr_array_index (examples, i);
      g_assert_true (g_path_is_absolute (example->path));
      g_assert_true (g_str_has_suffix (example->path, ".py"));
      g_assert_true (g_file_test (example->path, G_FILE_TEST_IS_REGULAR));
      g_assert_nonnull (example->title);
      g_assert_cmpstr (example->title, !=, "");
      g_assert_nonnull (example->purpose);
      g_assert_cmpstr (example->purpose, !=, "");
      if (i > 0)
        {
          const CrExample *before = g_ptr_array_index (examples, i - 1);
          g_assert_cmpint (strcmp (before->path, example->path), <, 0);
        }
    }
  const CrExample *toy = g_ptr_array_index (examples, 0);
  g_assert_true (g_str_has_suffix (toy->path, "/01-toy-network.py"));
  g_assert_cmpstr (toy->title, ==, "The toy network");
  g_assert_cmpstr (toy->purpose, ==, "Five leaf tensors, one loss, one backward pass");
}

static void
test_cards (void)
{
  GtkWindow *window;
  GtkWidget *gallery = gallery_in_window (&window);
  g_autoptr (GPtrArray) examples = cr_examples_list ();
  g_autoptr (GPtrArray) cards = cards_of (gallery);

  g_assert_cmpuint (cards->len, ==, examples->len);
  for (guint i = 0; i < cards->len; i++)
    {
      GtkWidget *card = g_ptr_array_index (cards, i);
      const CrExample *example = g_ptr_array_index (examples, i);
      g_assert_true (gtk_widget_has_css_class (card, "card"));
      g_assert_true (gtk_widget_get_focusable (card));
      GtkLabel *title = find_label (card, "heading");
      GtkLabel *purpose = find_label (card, "dim-label");
      g_assert_nonnull (title);
      g_assert_nonnull (purpose);
      g_assert_cmpstr (gtk_label_get_label (title), ==, example->title);
      g_assert_cmpstr (gtk_label_get_label (purpose), ==, example->purpose);
    }
  gtk_window_destroy (window);
}

static void
on_example_activated (GtkWidget  *gallery,
                      const char *path,
                      char      **out_path)
{
  g_free (*out_path);
  *out_path = g_strdup (path);
}

static void
test_activate (void)
{
  GtkWindow *window;
  GtkWidget *gallery = gallery_in_window (&window);
  g_autoptr (GPtrArray) examples = cr_examples_list ();
  g_autoptr (GPtrArray) cards = cards_of (gallery);
  g_autofree char *activated = NULL;
  g_signal_connect (gallery, "example-activated", G_CALLBACK (on_example_activated), &activated);

  /* A click or Enter/Space activates the child; the flow box passes it on. */
  guint picks[] = { 0, 7, N_EXAMPLES - 1 };
  for (guint i = 0; i < G_N_ELEMENTS (picks); i++)
    {
      g_clear_pointer (&activated, g_free);
      GtkWidget *card = g_ptr_array_index (cards, picks[i]);
      const CrExample *example = g_ptr_array_index (examples, picks[i]);
      g_assert_true (gtk_widget_activate (card));
      g_assert_cmpstr (activated, ==, example->path);
    }

  /* The same through the flow box's own signal, as a click emits it. */
  g_clear_pointer (&activated, g_free);
  GtkWidget *flow_box = find_descendant (gallery, GTK_TYPE_FLOW_BOX);
  g_signal_emit_by_name (flow_box, "child-activated", g_ptr_array_index (cards, 3));
  g_assert_cmpstr (activated, ==, ((CrExample *) g_ptr_array_index (examples, 3))->path);

  g_signal_handlers_disconnect_by_func (gallery, on_example_activated, &activated);
  gtk_window_destroy (window);
}

/* How many pixels of widget's drawing are not transparent, and their mean
 * colour (0..255 per channel) in *mean. */
static guint
drawn_pixels (GtkWidget *widget,
              double     mean[3])
{
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_assert_cmpint (width, >, 0);
  g_assert_cmpint (height, >, 0);
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  g_autoptr (GskRenderNode) node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  g_autoptr (GdkTexture) texture = gsk_renderer_render_texture (renderer, node,
                                                                &GRAPHENE_RECT_INIT (0, 0, width, height));
  int tw = gdk_texture_get_width (texture);
  int th = gdk_texture_get_height (texture);
  g_autofree guchar *data = g_malloc ((gsize) tw * th * 4);
  gdk_texture_download (texture, data, (gsize) tw * 4);

  guint count = 0;
  double sum[3] = { 0, 0, 0 };
  for (int i = 0; i < tw * th; i++)
    {
      /* Cairo's premultiplied BGRA in native order (little-endian here). */
      const guchar *p = data + 4 * i;
      if (p[3] == 0)
        continue;
      count++;
      sum[0] += p[2] * 255.0 / p[3];
      sum[1] += p[1] * 255.0 / p[3];
      sum[2] += p[0] * 255.0 / p[3];
    }
  for (int c = 0; c < 3; c++)
    mean[c] = count ? sum[c] / count : 0;
  return count;
}

static const char *
thumbnail_state (GtkWidget *card)
{
  GtkStack *stack = GTK_STACK (find_descendant (card, GTK_TYPE_STACK));
  g_assert_nonnull (stack);
  return gtk_stack_get_visible_child_name (stack);
}

static void
test_thumbnails (void)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  GtkWindow *window;
  GtkWidget *gallery = gallery_in_window (&window);
  g_autoptr (GPtrArray) cards = cards_of (gallery);
  g_assert_cmpuint (cards->len, ==, N_EXAMPLES);

  wait_for_thumbnails (gallery);
  /* Every example has a graph to show: a backward call or a forward graph. */
  for (guint i = 0; i < cards->len; i++)
    g_assert_cmpstr (thumbnail_state (g_ptr_array_index (cards, i)), ==, "thumbnail");

  GtkWidget *toy = g_ptr_array_index (cards, 0);
  GtkWidget *area = find_descendant (toy, GTK_TYPE_DRAWING_AREA);
  g_assert_nonnull (area);
  cr_ui_test_spin (300);   /* the stack's crossfade */
  double light[3], dark[3];
  guint n_light = drawn_pixels (area, light);
  /* The toy network's nine nodes and their edges cover a good part of it. */
  g_assert_cmpuint (n_light, >, (guint) (gtk_widget_get_width (area) * gtk_widget_get_height (area) / 50));

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  cr_ui_test_spin (100);
  guint n_dark = drawn_pixels (area, dark);
  g_assert_cmpuint (n_dark, >, 0);
  /* Dark node cards and light text: the drawing is darker overall. */
  double luma_light = 0.3 * light[0] + 0.59 * light[1] + 0.11 * light[2];
  double luma_dark = 0.3 * dark[0] + 0.59 * dark[1] + 0.11 * dark[2];
  g_test_message ("toy thumbnail: %u pixels drawn, luma %.0f light, %.0f dark",
                  n_light, luma_light, luma_dark);
  g_assert_cmpfloat (luma_dark, <, luma_light - 20);

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy (window);
}

/* Going away while the examples run: the runs in flight are cancelled and
 * their results dropped. */
static void
test_destroy_while_loading (void)
{
  GtkWindow *window;
  GtkWidget *gallery = gallery_in_window (&window);
  g_assert_true (cr_ui_test_wait_until (loading, gallery, 10));

  g_object_add_weak_pointer (G_OBJECT (gallery), (gpointer *) &gallery);
  gtk_window_destroy (window);
  cr_ui_test_spin (500);
  g_assert_null (gallery);
}

int
main (int    argc,
      char **argv)
{
  cr_ui_test_init_gtk (&argc, &argv);

  g_test_add_func ("/ui/gallery/examples-list", test_examples_list);
  g_test_add_func ("/ui/gallery/cards", test_cards);
  g_test_add_func ("/ui/gallery/activate", test_activate);
  g_test_add_func ("/ui/gallery/thumbnails", test_thumbnails);
  g_test_add_func ("/ui/gallery/destroy-while-loading", test_destroy_while_loading);
  return g_test_run ();
}
