/* cr-step-card-practice.h — predict, then reveal, on the step card: with
 * practice on, a backward step's card hides what the step computes (the
 * gradient sent on; one level harder, the local gradient too) and asks for
 * it instead (core/teach/cr-practice.h): an entry for a number or a small
 * tensor, and choice buttons. Enter checks; the card says what was right
 * or wrong and why, and once every question of the step is answered (or
 * Reveal is pressed) it shows the step whole, the verdicts on top. The
 * score of the run ("7 of 9 right") heads each practice card.
 *
 * Presenting, nobody types: the card shows the questions with lettered
 * choices for the room, and cr_step_card_practice_reveal() (the clicker's
 * next key) shows the answer. Answers and reveals are kept per step; a
 * new run of the script (an edit) keeps those of the steps that ask the
 * same questions with the same answers. */
#pragma once

#include "cr-step-card.h"
#include "cr-practice.h"

G_BEGIN_DECLS

/* Turns practice on or off, at level; it applies from the next step the
 * card is given (give it the step shown again). */
void     cr_step_card_set_practice       (CrStepCard      *self,
                                          gboolean         practice,
                                          CrPracticeLevel  level);
gboolean cr_step_card_get_practice       (CrStepCard      *self);
/* Presenting: questions with lettered choices, no entry, no score (from
 * the next step the card is given). */
void     cr_step_card_set_practice_presenting (CrStepCard *self,
                                               gboolean    presenting);
/* Whether the step shown hides its answers now. */
gboolean cr_step_card_practice_hides     (CrStepCard      *self);
/* Reveals the step shown; FALSE when it hid nothing. */
gboolean cr_step_card_practice_reveal    (CrStepCard      *self);
/* Answers question `question` (in the order the card asks) of the step
 * shown as if typed and Enter pressed (choice -1), or picks choice
 * `choice`; FALSE when there is no such question or it was answered. */
gboolean cr_step_card_practice_answer    (CrStepCard      *self,
                                          guint            question,
                                          const char      *typed,
                                          int              choice);
/* The run's score so far: questions answered right, and answered (a
 * reveal counts the step's unanswered questions as answered wrong). */
void     cr_step_card_practice_score     (CrStepCard      *self,
                                          guint           *right,
                                          guint           *answered);

G_END_DECLS
