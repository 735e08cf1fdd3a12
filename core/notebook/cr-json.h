/* cr-json.h — a small JSON reader (RFC 8259) for what Chainrule reads that
 * someone else wrote: Jupyter notebooks. It builds a tree of plain values;
 * object members keep their order. No writer: the run record writes its
 * own JSON (core/record/cr-run-record-json.c).
 *
 * Hostile input is refused with a GError (CR_LANG_ERROR, CR_EXC_VALUE_ERROR)
 * that says where: nesting deeper than CR_JSON_MAX_DEPTH, bad escapes,
 * invalid UTF-8, trailing text. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CR_JSON_MAX_DEPTH 256

typedef enum {
  CR_JSON_NULL,
  CR_JSON_BOOL,
  CR_JSON_NUMBER,
  CR_JSON_STRING,
  CR_JSON_ARRAY,
  CR_JSON_OBJECT,
} CrJsonKind;

typedef struct _CrJson CrJson;
struct _CrJson {
  CrJsonKind  kind;
  gboolean    boolean;   /* CR_JSON_BOOL */
  double      number;    /* CR_JSON_NUMBER */
  char       *string;    /* CR_JSON_STRING: UTF-8, NUL-terminated (an escaped \u0000 ends it) */
  GPtrArray  *items;     /* CR_JSON_ARRAY: CrJson*; CR_JSON_OBJECT: the members' values */
  GPtrArray  *keys;      /* CR_JSON_OBJECT: char*, parallel to items */
};

/* Parses text (length -1: NUL-terminated); a new tree, or NULL and error. */
CrJson       *cr_json_parse        (const char    *text,
                                    gssize         length,
                                    GError       **error);
void          cr_json_free         (CrJson        *json);   /* NULL-safe */

/* The value of member key of object (the last one when repeated), or NULL
 * when object is NULL, not an object, or has no such member. Borrowed. */
const CrJson *cr_json_get          (const CrJson  *object,
                                    const char    *key);
/* The string, or NULL when json is NULL or not a string. Borrowed. */
const char   *cr_json_get_string   (const CrJson  *json);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrJson, cr_json_free)

G_END_DECLS
