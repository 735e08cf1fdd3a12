/* cuda_runtime.h for tests/gpu/emulate-kernels.cc: the few CUDA names the
 * kernel files use, so that a host C++ compiler builds them. A launch is a
 * plain call (CR_CUDA_HOST_EMULATION, gpu/cr-cuda-grid.cuh) by the one
 * "thread" (0, 0, 0) of a grid of one block of one thread, whose
 * grid-stride loop therefore covers every index. */
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

using std::isnan;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
#define cudaSuccess 0

struct CrEmulatedDim3 {
  unsigned x, y, z;
};
static const CrEmulatedDim3 blockIdx = { 0, 0, 0 }, threadIdx = { 0, 0, 0 };
static const CrEmulatedDim3 blockDim = { 1, 1, 1 }, gridDim = { 1, 1, 1 };

inline void __syncthreads () {}
inline const char *cudaGetErrorString (cudaError_t) { return "emulated"; }
inline cudaError_t cudaGetLastError () { return cudaSuccess; }
inline cudaError_t cudaMemsetAsync (void *, int, size_t, cudaStream_t) { return cudaSuccess; }
