/* cr-handout.c — the handout PDF (cr-handout.h): A4 pages drawn with
 * Cairo's PDF surface and Pango.
 *
 *   title page   the script's name, what the pages show, the code with
 *                line numbers (a long script goes on over more pages)
 *   step pages   "Step 3 of 12 · MulBackward0" and the step's caption,
 *                the graph as of the step (scaled to the room the text
 *                leaves), the step card's sections
 *
 * Every page has a footer: the script's name and "page n of N". */
#include "cr-handout.h"

#include "cr-record-forward.h"
#include "cr-step-text.h"

#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <string.h>

#define PAGE_W 595.28              /* A4, in points */
#define PAGE_H 841.89
#define MARGIN 48.0
#define TEXT_FONT "Cantarell, Noto Sans, DejaVu Sans, sans-serif"
#define MONO_FONT "Source Code Pro, DejaVu Sans Mono, monospace"
#define CODE_SIZE_MAX 9.5          /* the code on the title page, points */
#define CODE_SIZE_MIN 6.5
#define FOOTER_H 18.0
/* The graph keeps at least this share of a step page; longer card text is
 * drawn smaller instead. */
#define GRAPH_SHARE_MIN 0.38
#define GRAPH_SCALE_MAX 1.6        /* small graphs are not blown up past this */

typedef struct {
  double ink, dim;                 /* grey levels of text and secondary text */
  double paper;                    /* the page's grey level */
} Paper;

typedef struct {
  const CrHandout *h;
  const CrGraphModel *model;       /* the handout's, or its collapsed model */
  const CrGraphCollapse *collapse; /* the handout's, or the one made here; NULL */
  const CrGraphLayout *layout;     /* the handout's, or the one it chose */
  cairo_t         *cr;
  Paper            paper;
  guint            n_forward;      /* forward pages */
  guint            page;           /* the page being drawn, 1-based */
  guint            n_pages;
} Ctx;

static PangoLayout *
text_layout (cairo_t    *cr,
             const char *family,
             double      size,
             gboolean    bold,
             double      width)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (family);
  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  if (bold)
    pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  if (width > 0)
    {
      pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
  return layout;
}

static double
layout_height (PangoLayout *layout)
{
  int w, h;
  pango_layout_get_size (layout, &w, &h);
  return (double) h / PANGO_SCALE;
}

/* Draws text at (x, y) and returns its height. */
static double
draw_text (Ctx        *c,
           const char *text,
           const char *family,
           double      size,
           gboolean    bold,
           double      grey,
           double      x,
           double      y,
           double      width)
{
  PangoLayout *layout = text_layout (c->cr, family, size, bold, width);
  pango_layout_set_text (layout, text, -1);
  cairo_set_source_rgb (c->cr, grey, grey, grey);
  cairo_move_to (c->cr, x, y);
  pango_cairo_show_layout (c->cr, layout);
  double h = layout_height (layout);
  g_object_unref (layout);
  return h;
}

static void
begin_page (Ctx *c)
{
  cairo_set_source_rgb (c->cr, c->paper.paper, c->paper.paper, c->paper.paper);
  cairo_paint (c->cr);
}

static void
end_page (Ctx *c)
{
  g_autofree char *footer = g_strdup_printf ("%s · page %u of %u", c->h->script_name, c->page,
                                             c->n_pages);
  draw_text (c, footer, TEXT_FONT, 8, FALSE, c->paper.dim, MARGIN, PAGE_H - MARGIN + 8,
             PAGE_W - 2 * MARGIN);
  cairo_show_page (c->cr);
  c->page++;
}

/* ---- the title page -------------------------------------------------------- */

/* The script with line numbers, right-aligned in a column. */
static char *
numbered_code (const char *source)
{
  g_auto (GStrv) lines = g_strsplit (source, "\n", -1);
  guint n = g_strv_length (lines);
  if (n > 0 && lines[n - 1][0] == '\0')
    n--;
  int digits = n >= 1000 ? 4 : n >= 100 ? 3 : 2;   /* and 2 spaces: 4 columns or more */
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%*u  %s%s", digits, i + 1, lines[i], i + 1 < n ? "\n" : "");
  return g_string_free (out, FALSE);
}

/* The code laid out at the largest size from CODE_SIZE_MAX down to
 * CODE_SIZE_MIN that fits first_room; at the smallest when none does. */
