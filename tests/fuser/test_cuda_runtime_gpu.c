/* GPU suite, the CUDA runtime (device tensors): every corpus case with every tensor input
 * copied to the device matches PyTorch's outputs and gradients, which come back as device
 * tensors; every op of ops.def on random device tensors matches the CPU kernel on the same
 * values, runs on the device (no host round trip) and gives device results; cuBLAS products
 * with transposed and strided operands match the CPU kernels. Exit 77 without a GPU. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "corpus_case.h"
#include "cuda/cuda_ops.h"
#include "runtime/device.h"
#include "runtime/kernels.h"

static guint failures;

static void fail(const char *format, ...) G_GNUC_PRINTF(1, 2);
static void fail(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs("FAIL: ", stderr);
  vfprintf(stderr, format, ap);
  va_end(ap);
  fputc('\n', stderr);
  failures++;
}

static double tolerance(IrDtype d) {
  return d == IR_DTYPE_FLOAT64 ? 1e-10 : 1e-4;
}

static RtTensor *to_host(RtTensor *t) {
  GError *error = NULL;
  RtTensor *h = rt_tensor_to_host(t, &error);
  g_assert_no_error(error);
  return h;
}

static void corpus(void) {
  char **index = corpus_case_index();
  for (guint i = 0; index && index[i]; i++) {
    if (index[i][0] == '\0')
      continue;
    CorpusCase c;
    corpus_case_load(&c, index[i]);
    for (guint k = 0; k < c.n_in; k++) {
      if (c.in[k].tag != RT_TENSOR || !c.in[k].u.tensor)
        continue;
      GError *error = NULL;
      RtTensor *d = rt_tensor_to_device(c.in[k].u.tensor, IR_DEVICE_CUDA, &error);
      g_assert_no_error(error);
      rt_value_unref(c.in[k]);
      c.in[k] = rt_tensor(d);
      c.leaf[k] = d;
    }
    ExecSession *session = exec_session_new();
    GPtrArray *outs = g_ptr_array_new_with_free_func((GDestroyNotify)rt_tensor_unref);
    GPtrArray *grads = g_ptr_array_new();
    corpus_case_run(&c, session, outs, grads);
    for (guint o = 0; o < c.n_out && o < outs->len; o++) {
      RtTensor *ours = g_ptr_array_index(outs, o);
      if (!ours || !c.out_ref[o])
        continue;
      if (!rt_tensor_on_device(ours))
        fail("%s: output %u is not a device tensor", c.name, o);
      RtTensor *h = to_host(ours);
      if (corpus_rel_error(h, c.out_ref[o]) > tolerance(h->dtype))
        fail("%s: output %u differs from PyTorch's", c.name, o);
      rt_tensor_unref(h);
    }
    for (guint g = 0; g < grads->len; g++) {
      RtTensor *ours = g_ptr_array_index(grads, g);
      if (ours && c.grad_ref[g]) {
        RtTensor *h = to_host(ours);
        if (!rt_tensor_on_device(ours))
          fail("%s: gradient %u is not a device tensor", c.name, g);
        if (corpus_rel_error(h, c.grad_ref[g]) > tolerance(h->dtype))
          fail("%s: gradient %u differs from PyTorch's", c.name, g);
        rt_tensor_unref(h);
      }
      if (ours)
        rt_tensor_unref(ours);
    }
    printf("%s: on the device\n", c.name);
    g_ptr_array_unref(grads);
    g_ptr_array_unref(outs);
    exec_session_free(session);
    corpus_case_free(&c);
  }
  g_strfreev(index);
}

/* --- every op --- */

static RtValue randn(IrDtype dtype, int ndim, const int64_t *sizes, guint64 seed) {
  return rt_tensor(rt_tensor_randn(dtype, ndim, sizes, seed));
}

