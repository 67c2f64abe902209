/* Reductions: rt_kernel_sum (sum and mean: all elements, or a dim list with keepdim and
 * negative dims, optional dtype), rt_kernel_var (var and std) and rt_kernel_grad_sum_to_size.
 *
 * sum as PyTorch 1.13: the result dtype is `dtype` when given (the input is cast to it
 * first), else int64 for int64 and bool inputs, else the input's dtype; a None or empty dim
 * list reduces every dim; a dim named twice is an error. Floating sums accumulate in double
 * (at least as accurate as PyTorch's float accumulation), integer sums in int64 with
 * wrap-around. mean is the sum divided by the count of reduced elements (an empty reduction
 * gives NaN); its result dtype (the given one, else the input's) must be floating.
 * var / std (all elements, or dims with keepdim): sum((x - mean)^2) / max(0, N - 1) when
 * unbiased (N without), std its square root, two passes in double; floating inputs only.
 * _grad_sum_to_size(x, None) is x itself; otherwise sum_to (tensor.h). */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* Operand 0: the accumulator (stride 0 along reduced dims), operand 1: the input. */
#define SUM_LOOP(NAME, TA, T)                                                                  \
  static void NAME(int64_t n, char **p, const int64_t *s, void *ctx) {                        \
    (void)ctx;                                                                                 \
    TA *acc = (TA *)p[0];                                                                      \
    const T *x = (const T *)p[1];                                                              \
    if (s[0] == 0 && s[1] == 1) {                                                              \
      /* eight independent partial sums: not bound by the latency of one add chain */         \
      TA part[8] = {0};                                                                        \
      int64_t i = 0;                                                                           \
      for (; i + 8 <= n; i += 8)                                                               \
        for (int l = 0; l < 8; l++)                                                            \
          part[l] = SUM_ADD(TA, part[l], x[i + l]);                                            \
      TA total = *acc;                                                                         \
      for (int l = 0; l < 8; l++)                                                              \
        total = SUM_ADD(TA, total, part[l]);                                                   \
      for (; i < n; i++)                                                                       \
        total = SUM_ADD(TA, total, x[i]);                                                      \
      *acc = total;                                                                            \
    } else if (s[0] == 0) {                                                                    \
      TA total = *acc;                                                                         \
      for (int64_t i = 0; i < n; i++)                                                          \
        total = SUM_ADD(TA, total, x[i * s[1]]);                                               \
      *acc = total;                                                                            \
    } else {                                                                                   \
      for (int64_t i = 0; i < n; i++)                                                          \
        acc[i * s[0]] = SUM_ADD(TA, acc[i * s[0]], x[i * s[1]]);                               \
    }                                                                                          \
  }

/* int64 accumulation wraps like PyTorch's (no signed-overflow UB). */
#define SUM_ADD(TA, a, b) ((TA)((a) + (TA)(b)))
SUM_LOOP(sum_loop_f32, double, float)
SUM_LOOP(sum_loop_f64, double, double)
#undef SUM_ADD
#define SUM_ADD(TA, a, b) ((TA)((uint64_t)(a) + (uint64_t)(int64_t)(b)))
SUM_LOOP(sum_loop_i64, int64_t, int64_t)
SUM_LOOP(sum_loop_bool, int64_t, bool)
#undef SUM_ADD