static PangoLayout *
code_layout (cairo_t    *cr,
             const char *code,
             double      width,
             double      first_room)
{
  for (double size = CODE_SIZE_MAX;; size -= 0.5)
    {
      PangoLayout *layout = text_layout (cr, MONO_FONT, size, FALSE, width);
      /* A wrapped line goes on under the code, not under the numbers. */
      pango_layout_set_text (layout, "0000", -1);
      int number_w, number_h;
      pango_layout_get_size (layout, &number_w, &number_h);
      pango_layout_set_indent (layout, -number_w);
      pango_layout_set_text (layout, code, -1);
      if (layout_height (layout) <= first_room || size - 0.5 < CODE_SIZE_MIN)
        return layout;
      g_object_unref (layout);
    }
}

/* Where each page of the code starts: the first line (index in the
 * layout's lines) of each page, the first page having first_room and the
 * others room. */
static GArray *
code_page_starts (PangoLayout *layout,
                  double       first_room,
                  double       room)
{
  GArray *starts = g_array_new (FALSE, FALSE, sizeof (int));
  int first = 0;
  g_array_append_val (starts, first);
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  double page_top = 0, page_room = first_room;
  int index = 0;
  do
    {
      PangoRectangle logical;
      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      double bottom = (double) (logical.y + logical.height) / PANGO_SCALE;
      if (bottom - page_top > page_room && index > g_array_index (starts, int, starts->len - 1))
        {
          g_array_append_val (starts, index);
          page_top = (double) logical.y / PANGO_SCALE;
          page_room = room;
        }
      index++;
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
  return starts;
}

/* Lines [from, to) of layout drawn with the first at y. */
static void
draw_code_lines (Ctx         *c,
                 PangoLayout *layout,
                 int          from,
                 int          to,
                 double       x,
                 double       y)
{
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  int index = 0;
  double top = -1;
  cairo_set_source_rgb (c->cr, c->paper.ink, c->paper.ink, c->paper.ink);
  do
    {
      if (index >= from && index < to)
        {
          PangoRectangle logical;
          pango_layout_iter_get_line_extents (iter, NULL, &logical);
          if (top < 0)
            top = (double) logical.y / PANGO_SCALE;
          double baseline = (double) pango_layout_iter_get_baseline (iter) / PANGO_SCALE;
          cairo_move_to (c->cr, x, y + baseline - top);
          pango_cairo_show_layout_line (c->cr, pango_layout_iter_get_line_readonly (iter));
        }
      index++;
    }
  while (index < to && pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

typedef struct {
  PangoLayout *code;
  GArray      *starts;             /* of int: see code_page_starts */
  double       intro_h;
} TitlePages;

static const double TITLE_GAP = 14.0;

static double
draw_title_head (Ctx        *c,
                 gboolean    draw)
{
  const CrGraphModel *model = c->model;
  double width = PAGE_W - 2 * MARGIN, y = MARGIN;
  cairo_t *cr = c->cr;
  PangoLayout *title = text_layout (cr, TEXT_FONT, 24, TRUE, width);
  pango_layout_set_text (title, c->h->script_name, -1);
  double title_h = layout_height (title);
  if (draw)
    {
      cairo_set_source_rgb (cr, c->paper.ink, c->paper.ink, c->paper.ink);
      cairo_move_to (cr, MARGIN, y);
      pango_cairo_show_layout (cr, title);
    }
  g_object_unref (title);
  y += title_h + 6;
  const CrRecordBackward *bw = cr_graph_model_get_backward (model);
  guint n = model->n_steps;
  guint f = c->n_forward;
  g_autofree char *forward = f ? g_strdup_printf ("The forward pass op by op (%u op%s), then ", f,
                                                  f == 1 ? "" : "s")
                               : g_strdup ("");
  g_autofree char *what = bw
    ? g_strdup_printf ("%s%s %s, step by step: %u step%s, a page each. Each page shows the graph "
                       "(the op or step's node lit, the gradients sent so far) and what happens "
                       "at that node, with its numbers.", forward,
                       f ? "the backward pass of" : "The backward pass of",
                       model->title ? model->title : "the script", n, n == 1 ? "" : "s")
    : g_strdup_printf ("%s%s: no backward call ran.", f ? forward : "",
                       f ? "the forward graph" : "The forward graph");
  PangoLayout *sub = text_layout (cr, TEXT_FONT, 10.5, FALSE, width);
  pango_layout_set_text (sub, what, -1);
  if (draw)
    {
      cairo_set_source_rgb (cr, c->paper.dim, c->paper.dim, c->paper.dim);
      cairo_move_to (cr, MARGIN, y);
      pango_cairo_show_layout (cr, sub);
    }
  y += layout_height (sub) + TITLE_GAP;
  g_object_unref (sub);
  return y - MARGIN;
}

static void
title_pages_plan (Ctx        *c,
                  const char *source,
                  TitlePages *t)
{
  double width = PAGE_W - 2 * MARGIN;
  double room = PAGE_H - 2 * MARGIN - FOOTER_H;
  t->intro_h = draw_title_head (c, FALSE);
  g_autofree char *code = numbered_code (source);
  t->code = code_layout (c->cr, code, width, room - t->intro_h);
  t->starts = code_page_starts (t->code, room - t->intro_h, room);
}

static void
title_pages_draw (Ctx        *c,
                  TitlePages *t)
{
  for (guint p = 0; p < t->starts->len; p++)
    {
      begin_page (c);
      double y = MARGIN;
      if (p == 0)
        y += draw_title_head (c, TRUE);
      int from = g_array_index (t->starts, int, p);
      int to = p + 1 < t->starts->len ? g_array_index (t->starts, int, p + 1) : G_MAXINT;
      draw_code_lines (c, t->code, from, to, MARGIN, y);
      end_page (c);
    }
}

/* ---- step pages -------------------------------------------------------------- */

static const char *
role_colour (CrStepTextRole role,
             gboolean       dark)
{
  /* The step card's colours: blue arrives, purple is local, green goes on. */
  switch (role)
    {
    case CR_STEP_TEXT_IN:    return dark ? "#99c1f1" : "#1a5fb4";
    case CR_STEP_TEXT_LOCAL: return dark ? "#dc8add" : "#813d9c";
    case CR_STEP_TEXT_OUT:   return dark ? "#8ff0a4" : "#26a269";
    case CR_STEP_TEXT_ERROR: return dark ? "#ff7b63" : "#c01c28";
    default:                 return dark ? "#ffffff" : "#000000";
    }
}

/* The card's sections as Pango markup. */
static char *
card_markup (const CrStepText *text,
             gboolean          dark)
{
  GString *m = g_string_new (NULL);
  for (guint i = 0; i < text->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      if (i > 0)
        g_string_append (m, "\n<span size=\"50%\"> </span>\n");
      if (s->heading)
        {
          g_autofree char *h = g_markup_escape_text (s->heading, -1);
          g_string_append_printf (m, "<span weight=\"bold\" foreground=\"%s\">%s</span>",
                                  role_colour (s->role, dark), h);
        }
      for (guint k = 0; k < s->lines->len; k++)
        {
          g_autofree char *l = g_markup_escape_text (g_ptr_array_index (s->lines, k), -1);
          g_string_append_printf (m, "%s<span font_family=\"%s\" size=\"90%%\">%s</span>",
                                  m->len ? "\n" : "", MONO_FONT, l);
        }
      for (guint k = 0; k < s->notes->len; k++)
        {
          g_autofree char *n = g_markup_escape_text (g_ptr_array_index (s->notes, k), -1);
          g_string_append_printf (m, "%s<span size=\"90%%\" style=\"italic\">%s</span>",
                                  m->len ? "\n" : "", n);
        }
    }
  return g_string_free (m, FALSE);
}

/* One page of the story: its title and caption, the graph (lit at
 * current_step, a backward step, or with node `selected` ringed, a forward
 * op), the text (Pango markup) under it. */
static void
draw_story_page (Ctx        *c,
                 const char *title,
                 const char *caption,
                 const char *markup,
                 int         current_step,
                 int         selected)
{
  cairo_t *cr = c->cr;
  double width = PAGE_W - 2 * MARGIN;
  begin_page (c);
  double y = MARGIN;
  y += draw_text (c, title, TEXT_FONT, 15, TRUE, c->paper.ink, MARGIN, y, width);
  if (caption)
    y += 2 + draw_text (c, caption, MONO_FONT, 9.5, FALSE, c->paper.dim, MARGIN, y + 2, width);
  y += 10;

  /* The text below the graph; drawn smaller when it would leave the graph
   * less than its share. */
  double bottom = PAGE_H - MARGIN - FOOTER_H;
  double room = bottom - y;
  double text_scale = 1.0, text_h = 0;
  PangoLayout *card = NULL;
  if (markup && *markup)
    {
      card = text_layout (cr, TEXT_FONT, 10, FALSE, width);
      pango_layout_set_markup (card, markup, -1);
      text_h = layout_height (card);
      double text_room = room * (1 - GRAPH_SHARE_MIN);
      if (text_h > text_room)
        {
          /* Narrower at a smaller size: lay out again at the width that
           * becomes the page's width once scaled. */
          text_scale = MAX (text_room / text_h, 0.55);
          pango_layout_set_width (card, (int) (width / text_scale * PANGO_SCALE));
          text_h = layout_height (card) * text_scale;
        }
    }

  double graph_h = room - (text_h > 0 ? text_h + 16 : 0);
  const CrGraphLayout *layout = c->layout;
  if (layout && layout->width > 0 && layout->height > 0 && graph_h > 20)
    {
      double scale = MIN (MIN (width / layout->width, graph_h / layout->height), GRAPH_SCALE_MAX);
      double gx = MARGIN + (width - layout->width * scale) / 2;
      CrGraphRenderOptions options;
      cr_graph_render_options_init (&options);
      options.style = c->h->style;
      options.collapse = c->collapse;
      options.current_step = current_step;
      options.selected = selected;
      options.draw_background = FALSE;   /* on the paper */
      cairo_save (cr);
      cairo_rectangle (cr, MARGIN, y, width, graph_h);
      cairo_clip (cr);
      cairo_translate (cr, gx, y);
      cairo_scale (cr, scale, scale);
      cr_graph_render (cr, c->model, layout, &options);
      cairo_restore (cr);
      y += layout->height * scale + 16;
    }
  if (card)
    {
      cairo_save (cr);
      cairo_translate (cr, MARGIN, y);
      cairo_scale (cr, text_scale, text_scale);
      cairo_set_source_rgb (cr, c->paper.ink, c->paper.ink, c->paper.ink);
      cairo_move_to (cr, 0, 0);
      pango_cairo_show_layout (cr, card);
      cairo_restore (cr);
      g_object_unref (card);
    }
  end_page (c);
}

static void
draw_step_page (Ctx  *c,
                guint step)
{
  const CrGraphModel *model = c->model;
  CrStepText *text = cr_step_text_new (model->record, model->backward, (int) step);
  if (!text)
    {
      draw_story_page (c, "?", NULL, NULL, (int) step, -1);
      return;
    }
  g_autofree char *title = g_strdup_printf ("%s · %s", text->count, text->title);
  g_autofree char *markup = card_markup (text, c->h->style == CR_GRAPH_STYLE_DARK);
  draw_story_page (c, title, text->caption, markup, (int) step, -1);
  cr_step_text_free (text);
}

/* Forward op `op` (index in the record), the index-th of n: what it
 * computed, in the words of the window's forward steps. */
static void
draw_forward_page (Ctx  *c,
                   int   op,
                   guint index,
                   guint n)
{
  const CrRunRecord *record = c->model->record;
  const CrRecordOp *rop = g_ptr_array_index (record->ops, op);
  g_autoptr (CrForwardText) text = cr_forward_text_new (record, op);
  g_autofree char *title = g_strdup_printf ("Forward %u of %u · %s", index + 1, n, rop->grad_fn);
  g_autofree char *caption = cr_step_text_caption (rop->caption, rop->iteration);
  if (caption && rop->span.line > 0 && !strstr (caption, "line "))
    {
      char *with_line = g_strdup_printf ("%s · line %d", caption, rop->span.line);
      g_free (caption);
      caption = with_line;
    }
  GString *m = g_string_new (NULL);
  const char *colour = c->h->style == CR_GRAPH_STYLE_DARK ? "#99c1f1" : "#1a5fb4";
  g_string_append_printf (m, "<span weight=\"bold\" foreground=\"%s\">What it computes</span>", colour);
  if (text && text->sentence)
    {
      g_autofree char *line = g_strdup_printf ("%s: %s", text->expression ? text->expression : "",
                                               text->sentence);
      g_autofree char *escaped = g_markup_escape_text (line, -1);
      g_string_append_printf (m, "\n%s", escaped);
    }
  const char *formulas[] = { text ? text->equation : NULL, text ? text->example : NULL };
  for (guint i = 0; i < G_N_ELEMENTS (formulas); i++)
    if (formulas[i])
      {
        g_autofree char *escaped = g_markup_escape_text (formulas[i], -1);
        g_string_append_printf (m, "\n<span font_family=\"%s\" size=\"90%%\">%s</span>", MONO_FONT,
                                escaped);
      }
  const CrGraphNode *node = cr_graph_model_find_op (c->model, op);
  draw_story_page (c, title, caption, m->str, -1, node ? (int) node->id : -1);
  g_string_free (m, TRUE);
}

/* The ops the forward pages tell, in the order they ran: those that led to
 * the backward call drawn (every op the graph shows, for a forward graph). */
static GArray *
forward_ops (const CrGraphModel *model)
{
  GArray *ops = cr_record_forward_ops (model->record, model->backward);
  for (guint i = 0; i < ops->len;)
    if (!cr_graph_model_find_op (model, g_array_index (ops, int, i)))
      g_array_remove_index (ops, i);
    else
      i++;
  return ops;
}

/* The graph laid out the way that draws it larger in the room a step page
 * has for it (a portrait page: often top to bottom); NULL on failure. */
static CrGraphLayout *
best_layout (const CrGraphModel *model)
{
  CrGraphRenderCache *cache = cr_graph_render_cache_new (model, FALSE);
  double room_w = PAGE_W - 2 * MARGIN, room_h = (PAGE_H - 2 * MARGIN) * 0.5;
  CrGraphLayout *best = NULL;
  double best_scale = 0;
  const CrGraphLayoutDirection directions[] = { CR_GRAPH_LAYOUT_LEFT_TO_RIGHT,
                                                CR_GRAPH_LAYOUT_TOP_TO_BOTTOM };
  for (guint i = 0; i < G_N_ELEMENTS (directions); i++)
    {
      CrGraphLayout *layout = cr_graph_render_layout_directed (model, cache, directions[i], NULL);
      if (!layout)
        continue;
      double scale = MIN (room_w / MAX (layout->width, 1.0), room_h / MAX (layout->height, 1.0));
      /* Top to bottom only when clearly larger: left to right is how the
       * window shows it. */
      if (!best || scale > best_scale * 1.15)
        {
          cr_graph_layout_free (best);
          best = layout;
          best_scale = scale;
        }
      else
        cr_graph_layout_free (layout);
    }
  cr_graph_render_cache_free (cache);
  return best;
}

gboolean
cr_handout_write_pdf (const CrHandout *handout,
                      const char      *path,
                      guint           *n_pages,
                      GError         **error)
{
  g_return_val_if_fail (handout != NULL && handout->model != NULL && path != NULL, FALSE);
  cairo_surface_t *surface = cairo_pdf_surface_create (path, PAGE_W, PAGE_H);
  g_autofree char *title = g_strdup_printf ("%s: the backward pass step by step",
                                            handout->script_name);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Chainrule");
  cairo_t *cr = cairo_create (surface);
  gboolean dark = handout->style == CR_GRAPH_STYLE_DARK;
  /* Module code as the window and export draw it: each module call (and
   * loop body) a box around its nodes, every one open. */
  const CrGraphModel *model = handout->model;
  g_autoptr (CrGraphGroups) groups = NULL;
  g_autoptr (CrGraphCollapse) own_collapse = NULL;
  if (!handout->layout && !handout->collapse)
    {
      groups = cr_graph_groups_new ((CrGraphModel *) model);
      g_autofree gboolean *open = cr_graph_groups_open_to_level (groups, groups->height);
      if (groups->groups->len > 0)
        {
          own_collapse = cr_graph_collapse_new (groups, open);
          model = own_collapse->model;
        }
    }
  g_autoptr (CrGraphLayout) own_layout = handout->layout ? NULL : best_layout (model);
  Ctx c = {
    .h = handout,
    .model = model,
    .collapse = handout->collapse ? handout->collapse : own_collapse,
    .layout = handout->layout ? handout->layout : own_layout,
    .cr = cr,
    .paper = dark ? (Paper) { 0.93, 0.70, 0.14 } : (Paper) { 0.07, 0.38, 1.0 },
    .page = 1,
  };
  const char *source = handout->source ? handout->source
                       : handout->model->record && handout->model->record->source
                         ? handout->model->record->source : "";
  guint n_steps = cr_graph_model_get_backward (model) ? model->n_steps : 0;
  g_autoptr (GArray) ops = model->record ? forward_ops (model) : g_array_new (FALSE, FALSE, sizeof (int));
  c.n_forward = ops->len;
  TitlePages title_pages = { 0 };
  title_pages_plan (&c, source, &title_pages);
  c.n_pages = title_pages.starts->len + ops->len + n_steps;
  title_pages_draw (&c, &title_pages);
  g_object_unref (title_pages.code);
  g_array_unref (title_pages.starts);
  for (guint i = 0; i < ops->len; i++)
    draw_forward_page (&c, g_array_index (ops, int, i), i, ops->len);
  for (guint s = 0; s < n_steps; s++)
    draw_step_page (&c, s);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  cairo_status_t status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "Cannot write '%s': %s", path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  if (n_pages)
    *n_pages = c.n_pages;
  return TRUE;
}
