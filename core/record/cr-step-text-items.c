/* cr-step-text-items.c — a told step's sections and items (see
 * cr-step-text-private.h): made, freed, and written as plain lines, a long
 * formula over several with one "= ..." a line. */
#include "cr-step-text-private.h"

#include "cr-record-text.h"

#include <string.h>

/* How many numbers a value writes out before it gives shape and range. */
#define TEXT_VALUES 12

static void
term_free (gpointer data)
{
  CrStepTextTerm *t = data;
  g_free (t->text);
  g_free (t->caption);
  g_free (t);
}

static void
item_free (gpointer data)
{
  CrStepTextItem *item = data;
  g_free (item->text);
  g_ptr_array_unref (item->terms);
  g_free (item->reduction);
  g_free (item);
}

void
cr_step_text_section_free (CrStepTextSection *s)
{
  if (!s)
    return;
  g_free (s->heading);
  g_ptr_array_unref (s->lines);
  g_ptr_array_unref (s->notes);
  g_ptr_array_unref (s->items);
  g_free (s);
}

CrStepTextSection *
cr_step_text_section_new (const char            *heading,
             CrStepTextRole         role,
             CrStepTextSectionKind  kind)
{
  CrStepTextSection *s = g_new0 (CrStepTextSection, 1);
  s->heading = g_strdup (heading);
  s->role = role;
  s->kind = kind;
  s->lines = g_ptr_array_new_with_free_func (g_free);
  s->notes = g_ptr_array_new_with_free_func (g_free);
  s->items = g_ptr_array_new_with_free_func (item_free);
  return s;
}

CrStepTextSection *
cr_step_text_add_section (CrStepText            *text,
             const char            *heading,
             CrStepTextRole         role,
             CrStepTextSectionKind  kind)
{
  CrStepTextSection *s = cr_step_text_section_new (heading, role, kind);
  g_ptr_array_add (text->sections, s);
  return s;
}

/* An item of words; takes words. */
CrStepTextItem *
cr_step_text_add_words (CrStepTextSection  *s,
                CrStepTextItemKind  kind,
                char               *words)
{
  CrStepTextItem *item = g_new0 (CrStepTextItem, 1);
  item->kind = kind;
  item->text = words;
  item->terms = g_ptr_array_new_with_free_func (term_free);
  g_ptr_array_add (s->items, item);
  return item;
}

void
cr_step_text_add_note (CrStepTextSection *s,
          const char        *note)
{
  cr_step_text_add_words (s, CR_STEP_TEXT_NOTE, g_strdup (note));
}

/* A new formula at the end of s; its terms follow with cr_step_text_add_term(). */
CrStepTextItem *
cr_step_text_add_formula (CrStepTextSection *s)
{
  return cr_step_text_add_words (s, CR_STEP_TEXT_FORMULA, NULL);
}

static char *
brief (const CrTensorSnapshot *value)
{
  return cr_record_value_brief (value, TEXT_VALUES);
}

/* A term of words (NAME, WORDS, HOW) after op. */
CrStepTextTerm *
cr_step_text_add_term (CrStepTextItem     *formula,
          CrStepTextTermKind  kind,
          const char         *op,
          const char         *words,
          CrStepTextRole      role)
{
  CrStepTextTerm *t = g_new0 (CrStepTextTerm, 1);
  t->kind = kind;
  t->op = op;
  t->text = g_strdup (words ? words : "?");
  t->role = role;
  g_ptr_array_add (formula->terms, t);
  return t;
}

CrStepTextTerm *
cr_step_text_add_value (CrStepTextItem         *formula,
           const char             *op,
           const CrTensorSnapshot *value,
           CrStepTextRole          role)
{
  CrStepTextTerm *t = g_new0 (CrStepTextTerm, 1);
  t->kind = CR_STEP_TEXT_VALUE;
  t->op = op;
  t->text = brief (value);
  t->role = role;
  t->value = value;
  g_ptr_array_add (formula->terms, t);
  return t;
}

/* "name = value", both in role's colour. */
void
cr_step_text_add_equals (CrStepTextSection      *s,
            const char             *name,
            const CrTensorSnapshot *value,
            CrStepTextRole          role)
{
  CrStepTextItem *f = cr_step_text_add_formula (s);
  cr_step_text_add_term (f, CR_STEP_TEXT_NAME, NULL, name, role);
  cr_step_text_add_value (f, "=", value, role);
}

/* ---- plain lines ------------------------------------------------------------ */

/* A formula on one line: "a = b × c", "returns x, y". */
static char *
formula_line (const CrStepTextItem *f,
              guint                 from,
              guint                 to)
{
  GString *line = g_string_new (NULL);
  for (guint i = from; i < to; i++)
    {
      const CrStepTextTerm *t = g_ptr_array_index (f->terms, i);
      if (t->op && strcmp (t->op, ",") == 0)
        g_string_append (line, ", ");
      else
        {
          if (line->len > 0)
            g_string_append_c (line, ' ');
          if (t->op)
            g_string_append_printf (line, "%s ", t->op);
        }
      if (t->caption)
        g_string_append_printf (line, "%s ", t->caption);
      g_string_append (line, t->text);
    }
  return g_string_free (line, FALSE);
}

