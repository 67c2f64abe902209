/* The eager autograd engine: gradients are cast to their input's dtype at every edge before
 * they are accumulated (PyTorch's validate_outputs), so a float64 intermediate that two
 * float32 consumers read sums their gradients in float64. */
#include "runtime/autograd.h"

static RtTensor *scalar(IrDtype dtype, double value) {
  RtTensor *t = rt_tensor_new(dtype, 0, NULL);
  rt_tensor_set(t, 0, value);
  return t;
}

/* A node whose backward gives its input the constant gradient `value` in `dtype`, and
 * remembers the dtype and value of the gradient it received. */
typedef struct {
  IrDtype dtype;
  double value;
  IrDtype received_dtype;
  double received;
} Fixed;

static bool fixed_apply(RtGradNode *node, RtTensor **grad_outputs, RtTensor **grad_inputs,
                        GError **error) {
  Fixed *f = node->ctx;
  f->received_dtype = grad_outputs[0]->dtype;
  f->received = rt_tensor_get(grad_outputs[0], 0);
  /* The middle node passes its gradient on; the others give their constant. */
  grad_inputs[0] = f->value != 0 ? scalar(f->dtype, f->value) : rt_tensor_ref(grad_outputs[0]);
  return true;
}

/* z (float64 leaf) -> m (float64) -> p, q (float32): p's backward gives 1, q's 2^-30, both
 * float32. Summed in float32 they round to 1; cast to m's dtype first, m receives
 * 1 + 2^-30 in float64, and so does z. */
static void test_intermediate_sums_in_its_dtype(void) {
  RtTensor *z = scalar(IR_DTYPE_FLOAT64, 0.5);
  z->requires_grad = true;
  Fixed middle = {.dtype = IR_DTYPE_FLOAT64, .value = 0};
  Fixed left = {.dtype = IR_DTYPE_FLOAT32, .value = 1.0};
  Fixed right = {.dtype = IR_DTYPE_FLOAT32, .value = 0x1p-30};
  RtGradNode *m_node = rt_grad_node_new("middle", 1, 1, fixed_apply, &middle, NULL);
  rt_grad_node_set_edge(m_node, 0, z);
  RtTensor *m = scalar(IR_DTYPE_FLOAT64, 0.5);
  rt_autograd_attach(m, m_node, 0);
  rt_grad_node_unref(m_node);
  RtTensor *outs[2];
  Fixed *sides[2] = {&left, &right};
  for (int k = 0; k < 2; k++) {
    RtGradNode *node = rt_grad_node_new(k ? "right" : "left", 1, 1, fixed_apply, sides[k], NULL);
    rt_grad_node_set_edge(node, 0, m);
    outs[k] = scalar(IR_DTYPE_FLOAT32, 1.0);
    rt_autograd_attach(outs[k], node, 0);
    rt_grad_node_unref(node);
  }
  RtTensor *grad = NULL;
  GError *error = NULL;
  g_assert_true(rt_autograd_backward(outs, NULL, 2, &z, 1, &grad, &error));
  g_assert_no_error(error);
  g_assert_cmpint(middle.received_dtype, ==, IR_DTYPE_FLOAT64);
  g_assert_cmpfloat(middle.received, ==, 1.0 + 0x1p-30);
  g_assert_cmpint(left.received_dtype, ==, IR_DTYPE_FLOAT32);
  g_assert_nonnull(grad);
  g_assert_cmpint(grad->dtype, ==, IR_DTYPE_FLOAT64);
  g_assert_cmpfloat(rt_tensor_get(grad, 0), ==, 1.0 + 0x1p-30);
  rt_tensor_unref(grad);
  for (int k = 0; k < 2; k++)
    rt_tensor_unref(outs[k]);
  rt_tensor_unref(m);
  rt_tensor_unref(z);
}

/* A float32 leaf read by a node whose backward gives float64: the leaf's gradient is
 * float32. */
static void test_leaf_gets_its_dtype(void) {
  RtTensor *x = scalar(IR_DTYPE_FLOAT32, 2.0);
  x->requires_grad = true;
  Fixed up = {.dtype = IR_DTYPE_FLOAT64, .value = 1.0 / 3.0};
  RtGradNode *node = rt_grad_node_new("up", 1, 1, fixed_apply, &up, NULL);
  rt_grad_node_set_edge(node, 0, x);
  RtTensor *y = scalar(IR_DTYPE_FLOAT64, 2.0);
  rt_autograd_attach(y, node, 0);
  rt_grad_node_unref(node);
  RtTensor *grad = NULL;
  GError *error = NULL;
  g_assert_true(rt_autograd_backward(&y, NULL, 1, &x, 1, &grad, &error));
  g_assert_no_error(error);
  g_assert_cmpint(grad->dtype, ==, IR_DTYPE_FLOAT32);
  g_assert_cmpfloat(rt_tensor_get(grad, 0), ==, (double)(float)(1.0 / 3.0));
  rt_tensor_unref(grad);
  rt_tensor_unref(y);
  rt_tensor_unref(x);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/autograd/intermediate-sums-in-its-dtype",
                  test_intermediate_sums_in_its_dtype);
  g_test_add_func("/runtime/autograd/leaf-gets-its-dtype", test_leaf_gets_its_dtype);
  return g_test_run();
}
