/* cr-soft-breaks.h — where a wrapping label may break a name. A grad_fn
 * name such as LogSoftmaxBackward0 is one word to Pango: in a narrow card it
 * was cut anywhere, with a hyphen ("LogSoftmaxBackwa-rd0"). These give it
 * break points between its CamelCase words and keep hyphens out. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* text with a zero-width space at each place a long name may break: before
 * an upper-case letter that follows a lower-case letter or a digit
 * (Log|Softmax|Backward0) and after an underscore or a dot between
 * letters (log_|softmax, torch.|nn.|functional). New string; NULL for NULL. */
char *cr_soft_breaks_add            (const char *text);
/* Makes label never insert a hyphen where it has to break a word. */
void  cr_soft_breaks_no_hyphens     (GtkLabel   *label);
/* A wrapping label for a name, with both of the above; the label's text
 * holds the zero-width spaces, the accessible label the name as given. */
void  cr_soft_breaks_set_name       (GtkLabel   *label,
                                     const char *name);

G_END_DECLS
