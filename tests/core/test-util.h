/* test-util.h — assertions and small constructors the op tests share. */
#pragma once

#include "cr-tensor.h"
#include "cr-node.h"
#include "cr-error.h"

G_BEGIN_DECLS

/* t has n elements equal to expected (row-major) within eps. */
void        cr_test_assert_values_eps (const CrTensor *t,
                                       const double   *expected,
                                       gint64          n,
                                       double          eps);
/* The same within 1e-9. */
void        cr_test_assert_values     (const CrTensor *t,
                                       const double   *expected,
                                       gint64          n);
void        cr_test_assert_shape      (const CrTensor *t,
                                       const gint64   *shape,
                                       int             ndim);
/* error is set, in CR_CORE_ERROR, with code and exactly message. */
void        cr_test_assert_error      (GError         *error,
                                       CrException     code,
                                       const char     *message);

/* t's grad_fn name, "None" for a leaf. */
const char *cr_test_fn_name           (const CrTensor *t);
/* The name of node's i-th next function, "None" where there is none. */
const char *cr_test_next_name         (const CrNode   *node,
                                       guint           i);

/* An int64 tensor of values. New ref. */
CrTensor   *cr_test_long_tensor       (const gint64   *values,
                                       const gint64   *shape,
                                       int             ndim);
/* t.backward(), asserting that it succeeds. */
void        cr_test_backward          (CrTensor       *t);

G_END_DECLS
