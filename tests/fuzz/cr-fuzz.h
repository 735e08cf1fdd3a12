/* cr-fuzz.h — what every fuzz target in tests/fuzz defines, and what the
 * replay driver (fuzz-replay.c) and libFuzzer's own main call.
 *
 * A target takes one input (any bytes, not NUL-terminated), returns 0, and
 * frees everything it made: LeakSanitizer checks after each input. Anything
 * that goes wrong inside is a crash: an ASan or UBSan report, a GLib critical
 * or warning (made fatal by cr_fuzz_init), a deadline that the run ignores. */
#pragma once

#include <stddef.h>
#include <stdint.h>

int  LLVMFuzzerInitialize   (int            *argc,
                             char         ***argv);
int  LLVMFuzzerTestOneInput (const uint8_t  *data,
                             size_t          size);

/* The set-up every target shares: one thread for the kernels, GLib's slice
 * allocator off (so LeakSanitizer sees every block), GLib criticals and
 * warnings fatal. Called from LLVMFuzzerInitialize. */
void cr_fuzz_init           (void);
