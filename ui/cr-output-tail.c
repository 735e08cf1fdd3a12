/* cr-output-tail.c — see cr-output-tail.h.
 *
 * The tail is a queue of pieces, each one stream's text of at most one line;
 * n_lines counts the pieces that end a line. Appending grows the newest piece
 * or starts one; then the oldest pieces go while there are too many lines or
 * bytes. A lone piece over the byte limit (one endless line) loses its start,
 * a quarter of the limit at a time, so a byte is moved a bounded number of
 * times and appending stays linear. */
#include "cr-output-tail.h"

#include <string.h>

typedef struct {
  GString  *text;
  gboolean  is_stderr;
  gboolean  cut;         /* its start was let go */
} Piece;

struct _CrOutputTail
{
  GQueue   pieces;       /* of Piece*, oldest first */
  guint    max_lines;
  gsize    max_bytes;
  guint    n_lines;      /* pieces ending in '\n' */
  gsize    n_bytes;
  guint64  dropped_lines;
};

static void
piece_free (gpointer data)
{
  Piece *piece = data;
  g_string_free (piece->text, TRUE);
  g_free (piece);
}

static gboolean
piece_ends_line (const Piece *piece)
{
  return piece->text->len > 0 && piece->text->str[piece->text->len - 1] == '\n';
}

CrOutputTail *
cr_output_tail_new (guint max_lines,
                    gsize max_bytes)
{
  g_return_val_if_fail (max_lines > 0 && max_bytes > 0, NULL);
  CrOutputTail *self = g_new0 (CrOutputTail, 1);
  g_queue_init (&self->pieces);
  self->max_lines = max_lines;
  self->max_bytes = max_bytes;
  return self;
}

void
cr_output_tail_free (CrOutputTail *self)
{
  if (!self)
    return;
  g_queue_clear_full (&self->pieces, piece_free);
  g_free (self);
}

/* Lets the start of a lone, too long piece go, at a character boundary. */
static void
cut_piece (CrOutputTail *self,
           Piece        *piece)
{
  gsize keep = MAX (self->max_bytes - self->max_bytes / 4, 1);
  gsize cut = piece->text->len - MIN (keep, piece->text->len);
  while (cut < piece->text->len && (piece->text->str[cut] & 0xC0) == 0x80)
    cut++;
  g_string_erase (piece->text, 0, (gssize) cut);
  self->n_bytes -= cut;
  piece->cut = TRUE;
}

static void
trim (CrOutputTail *self)
{
  while (self->pieces.length > 1
         && (self->n_lines > self->max_lines || self->n_bytes > self->max_bytes))
    {
      Piece *oldest = g_queue_pop_head (&self->pieces);
      self->n_bytes -= oldest->text->len;
      if (piece_ends_line (oldest))
        {
          self->n_lines--;
          self->dropped_lines++;
        }
      piece_free (oldest);
    }
  if (self->n_bytes > self->max_bytes)
    cut_piece (self, g_queue_peek_head (&self->pieces));
}

void
cr_output_tail_append (const char *text,
                       gboolean    is_stderr,
                       gpointer    tail)
{
  CrOutputTail *self = tail;
  while (*text)
    {
      const char *newline = strchr (text, '\n');
      gsize length = newline ? (gsize) (newline - text) + 1 : strlen (text);
      Piece *newest = g_queue_peek_tail (&self->pieces);
      if (!newest || piece_ends_line (newest) || newest->is_stderr != is_stderr)
        {
          newest = g_new0 (Piece, 1);
          newest->text = g_string_sized_new (MIN (length, 64));
          newest->is_stderr = is_stderr;
          g_queue_push_tail (&self->pieces, newest);
        }
      g_string_append_len (newest->text, text, (gssize) length);
      self->n_bytes += length;
      if (newline)
        self->n_lines++;
      text += length;
      trim (self);
    }
}

guint64
cr_output_tail_get_dropped_lines (const CrOutputTail *self)
{
  return self->dropped_lines;
}

/* 1234567 -> "1,234,567", as the window says counts. */
static char *
format_count (guint64 count)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, count);
  GString *out = g_string_new (NULL);
  gsize n = strlen (digits);
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
cr_output_tail_describe_dropped (const CrOutputTail *self)
{
  if (self->dropped_lines == 0)
    return NULL;
  g_autofree char *count = format_count (self->dropped_lines);
  return g_strdup_printf ("… %s earlier line%s not shown\n", count,
                          self->dropped_lines == 1 ? "" : "s");
}

void
cr_output_tail_foreach (const CrOutputTail *self,
                        CrOutputTailFunc    func,
                        gpointer            user_data)
{
  for (GList *link = self->pieces.head; link; link = link->next)
    {
      const Piece *piece = link->data;
      if (piece->cut)
        func ("…", strlen ("…"), piece->is_stderr, user_data);
      func (piece->text->str, piece->text->len, piece->is_stderr, user_data);
    }
}
