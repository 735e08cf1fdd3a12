/* cr-card-style.c — the style sheet and small builders the step card, the
 * inspector and the tensor view share. The sheet lives here rather than in
 * the window's so the three widgets look right wherever they are put. */
#include "cr-config.h"
#include "cr-card-style.h"
#include "cr-soft-breaks.h"

#include <string.h>

/* Role colours: the canvas's blue, purple and green, mixed a quarter towards
 * the text colour (currentColor, so any theme works), which darkens them on a light background and lightens
 * them on a dark one; tints are the same hues, faint. Every size is in em so
 * presentation mode's larger font scales the whole card. */
static const char style_sheet[] =
  ".cr-in { color: mix(#3584e4, currentColor, 0.28); }\n"
  ".cr-local { color: mix(#9141ac, currentColor, 0.28); }\n"
  ".cr-out { color: mix(#26a269, currentColor, 0.28); }\n"
  ".cr-frac { margin: 0 0.1em; }\n"
  ".cr-frac > label { padding: 0 0.15em; }\n"
  ".cr-frac > .cr-frac-bar { min-height: 1px; background-color: currentColor; }\n"
  ".cr-frac.cr-in, .cr-frac.cr-local, .cr-frac.cr-out { font-weight: 600; }\n"
  ".cr-op { font-size: 1.15em; opacity: 0.75; margin: 0 0.15em; }\n"
  ".cr-heading-dot { min-width: 0.55em; min-height: 0.55em; border-radius: 999px;\n"
  "                  background-color: alpha(currentColor, 0.45); }\n"
  ".cr-heading-dot.cr-in { background-color: #3584e4; }\n"
  ".cr-heading-dot.cr-local { background-color: #9141ac; }\n"
  ".cr-heading-dot.cr-out { background-color: #26a269; }\n"
  ".cr-key { border: 1px solid alpha(currentColor, 0.25); border-bottom-width: 2px;\n"
  "          border-radius: 0.35em; padding: 0 0.4em; min-width: 1em;\n"
  "          background-color: alpha(currentColor, 0.05); font-size: 0.9em; }\n"
  ".cr-badge { border-radius: 999px; padding: 0.05em 0.6em; font-size: 0.8em; font-weight: bold;\n"
  "            color: @error_color; background-color: alpha(@error_color, 0.12); }\n"
  ".cr-badge.cr-live { color: @success_color; background-color: alpha(@success_color, 0.12); }\n"
  /* Tensor values: a faint tint of the role they play in the formula. */
  ".cr-tensor { border-radius: 0.45em; padding: 0.25em 0.45em;\n"
  "              background-color: alpha(currentColor, 0.05); }\n"
  ".cr-tensor.cr-in { background-color: alpha(#3584e4, 0.10); }\n"
  ".cr-tensor.cr-local { background-color: alpha(#9141ac, 0.10); }\n"
  ".cr-tensor.cr-out { background-color: alpha(#26a269, 0.12); }\n"
  ".cr-tensor.cr-in, .cr-tensor.cr-local, .cr-tensor.cr-out { color: inherit; }\n"
  ".cr-matrix > label { margin: 0 0.3em; }\n"
  ".cr-tensor .cr-number { font-family: monospace; font-feature-settings: \"tnum\"; }\n"
  ".cr-tensor .cr-none { font-family: monospace; font-style: italic; opacity: 0.6; }\n"
  ".cr-bracket-left { border: 0.1em solid alpha(currentColor, 0.6); border-right-width: 0;\n"
  "                   min-width: 0.3em; margin-right: 0.2em; }\n"
  ".cr-bracket-right { border: 0.1em solid alpha(currentColor, 0.6); border-left-width: 0;\n"
  "                    min-width: 0.3em; margin-left: 0.2em; }\n"
  ".cr-legend-bar { min-height: 0.6em; min-width: 6em; border-radius: 0.2em; }\n"
  ".cr-step-symbol { min-width: 2.2em; min-height: 2.2em; border-radius: 999px; padding: 0 0.3em;\n"
  "                  font-size: 1.2em; font-weight: bold; color: white; background-color: #9141ac; }\n"
  ".cr-step-symbol.cr-long { font-size: 0.85em; min-width: 2.6em; min-height: 2.6em; }\n"
  ".cr-step-symbol.cr-accumulate { background-color: #26a269; }\n"
  ".cr-section { border-radius: 0.6em; padding: 0.6em 0.75em; }\n"
  ".cr-footnote { font-size: 0.85em; opacity: 0.7; }\n"
  /* The sum of a broadcast input's gradient back to its shape: a line of its own. */
  ".cr-reduction-text { font-style: italic; color: mix(#26a269, currentColor, 0.28); }\n"
  ".cr-error-section { background-color: alpha(@error_color, 0.08); }\n"
  /* As the window's error bar: readable on the tint with any theme's error colour. */
  ".cr-error-section .error { color: mix(@error_color, @theme_fg_color, 0.55); }\n"
  ".cr-badge.cr-alert { color: @error_color; background-color: alpha(@error_color, 0.12); }\n"
  /* libadwaita's type scale is in pt; in em here, so a larger window font
   * (presentation mode) enlarges headings and captions with the body. */
  "cr-step-card .title-3, cr-inspector .title-3 { font-size: 1.36em; }\n"
  "cr-step-card .heading, cr-inspector .heading { font-size: 1em; }\n"
  "cr-step-card .caption, cr-inspector .caption, .cr-tensor .caption { font-size: 0.82em; }\n"
  "cr-step-card .caption-heading, cr-inspector .caption-heading { font-size: 0.82em; }\n"
  /* The sidebar's scrolled windows hold the card and the inspector as they
   * are: the space around them is theirs, in em like the rest. */
  "cr-step-card, cr-inspector { padding: 1em 1.1em 1.5em 1.1em; }\n"
    ".cr-big-icon { -gtk-icon-size: 4em; opacity: 0.45; }\n"
  /* The Training page's element picker: the followed cell ringed. */
  ".cr-training-cell { padding: 0.1em 0.3em; min-height: 0; min-width: 0; font-feature-settings: \"tnum\"; }\n"
  "button.cr-training-cell:checked { box-shadow: inset 0 0 0 2px @theme_selected_bg_color; }\n"
  /* An optimizer step's rows (cr-training-step.c). */
  ".cr-training-step-title { font-weight: 600; }\n"
  ".cr-training-element-name { font-weight: 600; opacity: 0.8; }\n"
  ".cr-training-left { opacity: 0.75; }\n"
  ".cr-training-result { font-weight: 600; }\n"
  ".cr-training-index { font-size: 0.8em; font-feature-settings: \"tnum\"; }\n"
  /* The index spins side by side at 1366x768 in any theme: GTK's own
   * Adwaita (GTK_THEME=Adwaita:dark) draws a spin 6 px wider than
   * libadwaita's, and with a flow box child's 3 px sides two no longer fit
   * the row's 238 px, so each took a line. */
  ".cr-training-spins > flowboxchild { padding: 0; }\n"
  /* Presentation's larger type: the picker's buttons and icons grow with it
   * (Adwaita sizes them in px). */
  "window.presentation .cr-training-view image { -gtk-icon-size: 1.15em; }\n"
  "window.presentation .cr-training-view spinbutton > button,"
  " window.presentation .cr-training-view dropdown > button { min-height: 2.3em; min-width: 2.3em;"
  " padding: 0.15em 0.3em; }\n"
  "window.presentation .cr-training-view spinbutton > text { min-height: 1.9em; }\n";

