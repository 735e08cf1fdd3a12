/* cr-handout.h — lecture notes of a run as a PDF: a title page with the
 * script's name and code, then one A4 page per backward step with the
 * graph as of that step (its node lit, the gradients sent so far) above
 * the step card's text (core/record/cr-step-text.h: the window's card
 * says the same words). `chainrule export --handout` and the window's
 * Export Handout both write it; needs no display. */
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
} CrHandout;

/* Writes the handout to path (a PDF); FALSE with error (G_FILE_ERROR) when
 * the file cannot be written. *n_pages (may be NULL): the pages written. */
gboolean cr_handout_write_pdf (const CrHandout *handout,
                               const char      *path,
                               guint           *n_pages,
                               GError         **error);

G_END_DECLS
