/* cr-handout.c — the handout PDF (cr-handout.h): A4 pages drawn with
 * Cairo's PDF surface and Pango.
 *
 *   title page   the script's name, what the pages show, the code with
 *                line numbers (a long script goes on over more pages)
 *   step pages   "Backward 3 of 12 · MulBackward0" and the step's caption,
 *                the graph as of the step (scaled to the room the text
 *                leaves), the step card's sections
 *
 * With several backward calls told, each call's pages follow a call page
 * (its graph whole, what it does), all headed "Backward call 2 of 3 · …";
 * an op the forward pages told for an earlier call is not told again.
 * For practice, a step or op that asks has a question page before its
 * page (cr-handout-practice.c). Every page has a footer: the script's name
 * and "page n of N". */
#include "cr-handout.h"
#include "cr-handout-private.h"

#include "cr-graph-forward.h"
#include "cr-practice.h"

#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <string.h>

#define PAGE_W 595.28              /* A4, in points */
#define PAGE_H 841.89
#define MARGIN 48.0
#define TEXT_FONT "Cantarell, Noto Sans, DejaVu Sans, sans-serif"
#define MONO_FONT CR_HANDOUT_MONO_FONT
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

/* One backward call told (or the forward graph, when none ran): its
 * graph, made ready to draw, and what its pages tell. */
typedef struct {
  CrGraphModel    *own_model;      /* made here from the record, or NULL: the handout's */
  CrGraphGroups   *groups;         /* made here, or NULL */
  CrGraphCollapse *own_collapse;
  CrGraphLayout   *own_layout;
  const CrGraphModel *model;       /* what is drawn: the call's model, or its collapsed one */
  const CrGraphCollapse *collapse;
  const CrGraphLayout *layout;
  GArray          *graph_ops;      /* of int: the graph's forward ops (cr_graph_forward_ops) */
  GArray          *told;           /* of guint: indices in graph_ops told on forward pages
                                    * (those no earlier call told) */
  guint            n_steps;
  guint            backward;       /* the call (index in the record's backwards) */
  char            *heading;        /* "Backward call 2 of 3 · L.backward() · line 18"; NULL:
                                    * the only call told */
} Call;

typedef struct {
  const CrHandout *h;
  const CrGraphModel *model;       /* the call being drawn: its model, or its collapsed one */
  const CrGraphCollapse *collapse; /* its collapse (the handout's, or one made here); NULL */
  const CrGraphLayout *layout;     /* its layout (the handout's, or the one chosen) */
  const Call      *call;           /* the call being drawn */
  cairo_t         *cr;
  Paper            paper;
  guint            n_forward;      /* forward pages, all calls */
  guint            n_steps;        /* step pages, all calls */
  guint            n_calls;        /* calls told */
  char            *calls_told;     /* "calls 1, 2 and 201 of 201"; NULL: every call */
  guint            page;           /* the page being drawn, 1-based */
  guint            n_pages;
} Ctx;

/* How a story page draws its graph. */
typedef struct {
  int           current_step;      /* the backward step lit, -1: none */
  int           selected;          /* a node ringed (a forward op), -1: none */
  const guint8 *forward;           /* each node's CrGraphForwardState; NULL: all computed */
  gboolean      hide;              /* a question: what the step or op computes not shown */
} PageGraph;

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

/* The script with line numbers, right-aligned in a column. A notebook's
 * (record has its cells) is numbered as its pages name lines, "cell 3,
 * line 2": each cell's lines from 1, the markers and markdown unnumbered. */
