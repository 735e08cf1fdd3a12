/* cr-graph-svg.c — the graph as an SVG file of a sane size
 * (cr-graph-svg.h).
 *
 * The rewrite reads Cairo's SVG as a sequence of tags and the whitespace
 * between them (Cairo writes no text content, comments aside); it changes
 * attribute values only, so every element Cairo wrote stays, in order. */
#include "cr-graph-svg.h"

#include <cairo-svg.h>
#include <math.h>
#include <string.h>

/* Decimals kept: coordinates (1/100 pt is far below what any screen or
 * printer shows), and transforms and style values (opacities, line
 * widths), where a little more matters. */
#define COORD_DECIMALS 2
#define FINE_DECIMALS  3

typedef struct {
  GString    *out;
  GHashTable *classes;           /* style text -> class number + 1 */
  GString    *css;
} Compactor;

static gboolean
is_number_start (const char *p)
{
  return g_ascii_isdigit (p[0]) || (p[0] == '.' && g_ascii_isdigit (p[1]))
         || ((p[0] == '-' || p[0] == '+') && (g_ascii_isdigit (p[1]) || (p[1] == '.' && g_ascii_isdigit (p[2]))));
}

/* v with at most `decimals` decimals, no trailing zeros, no "-0". */
static void
append_number (GString *out,
               double   v,
               int      decimals)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double scale = pow (10, decimals);
  v = round (v * scale) / scale;
  if (v == 0)
    v = 0;                       /* -0 reads as 0 */
  g_ascii_formatd (buf, sizeof buf, decimals == COORD_DECIMALS ? "%.2f" : "%.3f", v);
  char *end = buf + strlen (buf);
  if (strchr (buf, '.'))
    {
      while (end[-1] == '0')
        end--;
      if (end[-1] == '.')
        end--;
    }
  g_string_append_len (out, buf, end - buf);
}

/* The value [p, end) with every number rounded. */
static void
append_rounded (GString    *out,
                const char *p,
                const char *end,
                int         decimals)
{
  char prev = ' ';
  while (p < end)
    {
      /* A number starts after something that is not part of a name (the
       * digits of "url(#clip12)" stay as they are). */
      gboolean in_name = g_ascii_isalnum (prev) || prev == '#' || prev == '_' || prev == '-';
      if (!in_name && is_number_start (p))
        {
          char *num_end = NULL;
          double v = g_ascii_strtod (p, &num_end);
          if (num_end && num_end > p && num_end <= end)
            {
              append_number (out, v, decimals);
              p = num_end;
              prev = '0';
              continue;
            }
        }
      prev = *p;
      g_string_append_c (out, *p++);
    }
}

/* rgb(r%,g%,b%) at p (up to end) as #rrggbb; the characters used, or 0. */
static gsize
append_percent_colour (GString    *out,
                       const char *p,
                       const char *end)
{
  if (end - p < 10 || strncmp (p, "rgb(", 4) != 0)
    return 0;
  const char *q = p + 4;
  int c[3];
  for (int k = 0; k < 3; k++)
    {
      char *num_end = NULL;
      double v = g_ascii_strtod (q, &num_end);
      if (!num_end || num_end == q || num_end >= end || *num_end != '%')
        return 0;
      c[k] = (int) CLAMP (round (v * 255.0 / 100.0), 0, 255);
      q = num_end + 1;
      if (*q != (k < 2 ? ',' : ')'))
        return 0;
      q++;
    }
  g_string_append_printf (out, "#%02x%02x%02x", c[0], c[1], c[2]);
  return q - p;
}

static gboolean
is_default_declaration (const char *decl,
                        gsize       len)
{
  static const char *const defaults[] = {
    "fill-opacity:1", "stroke-opacity:1", "fill-rule:nonzero", "stroke-linejoin:miter",
    "stroke-linecap:butt", "stroke-dashoffset:0", "opacity:1",
  };
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    if (strlen (defaults[i]) == len && strncmp (decl, defaults[i], len) == 0)
      return TRUE;
  return FALSE;
}

