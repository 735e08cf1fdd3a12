/* cr-json.c — a recursive-descent JSON reader (see cr-json.h). */
#include "cr-json.h"

#include "cr-error.h"

#include <string.h>

typedef struct {
  const char *text;
  const char *pos;
  const char *end;
  guint       depth;
} Reader;

static CrJson *read_value (Reader *r, GError **error);

/* "line L, column C" of the reader's position, for error messages. */
static void
fail (Reader     *r,
      GError    **error,
      const char *what)
{
  int line = 1, column = 1;
  for (const char *p = r->text; p < r->pos && p < r->end; p++)
    {
      if (*p == '\n')
        {
          line++;
          column = 1;
        }
      else
        column++;
    }
  g_set_error (error, CR_LANG_ERROR, CR_EXC_VALUE_ERROR, "bad JSON at line %d, column %d: %s",
               line, column, what);
}

static void
skip_space (Reader *r)
{
  while (r->pos < r->end && (*r->pos == ' ' || *r->pos == '\t' || *r->pos == '\n' || *r->pos == '\r'))
    r->pos++;
}

static CrJson *
json_new (CrJsonKind kind)
{
  CrJson *json = g_new0 (CrJson, 1);
  json->kind = kind;
  return json;
}

void
cr_json_free (CrJson *json)
{
  if (!json)
    return;
  g_free (json->string);
  if (json->items)
    g_ptr_array_unref (json->items);
  if (json->keys)
    g_ptr_array_unref (json->keys);
  g_free (json);
}

static gboolean
read_hex4 (Reader   *r,
           gunichar *out)
{
  if (r->end - r->pos < 4)
    return FALSE;
  gunichar value = 0;
  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (r->pos[i]);
      if (digit < 0)
        return FALSE;
      value = value * 16 + (gunichar) digit;
    }
  r->pos += 4;
  *out = value;
  return TRUE;
}

/* A string's text after its opening quote, up to and past the closing one. */
static char *
read_string_text (Reader  *r,
                  GError **error)
{
  GString *out = g_string_new (NULL);
  while (r->pos < r->end)
    {
      const char *start = r->pos;
      while (r->pos < r->end && *r->pos != '"' && *r->pos != '\\' && (guchar) *r->pos >= 0x20)
        r->pos++;
      g_string_append_len (out, start, r->pos - start);
      if (r->pos >= r->end)
        break;
      char c = *r->pos;
      if (c == '"')
        {
          r->pos++;
          return g_string_free (out, FALSE);
        }
      if (c != '\\')
        {
          fail (r, error, "a control character inside a string");
          return g_string_free (out, TRUE), NULL;
        }
      r->pos++;
      if (r->pos >= r->end)
        break;
      char e = *r->pos++;
      switch (e)
        {
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/': g_string_append_c (out, '/'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            gunichar ch;
            if (!read_hex4 (r, &ch))
              {
                fail (r, error, "\\u needs four hex digits");
                return g_string_free (out, TRUE), NULL;
              }
            /* A UTF-16 surrogate pair is one character; a lone half is
             * kept as U+FFFD, as Python's json does not but a C string must. */
            if (ch >= 0xD800 && ch < 0xDC00 && r->end - r->pos >= 6 && r->pos[0] == '\\'
                && r->pos[1] == 'u')
              {
                Reader peek = *r;
                peek.pos += 2;
                gunichar low;
                if (read_hex4 (&peek, &low) && low >= 0xDC00 && low < 0xE000)
                  {
                    ch = 0x10000 + ((ch - 0xD800) << 10) + (low - 0xDC00);
                    r->pos = peek.pos;
                  }
              }
            if (ch >= 0xD800 && ch < 0xE000)
              ch = 0xFFFD;
            g_string_append_unichar (out, ch);
            break;
          }
        default:
          r->pos--;
          fail (r, error, "an unknown escape in a string");
          return g_string_free (out, TRUE), NULL;
        }
    }
  fail (r, error, "a string that never ends");
  return g_string_free (out, TRUE), NULL;
}

static CrJson *
read_number (Reader  *r,
             GError **error)
{
  const char *start = r->pos;
  if (r->pos < r->end && *r->pos == '-')
    r->pos++;
  if (r->pos >= r->end || !g_ascii_isdigit (*r->pos))
    {
      fail (r, error, "a value was expected");
      return NULL;
    }
  while (r->pos < r->end && (g_ascii_isdigit (*r->pos) || *r->pos == '.' || *r->pos == 'e'
                             || *r->pos == 'E' || *r->pos == '+' || *r->pos == '-'))
    r->pos++;
  g_autofree char *text = g_strndup (start, (gsize) (r->pos - start));
  char *stop = NULL;
  double value = g_ascii_strtod (text, &stop);
  if (!stop || *stop != '\0')
    {
      r->pos = start;
      fail (r, error, "a malformed number");
      return NULL;
    }
  CrJson *json = json_new (CR_JSON_NUMBER);
  json->number = value;
  return json;
}