bool k_sum_args(const IrSchema *schema, RtValue *args, const RtTensor *self, KSumArgs *out,
                GError **error) {
  bool with_dims = k_overload_is(schema, "dim_IntList") || k_overload_is(schema, "dim");
  out->keepdim = false;
  if (!k_arg_dtype(schema, args, with_dims ? 3 : 1, &out->has_dtype, &out->given, error))
    return false;
  for (int d = 0; d < RT_MAX_DIMS; d++)
    out->reduce[d] = true;
  if (with_dims) {
    if (!k_arg_bool(schema, args, 2, &out->keepdim, error))
      return false;
    int64_t dims[RT_MAX_DIMS];
    int nd = 0;
    if (!k_arg_is_none(args, 1) && !k_arg_int_list(schema, args, 1, dims, &nd, error))
      return false;
    if (nd > 0)
      memset(out->reduce, 0, sizeof out->reduce);
    for (int k = 0; k < nd; k++) {
      int w;
      if (!k_wrap_dim(dims[k], self->ndim, &w, error))
        return false;
      if (self->ndim > 0 && out->reduce[w]) {
        K_ERR_SHAPE(error, "dim %d appears multiple times in the list of dims", w);
        return false;
      }
      out->reduce[w] = true;
    }
  }
  bool mean = schema->kind == IR_ATEN_MEAN;
  out->out_dtype = out->has_dtype                            ? out->given
                   : k_dtype_is_float(self->dtype) || mean ? self->dtype
                                                             : IR_DTYPE_INT64;
  if (mean && !k_dtype_is_float(out->out_dtype)) {
    K_ERR_DTYPE(error, "mean(): could not infer output dtype. %s dtype must be either a "
                "floating point or complex dtype. Got: %s",
                out->has_dtype ? "Optional" : "Input",
                ir_dtype_type_name(out->out_dtype));
    return false;
  }
  return true;
}

bool rt_kernel_sum(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  KSumArgs sum;
  if (!k_sum_args(schema, args, self, &sum, error))
    return false;
  const bool *reduce = sum.reduce;
  bool keepdim = sum.keepdim, has_dtype = sum.has_dtype;
  IrDtype given = sum.given, out_dtype = sum.out_dtype;
  /* The input as it is summed: cast to `dtype` when given; half read as float32. */
  IrDtype in_dtype = has_dtype ? given : self->dtype;
  RtTensor *src = k_to_dtype(self, in_dtype);
  if (src->dtype == IR_DTYPE_FLOAT16) {
    RtTensor *f = rt_tensor_to_dtype(src, IR_DTYPE_FLOAT32);
    rt_tensor_unref(src);
    src = f;
  }
  int64_t keep_shape[RT_MAX_DIMS], out_shape[RT_MAX_DIMS];
  int out_ndim = 0;
  for (int d = 0; d < src->ndim; d++) {
    keep_shape[d] = reduce[d] ? 1 : src->sizes[d];
    if (!reduce[d] || keepdim)
      out_shape[out_ndim++] = keep_shape[d];
  }
  bool int_acc = !k_dtype_is_float(src->dtype);
  RtTensor *acc = rt_tensor_zeros_checked(int_acc ? IR_DTYPE_INT64 : IR_DTYPE_FLOAT64,
                                          src->ndim, keep_shape, error);
  if (!acc) {
    rt_tensor_unref(src);
    return false;
  }
  KIter it;
  k_iter_init(&it, src->ndim, src->sizes);
  k_iter_add_tensor(&it, acc);
  k_iter_add_tensor(&it, src);
  KInnerLoop loop = src->dtype == IR_DTYPE_FLOAT32   ? sum_loop_f32
                    : src->dtype == IR_DTYPE_FLOAT64 ? sum_loop_f64
                    : src->dtype == IR_DTYPE_INT64   ? sum_loop_i64
                                                     : sum_loop_bool;
  k_iter_run(&it, loop, NULL);
  if (schema->kind == IR_ATEN_MEAN) {
    int64_t count = 1;
    for (int d = 0; d < src->ndim; d++)
      count *= reduce[d] ? src->sizes[d] : 1;
    double *a = rt_tensor_data(acc);
    for (int64_t i = 0, n = rt_tensor_numel(acc); i < n; i++)
      a[i] /= (double)count;
  }
  rt_tensor_unref(src);
  RtTensor *result = k_to_dtype(acc, out_dtype);
  rt_tensor_unref(acc);
  RtTensor *shaped = rt_tensor_reshape(result, out_ndim, out_shape, true, error);
  K_INVARIANT(shaped != NULL, "a contiguous sum result views without its reduced dims");
  rt_tensor_unref(result);
  outs[0] = rt_tensor(shaped);
  return true;
}

