/* aten::pad in modes 'reflect', 'replicate' and 'circular', and reflection_pad*_backward /
 * replication_pad*_backward, on what the corpus cannot carry: int64 and bool tensors,
 * transposed selves, empty tensors, PyTorch 1.13's errors (each op's own wording), sizes
 * that overflow int64 or the memory budget; every expected value and message as PyTorch 1.13
 * gave it, except where a comment says PyTorch has none (it reads or writes outside its
 * tensors there). Values and gradients with NaN and infinities are in tests/corpus-real
 * (pad_reflect, pad_replicate, pad_circular). */
#include <math.h>

#include "kernels_test_util.h"

#define F32 IR_DTYPE_FLOAT32
#define F64 IR_DTYPE_FLOAT64
#define I64 IR_DTYPE_INT64
#define BOOL IR_DTYPE_BOOL

#define PAD "aten::pad("

static RtValue ints(int n, const gint64 *v) {
  return rt_int_list(v, (guint)n);
}
#define INTS(...) \
  ints(sizeof((const gint64[]){__VA_ARGS__}) / sizeof(gint64), (const gint64[]){__VA_ARGS__})

static RtTensor *zeros(IrDtype dtype, int ndim, const int64_t *sizes) {
  return rt_tensor_zeros(dtype, ndim, sizes);
}

static void test_values(void) {
  /* circular on int64 and bool */
  const double six[] = {0, 1, 2, 3, 4, 5};
  RtValue a[4] = {rt_tensor(kt_tensor(I64, 3, KT_SIZES(1, 2, 3), six)), INTS(2, 0),
                  rt_str("circular"), rt_none()};
  RtTensor *r = kt_run(PAD, a, 4);
  kt_assert_tensor(r, I64, 3, KT_SIZES(1, 2, 5), KT_VALUES(1, 2, 0, 1, 2, 4, 5, 3, 4, 5), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 4);
  RtValue b[4] = {rt_tensor(kt_tensor(BOOL, 3, KT_SIZES(1, 2, 3), six)), INTS(1, 1),
                  rt_str("circular"), rt_double(0.0)};
  r = kt_run(PAD, b, 4);
  kt_assert_tensor(r, BOOL, 3, KT_SIZES(1, 2, 5), KT_VALUES(1, 0, 1, 1, 0, 1, 1, 1, 1, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 4);
  /* transposed selves: [[0, 3], [1, 4], [2, 5]] */
  RtTensor *base = kt_tensor(F32, 3, KT_SIZES(1, 2, 3), six);
  RtTensor *t = rt_tensor_view_transpose(base, 1, 2);
  RtValue c[4] = {rt_tensor(t), INTS(1, 1), rt_str("reflect"), rt_none()};
  r = kt_run(PAD, c, 4);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 3, 4), KT_VALUES(3, 0, 3, 0, 4, 1, 4, 1, 5, 2, 5, 2), 0);
  rt_tensor_unref(r);
  rt_value_unref(c[1]);
  rt_value_unref(c[2]);
  c[1] = INTS(0, 1, 2, 0);
  c[2] = rt_str("replicate");
  r = kt_run(PAD, c, 4);
  kt_assert_tensor(r, F32, 3, KT_SIZES(1, 5, 3),
                   KT_VALUES(0, 3, 3, 0, 3, 3, 0, 3, 3, 1, 4, 4, 2, 5, 5), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 4);
  RtTensor *transposed = rt_tensor_view_transpose(base, 1, 2);
  RtValue d[4] = {rt_tensor(rt_tensor_view_unsqueeze(transposed, 0)), INTS(1, 1, 0, 2),
                  rt_str("circular"), rt_none()};
  rt_tensor_unref(transposed);
  rt_tensor_unref(base);
  r = kt_run(PAD, d, 4);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 1, 5, 4),
                   KT_VALUES(3, 0, 3, 0, 4, 1, 4, 1, 5, 2, 5, 2, 3, 0, 3, 0, 4, 1, 4, 1), 0);
  rt_tensor_unref(r);
  kt_unref_args(d, 4);
  /* crops on both sides; an empty batch with a huge pad allocates nothing */
  RtValue e[4] = {rt_tensor(kt_tensor(F64, 3, KT_SIZES(1, 1, 3), KT_VALUES(1, 2, 3))), INTS(-1, -1),
                  rt_str("replicate"), rt_none()};
  r = kt_run(PAD, e, 4);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 1, 1), KT_VALUES(2), 0);
  rt_tensor_unref(r);
  kt_unref_args(e, 4);
  RtValue f[4] = {rt_tensor(zeros(F32, 3, KT_SIZES(0, 1, 3))), INTS((gint64)1 << 40, 0),
                  rt_str("replicate"), rt_none()};
  r = kt_run(PAD, f, 4);
  kt_assert_tensor(r, F32, 3, KT_SIZES(0, 1, ((gint64)1 << 40) + 3), NULL, 0);
  rt_tensor_unref(r);
  kt_unref_args(f, 4);
}