static gboolean
read_word (Reader     *r,
           const char *word)
{
  gsize len = strlen (word);
  if ((gsize) (r->end - r->pos) < len || memcmp (r->pos, word, len) != 0)
    return FALSE;
  r->pos += len;
  return TRUE;
}

/* An array or an object, after its opening bracket. */
static CrJson *
read_container (Reader   *r,
                gboolean  is_object,
                GError  **error)
{
  if (++r->depth > CR_JSON_MAX_DEPTH)
    {
      fail (r, error, "nested too deeply");
      return NULL;
    }
  CrJson *json = json_new (is_object ? CR_JSON_OBJECT : CR_JSON_ARRAY);
  json->items = g_ptr_array_new_with_free_func ((GDestroyNotify) cr_json_free);
  if (is_object)
    json->keys = g_ptr_array_new_with_free_func (g_free);
  char close = is_object ? '}' : ']';
  skip_space (r);
  if (r->pos < r->end && *r->pos == close)
    {
      r->pos++;
      r->depth--;
      return json;
    }
  for (;;)
    {
      skip_space (r);
      if (is_object)
        {
          if (r->pos >= r->end || *r->pos != '"')
            {
              fail (r, error, "a member name (a string) was expected");
              goto failed;
            }
          r->pos++;
          char *key = read_string_text (r, error);
          if (!key)
            goto failed;
          g_ptr_array_add (json->keys, key);
          skip_space (r);
          if (r->pos >= r->end || *r->pos != ':')
            {
              fail (r, error, "':' was expected");
              goto failed;
            }
          r->pos++;
        }
      CrJson *item = read_value (r, error);
      if (!item)
        {
          if (is_object)   /* keys and items stay parallel */
            g_ptr_array_set_size (json->keys, json->keys->len - 1);
          goto failed;
        }
      g_ptr_array_add (json->items, item);
      skip_space (r);
      if (r->pos < r->end && *r->pos == ',')
        {
          r->pos++;
          continue;
        }
      if (r->pos < r->end && *r->pos == close)
        {
          r->pos++;
          r->depth--;
          return json;
        }
      fail (r, error, is_object ? "',' or '}' was expected" : "',' or ']' was expected");
      goto failed;
    }
failed:
  cr_json_free (json);
  return NULL;
}

static CrJson *
read_value (Reader  *r,
            GError **error)
{
  skip_space (r);
  if (r->pos >= r->end)
    {
      fail (r, error, "the text ends where a value was expected");
      return NULL;
    }
  switch (*r->pos)
    {
    case '{':
      r->pos++;
      return read_container (r, TRUE, error);
    case '[':
      r->pos++;
      return read_container (r, FALSE, error);
    case '"':
      {
        r->pos++;
        char *text = read_string_text (r, error);
        if (!text)
          return NULL;
        CrJson *json = json_new (CR_JSON_STRING);
        json->string = text;
        return json;
      }
    default:
      break;
    }
  if (read_word (r, "null"))
    return json_new (CR_JSON_NULL);
  if (read_word (r, "true") || read_word (r, "false"))
    {
      CrJson *json = json_new (CR_JSON_BOOL);
      json->boolean = r->pos[-1] == 'e' && r->pos[-2] == 'u';
      return json;
    }
  return read_number (r, error);
}

CrJson *
cr_json_parse (const char  *text,
               gssize       length,
               GError     **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  gsize len = length < 0 ? strlen (text) : (gsize) length;
  const char *bad = NULL;
  if (!g_utf8_validate_len (text, len, &bad))
    {
      Reader at = { text, bad, text + len, 0 };
      fail (&at, error, "the text is not UTF-8");
      return NULL;
    }
  Reader r = { text, text, text + len, 0 };
  /* A UTF-8 byte-order mark is tolerated, as Python's json.load of a
   * file opened with utf-8-sig does. */
  if (len >= 3 && memcmp (text, "\xEF\xBB\xBF", 3) == 0)
    r.pos += 3;
  CrJson *json = read_value (&r, error);
  if (!json)
    return NULL;
  skip_space (&r);
  if (r.pos < r.end)
    {
      fail (&r, error, "text after the end of the value");
      cr_json_free (json);
      return NULL;
    }
  return json;
}

const CrJson *
cr_json_get (const CrJson *object,
             const char   *key)
{
  if (!object || object->kind != CR_JSON_OBJECT)
    return NULL;
  for (guint i = object->keys->len; i > 0; i--)
    if (strcmp (object->keys->pdata[i - 1], key) == 0)
      return object->items->pdata[i - 1];
  return NULL;
}

const char *
cr_json_get_string (const CrJson *json)
{
  return json && json->kind == CR_JSON_STRING ? json->string : NULL;
}
