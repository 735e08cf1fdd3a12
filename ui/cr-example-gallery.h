/* cr-example-gallery.h — the example gallery: a grid of cards, one per
 * example, with its title, its purpose and a thumbnail of its graph. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CR_TYPE_EXAMPLE_GALLERY (cr_example_gallery_get_type ())
G_DECLARE_FINAL_TYPE (CrExampleGallery, cr_example_gallery, CR, EXAMPLE_GALLERY, GtkWidget)

/* Signal "example-activated" (const char *path): a card was clicked or
 * activated with the keyboard. */
GtkWidget *cr_example_gallery_new         (void);
/* Property "loading": TRUE from the first map until every card has its
 * thumbnail (or shows it has none). */
gboolean   cr_example_gallery_get_loading (CrExampleGallery *self);

G_END_DECLS
