/* cr-interp-cells.h — running a script as notebook cells, the way Jupyter
 * runs a notebook's cells one after another in one namespace:
 *
 * - an error ends its cell, not the run: its traceback goes to stderr as
 *   the cell fails (its File line says "cell 3, line 2") and the next cell
 *   runs; the run record keeps it as it keeps a handled error;
 * - a cell that does not parse raises its SyntaxError when its turn comes;
 * - a cell whose last statement is an expression shows its value, as
 *   Jupyter's Out[n] does: its text/plain form on stdout (IPython's pretty
 *   printer: prelude/IPython/lib/pretty.py), nothing for None or when the
 *   line ends with ';';
 * - `display(x, ...)` is a builtin that prints each so.
 *
 * Only stopping the run (Ctrl-C, the time limit) ends it early. The cells
 * come from the notebook layer (core/notebook/), which also parses them. */
#pragma once

#include "cr-interp-base.h"

G_BEGIN_DECLS

typedef struct {
  int          first_line;      /* the cell's first and last line in the script, 1-based */
  int          last_line;
  guint        number;          /* "cell 3": its place among the notebook's code cells */
  char        *notes;           /* written to stderr as the cell starts (an IPython line
                                 * Chainrule skipped), or NULL */
  /* The cell's own text does not parse: what running it raises (its
   * statements are not in the module). syntax_message NULL: it parses. */
  CrException  syntax_type;
  char        *syntax_message;
  CrSpan       syntax_span;
  char        *syntax_text;     /* the SyntaxError as printed (File line, caret, message) */
} CrScriptCell;

/* Frees the strings of cell (not cell itself): a GArray's clear func. */
void         cr_script_cell_clear     (CrScriptCell       *cell);

/* The next cr_interp_run runs its module as these cells, in order (the
 * module's statements fall into them by line; statements outside every
 * cell run with the cell before them). cells is borrowed until the run
 * returns; NULL or n_cells 0: a plain script again. */
void         cr_interp_set_cells      (CrInterp           *self,
                                       const CrScriptCell *cells,
                                       guint               n_cells);
/* The cell that holds line of the script (cell_line: its line within the
 * cell, 1-based), or NULL when the run has no cells or none holds it. */
const CrScriptCell *cr_interp_cell_at (CrInterp           *self,
                                       int                 line,
                                       int                *cell_line);
/* During a run: the number of the cell running (0: none). After it: how
 * many cells failed. */
guint        cr_interp_running_cell   (CrInterp           *self);
guint        cr_interp_n_failed_cells (CrInterp           *self);

G_END_DECLS
