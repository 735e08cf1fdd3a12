/* cr-soft-breaks.c — break points inside names, for wrapping labels. */
#include "cr-config.h"
#include "cr-soft-breaks.h"

#include <string.h>

#define ZERO_WIDTH_SPACE "\xe2\x80\x8b"

static gboolean
is_lower_or_digit (char c)
{
  return g_ascii_islower (c) || g_ascii_isdigit (c);
}

char *
cr_soft_breaks_add (const char *text)
{
  if (!text)
    return NULL;
  GString *out = g_string_sized_new (strlen (text) + 8);
  for (const char *p = text; *p; p++)
    {
      /* Only ASCII letters decide, so a UTF-8 sequence is never split. */
      if (p > text && g_ascii_isupper (*p) && is_lower_or_digit (p[-1]))
        g_string_append (out, ZERO_WIDTH_SPACE);
      g_string_append_c (out, *p);
      if ((*p == '_' || *p == '.') && p > text && g_ascii_isalpha (p[-1]) && g_ascii_isalpha (p[1]))
        g_string_append (out, ZERO_WIDTH_SPACE);
    }
  return g_string_free (out, FALSE);
}

void
cr_soft_breaks_no_hyphens (GtkLabel *label)
{
  g_return_if_fail (GTK_IS_LABEL (label));
  PangoAttrList *attrs = gtk_label_get_attributes (label);
  attrs = attrs ? pango_attr_list_copy (attrs) : pango_attr_list_new ();
  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (label, attrs);
  pango_attr_list_unref (attrs);
}

void
cr_soft_breaks_set_name (GtkLabel   *label,
                         const char *name)
{
  g_return_if_fail (GTK_IS_LABEL (label));
  g_autofree char *text = cr_soft_breaks_add (name);
  gtk_label_set_text (label, text ? text : "");
  cr_soft_breaks_no_hyphens (label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  name ? name : "", -1);
}
