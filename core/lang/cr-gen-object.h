/* cr-gen-object.h — Python's generator objects: what calling a def that
 * contains `yield` returns, and what a generator expression makes.
 *
 * A def's body runs on a fiber (cr-fiber.h), on the thread of whoever
 * resumes it; a generator expression needs no stack of its own: its clauses
 * are one iterator each, advanced by hand. Both are the script's type
 * `generator`, with next(), send(), throw(), close(), and Python's rules:
 * `return v` ends it with StopIteration(v), a StopIteration raised inside
 * becomes a RuntimeError, close() raises GeneratorExit at the yield (finally
 * blocks run), a generator dropped half-way is closed. cr_interp_free stops
 * the ones still suspended, running no script code. */
#pragma once

#include "cr-interp-private.h"

G_BEGIN_DECLS

extern const CrObjectType cr_gen_object_type;

/* The generator a call of function (a def whose code is_generator) makes,
 * from its bound arguments: takes the refs held in locals (code->n_locals)
 * and cells (code->n_cells) and leaves NULL in their place. */
CrValue  *cr_gen_object_new_call    (CrInterp        *self,
                                     CrValue         *function,
                                     CrValue        **locals,
                                     CrCell         **cells);
/* A generator expression (a LISTCOMP with is_generator) evaluated in frame:
 * its first iterable is taken now, as in Python. */
CrValue  *cr_gen_object_new_genexpr (CrInterp        *self,
                                     CrFrame         *frame,
                                     CrAstNode       *node,
                                     GError         **error);
/* `yield value` in frame, a generator's own: suspends it with value (taken;
 * NULL: None). Returns what the consumer sent (a new ref), or NULL with the
 * error thrown in (throw(), close()). */
CrValue  *cr_gen_object_yield       (CrInterp        *self,
                                     CrFrame         *frame,
                                     CrValue         *value,
                                     GError         **error);
/* `yield from iterable` in frame: its result (a new ref), or NULL. */
CrValue  *cr_gen_object_yield_from  (CrInterp        *self,
                                     CrFrame         *frame,
                                     CrValue         *iterable,
                                     GError         **error);
/* next(iterator[, default]) for an object whose type has a next hook: a
 * generator's return value becomes StopIteration's. */
CrValue  *cr_gen_object_builtin_next(CrInterp        *self,
                                     CrValue         *iterator,
                                     CrValue         *default_value,
                                     GError         **error);
/* Closes the generators of self still suspended, in the order they
 * started, as Python's exit does: GeneratorExit at each one's yield (the end
 * of a run). */
void      cr_gen_objects_close_all  (CrInterp        *self);
/* Stops every generator of self still suspended, running no script code
 * (cr_interp_free). */
void      cr_gen_objects_shutdown   (CrInterp        *self);

G_END_DECLS