static char *
numbered_code (const char        *source,
               const CrRunRecord *record)
{
  g_auto (GStrv) lines = g_strsplit (source, "\n", -1);
  guint n = g_strv_length (lines);
  if (n > 0 && lines[n - 1][0] == '\0')
    n--;
  gboolean by_cell = record && record->cells->len > 0 && g_strcmp0 (source, record->source) == 0;
  int digits = n >= 1000 ? 4 : n >= 100 ? 3 : 2;   /* and 2 spaces: 4 columns or more */
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      int cell_line = (int) i + 1;
      if (by_cell && !cr_run_record_cell_at (record, (int) i + 1, &cell_line))
        g_string_append_printf (out, "%*s  %s", digits, "", lines[i]);
      else
        g_string_append_printf (out, "%*d  %s", digits, cell_line, lines[i]);
      if (i + 1 < n)
        g_string_append_c (out, '\n');
    }
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
  guint n = c->n_steps;
  guint f = c->n_forward;
  g_autofree char *forward = f ? g_strdup_printf ("The forward pass op by op (%u op%s), then ", f,
                                                  f == 1 ? "" : "s")
                               : g_strdup ("");
  g_autofree char *of = c->n_calls > 1
    ? g_strdup_printf ("each of %u backward calls%s%s%s", c->n_calls,
                       c->calls_told ? " (" : "", c->calls_told ? c->calls_told : "",
                       c->calls_told ? ")" : "")
    : g_strdup (model->title ? model->title : "the script");
  g_autofree char *what = bw
    ? g_strdup_printf ("%s%s %s, step by step: %u step%s, a page each. Each page shows the graph "
                       "(the op or step's node lit, the gradients sent so far) and what happens "
                       "at that node, with its numbers.%s", forward,
                       f ? "the backward pass of" : "The backward pass of", of, n,
                       n == 1 ? "" : "s",
                       c->h->practice ? " For practice, each step that asks has a question page "
                                        "first: work out what it sends on (or pick a lettered "
                                        "choice), then turn the page for the answer." : "")
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
  g_autofree char *code = numbered_code (source, c->model->record);
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

