/* cr-pyformat.h — Python's number and string formatting: repr(float) (the
 * shortest string that round-trips), str(int), and the format-spec
 * mini-language of f-strings and format() ("{x:.4f}", "{n:>8}", "{v:+.2e}",
 * "{p:.1%}", "{s:^10}", "{n:,}", "{x:g}"). */
#pragma once

#include "cr-types.h"

G_BEGIN_DECLS

/* repr(0.1) == "0.1", repr(1e-05) == "1e-05", repr(1e16) == "1e+16",
 * repr(2.0) == "2.0", "inf", "-inf", "nan". New string. */
char     *cr_py_float_repr   (double        value);
/* format(value, spec); ValueError "Invalid format specifier" / "Unknown format
 * code 'd' for object of type 'float'" as Python's. New string or NULL. */
char     *cr_py_format_float (double        value,
                              const char   *spec,
                              GError      **error);
char     *cr_py_format_int   (gint64        value,
                              const char   *spec,
                              GError      **error);
char     *cr_py_format_str   (const char   *value,
                              const char   *spec,
                              GError      **error);
/* repr(str): Python's quoting ('it''s' -> "it's"), escapes. */
char     *cr_py_str_repr     (const char   *value,
                              gsize         length);

G_END_DECLS
