/* Broadcasting, sum_to, dim wrapping and dtype promotion: PyTorch's rules for our dtypes. */
#include "tensor/memory_budget.h"
#include "tensor/tensor.h"

char *rt_shape_to_string(int ndim, const int64_t *sizes) {
  GString *s = g_string_new("[");
  for (int d = 0; d < ndim; d++)
    g_string_append_printf(s, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, sizes[d]);
  g_string_append_c(s, ']');
  return g_string_free(s, FALSE);
}

/* Shapes right-aligned; each pair of sizes must be equal or contain a 1. */
bool rt_broadcast_shapes(int ndim_a, const int64_t *a, int ndim_b, const int64_t *b, int *ndim_out,
                         int64_t *out, GError **error) {
  int n = ndim_a > ndim_b ? ndim_a : ndim_b;
  if (n > RT_MAX_DIMS)
    g_error("rt_broadcast_shapes: rank %d above RT_MAX_DIMS", n);
  int64_t res[RT_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    int da = ndim_a - n + i, db = ndim_b - n + i;
    int64_t sa = da >= 0 ? a[da] : 1;
    int64_t sb = db >= 0 ? b[db] : 1;
    if (sa == sb || sb == 1) {
      res[i] = sa;
    } else if (sa == 1) {
      res[i] = sb;
    } else {
      g_autofree char *ta = rt_shape_to_string(ndim_a, a);
      g_autofree char *tb = rt_shape_to_string(ndim_b, b);
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                  "shapes %s and %s are not broadcastable: the size of tensor a (%" G_GINT64_FORMAT
                  ") must match the size of tensor b (%" G_GINT64_FORMAT
                  ") at non-singleton dimension %d",
                  ta, tb, sa, sb, i);
      return false;
    }
  }
  for (int i = 0; i < n; i++)
    out[i] = res[i];
  *ndim_out = n;
  return true;
}

/* Adds a run of n input elements (byte stride xs) into the accumulator run (byte stride as,
 * 0 when the run is being reduced). */
static void accumulate_run(char *acc, int64_t as, bool int_acc, const char *x, int64_t xs,
                           IrDtype xt, int64_t n) {
  if (int_acc) {
    if (as == 0) {
      int64_t sum = 0;
      for (int64_t i = 0; i < n; i++)
        sum +=
            xt == IR_DTYPE_INT64 ? *(const int64_t *)(x + i * xs) : *(const uint8_t *)(x + i * xs);
      *(int64_t *)acc += sum;
    } else {
      for (int64_t i = 0; i < n; i++)
        *(int64_t *)(acc + i * as) +=
            xt == IR_DTYPE_INT64 ? *(const int64_t *)(x + i * xs) : *(const uint8_t *)(x + i * xs);
    }
    return;
  }
  if (as == 0) {
    double sum = 0.0;
    if (xt == IR_DTYPE_FLOAT32 && xs == 4) {
      /* Four independent partial sums hide the floating-add latency. */
      const float *f = (const float *)x;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int64_t i = 0;
      for (; i + 4 <= n; i += 4) {
        s0 += f[i];
        s1 += f[i + 1];
        s2 += f[i + 2];
        s3 += f[i + 3];
      }
      for (; i < n; i++)
        s0 += f[i];
      sum = (s0 + s1) + (s2 + s3);
    } else if (xt == IR_DTYPE_FLOAT32)
      for (int64_t i = 0; i < n; i++)
        sum += *(const float *)(x + i * xs);
    else if (xt == IR_DTYPE_FLOAT64)
      for (int64_t i = 0; i < n; i++)
        sum += *(const double *)(x + i * xs);
    else
      for (int64_t i = 0; i < n; i++)
        sum += rt_load_element(x + i * xs, xt);
    *(double *)acc += sum;
  } else if (xt == IR_DTYPE_FLOAT32 && as == sizeof(double) && xs == sizeof(float)) {
    /* A contiguous row into a contiguous accumulator (a bias's gradient, summed over the
     * batch): a loop the compiler vectorizes, where the strided one below costs ten times. */
    double *restrict a = (double *)acc;
    const float *restrict f = (const float *)x;
    for (int64_t i = 0; i < n; i++)
      a[i] += f[i];
  } else {
    if (xt == IR_DTYPE_FLOAT32)
      for (int64_t i = 0; i < n; i++)
        *(double *)(acc + i * as) += *(const float *)(x + i * xs);
    else if (xt == IR_DTYPE_FLOAT64)
      for (int64_t i = 0; i < n; i++)
        *(double *)(acc + i * as) += *(const double *)(x + i * xs);
    else
      for (int64_t i = 0; i < n; i++)
        *(double *)(acc + i * as) += rt_load_element(x + i * xs, xt);
  }
}