/* The declarations of a style attribute, rewritten, as CSS text. */
static char *
compact_style (const char *p,
               const char *end)
{
  GString *css = g_string_new (NULL);
  while (p < end)
    {
      while (p < end && (*p == ' ' || *p == ';'))
        p++;
      const char *decl_end = p;
      while (decl_end < end && *decl_end != ';')
        decl_end++;
      if (decl_end == p)
        break;
      GString *decl = g_string_new (NULL);
      const char *colon = memchr (p, ':', decl_end - p);
      if (colon)
        {
          g_string_append_len (decl, p, colon + 1 - p);
          const char *v = colon + 1;
          while (v < decl_end)
            {
              gsize used = append_percent_colour (decl, v, decl_end);
              if (used)
                {
                  v += used;
                  continue;
                }
              const char *run = v;
              while (v < decl_end && strncmp (v, "rgb(", 4) != 0)
                v++;
              append_rounded (decl, run, v, FINE_DECIMALS);
              if (v < decl_end && v == run)
                g_string_append_c (decl, *v++);
            }
        }
      else
        g_string_append_len (decl, p, decl_end - p);
      if (!is_default_declaration (decl->str, decl->len))
        {
          if (css->len)
            g_string_append_c (css, ';');
          g_string_append_len (css, decl->str, decl->len);
        }
      g_string_free (decl, TRUE);
      p = decl_end;
    }
  return g_string_free (css, FALSE);
}

/* The class of a style (a new one the first time it is seen). */
static guint
style_class (Compactor *c,
             char      *css)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (c->classes, css));
  if (n)
    {
      g_free (css);
      return n - 1;
    }
  n = g_hash_table_size (c->classes);
  g_string_append_printf (c->css, ".s%u{%s}\n", n, css);
  g_hash_table_insert (c->classes, css, GUINT_TO_POINTER (n + 1));
  return n;
}

static gboolean
name_is (const char *name,
         gsize       len,
         const char *what)
{
  return strlen (what) == len && strncmp (name, what, len) == 0;
}

/* One opening or empty tag from p (at its '<'); returns the end (after '>'). */
static const char *
compact_tag (Compactor  *c,
             const char *p)
{
  GString *out = c->out;
  const char *q = p + 1;
  while (*q && !g_ascii_isspace (*q) && *q != '>' && *q != '/')
    q++;
  g_string_append_len (out, p, q - p);
  while (*q)
    {
      while (g_ascii_isspace (*q))
        q++;
      if (*q == '>' || *q == '/' || *q == '?')
        {
          const char *close = strchr (q, '>');
          if (!close)
            close = q + strlen (q) - 1;
          g_string_append_len (out, q, close + 1 - q);
          return close + 1;
        }
      const char *name = q;
      while (*q && *q != '=' && !g_ascii_isspace (*q) && *q != '>')
        q++;
      gsize name_len = q - name;
      if (*q != '=' || (q[1] != '"' && q[1] != '\''))
        {
          /* Not name="value": kept as it is. */
          g_string_append_c (out, ' ');
          g_string_append_len (out, name, q - name);
          continue;
        }
      char quote = q[1];
      const char *value = q + 2;
      const char *value_end = strchr (value, quote);
      if (!value_end)
        value_end = value + strlen (value);
      if (name_is (name, name_len, "style"))
        {
          char *css = compact_style (value, value_end);
          if (*css)
            g_string_append_printf (out, " class=\"s%u\"", style_class (c, css));
          else
            g_free (css);
        }
      else
        {
          g_string_append_c (out, ' ');
          g_string_append_len (out, name, name_len);
          g_string_append (out, "=\"");
          if (name_is (name, name_len, "id") || name_is (name, name_len, "xlink:href")
              || name_is (name, name_len, "href"))
            {
              /* Cairo's glyph ids, "glyph3-12", as "g3-12". */
              const char *v = value;
              if (*v == '#')
                g_string_append_c (out, *v++);
              if (value_end - v > 5 && strncmp (v, "glyph", 5) == 0)
                {
                  g_string_append_c (out, 'g');
                  v += 5;
                }
              g_string_append_len (out, v, value_end - v);
            }
          else if (name_is (name, name_len, "transform") || name_is (name, name_len, "patternTransform")
                   || name_is (name, name_len, "gradientTransform"))
            append_rounded (out, value, value_end, FINE_DECIMALS);
          else if (name_is (name, name_len, "d") || name_is (name, name_len, "x")
                   || name_is (name, name_len, "y") || name_is (name, name_len, "width")
                   || name_is (name, name_len, "height") || name_is (name, name_len, "viewBox")
                   || name_is (name, name_len, "points") || name_is (name, name_len, "x1")
                   || name_is (name, name_len, "y1") || name_is (name, name_len, "x2")
                   || name_is (name, name_len, "y2") || name_is (name, name_len, "cx")
                   || name_is (name, name_len, "cy") || name_is (name, name_len, "r"))
            append_rounded (out, value, value_end, COORD_DECIMALS);
          else
            g_string_append_len (out, value, value_end - value);
          g_string_append_c (out, '"');
        }
      q = *value_end ? value_end + 1 : value_end;
    }
  return q;
}

