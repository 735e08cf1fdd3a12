/* cr-handout.h — lecture notes of a run as a PDF: a title page with the
 * script's name and code, then one A4 page per forward op and per backward
 * step with the graph as of that step (its node lit, the gradients sent so
 * far) above the step card's text (core/record/cr-step-text.h: the
 * window's card says the same words). A run with several backward calls
 * tells each call in turn, its pages headed "Backward call 2 of 3 · …".
 * For practice, each step that asks (core/teach/cr-practice.h) is a
 * question page (the card with its answers hidden, the choices lettered)
 * followed by its answer page. `chainrule export --handout [--practice]`
 * and the window's Export Handout both write it; needs no display. */
#pragma once

#include <glib.h>

#include "cr-graph-groups.h"
#include "cr-graph-layout.h"
#include "cr-graph-model.h"
#include "cr-graph-render.h"

G_BEGIN_DECLS

typedef struct {
  const CrGraphModel    *model;       /* a backward call's graph (its record's steps); borrowed */
  const CrGraphLayout   *layout;      /* model laid out; borrowed; NULL: laid out here, in the
                                       * direction that draws it larger on the page */
  const CrGraphCollapse *collapse;    /* when model is its collapsed model; NULL (and layout
                                       * NULL: module calls are drawn open here, as export
                                       * draws them) */
  const char            *script_name; /* "mlp.py", for the title and the footers */
  const char            *source;      /* the script's text for the title page; NULL: the
                                       * record's */
  CrGraphStyle           style;       /* the graph's style (paper: LIGHT) */
  const GArray          *calls;       /* of guint: the backward calls to tell (indices in
                                       * model->record->backwards), in order, each with a
                                       * graph of its own laid out here (layout and collapse
                                       * are then not used); NULL: model's call alone */
  gboolean               practice;    /* a question page before each step and forward op
                                       * that asks (its answers hidden), its answers after */
} CrHandout;

/* The calls a handout tells when none are picked: every backward call of
 * record up to CR_HANDOUT_MAX_CALLS; past that (a training loop) the
 * first two and the last, whose graphs are alike and numbers tell the
 * story. New array of guint (empty: no call ran). */
#define CR_HANDOUT_MAX_CALLS 6
GArray  *cr_handout_default_calls (const CrRunRecord *record);

/* Writes the handout to path (a PDF); FALSE with error (G_FILE_ERROR) when
 * the file cannot be written. *n_pages (may be NULL): the pages written. */
gboolean cr_handout_write_pdf (const CrHandout *handout,
                               const char      *path,
                               guint           *n_pages,
                               GError         **error);

G_END_DECLS
