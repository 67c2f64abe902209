/* The device dispatch of kernels (runtime/device.h) without a GPU: a fake device backend keeps
 * "device" tensors in host memory tagged as CUDA memory, has a device kernel for
 * aten::mul.Tensor only (declining float64) and no sum_to. Checked: copies without a backend
 * fail with the reason; host calls go straight to the CPU kernel; device calls without a
 * device kernel take the host round trip, give device results and record the reason once;
 * declined calls record the device kernel's reason; a graph with broadcasting runs forward and
 * backward through the executor on device inputs with device outputs and gradients equal to
 * the host run's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/executor.h"
#include "ir/text.h"
#include "runtime/device.h"
#include "runtime/kernels.h"

static void fake_free(void *data, void *ctx) {
  (void)ctx;
  free(data);
}

static void noop_free(void *data, void *ctx) {
  (void)data;
  (void)ctx;
}

static bool is_fake_device(const RtTensor *t) {
  return t->storage->device == IR_DEVICE_CUDA && t->storage->free_fn == fake_free;
}

/* Host storage handed to the device: tagged, freed by fake_free. */
static RtTensor *tag_device(RtTensor *host) {
  RtTensor *c = rt_tensor_clone(host);
  c->storage->device = IR_DEVICE_CUDA;
  c->storage->free_fn = fake_free;
  return c;
}

/* A host view of a fake device tensor (same memory, never freed through the alias). */
static RtTensor *host_alias(const RtTensor *t) {
  RtStorage *s = g_new0(RtStorage, 1);
  s->refcount = 1;
  s->device = IR_DEVICE_CPU;
  s->nbytes = t->storage->nbytes;
  s->data = t->storage->data;
  s->free_fn = noop_free;
  RtTensor *a = rt_tensor_new_strided(s, t->dtype, t->ndim, t->sizes, t->strides, t->offset);
  rt_storage_unref(s);
  return a;
}

static RtTensor *fake_to_host(const RtTensor *t, GError **error) {
  (void)error;
  g_assert_true(is_fake_device(t));
  RtTensor *a = host_alias(t);
  RtTensor *h = rt_tensor_clone(a);
  rt_tensor_unref(a);
  return h;
}

static RtTensor *fake_to_device(const RtTensor *t, GError **error) {
  (void)error;
  g_assert_true(t->storage->device == IR_DEVICE_CPU);
  return tag_device((RtTensor *)t);
}

static guint device_mul_runs;

static bool fake_mul(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                     RtValue *outs, guint n_outs, GError **error) {
  RtTensor *a = args[0].u.tensor, *b = args[1].u.tensor;
  g_assert_true(is_fake_device(a) && is_fake_device(b)); /* host args were moved up */
  if (a->dtype == IR_DTYPE_FLOAT64) {
    g_set_error_literal(error, RT_DEVICE_DECLINED, 0, "fake: declined float64");
    return false;
  }
  RtValue host[2] = {rt_tensor(host_alias(a)), rt_tensor(host_alias(b))};
  RtValue out = rt_none();
  bool ok = rt_op_kernel(schema)(schema, node, host, n_args, &out, n_outs, error);
  rt_value_unref(host[0]);
  rt_value_unref(host[1]);
  if (ok) {
    outs[0] = rt_tensor(tag_device(out.u.tensor));
    rt_value_unref(out);
    device_mul_runs++;
  }
  return ok;
}

static RtKernelFn fake_kernel_for(const IrSchema *schema) {
  return g_str_equal(schema->text, "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor")
             ? fake_mul
             : NULL;
}

static const RtDeviceBackend fake = {
    .device = IR_DEVICE_CUDA,
    .name = "fakecuda",
    .to_host = fake_to_host,
    .to_device = fake_to_device,
    .kernel_for = fake_kernel_for,
    .sum_to = NULL,
};

static const IrSchema *schema_named(const char *text) {
  for (guint i = 0; i < ir_ops_count(); i++)
    if (g_str_has_prefix(ir_ops_schema(i)->text, text))
      return ir_ops_schema(i);
  g_error("no schema %s", text);
  return NULL;
}

static double max_diff(const RtTensor *a, const RtTensor *b) {
  g_assert_cmpint(a->ndim, ==, b->ndim);
  for (int d = 0; d < a->ndim; d++)
    g_assert_cmpint(a->sizes[d], ==, b->sizes[d]);
  double m = 0;
  for (int64_t i = 0; i < rt_tensor_numel(a); i++)
    m = MAX(m, fabs(rt_tensor_get(a, i) - rt_tensor_get(b, i)));
  return m;
}

