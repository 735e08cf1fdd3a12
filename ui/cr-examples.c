/* cr-examples.c — the example scripts and what each one is for.
 *
 * An example starts with comment lines: the first is its title ("Why a
 * second backward needs retain_graph=True.", or "The toy network: five leaf
 * tensors, ..." where the part after the colon is the purpose); the next ones
 * explain it, and their first sentence is the purpose otherwise. */
#include "cr-config.h"
#include "cr-examples.h"

#include <string.h>

const char *
cr_examples_dir (void)
{
  static gsize initialized;
  static char *dir;
  if (g_once_init_enter (&initialized))
    {
      char *installed = g_build_filename (CR_DATADIR, "examples", NULL);
      if (!g_file_test (installed, G_FILE_TEST_IS_DIR))
        {
          g_free (installed);
          installed = g_strdup (CR_SOURCE_EXAMPLES_DIR);
        }
      dir = installed;
      g_once_init_leave (&initialized, 1);
    }
  return dir;
}

static void
example_free (gpointer data)
{
  CrExample *example = data;
  g_free (example->path);
  g_free (example->title);
  g_free (example->purpose);
  g_free (example);
}

/* The text of the comment line at *line (new string, stripped), moving *line
 * to the next line; NULL when *line is not a comment. */
static char *
next_comment (const char **line)
{
  if (!*line || **line != '#')
    return NULL;
  const char *end = strchr (*line, '\n');
  gsize len = end ? (gsize) (end - *line) : strlen (*line);
  char *content = g_strstrip (g_strndup (*line + 1, len - 1));
  *line = end ? end + 1 : NULL;
  return content;
}

/* The first sentence of text (new string), without its period. */
static char *
first_sentence (const char *text)
{
  const char *stop = strstr (text, ". ");
  char *sentence = stop ? g_strndup (text, (gsize) (stop - text)) : g_strdup (text);
  gsize len = strlen (sentence);
  if (len && sentence[len - 1] == '.')
    sentence[len - 1] = '\0';
  return sentence;
}

/* text with a capital first letter (new string), unless it starts with code:
 * "requires_grad", "backward()", "o = tanh(...)" stay as written. */
static char *
capitalised (const char *text)
{
  gsize word = strcspn (text, " ");
  gboolean is_word = word > 1;
  for (gsize i = 0; i < word && is_word; i++)
    is_word = g_ascii_islower (text[i]) || (i + 1 == word && text[i] == ':');
  if (!is_word)
    return g_strdup (text);
  return g_strdup_printf ("%c%s", g_ascii_toupper (text[0]), text + 1);
}

static CrExample *
example_new (const char *path)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL) || !g_utf8_validate (text, -1, NULL))
    return NULL;
  CrExample *example = g_new0 (CrExample, 1);
  example->path = g_strdup (path);

  const char *line = text;
  g_autofree char *first = next_comment (&line);
  g_autofree char *title = first && first[0] ? first_sentence (first) : g_path_get_basename (path);
  char *colon = strstr (title, ": ");
  g_autofree char *purpose = NULL;
  if (colon)
    {
      purpose = g_strdup (colon + 2);
      *colon = '\0';
    }
  else
    {
      /* The explanation's first sentence, over as many lines as it takes. */
      GString *rest = g_string_new (NULL);
      char *more;
      while ((more = next_comment (&line)) && more[0])
        {
          if (rest->len)
            g_string_append_c (rest, ' ');
          g_string_append (rest, more);
          g_free (more);
        }
      g_free (more);
      purpose = first_sentence (rest->str);
      g_string_free (rest, TRUE);
    }
  example->title = capitalised (title);
  example->purpose = purpose[0] ? capitalised (purpose) : g_strdup ("");
  return example;
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  const CrExample *x = *(const CrExample *const *) a;
  const CrExample *y = *(const CrExample *const *) b;
  return g_strcmp0 (x->path, y->path);
}

GPtrArray *
cr_examples_list (void)
{
  GPtrArray *examples = g_ptr_array_new_with_free_func (example_free);
  const char *dir_path = cr_examples_dir ();
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  if (!dir)
    return examples;
  const char *name;
  while ((name = g_dir_read_name (dir)))
    {
      if (!g_str_has_suffix (name, ".py"))
        continue;
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      CrExample *example = example_new (path);
      if (example)
        g_ptr_array_add (examples, example);
    }
  g_ptr_array_sort (examples, compare_paths);
  return examples;
}