/* The value of attribute name in the tag [tag, end), or NULL. */
static gboolean
attribute (const char  *tag,
           const char  *end,
           const char  *name,
           const char **value,
           const char **value_end)
{
  gsize len = strlen (name);
  for (const char *p = tag; p + len + 2 < end; p++)
    if (g_ascii_isspace (*p) && strncmp (p + 1, name, len) == 0 && p[len + 1] == '=' && p[len + 2] == '"')
      {
        *value = p + len + 3;
        *value_end = memchr (*value, '"', end - *value);
        return *value_end != NULL;
      }
  return FALSE;
}

/* A run of glyphs: Cairo writes each as <use> with the page's x and y. A
 * <g> that holds only <use>s on one baseline is moved there once
 * (translate) and its glyphs placed along it (x only, from the first):
 * shorter numbers, no y. p: at "<g "; returns the end of its "</g>", or
 * NULL when the group is not such a run (then written as usual). */
static const char *
compact_glyph_run (Compactor  *c,
                   const char *p)
{
  const char *open_end = strchr (p, '>');
  const char *close = strstr (p, "</g>");
  if (!open_end || !close || open_end[-1] == '/')
    return NULL;
  const char *v, *v_end;
  if (attribute (p, open_end, "transform", &v, &v_end) || attribute (p, open_end, "clip-path", &v, &v_end)
      || attribute (p, open_end, "id", &v, &v_end))
    return NULL;
  /* Only <use x y> children, all on one baseline. */
  double x0 = 0, y0 = 0;
  guint n = 0;
  for (const char *q = strchr (open_end, '<'); q && q < close; q = strchr (q + 1, '<'))
    {
      const char *q_end = strchr (q, '>');
      if (strncmp (q, "<use ", 5) != 0 || !q_end || q_end > close)
        return NULL;
      const char *xs, *xe, *ys, *ye;
      if (!attribute (q, q_end, "x", &xs, &xe) || !attribute (q, q_end, "y", &ys, &ye))
        return NULL;
      double y = g_ascii_strtod (ys, NULL);
      if (n == 0)
        {
          x0 = round (g_ascii_strtod (xs, NULL) * 100) / 100;
          y0 = y;
        }
      else if (y != y0)
        return NULL;
      n++;
    }
  if (n < 2)
    return NULL;
  /* The group's own attributes (its style as a class), then where the run
   * starts. */
  GString *out = c->out;
  compact_tag (c, p);
  g_string_truncate (out, out->len - 1);        /* the '>' */
  g_string_append (out, " transform=\"translate(");
  append_number (out, x0, COORD_DECIMALS);
  g_string_append_c (out, ',');
  append_number (out, y0, COORD_DECIMALS);
  g_string_append (out, ")\">\n");
  for (const char *q = strchr (open_end, '<'); q && q < close; q = strchr (q + 1, '<'))
    {
      const char *q_end = strchr (q, '>');
      const char *hs, *he, *xs, *xe;
      g_string_append (out, "<use");
      if (attribute (q, q_end, "xlink:href", &hs, &he))
        {
          g_string_append (out, " xlink:href=\"");
          if (he - hs > 6 && strncmp (hs, "#glyph", 6) == 0)
            {
              g_string_append (out, "#g");
              hs += 6;
            }
          g_string_append_len (out, hs, he - hs);
          g_string_append_c (out, '"');
        }
      attribute (q, q_end, "x", &xs, &xe);
      double x = round (g_ascii_strtod (xs, NULL) * 100) / 100 - x0;
      if (fabs (x) >= 0.005)
        {
          g_string_append (out, " x=\"");
          append_number (out, x, COORD_DECIMALS);
          g_string_append_c (out, '"');
        }
      g_string_append (out, "/>\n");
    }
  g_string_append (out, "</g>");
  return close + strlen ("</g>");
}