static void test_without_backend(void) {
  int64_t sizes[1] = {3};
  RtTensor *t = rt_tensor_zeros(IR_DTYPE_FLOAT32, 1, sizes);
  GError *error = NULL;
  g_assert_null(rt_tensor_to_device(t, IR_DEVICE_CUDA, &error));
  g_assert_nonnull(strstr(error->message, "no backend for device cuda"));
  g_clear_error(&error);
  RtTensor *same = rt_tensor_to_host(t, &error);
  g_assert_true(same == t);
  rt_tensor_unref(same);
  rt_tensor_unref(t);
}

static void test_calls(void) {
  int64_t sizes[2] = {3, 4};
  RtTensor *a = rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sizes, 1);
  RtTensor *b = rt_tensor_randn(IR_DTYPE_FLOAT32, 2, sizes, 2);
  const IrSchema *add = schema_named("aten::add.Tensor");
  const IrSchema *mul = schema_named("aten::mul.Tensor");
  GError *error = NULL;
  RtValue host_args[3] = {rt_tensor(a), rt_tensor(b), rt_int(1)};
  RtValue expect = rt_none();
  g_assert_true(rt_kernel_call(rt_op_kernel(add), add, NULL, host_args, 3, &expect, 1, &error));
  g_assert_cmpuint(rt_device_round_trips(), ==, 0);

  RtTensor *da = rt_tensor_to_device(a, IR_DEVICE_CUDA, &error);
  g_assert_no_error(error);
  g_assert_true(rt_tensor_on_device(da) && rt_tensor_device(da) == IR_DEVICE_CUDA);
  /* One device argument and one host argument: the host one is moved, the result is on the
   * device, twice; one note. */
  for (int k = 0; k < 2; k++) {
    RtValue args[3] = {rt_tensor(da), rt_tensor(b), rt_int(1)};
    RtValue out = rt_none();
    g_assert_true(rt_kernel_call(rt_op_kernel(add), add, NULL, args, 3, &out, 1, &error));
    g_assert_true(is_fake_device(out.u.tensor));
    RtTensor *h = rt_tensor_to_host(out.u.tensor, &error);
    g_assert_cmpfloat(max_diff(h, expect.u.tensor), ==, 0.0);
    rt_tensor_unref(h);
    rt_value_unref(out);
  }
  g_assert_cmpuint(rt_device_round_trips(), ==, 2);
  char **notes = rt_device_notes();
  g_assert_cmpuint(g_strv_length(notes), ==, 1);
  g_assert_nonnull(strstr(notes[0], "aten::add.Tensor"));
  g_assert_nonnull(strstr(notes[0], "fakecuda: no device kernel; ran on the host"));
  g_strfreev(notes);

  /* The device kernel runs for float32 and declines float64. */
  RtValue margs[2] = {rt_tensor(da), rt_tensor(da)};
  RtValue out = rt_none();
  g_assert_true(rt_kernel_call(rt_op_kernel(mul), mul, NULL, margs, 2, &out, 1, &error));
  g_assert_cmpuint(device_mul_runs, ==, 1);
  g_assert_cmpuint(rt_device_round_trips(), ==, 2);
  rt_value_unref(out);
  RtTensor *a64 = rt_tensor_to_dtype(a, IR_DTYPE_FLOAT64);
  RtTensor *d64 = rt_tensor_to_device(a64, IR_DEVICE_CUDA, &error);
  RtValue dargs[2] = {rt_tensor(d64), rt_tensor(d64)};
  g_assert_true(rt_kernel_call(rt_op_kernel(mul), mul, NULL, dargs, 2, &out, 1, &error));
  g_assert_true(is_fake_device(out.u.tensor) && out.u.tensor->dtype == IR_DTYPE_FLOAT64);
  rt_value_unref(out);
  notes = rt_device_notes();
  g_assert_cmpuint(g_strv_length(notes), ==, 2);
  g_assert_nonnull(strstr(notes[1], "fake: declined float64"));
  g_strfreev(notes);

  /* Errors of the CPU kernel pass through the round trip. */
  int64_t other[2] = {2, 4};
  RtTensor *bad = rt_tensor_zeros(IR_DTYPE_FLOAT32, 2, other);
  RtValue eargs[3] = {rt_tensor(da), rt_tensor(bad), rt_int(1)};
  g_assert_false(rt_kernel_call(rt_op_kernel(add), add, NULL, eargs, 3, &out, 1, &error));
  g_assert_nonnull(error);
  g_clear_error(&error);
  /* A device number converts to a double (conditions, Float()). */
  RtTensor *one = rt_tensor_scalar(IR_DTYPE_FLOAT32, 2.5);
  RtTensor *done = rt_tensor_to_device(one, IR_DEVICE_CUDA, &error);
  double v = 0;
  g_assert_true(rt_value_to_double(rt_tensor(done), &v));
  g_assert_cmpfloat(v, ==, 2.5);
  rt_tensor_unref(done);
  rt_tensor_unref(one);
  rt_tensor_unref(bad);
  rt_tensor_unref(d64);
  rt_tensor_unref(a64);
  rt_tensor_unref(da);
  rt_value_unref(expect);
  rt_tensor_unref(a);
  rt_tensor_unref(b);
}