/* One call of aten::pad and PyTorch 1.13's message. */
typedef struct {
  const char *mode;
  IrDtype dtype;
  int ndim;
  int64_t sizes[6];
  int n_pad;
  gint64 pad[6];
  const char *message;
} PadError;

/* clang-format off */
static const PadError pad_errors[] = {
    {"reflect", F32, 3, {1, 2, 3}, 2, {3, 0},
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (3, 0) at dimension 2 of input [1, 2, 3]"},
    {"reflect", F32, 3, {1, 1, 3}, 2, {5, -10},
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (5, -10) at dimension 2 of input [1, 1, 3]"},
    {"reflect", F32, 3, {1, 2, 3}, 2, {-2, -1},
     "2input (W: 3)is too small. Calculated output W: 0"},
    {"reflect", I64, 3, {1, 1, 3}, 2, {-3, 0}, "2input (W: 3)is too small. Calculated output W: 0"},
    {"reflect", F32, 1, {3}, 2, {1, 1},
     "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"},
    {"reflect", F32, 4, {1, 1, 2, 3}, 2, {1, 1},
     "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"},
    {"reflect", F32, 3, {1, 1, 3}, 0, {0},
     "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"},
    {"reflect", F32, 3, {1, 0, 3}, 2, {1, 1},
     "2D or 3D (batch mode) tensor expected for input, but got: [ torch.FloatTensor{1,0,3} ]"},
    {"reflect", I64, 3, {1, 0, 3}, 2, {1, 1},
     "2D or 3D (batch mode) tensor expected for input, but got: [ torch.LongTensor{1,0,3} ]"},
    {"reflect", F64, 3, {1, 0, 3}, 4, {0, 0, 0, 0},
     "3D or 4D (batch mode) tensor expected for input, but got: [ torch.DoubleTensor{1,0,3} "
     "]"},
    {"reflect", F32, 4, {0, 0, 3, 3}, 4, {1, 1, 0, 0},
     "3D or 4D (batch mode) tensor expected for input, but got: [ "
     "torch.FloatTensor{0,0,3,3} ]"},
    {"reflect", F32, 3, {1, 3, 3}, 4, {5, -10, 0, 0},
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (5, -10) at dimension 2 of input 3"},
    {"reflect", F32, 3, {1, 3, 3}, 4, {-3, 0, 5, 0},
     "Argument #6: Padding size should be less than the corresponding input dimension, but "
     "got: padding (5, 0) at dimension 1 of input 3"},
    {"reflect", F32, 3, {1, 3, 3}, 4, {-2, -1, -4, 0},
     "input (H: 3, W: 3)is too small. Calculated output H: -1 W: 0"},
    {"reflect", F32, 4, {1, 1, 3, 3}, 4, {-4, 0, 0, 0}, "numel: integer multiplication overflow"},
    {"reflect", F32, 4, {1, 3, 3, 3}, 6, {0, 0, 0, 0, 3, 0},
     "Argument #8: Padding size should be less than the corresponding input dimension, but "
     "got: padding (3, 0) at dimension 1 of input [1, 3, 3, 3]"},
    {"reflect", F32, 4, {1, 3, 3, 3}, 6, {3, 0, 3, 0, 3, 0},
     "Argument #4: Padding size should be less than the corresponding input dimension, but "
     "got: padding (3, 0) at dimension 3 of input [1, 3, 3, 3]"},
    {"reflect", F32, 4, {1, 3, 3, 3}, 6, {-2, -1, -2, -1, -3, -1},
     "input (D: 3 H: 3, W: 3) is too small. Calculated output D: -1 H: 0 W: 0"},
    {"reflect", F32, 4, {1, 3, 3, 3}, 6, {0, 0, -4, 0, 0, 0},
     "Trying to create tensor with negative dimension -1: [1, 3, -1, 3]"},
    {"reflect", F32, 5, {1, 2, 0, 3, 3}, 6, {1, 1, 1, 1, 1, 1},
     "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero "
     "dimensions for input, but got: [1, 2, 0, 3, 3]"},
    {"reflect", I64, 3, {1, 3, 3}, 2, {1, 1}, "\"reflection_pad1d\" not implemented for 'Long'"},
    {"reflect", I64, 3, {1, 3, 3}, 4, {1, 1, 1, 1},
     "\"reflection_pad2d\" not implemented for 'Long'"},
    {"reflect", I64, 4, {1, 3, 3, 3}, 6, {1, 1, 1, 1, 1, 1},
     "\"reflection_pad3d_cpu\" not implemented for 'Long'"},
    {"reflect", BOOL, 3, {1, 3, 3}, 2, {1, 1}, "\"reflection_pad1d\" not implemented for 'Bool'"},
    {"replicate", F32, 2, {0, 3}, 2, {1, 1},
     "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero "
     "dimensions for input, but got: [0, 3]"},
    {"replicate", F32, 3, {1, 1, 3}, 2, {-5, 0},
     "input (W: 3) is too small. Calculated output W: -2"},
    {"replicate", F32, 3, {1, 1, 3}, 2, {(gint64)1 << 62, (gint64)1 << 62},
     "input (W: 3) is too small. Calculated output W: -9223372036854775805"},
    {"replicate", F32, 3, {1, 3, 3}, 4, {-3, -1, -3, -1},
     "input (H: 3, W: 3 ) is too small. Calculated output H: -1 W: -1"},
    {"replicate", F32, 3, {1, 3, 3}, 4, {-3, -1, 0, 0},
     "Trying to create tensor with negative dimension -1: [1, 3, -1]"},
    {"replicate", F32, 3, {0, 3, 3}, 4, {1, 1, 1, 1},
     "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
     "dimensions for input, but got: [0, 3, 3]"},
    {"replicate", F32, 4, {1, 3, 3, 3}, 6, {-2, -1, -2, -1, -2, -1},
     "input (D: 3 H: 3, W: 3) is too small. Calculated output D: 0 H: 0 W: 0"},
    {"replicate", F32, 4, {0, 3, 3, 3}, 6, {1, 1, 1, 1, 1, 1},
     "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero "
     "dimensions for input, but got: [0, 3, 3, 3]"},
    {"replicate", I64, 3, {1, 3, 3}, 2, {1, 1},
     "\"replication_pad1d_cpu\" not implemented for 'Long'"},
    {"replicate", I64, 3, {1, 3, 3}, 4, {1, 1, 1, 1},
     "\"replication_pad2d_cpu\" not implemented for 'Long'"},
    {"replicate", I64, 4, {1, 3, 3, 3}, 6, {1, 1, 1, 1, 1, 1},
     "\"replication_pad3d_cpu\" not implemented for 'Long'"},
    {"replicate", IR_DTYPE_FLOAT16, 3, {1, 3, 3}, 2, {1, 1},
     "\"replication_pad1d_cpu\" not implemented for 'Half'"},
    /* PyTorch's sum wraps to 1 here and its kernel reads outside self */
    {"replicate", F32, 3, {1, 1, 3}, 2, {G_MAXINT64, G_MAXINT64}, "overflows int64"},
    {"replicate", F32, 2, {1, 3}, 2, {(gint64)1 << 45, (gint64)1 << 45}, "out of memory budget"},
    {"circular", F32, 2, {2, 3}, 2, {1, 1}, "Invalid padding size, expected 0 but got 2"},
    {"circular", F32, 3, {1, 2, 3}, 4, {1, 1, 0, 0}, "Invalid padding size, expected 2 but got 4"},
    {"circular", F32, 3, {1, 1, 3}, 2, {0, 4},
     "Padding value causes wrapping around more than once."},
    {"circular", F32, 3, {1, 2, 0}, 2, {1, 1},
     "Padding value causes wrapping around more than once."},
    /* PyTorch's sum wraps back to 3 here: it copies from outside self */
    {"circular", F32, 3, {1, 1, 3}, 2, {G_MININT64, G_MININT64}, "overflows int64"},
    {"circular", F32, 3, {1, 1, 3}, 2, {-2, -2},
     "Negative padding value is resulting in an empty dimension"},
    /* the first spatial dim is checked first */
    {"circular", F32, 4, {1, 1, 3, 3}, 4, {5, 0, -9, 0},
     "Negative padding value is resulting in an empty dimension"},
    {"circular", F32, 4, {1, 1, 3, 3}, 4, {-9, 0, 5, 0},
     "Padding value causes wrapping around more than once."},
    /* the pad before would be copied from the pad after's place: PyTorch's copy_ refuses it *
     * on this contiguous tensor (it copies uninitialized memory on others) */
    {"circular", F32, 3, {1, 1, 3}, 2, {3, -1},
     "unsupported operation: some elements of the input tensor and the written-to tensor "
     "refer to a single memory location. Please clone() the tensor before performing the "
     "operation."},
    {"circular", F32, 3, {1, 1, 3}, 2, {-2, 3},
     "unsupported operation: some elements of the input tensor and the written-to tensor "
     "refer to a single memory location. Please clone() the tensor before performing the "
     "operation."},
};
/* clang-format on */

static void test_errors(void) {
  for (guint i = 0; i < G_N_ELEMENTS(pad_errors); i++) {
    const PadError *e = &pad_errors[i];
    RtValue a[4] = {rt_tensor(zeros(e->dtype, e->ndim, e->sizes)), ints(e->n_pad, e->pad),
                    rt_str(e->mode), rt_none()};
    kt_expect_error(PAD, a, 4, e->message);
    kt_unref_args(a, 4);
  }
}

static void test_backward_values(void) {
  const double ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  RtValue a[3] = {rt_tensor(kt_tensor(F32, 2, KT_SIZES(2, 5), ten)),
                  rt_tensor(zeros(F32, 2, KT_SIZES(2, 3))), INTS(1, 1)};
  RtTensor *r = kt_run("aten::reflection_pad1d_backward(", a, 3);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(2, 9, 4, 7, 24, 9), 0);
  rt_tensor_unref(r);
  rt_value_unref(a[2]);
  a[2] = INTS(2, 0);
  r = kt_run("aten::replication_pad1d_backward(", a, 3);
  kt_assert_tensor(r, F32, 2, KT_SIZES(2, 3), KT_VALUES(6, 4, 5, 21, 9, 10), 0);
  rt_tensor_unref(r);
  kt_unref_args(a, 3);
  double twelve[12], many[24];
  for (int i = 0; i < 24; i++)
    many[i] = i + 1;
  for (int i = 0; i < 12; i++)
    twelve[i] = i + 1;
  RtValue b[3] = {rt_tensor(kt_tensor(F64, 3, KT_SIZES(1, 3, 4), twelve)),
                  rt_tensor(zeros(F64, 3, KT_SIZES(1, 2, 2))), INTS(1, 1, 1, 0)};
  r = kt_run("aten::reflection_pad2d_backward(", b, 3);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 2, 2), KT_VALUES(14, 12, 28, 24), 0);
  rt_tensor_unref(r);
  rt_value_unref(b[2]);
  b[2] = INTS(2, 0, 0, 1);
  r = kt_run("aten::replication_pad2d_backward(", b, 3);
  kt_assert_tensor(r, F64, 3, KT_SIZES(1, 2, 2), KT_VALUES(6, 4, 48, 20), 0);
  rt_tensor_unref(r);
  kt_unref_args(b, 3);
  RtValue c[3] = {rt_tensor(kt_tensor(F32, 4, KT_SIZES(1, 2, 3, 4), many)),
                  rt_tensor(zeros(F32, 4, KT_SIZES(1, 2, 2, 2))), INTS(1, 1, 1, 0, 0, 0)};
  r = kt_run("aten::reflection_pad3d_backward(", c, 3);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 2, 2, 2), KT_VALUES(14, 12, 28, 24, 38, 36, 76, 72), 0);
  rt_tensor_unref(r);
  rt_value_unref(c[2]);
  c[2] = INTS(0, 2, -1, 2, 0, 0);
  r = kt_run("aten::replication_pad3d_backward(", c, 3);
  kt_assert_tensor(r, F32, 4, KT_SIZES(1, 2, 2, 2), KT_VALUES(0, 0, 15, 63, 0, 0, 51, 171), 0);
  rt_tensor_unref(r);
  kt_unref_args(c, 3);
}

