/* batch_norm and group_norm on values computed by hand: training statistics and the in-place
 * update of the running ones, evaluation with the running ones, groups of channels, and the
 * errors for missing running statistics, channel counts and parameter sizes. */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64

static void test_batch_norm_training(void) {
  /* one channel holding 1 and 3: mean 2, biased variance 1 (unbiased 2) */
  RtTensor *mean = kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(0));
  RtTensor *var = kt_tensor(F64, 1, KT_SIZES(1), KT_VALUES(1));
  RtValue a[9] = {KT_T(kt_tensor(F32, 2, KT_SIZES(2, 1), KT_VALUES(1, 3))),
                  rt_none(),
                  rt_none(),
                  KT_T(rt_tensor_ref(mean)),
                  KT_T(rt_tensor_ref(var)),
                  rt_bool(true),
                  rt_double(0.5),
                  rt_double(0),
                  rt_bool(false)};
  RtTensor *r = kt_run("aten::batch_norm(", a, 9);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 1), KT_VALUES(-1, 1), 0);
  rt_tensor_unref(r);
  /* momentum 0.5: halfway to the batch's mean and unbiased variance */
  kt_assert_tensor(mean, F32, 1, KT_SIZES(1), KT_VALUES(1), 0);
  kt_assert_tensor(var, F64, 1, KT_SIZES(1), KT_VALUES(1.5), 0);
  /* evaluation normalizes by the running statistics: (x - 1) / sqrt(1.5) * 2 + 1 */
  rt_value_unref(a[1]);
  a[1] = KT_T(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(2)));
  rt_value_unref(a[2]);
  a[2] = KT_T(kt_tensor(F32, 1, KT_SIZES(1), KT_VALUES(1)));
  a[5] = rt_bool(false);
  r = kt_run("aten::batch_norm(", a, 9);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 1), KT_VALUES(1, 1 + 4 / sqrt(1.5)), 1e-6);
  rt_tensor_unref(r);
  rt_value_unref(a[3]);
  a[3] = rt_none();
  kt_expect_error("aten::batch_norm(", a, 9,
                  "running_mean and running_var must be defined in "
                  "evaluation mode");
  rt_value_unref(a[1]);
  a[1] = KT_T(kt_tensor(F32, 1, KT_SIZES(2), KT_VALUES(1, 2)));
  kt_expect_error("aten::batch_norm(", a, 9, "weight should contain 1 elements, not 2");
  kt_unref_args(a, 9);
  rt_tensor_unref(mean);
  rt_tensor_unref(var);
}

static void test_group_norm(void) {
  /* two groups of two channels of one element: each group is {a, b} -> {-1, 1} */
  RtValue a[6] = {KT_T(kt_tensor(F64, 3, KT_SIZES(1, 4, 1), KT_VALUES(1, 3, 10, 20))),
                  rt_int(2),
                  KT_T(kt_tensor(F64, 1, KT_SIZES(4), KT_VALUES(1, 2, 3, 4))),
                  rt_none(),
                  rt_double(0),
                  rt_bool(false)};
  RtTensor *r = kt_run("aten::group_norm(", a, 6);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 4, 1), KT_VALUES(-1, 2, -3, 4), 1e-12);
  rt_tensor_unref(r);
  a[1] = rt_int(3);
  kt_expect_error("aten::group_norm(", a, 6,
                  "expected number of channels in input to be "
                  "divisible by num_groups, but got input of shape [1, 4, 1] and num_groups=3");
  a[1] = rt_int(0);
  kt_expect_error("aten::group_norm(", a, 6, "num_groups=0");
  kt_unref_args(a, 6);
  /* no channels: any num_groups divides them, but its statistics must fit in memory */
  RtValue e[6] = {KT_T(rt_tensor_new(F64, 3, KT_SIZES(2, 0, 3))),
                  rt_int(G_MAXINT64 / 4),
                  rt_none(),
                  rt_none(),
                  rt_double(1e-5),
                  rt_bool(false)};
  GError *error = NULL;
  RtValue out;
  g_assert_false(kt_call("aten::group_norm(", e, 6, &out, &error));
  g_assert_nonnull(error);
  g_error_free(error);
  kt_unref_args(e, 6);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/norm/batch_norm", test_batch_norm_training);
  g_test_add_func("/kernels/norm/group_norm", test_group_norm);
  return g_test_run();
}