static const char program[] = "graph(%a : Tensor, %b : Tensor, %c : Tensor):\n"
                              "  %one : int = prim::Constant[value=1]()\n"
                              "  %s : Tensor = aten::add(%a, %b, %one)\n"
                              "  %t : Tensor = aten::tanh(%s)\n"
                              "  %u : Tensor = aten::mul(%t, %c)\n"
                              "  %v : Tensor = aten::sigmoid(%u)\n"
                              "  %w : Tensor = aten::mm(%v, %c)\n"
                              "  return (%w, %u)\n";

/* Forward and backward; outputs and gradients as host tensors. */
static void run_program(bool on_device, RtTensor **outs_host, RtTensor **grads_host) {
  GError *error = NULL;
  IrGraph *graph = ir_graph_parse(program, strlen(program), "<dispatch>", &error);
  g_assert_no_error(error);
  int64_t s1[2] = {5, 1}, s2[2] = {5, 5};
  RtTensor *in[3] = {rt_tensor_randn(IR_DTYPE_FLOAT32, 2, s1, 7),
                     rt_tensor_randn(IR_DTYPE_FLOAT32, 2, s2, 8),
                     rt_tensor_randn(IR_DTYPE_FLOAT32, 2, s2, 9)};
  RtValue values[3];
  for (int i = 0; i < 3; i++) {
    in[i]->requires_grad = true;
    RtTensor *t =
        on_device ? rt_tensor_to_device(in[i], IR_DEVICE_CUDA, &error) : rt_tensor_ref(in[i]);
    g_assert_no_error(error);
    g_assert_true(t->requires_grad);
    values[i] = rt_tensor(t);
    rt_tensor_unref(in[i]);
    in[i] = t;
  }
  ExecSession *session = exec_session_new();
  ExecExecutor *ex = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  RtValue *outs = NULL;
  guint n_outs = 0;
  g_assert_true(exec_executor_run(ex, values, 3, &outs, &n_outs, &error));
  g_assert_no_error(error);
  RtTensor *roots[2] = {outs[0].u.tensor, outs[1].u.tensor};
  RtTensor *grads[3] = {0};
  g_assert_true(exec_session_backward(session, roots, NULL, 2, in, 3, grads, &error));
  g_assert_no_error(error);
  for (int o = 0; o < 2; o++) {
    g_assert_true(rt_tensor_on_device(roots[o]) == on_device);
    outs_host[o] = rt_tensor_to_host(roots[o], &error);
  }
  for (int i = 0; i < 3; i++) {
    g_assert_nonnull(grads[i]);
    g_assert_true(rt_tensor_on_device(grads[i]) == on_device);
    grads_host[i] = rt_tensor_to_host(grads[i], &error);
    rt_tensor_unref(grads[i]);
  }
  for (guint o = 0; o < n_outs; o++)
    rt_value_unref(outs[o]);
  g_free(outs);
  exec_session_free(session);
  for (int i = 0; i < 3; i++)
    rt_value_unref(values[i]);
  ir_graph_free(graph);
}

static void test_program(void) {
  RtTensor *ho[2], *hg[3], *dout[2], *dg[3];
  run_program(false, ho, hg);
  run_program(true, dout, dg);
  for (int o = 0; o < 2; o++) {
    g_assert_cmpfloat(max_diff(ho[o], dout[o]), <, 1e-6);
    rt_tensor_unref(ho[o]);
    rt_tensor_unref(dout[o]);
  }
  for (int i = 0; i < 3; i++) {
    g_assert_cmpint(dg[i]->sizes[0], ==, i == 0 ? 5 : 5);
    g_assert_cmpint(dg[i]->sizes[1], ==, i == 0 ? 1 : 5);
    g_assert_cmpfloat(max_diff(hg[i], dg[i]), <, 1e-6);
    rt_tensor_unref(hg[i]);
    rt_tensor_unref(dg[i]);
  }
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  test_without_backend();
  rt_device_register(&fake);
  test_calls();
  test_program();
  return 0;
}