const char *
cr_handout_role_colour (CrStepTextRole role,
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

char *
cr_handout_card_markup (const CrStepText *text,
                        gboolean          dark)
{
  GString *m = g_string_new (NULL);
  for (guint i = 0; i < text->sections->len; i++)
    {
      const CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      if (m->len > 0)
        g_string_append (m, "\n<span size=\"50%\"> </span>\n");
      if (s->heading)
        {
          g_autofree char *h = g_markup_escape_text (s->heading, -1);
          g_string_append_printf (m, "<span weight=\"bold\" foreground=\"%s\">%s</span>",
                                  cr_handout_role_colour (s->role, dark), h);
        }
      for (guint k = 0; k < s->items->len; k++)
        {
          const CrStepTextItem *item = g_ptr_array_index (s->items, k);
          g_autoptr (GPtrArray) lines = cr_step_text_item_lines (item);
          for (guint l = 0; l < lines->len; l++)
            {
              g_autofree char *e = g_markup_escape_text (g_ptr_array_index (lines, l), -1);
              const char *sep = m->len ? "\n" : "";
              if (item->kind == CR_STEP_TEXT_NOTE)
                g_string_append_printf (m, "%s<span size=\"90%%\" style=\"italic\">%s</span>", sep, e);
              else if (item->kind == CR_STEP_TEXT_SENTENCE)
                g_string_append_printf (m, "%s%s", sep, e);
              else
                g_string_append_printf (m, "%s<span font_family=\"%s\" size=\"90%%\">%s</span>",
                                        sep, MONO_FONT, e);
            }
        }
    }
  return g_string_free (m, FALSE);
}

/* One page of the story: the call's heading, its title and caption, the
 * graph as g says, the text (Pango markup) under it. */
static void
draw_story_page (Ctx             *c,
                 const char      *title,
                 const char      *caption,
                 const char      *markup,
                 const PageGraph *g)
{
  cairo_t *cr = c->cr;
  double width = PAGE_W - 2 * MARGIN;
  begin_page (c);
  double y = MARGIN;
  if (c->call && c->call->heading)
    y += 4 + draw_text (c, c->call->heading, TEXT_FONT, 9, FALSE, c->paper.dim, MARGIN, y, width);
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
      options.current_step = g->current_step;
      options.selected = g->selected;
      options.forward = g->forward;
      options.hide_step_gradients = g->hide;
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

/* Whether a handout for practice asks at this step (or op): its
 * questions (new array), or NULL. */
static GPtrArray *
step_questions (const Ctx *c,
                guint      step)
{
  if (!c->h->practice)
    return NULL;
  GPtrArray *questions = cr_practice_questions (c->model->record, c->model->backward, (int) step,
                                                CR_PRACTICE_LEVEL_SENT);
  if (questions->len == 0)
    g_clear_pointer (&questions, g_ptr_array_unref);
  return questions;
}

static GPtrArray *
forward_questions (const Ctx *c,
                   int        op)
{
  if (!c->h->practice)
    return NULL;
  GPtrArray *questions = cr_practice_forward_questions (c->model->record, op);
  if (questions->len == 0)
    g_clear_pointer (&questions, g_ptr_array_unref);
  return questions;
}

/* "Backward 3 of 12 · MulBackward0 · your turn" */
static char *
question_title (const char *title)
{
  return g_strconcat (title, " · your turn", NULL);
}

/* Step `step`'s page; for practice, when it asks, its question page first
 * and the answers on top of its page. */
static void
draw_step_page (Ctx  *c,
                guint step)
{
  const CrGraphModel *model = c->model;
  PageGraph g = { (int) step, -1, NULL, FALSE };
  CrStepText *text = cr_step_text_new (model->record, model->backward, (int) step);
  if (!text)
    {
      draw_story_page (c, "?", NULL, NULL, &g);
      return;
    }
  gboolean dark = c->h->style == CR_GRAPH_STYLE_DARK;
  g_autofree char *title = g_strdup_printf ("%s · %s", text->count, text->title);
  g_autofree char *markup = cr_handout_card_markup (text, dark);
  g_autoptr (GPtrArray) questions = step_questions (c, step);
  if (questions)
    {
      g_autofree char *asked = question_title (title);
      /* The window's practice card at its first level: local gradients shown. */
      g_autoptr (CrStepText) given = cr_step_text_new_given (model->record, model->backward,
                                                             (int) step, FALSE);
      g_autofree char *ask = cr_handout_question_markup (given, questions, dark);
      PageGraph hidden = g;
      hidden.hide = TRUE;
      draw_story_page (c, asked, text->caption, ask, &hidden);
      g_autofree char *answers = cr_handout_answers_markup (questions, dark);
      g_autofree char *both = g_strconcat (answers, "\n<span size=\"50%\"> </span>\n", markup, NULL);
      draw_story_page (c, title, text->caption, both, &g);
    }
  else
    draw_story_page (c, title, text->caption, markup, &g);
  cr_step_text_free (text);
}

/* Forward op told at graph_ops[at] of the call, the index-th of n told:
 * what it computed, in the words of the window's forward steps, its node
 * ringed and the ops after it not computed yet; for practice, when it
 * asks, its question page first. */
static void
draw_forward_page (Ctx   *c,
                   guint  at,
                   guint  index,
                   guint  n)
{
  const CrRunRecord *record = c->model->record;
  int op = g_array_index (c->call->graph_ops, int, at);
  const CrRecordOp *rop = g_ptr_array_index (record->ops, op);
  /* The window's forward card in words: titled by what it computed. */
  g_autoptr (CrStepText) told = cr_step_text_new_forward (record, op, index, n,
                                                          c->model->backward >= 0);
  g_autofree char *count = cr_step_text_story_count (CR_STEP_TEXT_FORWARD, index, n);
  g_autofree char *title = g_strdup_printf ("%s · %s", count,
                                            told ? told->title : rop->grad_fn);
  /* The statement and its line, then the node that will run its backward. */
  g_autofree char *caption = cr_step_text_caption (rop->caption, rop->iteration);
  if (caption && rop->span.line > 0 && !strstr (caption, "line "))
    {
      g_autofree char *where = cr_run_record_line_text (record, rop->span.line, FALSE);
      char *with_line = g_strdup_printf ("%s · %s", caption, where);
      g_free (caption);
      caption = with_line;
    }
  if (caption && rop->grad_fn)
    {
      char *with_node = g_strdup_printf ("%s · grad_fn %s", caption, rop->grad_fn);
      g_free (caption);
      caption = with_node;
    }
  gboolean dark = c->h->style == CR_GRAPH_STYLE_DARK;
  GString *m = g_string_new (NULL);
  if (told)
    {
      g_autofree char *sections = cr_handout_card_markup (told, dark);
      g_string_append (m, sections);
    }
  const CrGraphNode *node = cr_graph_model_find_op (c->model, op);
  g_autofree guint8 *states = cr_graph_forward_states (c->model, c->call->graph_ops, (int) at);
  PageGraph g = { -1, node ? (int) node->id : -1, states, FALSE };
  g_autoptr (GPtrArray) questions = forward_questions (c, op);
  if (questions)
    {
      g_autofree char *asked = question_title (title);
      g_autoptr (CrStepText) given = cr_step_text_new_forward_given (record, op, index, n);
      g_autofree char *ask = cr_handout_question_markup (given, questions, dark);
      PageGraph hidden = g;
      hidden.hide = TRUE;
      draw_story_page (c, asked, caption, ask, &hidden);
      g_autofree char *answers = cr_handout_answers_markup (questions, dark);
      g_string_prepend (m, "\n<span size=\"50%\"> </span>\n");
      g_string_prepend (m, answers);
    }
  draw_story_page (c, title, caption, m->str, &g);
  g_string_free (m, TRUE);
}

/* A call's first page when several are told: its graph whole, and what
 * the call does. */
static void
draw_call_page (Ctx *c)
{
  const CrGraphModel *model = c->model;
  const CrRecordBackward *bw = cr_graph_model_get_backward (model);
  gboolean dark = c->h->style == CR_GRAPH_STYLE_DARK;
  GString *m = g_string_new (NULL);
  g_string_append_printf (m, "<span weight=\"bold\" foreground=\"%s\">What this call does</span>",
                          cr_handout_role_colour (CR_STEP_TEXT_IN, dark));
  guint told = c->call->told->len;
  g_autofree char *what = g_strdup_printf (
    "%s%u backward step%s, a page each.%s",
    told ? "The forward ops that led to it, " : "", c->call->n_steps,
    c->call->n_steps == 1 ? "" : "s",
    told < c->call->graph_ops->len
      ? " Its graph was built by ops an earlier call's pages already told." : "");
  g_autofree char *escaped = g_markup_escape_text (what, -1);
  g_string_append_printf (m, "\n%s", escaped);
  if (bw && bw->retain_graph)
    g_string_append (m, "\nretain_graph=True: the tensors the graph saved are kept for another "
                        "backward call.");
  if (bw && !bw->succeeded)
    g_string_append (m, "\nIt stops with an error; its last step says why.");
  PageGraph g = { -1, -1, NULL, FALSE };
  const char *call_title = c->call->own_model && c->call->own_model->title
                           ? c->call->own_model->title : model->title;
  draw_story_page (c, call_title ? call_title : "backward", NULL, m->str, &g);
  g_string_free (m, TRUE);
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

static void
call_clear (Call *call)
{
  g_clear_pointer (&call->own_layout, cr_graph_layout_free);
  g_clear_pointer (&call->own_collapse, cr_graph_collapse_free);
  g_clear_pointer (&call->groups, cr_graph_groups_free);
  g_clear_pointer (&call->own_model, cr_graph_model_unref);
  g_clear_pointer (&call->graph_ops, g_array_unref);
  g_clear_pointer (&call->told, g_array_unref);
  g_clear_pointer (&call->heading, g_free);
}

/* Makes call ready to draw model: module code as the window and export
 * draw it (each module call and loop body a box around its nodes, every
 * one open) unless the handout brings its own layout or collapse. */
static void
call_prepare (Call            *call,
              const CrHandout *h,
              const CrGraphModel *model,
              gboolean         own)
{
  call->model = model;
  if (!own && (h->layout || h->collapse))
    {
      call->collapse = h->collapse;
      call->layout = h->layout;
    }
  else
    {
      call->groups = cr_graph_groups_new ((CrGraphModel *) model);
      g_autofree gboolean *open = cr_graph_groups_open_to_level (call->groups, call->groups->height);
      if (call->groups->groups->len > 0)
        {
          call->own_collapse = cr_graph_collapse_new (call->groups, open);
          call->model = call->own_collapse->model;
        }
      call->collapse = call->own_collapse;
    }
  if (!call->layout)
    call->layout = call->own_layout = best_layout (call->model);
  call->n_steps = cr_graph_model_get_backward (call->model) ? call->model->n_steps : 0;
  call->graph_ops = cr_graph_forward_ops (call->model);
  call->told = g_array_new (FALSE, FALSE, sizeof (guint));
}

/* The pages call takes: its call page, its forward and step pages, and
 * for practice a question page for each that asks. */
static guint
call_pages (Ctx        *c,
            const Call *call)
{
  c->model = call->model;
  guint pages = call->heading ? 1 : 0;
  for (guint i = 0; i < call->told->len; i++)
    {
      int op = g_array_index (call->graph_ops, int, g_array_index (call->told, guint, i));
      g_autoptr (GPtrArray) questions = forward_questions (c, op);
      pages += questions ? 2 : 1;
    }
  for (guint s = 0; s < call->n_steps; s++)
    {
      g_autoptr (GPtrArray) questions = step_questions (c, s);
      pages += questions ? 2 : 1;
    }
  return pages;
}

/* "calls 1, 2 and 201 of 201" */
static char *
calls_told_text (const GArray *calls,
                 guint         n_calls)
{
  GString *s = g_string_new ("calls ");
  for (guint i = 0; i < calls->len; i++)
    g_string_append_printf (s, "%s%u", i == 0 ? "" : i + 1 == calls->len ? " and " : ", ",
                            g_array_index (calls, guint, i) + 1);
  g_string_append_printf (s, " of %u", n_calls);
  return g_string_free (s, FALSE);
}

GArray *
cr_handout_default_calls (const CrRunRecord *record)
{
  GArray *calls = g_array_new (FALSE, FALSE, sizeof (guint));
  guint n = record ? record->backwards->len : 0;
  for (guint i = 0; i < n; i++)
    if (n <= CR_HANDOUT_MAX_CALLS || i < 2 || i + 1 == n)
      g_array_append_val (calls, i);
  return calls;
}

gboolean
cr_handout_write_pdf (const CrHandout *handout,
                      const char      *path,
                      guint           *n_pages,
                      GError         **error)
{
  g_return_val_if_fail (handout != NULL && handout->model != NULL && path != NULL, FALSE);
  CrRunRecord *record = handout->model->record;
  /* The calls told: those asked for that the record has, else the model's. */
  g_autoptr (GArray) calls = g_array_new (FALSE, TRUE, sizeof (Call));
  g_array_set_clear_func (calls, (GDestroyNotify) call_clear);
  guint n_record_calls = record ? record->backwards->len : 0;
  g_autoptr (GArray) picked = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; handout->calls && record && i < handout->calls->len; i++)
    {
      guint b = g_array_index (handout->calls, guint, i);
      if (b < n_record_calls)
        g_array_append_val (picked, b);
    }
  for (guint i = 0; i < picked->len; i++)
    {
      guint b = g_array_index (picked, guint, i);
      CrGraphModel *model = cr_graph_model_new_from_run_record (record, (int) b);
      if (!model)
        continue;
      g_array_set_size (calls, calls->len + 1);
      Call *call = &g_array_index (calls, Call, calls->len - 1);
      call->own_model = model;
      call->backward = b;
      call_prepare (call, handout, model, TRUE);
    }
  if (calls->len == 0)
    {
      g_array_set_size (calls, 1);
      call_prepare (&g_array_index (calls, Call, 0), handout, handout->model, FALSE);
    }

  cairo_surface_t *surface = cairo_pdf_surface_create (path, PAGE_W, PAGE_H);
  g_autofree char *title = g_strdup_printf ("%s: the backward pass step by step",
                                            handout->script_name);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Chainrule");
  cairo_t *cr = cairo_create (surface);
  gboolean dark = handout->style == CR_GRAPH_STYLE_DARK;
  Ctx c = {
    .h = handout,
    .cr = cr,
    .paper = dark ? (Paper) { 0.93, 0.70, 0.14 } : (Paper) { 0.07, 0.38, 1.0 },
    .n_calls = calls->len,
    .page = 1,
  };
  /* What each call tells, and the pages they take: an op told for an
   * earlier call (a second backward through the same graph) is not told
   * again. */
  g_autoptr (GHashTable) told_ops = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint n_call_pages = 0;
  for (guint k = 0; k < calls->len; k++)
    {
      Call *call = &g_array_index (calls, Call, k);
      for (guint i = 0; i < call->graph_ops->len; i++)
        {
          int op = g_array_index (call->graph_ops, int, i);
          if (g_hash_table_add (told_ops, GINT_TO_POINTER (op + 1)))
            g_array_append_val (call->told, i);
        }
      if (calls->len > 1)
        call->heading = g_strdup_printf ("Backward call %u of %u · %s", call->backward + 1,
                                         n_record_calls,
                                         call->own_model->title ? call->own_model->title : "");
      c.n_forward += call->told->len;
      c.n_steps += call->n_steps;
      n_call_pages += call_pages (&c, call);
    }
  if (calls->len > 1 && calls->len < n_record_calls)
    c.calls_told = calls_told_text (picked, n_record_calls);

  const Call *first = &g_array_index (calls, Call, 0);
  c.model = first->model;
  const char *source = handout->source ? handout->source
                       : record && record->source ? record->source : "";
  TitlePages title_pages = { 0 };
  title_pages_plan (&c, source, &title_pages);
  c.n_pages = title_pages.starts->len + n_call_pages;
  title_pages_draw (&c, &title_pages);
  g_object_unref (title_pages.code);
  g_array_unref (title_pages.starts);
  for (guint k = 0; k < calls->len; k++)
    {
      const Call *call = &g_array_index (calls, Call, k);
      c.call = call;
      c.model = call->model;
      c.collapse = call->collapse;
      c.layout = call->layout;
      if (call->heading)
        draw_call_page (&c);
      for (guint i = 0; i < call->told->len; i++)
        draw_forward_page (&c, g_array_index (call->told, guint, i), i, call->told->len);
      for (guint s = 0; s < call->n_steps; s++)
        draw_step_page (&c, s);
    }
  g_free (c.calls_told);
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
