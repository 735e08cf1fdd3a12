/* cr-cli-options.h — the command line of the headless commands (`chainrule
 * check`, `paths`, `train`, `explain-op`, `export`; `run` matches its values
 * with cr_cli_option_value): one table of options, each given as
 * "--name VALUE" or "--name=VALUE" (a flag: "--name"), one script, and the
 * usage error every command prints the same way. */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef struct {
  const char  *name;                /* "chainrule paths": the start of its messages */
  void       (*usage) (FILE *out);  /* its --help text */
} CrCliCommand;

/* Takes an option's value into out; FALSE when the value is not one. */
typedef gboolean (*CrCliParseFunc) (const char *value,
                                    gpointer    out);

typedef struct {
  const char     *name;       /* "--timeout"; a table ends with a NULL name */
  const char     *alias;      /* another name ("-o"), or NULL */
  CrCliParseFunc  parse;      /* NULL: a flag, with no value, that sets *(gboolean *) out */
  gpointer        out;        /* where parse puts the value */
  const char     *bad_value;  /* what it needs, when parse refuses a value: the usage
                               * error "BAD_VALUE, not 'VALUE'" */
} CrCliOption;

/* Parsers for the table: the value itself (const char **out), a --timeout
 * (double *out: cr_time_limit_parse). */
gboolean cr_cli_parse_text    (const char *value,
                               gpointer    out);
gboolean cr_cli_parse_seconds (const char *value,
                               gpointer    out);
/* The --timeout entry, the same text in every command. */
#define CR_CLI_TIMEOUT_OPTION(seconds_ptr) \
  { "--timeout", NULL, cr_cli_parse_seconds, (seconds_ptr), \
    "--timeout needs a positive number of seconds" }

/* Prints "NAME: MESSAGE", a blank line and the usage to stderr; returns 2,
 * the status of a usage error. */
int      cr_cli_usage_error   (const CrCliCommand *command,
                               const char         *format,
                               ...) G_GNUC_PRINTF (2, 3);

/* When argv[*index] is the option name (or alias: NULL for none) with a
 * value, "NAME VALUE" or "NAME=VALUE": TRUE, *out_value the value (NULL
 * when NAME is the last argument) and *index moved past it. FALSE for
 * any other argument, *index left as it is. */
gboolean cr_cli_option_value  (int          argc,
                               char       **argv,
                               int         *index,
                               const char  *name,
                               const char  *alias,
                               const char **out_value);

/* When argv[*index] is an option of the table: takes it, and its value
 * (*index moved past it), and *out_taken is TRUE. Returns -1 when the
 * command goes on, else the status of the usage error it printed (the
 * value is missing or parse refuses it). */
int      cr_cli_take_option   (const CrCliCommand *command,
                               int                 argc,
                               char              **argv,
                               int                *index,
                               const CrCliOption  *options,
                               gboolean           *out_taken);

/* Reads argv[1..argc) by options, in order: --help or -h prints the usage
 * to stdout (status 0); an option of the table takes its value (a usage
 * error when it has none or parse refuses it); any other argument that
 * starts with '-' (but "-", stdin) is a usage error; one more is the script,
 * *out_file (borrowed from argv), which is a usage error when missing.
 * Returns -1 when the command goes on, else its exit status. */
int      cr_cli_parse         (const CrCliCommand *command,
                               int                 argc,
                               char              **argv,
                               const CrCliOption  *options,
                               const char        **out_file);

G_END_DECLS
