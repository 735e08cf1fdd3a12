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
/* Sections of text as Pango markup, headings in their role's colour
 * (new string). */
char       *cr_handout_card_markup   (const CrStepText  *text,
                                      gboolean           dark);

/* A question page under its graph: what the step or forward op gives the
 * learner (core's cr_step_text_new_given() or _forward_given(), as the
 * window's practice card shows it), then each question of questions (of
 * CrPracticeQuestion*) with its choices lettered (new string). */
char       *cr_handout_question_markup        (const CrStepText    *given,
                                               const GPtrArray     *questions,
                                               gboolean             dark);
/* The answer page's first section: each question's right choice, its
 * value and how it comes about (new string). */
char       *cr_handout_answers_markup          (const GPtrArray     *questions,
                                                gboolean             dark);

G_END_DECLS