/* One pass over t: the accumulator (target shape) is broadcast to t's shape by RtIter (stride
 * 0 on summed dims), so every input element is added exactly once into its output slot.
 * Floating dtypes accumulate in double (more accurate than PyTorch's float accumulation and
 * within every tolerance we use), integers and bools in int64 (bool sums are int64, as
 * PyTorch's sum promotes them). */
RtTensor *rt_tensor_sum_to(RtTensor *t, int ndim, const int64_t *sizes, GError **error) {
  bool ok = ndim >= 0 && ndim <= t->ndim;
  int lead = t->ndim - ndim;
  for (int i = 0; ok && i < ndim; i++)
    ok = sizes[i] == 1 || sizes[i] == t->sizes[lead + i];
  if (!ok) {
    g_autofree char *ts = rt_shape_to_string(ndim, sizes);
    g_autofree char *ss = rt_shape_to_string(t->ndim, t->sizes);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "size %s is not expandable to size %s (sum_to)", ts, ss);
    return NULL;
  }
  if (ndim == t->ndim) {
    bool same = true;
    for (int i = 0; same && i < ndim; i++)
      same = sizes[i] == t->sizes[i];
    if (same)
      return rt_tensor_ref(t);
  }
  if (t->storage->device != IR_DEVICE_CPU)
    g_error("rt_tensor_sum_to: host-only reduction called on device memory");
  bool int_acc = t->dtype == IR_DTYPE_INT64 || t->dtype == IR_DTYPE_BOOL;
  RtTensor *acc =
      rt_tensor_zeros_checked(int_acc ? IR_DTYPE_INT64 : IR_DTYPE_FLOAT64, ndim, sizes, error);
  if (!acc)
    return NULL;
  RtIter it;
  RtTensor *ops[2] = {acc, t};
  rt_iter_init(&it, t->ndim, t->sizes, 2, ops);
  char *p[RT_ITER_MAX_OPERANDS];
  int64_t n;
  while (rt_iter_next(&it, p, &n))
    accumulate_run(p[0], it.inner_strides[0], int_acc, p[1], it.inner_strides[1], t->dtype, n);
  if (int_acc || t->dtype == IR_DTYPE_FLOAT64)
    return acc;
  RtTensor *out = rt_tensor_to_dtype(acc, t->dtype);
  rt_tensor_unref(acc);
  return out;
}

bool rt_wrap_dim(int dim, int ndim, int *out, GError **error) {
  int n = ndim <= 0 ? 1 : ndim;
  if (dim < -n || dim >= n) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n,
                n - 1, dim);
    return false;
  }
  *out = dim < 0 ? dim + n : dim;
  return true;
}

/* Promotion lattice for our dtypes is a chain: bool < int64 < float16 < float32 < float64. */
static int promotion_rank(IrDtype d) {
  switch (d) {
  case IR_DTYPE_BOOL: return 0;
  case IR_DTYPE_INT64: return 1;
  case IR_DTYPE_FLOAT16: return 2;
  case IR_DTYPE_FLOAT32: return 3;
  case IR_DTYPE_FLOAT64: return 4;
  default: break;
  }
  g_error("rt_promote_types: invalid dtype %d", (int)d);
}

IrDtype rt_promote_types(IrDtype a, IrDtype b) {
  return promotion_rank(a) >= promotion_rank(b) ? a : b;
}

static bool is_float(int d) {
  return d == IR_DTYPE_FLOAT16 || d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64;
}

/* -1 stands for "no operand in this class" (PyTorch's Undefined). */
static int promote_skip_undefined(int a, int b) {
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  return (int)rt_promote_types((IrDtype)a, (IrDtype)b);
}

/* c10's combine_categories: the lower class only contributes a higher category. */
static int combine_categories(int higher, int lower) {
  if (higher >= 0 && is_float(higher))
    return higher;
  if (higher == IR_DTYPE_BOOL || (lower >= 0 && is_float(lower)))
    return promote_skip_undefined(higher, lower);
  return higher >= 0 ? higher : lower;
}

IrDtype rt_result_type(guint n, const IrDtype *dtypes, const RtOperandClass *classes) {
  int cls[3] = {-1, -1, -1};
  for (guint i = 0; i < n; i++) {
    int d = (int)dtypes[i];
    promotion_rank(dtypes[i]); /* validates */
    if (classes[i] == RT_OPERAND_NUMBER && is_float(d))
      d = IR_DTYPE_FLOAT32; /* a Python float takes the default dtype */
    cls[classes[i]] = promote_skip_undefined(cls[classes[i]], d);
  }
  int r = combine_categories(cls[RT_OPERAND_TENSOR],
                             combine_categories(cls[RT_OPERAND_DIM0], cls[RT_OPERAND_NUMBER]));
  if (r < 0)
    g_error("rt_result_type: called with no operands");
  return (IrDtype)r;
}
