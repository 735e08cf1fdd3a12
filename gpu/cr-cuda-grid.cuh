/* cr-cuda-grid.cuh — the launch of a grid-stride kernel over n indices on
 * the module's stream, as a macro: `kernel<T> CRL_GRID (n) (args...)`.
 *
 * tests/gpu/emulate-kernels.cc compiles kernel files with a C++ host
 * compiler and CR_CUDA_HOST_EMULATION, which makes the launch a plain call
 * by one thread whose grid-stride loop covers every index: the kernels'
 * own code then runs against the mock's loops on a machine without a GPU. */
#pragma once

#include "cr-cuda-strided.cuh"

#ifdef CR_CUDA_HOST_EMULATION
#define CRL_GRID(n)
#else
#define CRL_GRID(n) <<<crl::blocks_for (n), crl::kThreads, 0, crl::stream ()>>>
#endif
