/* cr-notebook.h — Jupyter notebooks (.ipynb, nbformat 4) as Chainrule
 * scripts.
 *
 * A notebook becomes one script in the "percent" form that editors know:
 * each code cell starts with a marker line `# %% [3]` (the third code
 * cell), each markdown or raw cell with `# %% [markdown]` and its text as
 * comments. The script is what the editor shows and what runs; its cells
 * are found again from the markers (cr_notebook_program_new), so an edited
 * script runs as cells too. How they run: cr-interp-cells.h. IPython's own
 * lines are handled here: cr-notebook-ipython.c. */
#pragma once

#include "cr-ast.h"
#include "cr-interp-cells.h"
#include "cr-run-record.h"

G_BEGIN_DECLS

typedef enum {
  CR_NOTEBOOK_CELL_CODE,
  CR_NOTEBOOK_CELL_MARKDOWN,
  CR_NOTEBOOK_CELL_RAW,
} CrNotebookCellKind;

/* One output a notebook stored under a code cell, as its text. */
typedef struct {
  char *output_type;   /* "stream", "execute_result", "display_data", "error" */
  char *name;          /* a stream's "stdout" or "stderr"; NULL otherwise */
  char *text;          /* a stream's text, a result's or display's text/plain, or
                        * NULL (a display with no text form) */
  char *ename;         /* an error's exception class and message; NULL otherwise */
  char *evalue;
} CrNotebookOutput;

typedef struct {
  CrNotebookCellKind kind;
  char       *source;           /* the cell's text, its lines joined */
  int         execution_count;  /* its In [n]; 0: never run */
  guint       number;           /* code cells: 1, 2, ... in order (the marker's); else 0 */
  GPtrArray  *outputs;          /* CrNotebookOutput* stored with it (code cells) */
} CrNotebookCell;

typedef struct {
  GPtrArray  *cells;            /* CrNotebookCell* */
} CrNotebook;

/* Reads a notebook's JSON; NULL and error (CR_LANG_ERROR, CR_EXC_VALUE_ERROR)
 * when it is not JSON or not a notebook of nbformat 4. */
CrNotebook   *cr_notebook_parse      (const char   *text,
                                      gssize        length,
                                      GError      **error);
void          cr_notebook_free       (CrNotebook   *notebook);   /* NULL-safe */
/* The notebook as one script with cell markers (new string, ends with "\n"). */
char         *cr_notebook_to_script  (const CrNotebook *notebook);
/* Whether path names a notebook (ends with .ipynb, any case). */
gboolean      cr_notebook_is_path    (const char   *path);
/* Reads the file at path and converts it: the script text (new string), or
 * NULL and error (a GFileError when it cannot be read). */
char         *cr_notebook_load_script (const char  *path,
                                       GError     **error);

/* A script with cell markers, ready to run as cells. */
typedef struct {
  CrAstModule  *module;   /* owned; its source is the script's text as given */
  GArray       *cells;    /* CrScriptCell, for cr_interp_set_cells */
} CrNotebookProgram;

/* Finds text's cells by their markers (no marker: one cell), handles their
 * IPython lines, parses each cell alone (one that does not parse raises its
 * SyntaxError when it runs) and then the whole; options, error_span and
 * error as cr_parse_with_options, which fails only for what stops a
 * parse (Ctrl-C, the time limit, memory) or a script Python would refuse
 * as a whole. */
CrNotebookProgram *cr_notebook_program_new  (const char            *text,
                                             gssize                 length,
                                             const char            *filename,
                                             const CrParseOptions  *options,
                                             CrSpan                *error_span,
                                             GError               **error);
void               cr_notebook_program_free (CrNotebookProgram     *program);   /* NULL-safe */

/* The code cells of script (a script with cell markers) as line ranges:
 * a GArray of CrNotebookLines, in order (new; empty without markers). */
typedef struct {
  int    first_line;    /* 1-based, in the script */
  int    last_line;
  guint  number;        /* "cell 3" */
} CrNotebookLines;
GArray            *cr_notebook_code_cells   (const char            *script);

/* A record of no run that holds script's code cells alone (script: a
 * script with cell markers; filename as errors name it), so that
 * cr_run_record_line_text names its lines "cell 3, line 2" as a run's
 * record would: for a notebook's run that left no record (its text did not
 * parse, its process died). New. */
CrRunRecord       *cr_notebook_cells_record (const char            *script,
                                             const char            *filename);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrNotebook, cr_notebook_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CrNotebookProgram, cr_notebook_program_free)

G_END_DECLS
