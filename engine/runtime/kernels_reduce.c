/* Reductions: rt_kernel_sum (sum and mean: all elements, or a dim list with keepdim and
 * negative dims, optional dtype) and rt_kernel_grad_sum_to_size.
 *
 * sum as PyTorch 1.13: the result dtype is `dtype` when given (the input is cast to it
 * first), else int64 for int64 and bool inputs, else the input's dtype; a None or empty dim
 * list reduces every dim; a dim named twice is an error. Floating sums accumulate in double
 * (at least as accurate as PyTorch's float accumulation), integer sums in int64 with
 * wrap-around. mean is the sum divided by the count of reduced elements (an empty reduction
 * gives NaN); its result dtype (the given one, else the input's) must be floating.
 * _grad_sum_to_size(x, None) is x itself; otherwise sum_to (tensor.h). */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

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
