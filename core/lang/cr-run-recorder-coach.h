/* cr-run-recorder-coach.h — what the interpreter notes for the mistakes coach
 * (core/coach/cr-coach.h) while a coached run goes on
 * (CrInterpOptions.coach): the facts the run record does not keep. Private
 * to core/lang; the run recorder owns the watch and hands its notes to
 * cr_coach_examine() when the run ends.
 *
 * Every function is a no-op when the run is not coached. */
#pragma once

#include "cr-interp.h"

G_BEGIN_DECLS

typedef struct _CrCoachWatch CrCoachWatch;

CrCoachWatch *cr_coach_watch_new   (void);
void          cr_coach_watch_free  (CrCoachWatch *watch);   /* NULL-safe */
/* The notes taken (a GArray of CrCoachNote), borrowed. */
GArray       *cr_coach_watch_notes (CrCoachWatch *watch);

/* t.grad was read (before the read warns or gives None). */
void cr_coach_watch_grad_read (CrInterp   *interp,
                               CrTensor   *t);
/* t.data was read: what changes it in place changes t. */
void cr_coach_watch_data_read (CrInterp   *interp,
                               CrTensor   *t);
/* t's values changed in place (the version observer). */
void cr_coach_watch_bump      (CrInterp   *interp,
                               CrTensor   *t);
/* t.item(), t.tolist(), t.detach(), t.data: what (static) says which. */
void cr_coach_watch_cut       (CrInterp   *interp,
                               CrTensor   *t,
                               const char *what);
/* instance.name was read (stored NULL) or set to stored: a hand-written
 * backward's .grad. */
void cr_coach_watch_attr      (CrInterp   *interp,
                               CrValue    *instance,
                               const char *name,
                               CrValue    *stored);

G_END_DECLS
