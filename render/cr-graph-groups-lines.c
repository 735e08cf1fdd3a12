/* cr-graph-groups-lines.c — which loop statement an iteration group is an
 * iteration of, found in the script's text: the record gives each op its
 * loop path but not the loop's line, and two loops at one depth would
 * otherwise both title their groups "iteration 1". */
#include "cr-graph-groups-private.h"

#include <string.h>

/* A line's indentation, or -1 when it holds no code (blank, comment). */
static int
indentation (const char *p)
{
  int n = 0;
  while (p[n] == ' ' || p[n] == '\t')
    n++;
  if (p[n] == '\0' || p[n] == '\n' || p[n] == '\r' || p[n] == '#')
    return -1;
  return n;
}

static gboolean
starts_with_word (const char *p,
                  const char *word)
{
  gsize len = strlen (word);
  return strncmp (p, word, len) == 0 && (p[len] == ' ' || p[len] == '\t' || p[len] == '(');
}

guint
cr_graph_groups_loop_line (const char *source,
                           guint       line,
                           guint       levels_out)
{
  if (!source || line == 0)
    return 0;
  /* The lines' starts, to walk back from line. */
  g_autoptr (GPtrArray) starts = g_ptr_array_new ();
  for (const char *p = source; p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
    g_ptr_array_add (starts, (gpointer) p);
  if (line > starts->len)
    return 0;
  int inner = indentation (g_ptr_array_index (starts, line - 1));
  if (inner < 0)
    return 0;
  guint found = 0;
  for (guint l = line - 1; l >= 1; l--)
    {
      const char *p = g_ptr_array_index (starts, l - 1);
      int ind = indentation (p);
      if (ind < 0 || ind >= inner)
        continue;
      /* A block that holds the line. */
      inner = ind;
      p += ind;
      if (starts_with_word (p, "for") || starts_with_word (p, "while")
          || starts_with_word (p, "async"))
        {
          if (found++ == levels_out)
            return l;
        }
      else if (starts_with_word (p, "def") || starts_with_word (p, "class"))
        return 0;   /* a function's loops are not its callers' */
      if (inner == 0)
        break;
    }
  return 0;
}
