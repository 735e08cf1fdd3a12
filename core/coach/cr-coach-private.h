/* cr-coach-private.h — what the coach's detectors share: one detector a
 * file (cr-coach-*.c), each a function that reads the record and the
 * interpreter's notes and adds findings; and the helpers they build their
 * text and fixes with (cr-coach-text.c). Private to core/coach. */
#pragma once

#include "cr-coach.h"

G_BEGIN_DECLS

typedef struct {
  CrRunRecord *record;          /* borrowed; findings go into it */
  const char  *source;          /* record->source, "" when unknown */
  GArray      *notes;           /* of CrCoachNote, borrowed; never NULL (may be empty) */
  GArray      *op_first_backward; /* of int, per op: the first backward call whose
                                 * steps ran it, -1; made on first use (owned) */
  char       **lines;           /* source split at newlines, made on first use (owned) */
  guint        n_lines;
} CrCoach;

typedef void (*CrCoachDetector) (CrCoach *coach);

/* The detectors, run in this order (cr-coach.c): a later one may leave out
 * what an earlier one explained (a .grad of None after an update outside
 * no_grad made the parameter a non-leaf). */
void cr_coach_detect_update_outside_no_grad (CrCoach *coach);
void cr_coach_detect_zero_grad_forgotten    (CrCoach *coach);
void cr_coach_detect_non_leaf_grad          (CrCoach *coach);
void cr_coach_detect_backward_twice         (CrCoach *coach);
void cr_coach_detect_in_place_saved         (CrCoach *coach);
void cr_coach_detect_int_requires_grad      (CrCoach *coach);
void cr_coach_detect_gradient_cut           (CrCoach *coach);
void cr_coach_detect_grad_overwritten       (CrCoach *coach);

/* ---- findings ---- */

/* A new finding of kind at span, title and explanation taken (owned by
 * the record from now on); borrowed. */
CrRecordFinding *cr_coach_add            (CrCoach         *coach,
                                          const char      *kind,
                                          const CrSpan    *span,
                                          char            *title,
                                          char            *explanation);
/* Whether a finding of kind (NULL: any) is on line already. */
gboolean         cr_coach_has_finding    (CrCoach         *coach,
                                          const char      *kind,
                                          int              line);
/* The fix replaces lines first..last (whole, not their last newline) with
 * text (copied; several lines separated by '\n'). */
void             cr_coach_fix_lines      (CrCoach         *coach,
                                          CrRecordFinding *finding,
                                          int              first,
                                          int              last,
                                          const char      *text);
/* The fix inserts line_text (copied, no newline) as a new line after line. */
void             cr_coach_fix_insert_after (CrCoach       *coach,
                                          CrRecordFinding *finding,
                                          int              line,
                                          const char      *line_text);
/* The fix inserts text (copied) in line at 1-based character column. */
void             cr_coach_fix_insert_at  (CrRecordFinding *finding,
                                          int              line,
                                          int              column,
                                          const char      *text);

/* ---- the script's text ---- */

/* Line (1-based) of source without its newline, new string; NULL past the
 * end. */
char            *cr_coach_line           (const char      *source,
                                          int              line);
/* Line (1-based) of the script, borrowed, without its newline; NULL past
 * the end. Fast: for a question asked per tensor. */
const char      *cr_coach_source_line    (CrCoach         *coach,
                                          int              line);
/* The leading spaces and tabs of text, new string. */
char            *cr_coach_indent         (const char      *text);
/* text without its leading and trailing blanks, new string. */
char            *cr_coach_trimmed        (const char      *text);
/* The statement's text: lines span->line to span->end_line joined, each
 * trimmed, new string; NULL without a span. */
char            *cr_coach_statement      (const char      *source,
                                          const CrSpan    *span);
/* The last line of span (its end_line, or line). */
int              cr_coach_last_line      (const CrSpan    *span);
/* The character column (1-based) of byte offset in text. */
int              cr_coach_column_of      (const char      *text,
                                          gsize            offset);
/* Whether text matches the regular expression pattern (PCRE, anchored
 * where the pattern says); *groups (may be NULL): the whole match and each
 * group, a new strv to free. */
gboolean         cr_coach_match          (const char      *pattern,
                                          const char      *text,
                                          char          ***groups);
/* The first backward call (index) whose steps ran op; -1: none. */
int              cr_coach_first_backward (CrCoach         *coach,
                                          int              op);
/* A snapshot's values in short: "[2., 4.]", "2.5", "a 3×4 tensor"; new. */
char            *cr_coach_value_text     (const CrTensorSnapshot *value);
/* What to call a tensor of the record: its label, its name, "a tensor". */
const char      *cr_coach_tensor_name    (CrCoach         *coach,
                                          int              tensor);

G_END_DECLS