static RtValue ints(int n, ...) {
  gint64 v[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    v[i] = va_arg(ap, int);
  va_end(ap);
  return rt_int_list(v, (guint)n);
}

/* Arguments for one call of schema (host values), or 0 when the op takes no tensor. */
static guint op_args(const IrSchema *schema, IrDtype dt, RtValue *a) {
  int64_t s45[2] = {4, 5}, s41[2] = {4, 1}, s43[2] = {4, 3}, s35[2] = {3, 5}, s46[2] = {4, 6};
  int64_t s413[3] = {4, 1, 3}, s5[1] = {5}, s1[1] = {1}, s243[3] = {2, 4, 3};
  const char *name = schema->name;
  if (ir_ops_def(schema->index)->pointwise) {
    for (guint i = 0; i < schema->n_args; i++) {
      const IrType *t = schema->args[i].type;
      if (t->kind == IR_TYPE_OPTIONAL)
        t = t->elem;
      if (t->kind == IR_TYPE_TENSOR)
        a[i] = randn(dt, 2, i == 1 ? s41 : s45, i + 3); /* the second one broadcasts */
      else if (t->kind == IR_TYPE_INT)
        a[i] = rt_int(2);
      else if (t->kind == IR_TYPE_BOOL)
        a[i] = rt_bool(true);
      else
        a[i] = rt_double(i == 1 ? 0.25 : 1.5);
    }
    return schema->n_args;
  }
  if (!strcmp(name, "aten::mm")) {
    a[0] = randn(dt, 2, s43, 1), a[1] = randn(dt, 2, (int64_t[]){3, 5}, 2);
    return 2;
  }
  if (!strcmp(name, "aten::addmm")) {
    a[0] = randn(dt, 1, s5, 1), a[1] = randn(dt, 2, s43, 2), a[2] = randn(dt, 2, s35, 3);
    a[3] = rt_double(0.5), a[4] = rt_double(2.0);
    return 5;
  }
  if (!strcmp(name, "aten::matmul")) {
    a[0] = randn(dt, 3, s243, 1), a[1] = randn(dt, 2, s35, 2);
    return 2;
  }
  if (!strcmp(name, "aten::t"))
    return a[0] = randn(dt, 2, s43, 1), 1;
  if (!strcmp(name, "aten::chunk"))
    return a[0] = randn(dt, 2, s46, 1), a[1] = rt_int(3), a[2] = rt_int(1), 3;
  if (!strcmp(name, "aten::cat")) {
    RtValue items[2] = {randn(dt, 2, s43, 1), randn(dt, 2, s41, 2)};
    return a[0] = rt_list(items, 2), a[1] = rt_int(1), 2;
  }
  if (!strcmp(name, "aten::unsqueeze"))
    return a[0] = randn(dt, 2, s43, 1), a[1] = rt_int(1), 2;
  if (!strcmp(name, "aten::squeeze"))
    return a[0] = randn(dt, 3, s413, 1), a[1] = rt_int(1), schema->n_args;
  if (!strcmp(name, "aten::expand"))
    return a[0] = randn(dt, 2, s41, 1), a[1] = ints(2, 4, 5), a[2] = rt_bool(false), 3;
  if (!strcmp(name, "aten::expand_as"))
    return a[0] = randn(dt, 2, s41, 1), a[1] = randn(dt, 2, s45, 2), 2;
  if (!strcmp(name, "aten::view") || !strcmp(name, "aten::reshape"))
    return a[0] = randn(dt, 2, s46, 1), a[1] = ints(2, 3, -1), 2;
  if (!strcmp(name, "aten::transpose"))
    return a[0] = randn(dt, 2, s43, 1), a[1] = rt_int(0), a[2] = rt_int(1), 3;
  if (!strcmp(name, "aten::sum")) {
    a[0] = randn(dt, 2, s45, 1);
    if (schema->n_args == 2)
      return a[1] = rt_none(), 2;
    return a[1] = ints(1, 0), a[2] = rt_bool(true), a[3] = rt_none(), 4;
  }
  if (!strcmp(name, "aten::size"))
    return a[0] = randn(dt, 2, s45, 1), a[1] = rt_int(-1), schema->n_args;
  if (!strcmp(name, "aten::_grad_sum_to_size"))
    return a[0] = randn(dt, 2, s45, 1), a[1] = ints(2, 1, 5), 2;
  if (!strcmp(name, "aten::ones_like") || !strcmp(name, "aten::zeros_like")) {
    a[0] = randn(dt, 2, s45, 1);
    for (guint i = 1; i < schema->n_args; i++)
      a[i] = rt_none();
    return schema->n_args;
  }
  if ((!strcmp(name, "aten::Bool") || !strcmp(name, "aten::Int") || !strcmp(name, "aten::Float")) &&
      !strcmp(schema->overload, "Tensor"))
    return a[0] = randn(dt, 1, s1, 1), 1;
  return 0;
}

static double value_error(RtValue ours, RtValue ref, bool *device_ok) {
  if (ours.tag != ref.tag)
    return INFINITY;
  if (ours.tag == RT_TENSOR) {
    *device_ok = *device_ok && rt_tensor_on_device(ours.u.tensor);
    RtTensor *h = to_host(ours.u.tensor);
    double e = h->dtype == ref.u.tensor->dtype ? corpus_rel_error(h, ref.u.tensor) : INFINITY;
    rt_tensor_unref(h);
    return e;
  }
  if (ours.tag == RT_LIST) {
    double e = ours.u.seq->len == ref.u.seq->len ? 0 : INFINITY;
    for (guint i = 0; isfinite(e) && i < ours.u.seq->len; i++)
      e = MAX(e, value_error(ours.u.seq->items[i], ref.u.seq->items[i], device_ok));
    return e;
  }
  double x, y;
  if (ours.tag == RT_INT && ref.tag == RT_INT)
    return ours.u.i == ref.u.i ? 0 : INFINITY;
  return rt_value_to_double(ours, &x) && rt_value_to_double(ref, &y) && x == y ? 0 : INFINITY;
}

static void every_op(void) {
  guint ran = 0;
  for (guint s = 0; s < ir_ops_count(); s++) {
    const IrSchema *schema = ir_ops_schema(s);
    IrDtype dts[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64};
    for (guint d = 0; d < 2; d++) {
      RtValue host[8], dev[8];
      guint n = op_args(schema, dts[d], host);
      if (n == 0)
        continue;
      GError *error = NULL;
      for (guint i = 0; i < n; i++) {
        if (host[i].tag == RT_TENSOR) {
          dev[i] = rt_tensor(rt_tensor_to_device(host[i].u.tensor, IR_DEVICE_CUDA, &error));
        } else if (host[i].tag == RT_LIST && host[i].u.seq->len &&
                   host[i].u.seq->items[0].tag == RT_TENSOR) {
          RtValue items[8];
          for (guint k = 0; k < host[i].u.seq->len; k++)
            items[k] = rt_tensor(
                rt_tensor_to_device(host[i].u.seq->items[k].u.tensor, IR_DEVICE_CUDA, &error));
          dev[i] = rt_list(items, host[i].u.seq->len);
        } else {
          dev[i] = rt_value_ref(host[i]);
        }
        g_assert_no_error(error);
      }
      guint trips = rt_device_round_trips();
      RtValue ref = rt_none(), ours = rt_none();
      /* Arguments the CPU kernel refuses (a float where condition) are not a device test. */
      bool ref_ok = rt_op_kernel(schema)(schema, NULL, host, n, &ref, 1, &error);
      g_clear_error(&error);
      bool ok =
          ref_ok && rt_kernel_call(rt_op_kernel(schema), schema, NULL, dev, n, &ours, 1, &error);
      if (!ref_ok) {
        printf("%s (%s): the CPU kernel refuses the test arguments\n", schema->text,
               ir_dtype_name(dts[d]));
      } else if (!ok) {
        fail("%s (%s): %s", schema->text, ir_dtype_name(dts[d]), error->message);
        g_clear_error(&error);
      } else {
        bool device_ok = true;
        double e = value_error(ours, ref, &device_ok);
        if (e > tolerance(dts[d]))
          fail("%s (%s): error %g against the CPU kernel", schema->text, ir_dtype_name(dts[d]), e);
        if (!device_ok)
          fail("%s (%s): a result is not on the device", schema->text, ir_dtype_name(dts[d]));
        if (rt_device_round_trips() != trips)
          fail("%s (%s): ran on the host", schema->text, ir_dtype_name(dts[d]));
        ran++;
      }
      rt_value_unref(ref);
      rt_value_unref(ours);
      for (guint i = 0; i < n; i++) {
        rt_value_unref(host[i]);
        rt_value_unref(dev[i]);
      }
    }
  }
  printf("%u op calls on the device\n", ran);
  char **notes = rt_device_notes();
  for (guint i = 0; notes[i]; i++)
    printf("note: %s\n", notes[i]);
  g_strfreev(notes);
}

/* cuBLAS with row-major, transposed and sliced operands. */
static void products(IrDtype dt) {
  int64_t sa[2] = {129, 257}, sb[2] = {65, 129};
  RtTensor *a = rt_tensor_randn(dt, 2, sa, 11), *b = rt_tensor_randn(dt, 2, sb, 12);
  RtTensor *at = rt_tensor_view_transpose(a, 0, 1), *bt = rt_tensor_view_transpose(b, 0, 1);
  RtTensor *as = rt_tensor_view_narrow(at, 0, 1, 200); /* [200, 129], column-major slice */
  GError *error = NULL;
  const IrSchema *mm = ir_ops_overloads(IR_ATEN_MM, &(guint){0})[0];
  RtTensor *cases[2][2] = {{at, bt}, {as, bt}};
  for (int c = 0; c < 2; c++) {
    RtValue host[2] = {rt_tensor(rt_tensor_ref(cases[c][0])),
                       rt_tensor(rt_tensor_ref(cases[c][1]))};
    RtValue dev[2];
    for (int i = 0; i < 2; i++) {
      /* The device operand keeps the host view's layout: copy the base, view it the same. */
      RtTensor *base = rt_tensor_new_strided(
          cases[c][i]->storage, dt, 1,
          (int64_t[]){(int64_t)(cases[c][i]->storage->nbytes / rt_dtype_size(dt))}, (int64_t[]){1},
          0);
      RtTensor *dbase = rt_tensor_to_device(base, IR_DEVICE_CUDA, &error);
      g_assert_no_error(error);
      dev[i] = rt_tensor(rt_tensor_new_strided(dbase->storage, dt, 2, cases[c][i]->sizes,
                                               cases[c][i]->strides, cases[c][i]->offset));
      rt_tensor_unref(dbase);
      rt_tensor_unref(base);
    }
    RtValue ref = rt_none(), ours = rt_none();
    g_assert_true(rt_op_kernel(mm)(mm, NULL, host, 2, &ref, 1, &error));
    if (!rt_kernel_call(rt_op_kernel(mm), mm, NULL, dev, 2, &ours, 1, &error)) {
      fail("cuBLAS mm case %d: %s", c, error->message);
      g_clear_error(&error);
    } else {
      bool device_ok = true;
      double e = value_error(ours, ref, &device_ok);
      if (e > tolerance(dt) * 10 || !device_ok)
        fail("cuBLAS mm case %d (%s): error %g", c, ir_dtype_name(dt), e);
    }
    rt_value_unref(ref);
    rt_value_unref(ours);
    for (int i = 0; i < 2; i++) {
      rt_value_unref(host[i]);
      rt_value_unref(dev[i]);
    }
  }
  rt_tensor_unref(as);
  rt_tensor_unref(at);
  rt_tensor_unref(bt);
  rt_tensor_unref(a);
  rt_tensor_unref(b);
}

int main(void) {
  GError *error = NULL;
  if (!cuda_runtime_enable(&error)) {
    printf("SKIP: %s\n", error->message);
    g_error_free(error);
    return 77;
  }
  every_op();
  products(IR_DTYPE_FLOAT32);
  products(IR_DTYPE_FLOAT64);
  corpus();
  printf("%u failures\n", failures);
  return failures ? 1 : 0;
}