GString *
cr_graph_svg_compact (const char *svg)
{
  g_return_val_if_fail (svg != NULL, NULL);
  Compactor c = {
    .out = g_string_sized_new (strlen (svg) / 2),
    .classes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .css = g_string_new (NULL),
  };
  gssize style_at = -1;
  const char *p = svg;
  while (*p)
    {
      if (*p != '<')
        {
          /* Between tags: a line break kept, indentation dropped. */
          const char *next = strchr (p, '<');
          if (!next)
            next = p + strlen (p);
          gboolean blank = TRUE;
          for (const char *s = p; s < next && blank; s++)
            blank = g_ascii_isspace (*s);
          if (blank)
            {
              if (memchr (p, '\n', next - p))
                g_string_append_c (c.out, '\n');
            }
          else
            g_string_append_len (c.out, p, next - p);
          p = next;
          continue;
        }
      if (p[1] == '/' || p[1] == '!' || p[1] == '?')
        {
          /* A closing tag, a comment or the XML declaration: as written. */
          const char *close = p[1] == '!' && strncmp (p, "<!--", 4) == 0 ? strstr (p, "-->") : NULL;
          close = close ? close + 2 : strchr (p, '>');
          if (!close)
            close = p + strlen (p) - 1;
          g_string_append_len (c.out, p, close + 1 - p);
          p = close + 1;
          continue;
        }
      if (strncmp (p, "<g ", 3) == 0)
        {
          const char *after = compact_glyph_run (&c, p);
          if (after)
            {
              p = after;
              continue;
            }
        }
      gboolean is_svg = strncmp (p, "<svg", 4) == 0 && (g_ascii_isspace (p[4]) || p[4] == '>');
      p = compact_tag (&c, p);
      if (is_svg && style_at < 0)
        style_at = c.out->len;
    }
  if (c.css->len)
    {
      g_string_prepend (c.css, "\n<style>\n");
      g_string_append (c.css, "</style>");
      g_string_insert_len (c.out, style_at >= 0 ? style_at : 0, c.css->str, c.css->len);
    }
  g_hash_table_unref (c.classes);
  g_string_free (c.css, TRUE);
  return c.out;
}

static cairo_status_t
append_to_string (void                *closure,
                  const unsigned char *data,
                  unsigned int         length)
{
  g_string_append_len (closure, (const char *) data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
cr_graph_svg_write (const CrGraphModel         *model,
                    const CrGraphLayout        *layout,
                    const CrGraphRenderOptions *options,
                    const char                 *path,
                    GError                    **error)
{
  g_return_val_if_fail (model != NULL && layout != NULL && path != NULL, FALSE);
  double w = MAX (layout->width, 1.0), h = MAX (layout->height, 1.0);
  g_autoptr (GString) svg = g_string_new (NULL);
  cairo_surface_t *surface = cairo_svg_surface_create_for_stream (append_to_string, svg, w, h);
  cairo_t *cr = cairo_create (surface);
  cr_graph_render (cr, model, layout, options);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "Could not write %s: %s", path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  g_autoptr (GString) small = cr_graph_svg_compact (svg->str);
  return g_file_set_contents (path, small->str, (gssize) small->len, error);
}