static void test_backward_errors(void) {
  RtValue a[3] = {rt_tensor(zeros(F32, 2, KT_SIZES(2, 6))),
                  rt_tensor(zeros(F32, 2, KT_SIZES(2, 3))), INTS(1, 1)};
  kt_expect_error("aten::reflection_pad1d_backward(", a, 3,
                  "grad_output width unexpected. Expected: 5, Got: 6");
  kt_expect_error("aten::replication_pad1d_backward(", a, 3,
                  "gradOutput width unexpected. Expected: 5 Got: 6");
  rt_value_unref(a[2]);
  a[2] = INTS(1, 1, 1);
  kt_expect_error("aten::replication_pad1d_backward(", a, 3, "padding size is expected to be 2");
  rt_value_unref(a[2]);
  a[2] = INTS(3, 3);
  kt_expect_error("aten::reflection_pad1d_backward(", a, 3,
                  "Argument #4: Padding size should be less than the corresponding input "
                  "dimension, but got: padding (3, 3) at dimension 1 of input [2, 3]");
  rt_value_unref(a[0]);
  rt_value_unref(a[2]);
  a[0] = rt_tensor(zeros(F64, 2, KT_SIZES(2, 5)));
  a[2] = INTS(1, 1);
  kt_expect_error("aten::reflection_pad1d_backward(", a, 3,
                  "expected scalar type Float but found Double");
  rt_value_unref(a[0]);
  /* a batch that is not self's: PyTorch reads outside grad_output */
  a[0] = rt_tensor(zeros(F32, 2, KT_SIZES(3, 5)));
  kt_expect_error("aten::reflection_pad1d_backward(", a, 3,
                  "grad_output's shape [3, 5] is not the padded input's [2, 5]");
  kt_unref_args(a, 3);
  RtValue b[3] = {rt_tensor(zeros(F32, 3, KT_SIZES(2, 6, 5))),
                  rt_tensor(zeros(F32, 3, KT_SIZES(2, 3, 3))), INTS(1, 1, 1, 1)};
  kt_expect_error("aten::reflection_pad2d_backward(", b, 3,
                  "gradOutput height unexpected. Expected: 5, Got: 6");
  kt_unref_args(b, 3);
  RtValue c[3] = {rt_tensor(zeros(I64, 2, KT_SIZES(2, 5))),
                  rt_tensor(zeros(I64, 2, KT_SIZES(2, 3))), INTS(1, 1)};
  kt_expect_error("aten::replication_pad1d_backward(", c, 3,
                  "\"replication_pad1d_backward_cpu\" not implemented for 'Long'");
  kt_unref_args(c, 3);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/kernels/pad_modes/values", test_values);
  g_test_add_func("/kernels/pad_modes/errors", test_errors);
  g_test_add_func("/kernels/pad_modes/backward_values", test_backward_values);
  g_test_add_func("/kernels/pad_modes/backward_errors", test_backward_errors);
  return g_test_run();
}