bool rt_kernel_grad_sum_to_size(const IrSchema *schema, const IrNode *node, RtValue *args,
                                guint n_args, RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (args[0].tag == RT_TENSOR && args[0].u.tensor == NULL) {
    /* An undefined gradient stays undefined (autodiff's AutogradZero). */
    outs[0] = rt_value_ref(args[0]);
    return true;
  }
  RtTensor *self;
  if (!k_arg_tensor(schema, args, 0, &self, error))
    return false;
  if (k_arg_is_none(args, 1)) {
    outs[0] = rt_tensor(rt_tensor_ref(self));
    return true;
  }
  int64_t sizes[RT_MAX_DIMS];
  int n;
  if (!k_arg_int_list(schema, args, 1, sizes, &n, error))
    return false;
  RtTensor *r = rt_tensor_sum_to(self, n, sizes, error);
  if (!r)
    return false;
  outs[0] = rt_tensor(r);
  return true;
}

bool rt_kernel_var(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  bool with_dims = k_overload_is(schema, "dim"), unbiased, keepdim = false;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_bool(schema, args, with_dims ? 2 : 1, &unbiased, error) ||
      (with_dims && !k_arg_bool(schema, args, 3, &keepdim, error)))
    return false;
  bool reduce[RT_MAX_DIMS];
  for (int d = 0; d < RT_MAX_DIMS; d++)
    reduce[d] = true;
  int64_t dims[RT_MAX_DIMS];
  int nd = 0;
  if (with_dims && !k_arg_is_none(args, 1) && !k_arg_int_list(schema, args, 1, dims, &nd, error))
    return false;
  if (nd > 0)
    memset(reduce, 0, sizeof reduce);
  for (int k = 0; k < nd; k++) {
    int w;
    if (!k_wrap_dim(dims[k], self->ndim, &w, error))
      return false;
    if (self->ndim > 0 && reduce[w]) {
      K_ERR_SHAPE(error, "dim %d appears multiple times in the list of dims", w);
      return false;
    }
    reduce[w] = true;
  }
  if (!k_dtype_is_float(self->dtype)) {
    K_ERR_DTYPE(error, "std and var only support floating point and complex dtypes");
    return false;
  }
  /* self viewed with the kept dims first and the reduced ones last, copied to double. */
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS], out_shape[RT_MAX_DIMS];
  int np = 0, out_ndim = 0;
  int64_t groups = 1, n = 1;
  for (int pass = 0; pass < 2; pass++)
    for (int d = 0; d < self->ndim; d++)
      if (reduce[d] == (pass == 1)) {
        sizes[np] = self->sizes[d];
        strides[np++] = self->strides[d];
        *(pass ? &n : &groups) *= self->sizes[d];
      }
  for (int d = 0; d < self->ndim; d++)
    if (!reduce[d] || keepdim)
      out_shape[out_ndim++] = reduce[d] ? 1 : self->sizes[d];
  RtTensor *ordered = rt_tensor_new_strided(self->storage, self->dtype, np, sizes, strides,
                                            self->offset);
  RtTensor *data = rt_tensor_to_dtype(ordered, IR_DTYPE_FLOAT64);
  rt_tensor_unref(ordered);
  RtTensor *result = rt_tensor_new_checked(IR_DTYPE_FLOAT64, out_ndim, out_shape, error);
  if (!result) {
    rt_tensor_unref(data);
    return false;
  }
  const double *x = rt_tensor_data(data);
  double *r = rt_tensor_data(result);
  double divisor = (double)MAX(0, n - (unbiased ? 1 : 0));
  for (int64_t gi = 0; gi < groups; gi++) {
    const double *v = x + gi * n;
    double mean = 0, sq = 0;
    for (int64_t k = 0; k < n; k++)
      mean += v[k];
    mean /= (double)n;
    for (int64_t k = 0; k < n; k++)
      sq += (v[k] - mean) * (v[k] - mean);
    r[gi] = schema->kind == IR_ATEN_STD ? sqrt(sq / divisor) : sq / divisor;
  }
  rt_tensor_unref(data);
  outs[0] = rt_tensor(k_to_dtype(result, self->dtype));
  rt_tensor_unref(result);
  return true;
}