void
cr_card_style_ensure (void)
{
  static GdkDisplay *installed_on = NULL;
  GdkDisplay *display = gdk_display_get_default ();

  if (!display || display == installed_on)
    return;
  GtkCssProvider *provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider, style_sheet, -1);
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_unref (provider);   /* the display keeps it */
  installed_on = display;
}

GtkWidget *
cr_card_label_new (const char *text,
                   const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  cr_soft_breaks_no_hyphens (GTK_LABEL (label));
  /* Filling the width: a wrapping label left to its natural width wraps
   * early, at GTK's guess of a pleasant line length. */
  gtk_widget_set_halign (label, GTK_ALIGN_FILL);
  if (css_class)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

gboolean
cr_card_split_fraction (const char *name,
                        char      **numerator,
                        char      **denominator)
{
  static const char del[] = "∂";
  size_t dlen = strlen (del);

  if (!name || strncmp (name, del, dlen) != 0)
    return FALSE;
  /* The "/∂" outside parentheses: ∂(a / b)/∂a splits after the ")". */
  int depth = 0;
  for (const char *p = name + dlen; *p; p++)
    {
      if (*p == '(' || *p == '[')
        depth++;
      else if ((*p == ')' || *p == ']') && depth > 0)
        depth--;
      else if (*p == '/' && depth == 0 && strncmp (p + 1, del, dlen) == 0 && p[1 + dlen])
        {
          if (numerator)
            *numerator = g_strndup (name, p - name);
          if (denominator)
            *denominator = g_strdup (p + 1);
          return TRUE;
        }
    }
  return FALSE;
}

GtkWidget *
cr_card_fraction_new (const char *name,
                      const char *role)
{
  g_autofree char *num = NULL, *den = NULL;
  GtkWidget *widget;

  if (cr_card_split_fraction (name, &num, &den))
    {
      widget = gtk_box_new (GTK_ORIENTATION_VERTICAL, 1);
      gtk_widget_add_css_class (widget, "cr-frac");
      GtkWidget *top = gtk_label_new (num);
      GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
      GtkWidget *bottom = gtk_label_new (den);
      gtk_widget_add_css_class (bar, "cr-frac-bar");
      /* Long names such as ∂(x1 * w1 + x2 * w2) may wrap in a narrow sidebar. */
      gtk_label_set_wrap (GTK_LABEL (bottom), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (bottom), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_justify (GTK_LABEL (bottom), GTK_JUSTIFY_CENTER);
      gtk_label_set_wrap (GTK_LABEL (top), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (top), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_justify (GTK_LABEL (top), GTK_JUSTIFY_CENTER);
      /* Names such as ∂[LogSoftmaxBackward0] break between their words. */
      cr_soft_breaks_set_name (GTK_LABEL (top), num);
      cr_soft_breaks_set_name (GTK_LABEL (bottom), den);
      gtk_box_append (GTK_BOX (widget), top);
      gtk_box_append (GTK_BOX (widget), bar);
      gtk_box_append (GTK_BOX (widget), bottom);
      gtk_accessible_update_property (GTK_ACCESSIBLE (widget),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
    }
  else
    {
      widget = gtk_label_new (name);
      gtk_label_set_wrap (GTK_LABEL (widget), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (widget), PANGO_WRAP_WORD_CHAR);
      cr_soft_breaks_set_name (GTK_LABEL (widget), name);
      gtk_widget_add_css_class (widget, "monospace");
    }
  gtk_widget_set_valign (widget, GTK_ALIGN_CENTER);
  if (role)
    gtk_widget_add_css_class (widget, role);
  g_object_set_data_full (G_OBJECT (widget), "cr-text", g_strdup (name ? name : ""), g_free);
  return widget;
}

GtkWidget *
cr_card_heading_new (const char *text,
                     const char *role)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  if (role)
    {
      GtkWidget *dot = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
      gtk_widget_add_css_class (dot, "cr-heading-dot");
      gtk_widget_add_css_class (dot, role);
      gtk_widget_set_valign (dot, GTK_ALIGN_CENTER);
      gtk_box_append (GTK_BOX (box), dot);
    }
  GtkWidget *label = cr_card_label_new (text, "heading");
  gtk_box_append (GTK_BOX (box), label);
  return box;
}

GtkWidget *
cr_card_key_new (const char *key)
{
  GtkWidget *label = gtk_label_new (key);
  gtk_widget_add_css_class (label, "cr-key");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}
