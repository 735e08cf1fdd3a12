/* cr-types.h — the few types every layer of core/ shares.
 *
 * Chainrule's core compiles as C and as C++ (nvcc compiles gpu/ as C++), so every
 * header is wrapped in G_BEGIN_DECLS / G_END_DECLS.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* PyTorch's limit is 64; teaching scripts never come close, and a fixed bound keeps
 * shapes inline in the tensor and node structs (no allocation per shape). */
#define CR_MAX_DIMS 8

typedef struct _CrTensor  CrTensor;
typedef struct _CrStorage CrStorage;
typedef struct _CrNode    CrNode;

/* The values are those of the CUDA module's CrCudaDType (gpu/cr-cuda-abi.h),
 * so a new dtype goes at the end; promotion is cr_dtype_promote()'s table,
 * not the order. */
typedef enum {
  CR_DTYPE_BOOL,
  CR_DTYPE_INT64,
  CR_DTYPE_FLOAT32,
  CR_DTYPE_FLOAT64,
  CR_DTYPE_INT32,
  CR_DTYPE_UINT8,
  CR_DTYPE_COUNT
} CrDType;

typedef enum {
  CR_DEVICE_CPU,
  CR_DEVICE_CUDA,
} CrDeviceType;

/* A source range, 1-based lines and columns, end exclusive; {0} means "no span". */
typedef struct {
  int line;
  int column;
  int end_line;
  int end_column;
} CrSpan;

G_END_DECLS