/* "lhs = a = b = c" on one line, or when longer than a printed line, one
 * "= ..." a line under the first:
 *   ∂L/∂d = ∂L/∂(10 - d) × ∂(10 - d)/∂d
 *         = [[1, 1], [1, 1]] × [[-1, -1], [-1, -1]]
 *         = [[-1, -1], [-1, -1]]  */
#define CHAIN_LINE_MAX 72

static void
formula_lines (const CrStepTextItem *f,
               GPtrArray            *lines)
{
  if (g_utf8_strlen (f->text, -1) <= CHAIN_LINE_MAX)
    {
      g_ptr_array_add (lines, g_strdup (f->text));
      return;
    }
  /* Break before each "=" after the first, indented under it. */
  guint first_equals = 0, from = 0;
  for (guint i = 1; i < f->terms->len && !first_equals; i++)
    if (g_strcmp0 (((const CrStepTextTerm *) g_ptr_array_index (f->terms, i))->op, "=") == 0)
      first_equals = i;
  if (first_equals == 0)
    {
      g_ptr_array_add (lines, g_strdup (f->text));
      return;
    }
  g_autofree char *lhs = formula_line (f, 0, first_equals);
  g_autofree char *indent = g_strnfill (g_utf8_strlen (lhs, -1) + 1, ' ');
  for (guint i = first_equals + 1; i <= f->terms->len; i++)
    {
      if (i < f->terms->len
          && g_strcmp0 (((const CrStepTextTerm *) g_ptr_array_index (f->terms, i))->op, "=") != 0)
        continue;
      g_autofree char *part = formula_line (f, from, i);
      g_ptr_array_add (lines, from == 0 ? g_strdup (part) : g_strconcat (indent, part, NULL));
      from = i;
    }
}

GPtrArray *
cr_step_text_item_lines (const CrStepTextItem *item)
{
  g_return_val_if_fail (item != NULL, NULL);
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  if (item->kind == CR_STEP_TEXT_FORMULA)
    formula_lines (item, lines);
  else
    g_ptr_array_add (lines, g_strdup (item->text));
  return lines;
}

/* Every item's words, and the old views of them: lines, then notes. */
void
cr_step_text_finish_section (CrStepTextSection *s)
{
  for (guint i = 0; i < s->items->len; i++)
    {
      CrStepTextItem *item = g_ptr_array_index (s->items, i);
      if (item->kind == CR_STEP_TEXT_FORMULA)
        {
          g_free (item->text);
          item->text = formula_line (item, 0, item->terms->len);
          formula_lines (item, s->lines);
        }
      else if (item->kind == CR_STEP_TEXT_NOTE)
        g_ptr_array_add (s->notes, g_strdup (item->text));
      else
        g_ptr_array_add (s->lines, g_strdup (item->text));
    }
}

CrStepText *
cr_step_text_alloc (CrStepTextPass pass)
{
  CrStepText *text = g_new0 (CrStepText, 1);
  text->pass = pass;
  text->sections = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_step_text_section_free);
  return text;
}

void
cr_step_text_finish (CrStepText *text)
{
  for (guint i = 0; i < text->sections->len; i++)
    {
      CrStepTextSection *s = g_ptr_array_index (text->sections, i);
      if (s->kind != CR_STEP_TEXT_SECTION_ERROR)
        cr_step_text_finish_section (s);
    }
}

void
cr_step_text_free (CrStepText *self)
{
  if (!self)
    return;
  g_free (self->count);
  g_free (self->title);
  g_free (self->symbol);
  g_free (self->caption);
  g_ptr_array_unref (self->sections);
  g_free (self);
}

/* A section's heading, then its items: formulas and rules indented. */
static void
append_section (GString                 *out,
                const CrStepTextSection *s)
{
  if (s->heading)
    g_string_append_printf (out, "%s\n", s->heading);
  for (guint k = 0; k < s->items->len; k++)
    {
      const CrStepTextItem *item = g_ptr_array_index (s->items, k);
      if (item->kind == CR_STEP_TEXT_NOTE || item->kind == CR_STEP_TEXT_SENTENCE)
        {
          g_string_append_printf (out, "%s\n", item->text);
          continue;
        }
      g_autoptr (GPtrArray) lines = cr_step_text_item_lines (item);
      for (guint l = 0; l < lines->len; l++)
        g_string_append_printf (out, "  %s\n", (const char *) g_ptr_array_index (lines, l));
    }
}

char *
cr_step_text_plain (const CrStepText *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  GString *out = g_string_new (NULL);
  if (self->symbol)
    g_string_append_printf (out, "%s\n", self->symbol);
  if (self->count)
    g_string_append_printf (out, "%s\n", self->count);
  g_string_append_printf (out, "%s\n", self->title);
  if (self->caption)
    g_string_append_printf (out, "%s\n", self->caption);
  for (guint i = 0; i < self->sections->len; i++)
    {
      g_string_append_c (out, '\n');
      append_section (out, g_ptr_array_index (self->sections, i));
    }
  return g_string_free (out, FALSE);
}

char *
cr_step_text_section_plain (const CrStepTextSection *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  GString *out = g_string_new (NULL);
  append_section (out, s);
  return g_string_free (out, FALSE);
}
