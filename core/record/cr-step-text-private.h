/* cr-step-text-private.h — what the files that tell a step share
 * (cr-step-text.c: a backward step; cr-step-text-forward.c: a forward op
 * and what a question gives; cr-step-text-items.c: sections, items and
 * their plain lines). Not for the card or the handout: they read the
 * structs of cr-step-text.h. */
#pragma once

#include "cr-step-text.h"

G_BEGIN_DECLS

/* The error backward call `backward` (in range) stopped with: its own, or
 * the record's error that names it; NULL when none is known. */
const CrRecordError *cr_step_text_call_error   (const CrRunRecord     *record,
                                                int                    backward);
/* A new text of pass, with no header and no sections. */
CrStepText        *cr_step_text_alloc          (CrStepTextPass         pass);
/* Gives every section's items their words (cr_step_text_finish_section),
 * but for error sections, finished when made. */
void               cr_step_text_finish         (CrStepText            *text);
/* A new section (free with cr_step_text_section_free), or one added at the
 * end of text (owned by text). */
CrStepTextSection *cr_step_text_section_new    (const char            *heading,
                                                CrStepTextRole         role,
                                                CrStepTextSectionKind  kind);
CrStepTextSection *cr_step_text_add_section    (CrStepText            *text,
                                                const char            *heading,
                                                CrStepTextRole         role,
                                                CrStepTextSectionKind  kind);
/* Once its items are all there: each formula's words, and the section's
 * lines and notes made from the items. */
void               cr_step_text_finish_section (CrStepTextSection     *s);
/* An item of words of kind at the end of s (takes words). */
CrStepTextItem    *cr_step_text_add_words      (CrStepTextSection     *s,
                                                CrStepTextItemKind     kind,
                                                char                  *words);
void               cr_step_text_add_note       (CrStepTextSection     *s,
                                                const char            *note);
/* A new formula at the end of s; its terms follow. */
CrStepTextItem    *cr_step_text_add_formula    (CrStepTextSection     *s);
/* A term of words (NAME, WORDS, HOW) after op (static or NULL). */
CrStepTextTerm    *cr_step_text_add_term       (CrStepTextItem        *formula,
                                                CrStepTextTermKind     kind,
                                                const char            *op,
                                                const char            *words,
                                                CrStepTextRole         role);
/* A VALUE term: value (borrowed from the record) and its brief. */
CrStepTextTerm    *cr_step_text_add_value      (CrStepTextItem        *formula,
                                                const char            *op,
                                                const CrTensorSnapshot *value,
                                                CrStepTextRole         role);
/* "name = value", both in role's colour. */
void               cr_step_text_add_equals     (CrStepTextSection     *s,
                                                const char            *name,
                                                const CrTensorSnapshot *value,
                                                CrStepTextRole         role);

G_END_DECLS
