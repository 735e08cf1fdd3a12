/* cr-handout-private.h — what the handout's files share (cr-handout.h):
 * the card's text as Pango markup, and the practice pages' markup
 * (cr-handout-practice.c). Not for other code. */
#pragma once

#include <glib.h>

#include "cr-record-forward.h"
#include "cr-step-text.h"

G_BEGIN_DECLS

#define CR_HANDOUT_MONO_FONT "Source Code Pro, DejaVu Sans Mono, monospace"

/* The step card's colour for role, on dark or light paper (static). */
const char *cr_handout_role_colour   (CrStepTextRole     role,
                                      gboolean           dark);
/* Sections of text as Pango markup, headings in their role's colour;
 * with asking, only what a learner works from (what arrives, the local
 * gradients), not what the step sends or sums (new string). */
char       *cr_handout_card_markup   (const CrStepText  *text,
                                      gboolean           dark,
                                      gboolean           asking);

/* A backward step's question page under its graph: what it works from
 * (text's sections that give nothing away; for an AccumulateGrad step,
 * the leaf's .grad before), then each question of questions (of
 * CrPracticeQuestion*) with its choices lettered (new string). */
char       *cr_handout_step_question_markup    (const CrRunRecord  *record,
                                                const CrRecordStep *step,
                                                const CrStepText   *text,
                                                const GPtrArray    *questions,
                                                gboolean            dark);
/* A forward op's question page: what it computes, in words, and its
 * question (new string). */
char       *cr_handout_forward_question_markup (const CrForwardText *text,
                                                const GPtrArray     *questions,
                                                gboolean             dark);
/* The answer page's first section: each question's right choice, its
 * value and how it comes about (new string). */
char       *cr_handout_answers_markup          (const GPtrArray     *questions,
                                                gboolean             dark);

G_END_DECLS
