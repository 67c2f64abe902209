/* Reductions: rt_kernel_sum (sum and mean: all elements, or a dim list with keepdim and
 * negative dims, optional dtype), rt_kernel_var (var and std), rt_kernel_amax (amax, amin,
 * argmax, logsumexp), rt_kernel_prod, rt_kernel_vector_norm, rt_kernel_cumsum (cumsum,
 * cumprod) and rt_kernel_grad_sum_to_size.
 *
 * sum as PyTorch 1.13: the result dtype is `dtype` when given (the input is cast to it
 * first), else int64 for int64 and bool inputs, else the input's dtype; a None or empty dim
 * list reduces every dim; a dim named twice is an error. Floating sums accumulate in double
 * (at least as accurate as PyTorch's float accumulation), integer sums in int64 with
 * wrap-around. mean is the sum divided by the count of reduced elements (an empty reduction
 * gives NaN); its result dtype (the given one, else the input's) must be floating.
 * var / std (all elements, or dims with keepdim): sum((x - mean)^2) / max(0, N - 1) when
 * unbiased (N without), std its square root, two passes in double; floating inputs only.
 * cumsum(self, dim, dtype): running sums along dim (dtype: the given one, else int64 for
 * integral inputs), accumulated in double (int64 in int64), as PyTorch's CPU accumulation type;
 * cumprod likewise with running products.
 * prod (rt_kernel_prod) multiplies in its result dtype, described at the kernel, as
 * linalg_vector_norm (rt_kernel_vector_norm) computes in its own (norm with a dtype in that
 * dtype, whatever self's, as PyTorch 1.13's norm casts self to it).
 * rt_kernel_amax serves max() and min() of every element, max.dim and min.dim (values and
 * the first extreme's index), amax, amin (NaN wins), argmax and argmin (first extreme, NaN
 * counting as one;
 * no dim: the flattened index) and logsumexp (integral inputs give float32); every dim
 * list as sum's, computed in double (int64 beyond 2^53 loses precision).
 * _grad_sum_to_size(x, None) is x itself; otherwise sum_to (tensor.h). */
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

/* Operand 0: the accumulator (stride 0 along reduced dims), operand 1: the input. */
#define SUM_LOOP(NAME, TA, T)                                                         \
  static void NAME(int64_t n, char **p, const int64_t *s, void *ctx) {                \
    (void)ctx;                                                                        \
    TA *acc = (TA *)p[0];                                                             \
    const T *x = (const T *)p[1];                                                     \
    if (s[0] == 0 && s[1] == 1) {                                                     \
      /* eight independent partial sums: not bound by the latency of one add chain */ \
      TA part[8] = {0};                                                               \
      int64_t i = 0;                                                                  \
      for (; i + 8 <= n; i += 8)                                                      \
        for (int l = 0; l < 8; l++)                                                   \
          part[l] = SUM_ADD(TA, part[l], x[i + l]);                                   \
      TA total = *acc;                                                                \
      for (int l = 0; l < 8; l++)                                                     \
        total = SUM_ADD(TA, total, part[l]);                                          \
      for (; i < n; i++)                                                              \
        total = SUM_ADD(TA, total, x[i]);                                             \
      *acc = total;                                                                   \
    } else if (s[0] == 0) {                                                           \
      TA total = *acc;                                                                \
      for (int64_t i = 0; i < n; i++)                                                 \
        total = SUM_ADD(TA, total, x[i * s[1]]);                                      \
      *acc = total;                                                                   \
    } else {                                                                          \
      for (int64_t i = 0; i < n; i++)                                                 \
        acc[i * s[0]] = SUM_ADD(TA, acc[i * s[0]], x[i * s[1]]);                      \
    }                                                                                 \
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
  out->out_dtype = out->has_dtype                          ? out->given
                   : k_dtype_is_float(self->dtype) || mean ? self->dtype
                                                           : IR_DTYPE_INT64;
  if (mean && !k_dtype_is_float(out->out_dtype)) {
    K_ERR_DTYPE(error,
                "mean(): could not infer output dtype. %s dtype must be either a "
                "floating point or complex dtype. Got: %s",
                out->has_dtype ? "Optional" : "Input", ir_dtype_type_name(out->out_dtype));
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
  RtTensor *acc = rt_tensor_zeros_checked(int_acc ? IR_DTYPE_INT64 : IR_DTYPE_FLOAT64, src->ndim,
                                          keep_shape, error);
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

/* A reduction over some dims seen as [groups, n]: self's values in double with the kept dims
 * first (row-major) and the reduced ones last, and the result's shape. */
typedef struct {
  RtTensor *data; /* float64, contiguous, groups x n */
  int64_t groups, n;
  int out_ndim;
  int64_t out_shape[RT_MAX_DIMS];
} KGroups;

/* self seen as [groups, n] with the dims marked in reduce[] last, converted to `dtype`. */
static void k_groups_of(RtTensor *self, const bool *reduce, bool keepdim, IrDtype dtype,
                        KGroups *out) {
  int64_t sizes[RT_MAX_DIMS], strides[RT_MAX_DIMS];
  int np = 0;
  out->groups = 1;
  out->n = 1;
  out->out_ndim = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int d = 0; d < self->ndim; d++)
      if (reduce[d] == (pass == 1)) {
        sizes[np] = self->sizes[d];
        strides[np++] = self->strides[d];
        *(pass ? &out->n : &out->groups) *= self->sizes[d];
      }
  for (int d = 0; d < self->ndim; d++)
    if (!reduce[d] || keepdim)
      out->out_shape[out->out_ndim++] = reduce[d] ? 1 : self->sizes[d];
  RtTensor *ordered =
      rt_tensor_new_strided(self->storage, self->dtype, np, sizes, strides, self->offset);
  out->data = rt_tensor_to_dtype(ordered, dtype);
  rt_tensor_unref(ordered);
}

/* dims: the int list at args[dims_arg] (None, absent or empty: every dim), as sum's; the
 * groups read in `dtype`. */
static bool k_groups(const IrSchema *schema, RtValue *args, int dims_arg, RtTensor *self,
                     bool keepdim, IrDtype dtype, KGroups *out, GError **error) {
  bool reduce[RT_MAX_DIMS];
  for (int d = 0; d < RT_MAX_DIMS; d++)
    reduce[d] = true;
  int64_t dims[RT_MAX_DIMS];
  int nd = 0;
  if (dims_arg >= 0 && !k_arg_is_none(args, (guint)dims_arg) &&
      !k_arg_int_list(schema, args, (guint)dims_arg, dims, &nd, error))
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
  k_groups_of(self, reduce, keepdim, dtype, out);
  return true;
}

/* One double per group computed by fn into a result of `dtype`. */
static bool k_groups_reduce(KGroups *g, IrDtype dtype,
                            double (*fn)(const double *, int64_t, const void *), const void *ctx,
                            RtValue *outs, GError **error) {
  RtTensor *result = rt_tensor_new_checked(IR_DTYPE_FLOAT64, g->out_ndim, g->out_shape, error);
  if (!result) {
    rt_tensor_unref(g->data);
    return false;
  }
  const double *x = rt_tensor_data(g->data);
  double *r = rt_tensor_data(result);
  for (int64_t gi = 0; gi < g->groups; gi++)
    r[gi] = fn(x + gi * g->n, g->n, ctx);
  rt_tensor_unref(g->data);
  outs[0] = rt_tensor(k_to_dtype(result, dtype));
  rt_tensor_unref(result);
  return true;
}

typedef struct {
  bool unbiased, std;
} VarCtx;

static double var_of(const double *v, int64_t n, const void *ctx) {
  const VarCtx *c = ctx;
  double mean = 0, sq = 0;
  for (int64_t k = 0; k < n; k++)
    mean += v[k];
  mean /= (double)n;
  for (int64_t k = 0; k < n; k++)
    sq += (v[k] - mean) * (v[k] - mean);
  double var = sq / (double)MAX(0, n - (c->unbiased ? 1 : 0));
  return c->std ? sqrt(var) : var;
}

bool rt_kernel_var(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                   RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  bool with_dims = k_overload_is(schema, "dim"), keepdim = false;
  VarCtx ctx = {.std = schema->kind == IR_ATEN_STD};
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_bool(schema, args, with_dims ? 2 : 1, &ctx.unbiased, error) ||
      (with_dims && !k_arg_bool(schema, args, 3, &keepdim, error)))
    return false;
  KGroups g;
  if (!k_groups(schema, args, with_dims ? 1 : -1, self, keepdim, IR_DTYPE_FLOAT64, &g, error))
    return false;
  if (!k_dtype_is_float(self->dtype)) {
    rt_tensor_unref(g.data);
    K_ERR_DTYPE(error, "std and var only support floating point and complex dtypes");
    return false;
  }
  return k_groups_reduce(&g, self->dtype, var_of, &ctx, outs, error);
}

/* amax / amin: NaN wins. */
static double max_of(const double *v, int64_t n, const void *ctx) {
  bool min = *(const bool *)ctx;
  double m = v[0];
  for (int64_t k = 1; k < n && m == m; k++)
    if (v[k] != v[k] || (min ? v[k] < m : v[k] > m))
      m = v[k];
  return m;
}

/* argmax (argmin when *ctx): the first maximum, a NaN counting as the maximum. */
static double argmax_of(const double *v, int64_t n, const void *ctx) {
  bool min = *(const bool *)ctx;
  int64_t at = 0;
  for (int64_t k = 1; k < n && v[at] == v[at]; k++)
    if (v[k] != v[k] || (min ? v[k] < v[at] : v[k] > v[at]))
      at = k;
  return (double)at;
}

/* logsumexp: max + log(sum(exp(x - max))), an infinite max taken as 0 (PyTorch's). */
static double logsumexp_of(const double *v, int64_t n, const void *ctx) {
  (void)ctx;
  bool min = false;
  double m = n > 0 ? max_of(v, n, &min) : 0;
  if (isinf(m))
    m = 0;
  double sum = 0;
  for (int64_t k = 0; k < n; k++)
    sum += exp(v[k] - m);
  return log(sum) + m;
}

/* max() / min() of every element, and max.dim / min.dim: the values, then the index of the
 * first maximum (minimum) along dim, NaN counting as one; bool allowed, as PyTorch's. */
static bool max_min(const IrSchema *schema, RtValue *args, RtValue *outs, GError **error) {
  bool min = schema->kind == IR_ATEN_MIN, by_dim = k_overload_is(schema, "dim");
  RtTensor *self;
  bool keepdim = false;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      (by_dim && !k_arg_bool(schema, args, 2, &keepdim, error)))
    return false;
  if (!by_dim && rt_tensor_numel(self) == 0) {
    K_ERR_SHAPE(error,
                "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                "the reduction dim with the 'dim' argument.",
                k_op_short_name(schema));
    return false;
  }
  KGroups values, indices;
  if (!k_groups(schema, args, by_dim ? 1 : -1, self, keepdim, IR_DTYPE_FLOAT64, &values, error))
    return false;
  if (values.n == 0) {
    rt_tensor_unref(values.data);
    K_ERR_SHAPE(error, "%s(): Expected reduction dim to have non-zero size.",
                k_op_short_name(schema));
    return false;
  }
  if (!k_groups_reduce(&values, self->dtype, max_of, &min, outs, error))
    return false;
  if (!by_dim)
    return true;
  if (!k_groups(schema, args, 1, self, keepdim, IR_DTYPE_FLOAT64, &indices, error) ||
      !k_groups_reduce(&indices, IR_DTYPE_INT64, argmax_of, &min, outs + 1, error)) {
    rt_value_unref(outs[0]);
    return false;
  }
  return true;
}

bool rt_kernel_amax(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (schema->kind == IR_ATEN_MAX || schema->kind == IR_ATEN_MIN)
    return max_min(schema, args, outs, error);
  RtTensor *self;
  bool keepdim, argmax = schema->kind == IR_ATEN_ARGMAX || schema->kind == IR_ATEN_ARGMIN;
  bool min = schema->kind == IR_ATEN_AMIN || schema->kind == IR_ATEN_ARGMIN;
  if (!k_arg_tensor(schema, args, 0, &self, error) || !k_arg_bool(schema, args, 2, &keepdim, error))
    return false;
  KGroups g;
  if (!k_groups(schema, args, 1, self, keepdim, IR_DTYPE_FLOAT64, &g, error))
    return false;
  IrDtype dtype = self->dtype;
  double (*fn)(const double *, int64_t, const void *) = max_of;
  if (argmax) {
    fn = argmax_of;
    dtype = IR_DTYPE_INT64;
    if (k_arg_is_none(args, 1)) { /* the flattened tensor's index: a 0-dim result */
      g.out_ndim = keepdim ? self->ndim : 0;
      for (int d = 0; d < g.out_ndim; d++)
        g.out_shape[d] = 1;
    }
  } else if (schema->kind == IR_ATEN_LOGSUMEXP) {
    fn = logsumexp_of;
    dtype = k_dtype_is_float(self->dtype) ? self->dtype : IR_DTYPE_FLOAT32;
  }
  if (g.n == 0 && fn != logsumexp_of) {
    rt_tensor_unref(g.data);
    K_ERR_SHAPE(error, "%s(): Expected reduction dim to have non-zero size.",
                k_op_short_name(schema));
    return false;
  }
  if (dtype == IR_DTYPE_BOOL && !argmax) {
    rt_tensor_unref(g.data);
    K_ERR_DTYPE(error, "\"%s\" not implemented for 'Bool'", k_op_short_name(schema));
    return false;
  }
  return k_groups_reduce(&g, dtype, fn, &min, outs, error);
}

bool rt_kernel_cumsum(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                      RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *self;
  bool has_dtype, product = schema->kind == IR_ATEN_CUMPROD;
  IrDtype given;
  int d;
  if (!k_args_dim_dtype(schema, args, &self, &d, &has_dtype, &given, error))
    return false;
  IrDtype out_dtype = has_dtype                       ? given
                      : k_dtype_is_float(self->dtype) ? self->dtype
                                                      : IR_DTYPE_INT64;
  bool integral = !k_dtype_is_float(out_dtype);
  RtTensor *r = rt_tensor_to_dtype(self, integral ? IR_DTYPE_INT64 : IR_DTYPE_FLOAT64);
  int64_t outer = 1, n = self->ndim > 0 ? self->sizes[d] : 1, inner = 1;
  for (int k = 0; k < self->ndim; k++) {
    if (k < d)
      outer *= self->sizes[k];
    else if (k > d)
      inner *= self->sizes[k];
  }
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++)
      for (int64_t k = 1; k < n; k++) {
        int64_t at = (o * n + k) * inner + i, prev = at - inner;
        if (integral) { /* wraps as PyTorch's */
          gint64 *v = rt_tensor_data(r);
          guint64 x = (guint64)v[at], before = (guint64)v[prev];
          v[at] = (gint64)(product ? x * before : x + before);
        } else {
          double *v = rt_tensor_data(r);
          v[at] = product ? v[at] * v[prev] : v[at] + v[prev];
        }
      }
  outs[0] = rt_tensor(k_to_dtype(r, out_dtype));
  rt_tensor_unref(r);
  return true;
}

/* prod and prod.dim_int as PyTorch 1.13's: the result dtype is `dtype` when given (the input
 * cast to it first), else int64 for int64 and bool inputs, else the input's; products run in
 * that dtype from the first element on (a float32 product overflows to inf as PyTorch's
 * does), int64 ones wrapping; an empty product is 1. */
bool rt_kernel_prod(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool by_dim = k_overload_is(schema, "dim_int"), keepdim = false, has_dtype;
  RtTensor *self;
  IrDtype given;
  bool reduce[RT_MAX_DIMS];
  for (int d = 0; d < RT_MAX_DIMS; d++)
    reduce[d] = !by_dim;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      !k_arg_dtype(schema, args, by_dim ? 3 : 1, &has_dtype, &given, error))
    return false;
  if (by_dim) {
    gint64 dim;
    int w;
    if (!k_arg_int(schema, args, 1, &dim, error) || !k_arg_bool(schema, args, 2, &keepdim, error) ||
        !k_wrap_dim(dim, self->ndim, &w, error))
      return false;
    reduce[w] = true;
  }
  IrDtype out_dtype = has_dtype                       ? given
                      : k_dtype_is_float(self->dtype) ? self->dtype
                                                      : IR_DTYPE_INT64;
  IrDtype compute = out_dtype == IR_DTYPE_BOOL ? IR_DTYPE_INT64 : out_dtype;
  if (compute == IR_DTYPE_FLOAT16)
    compute = IR_DTYPE_FLOAT32;
  KGroups g;
  k_groups_of(self, reduce, keepdim, compute, &g);
  RtTensor *result = rt_tensor_new_checked(compute, g.out_ndim, g.out_shape, error);
  if (!result) {
    rt_tensor_unref(g.data);
    return false;
  }
  for (int64_t gi = 0; gi < g.groups; gi++) {
    if (compute == IR_DTYPE_FLOAT32) {
      const float *x = (const float *)rt_tensor_data(g.data) + gi * g.n;
      float p = 1;
      for (int64_t k = 0; k < g.n; k++)
        p *= x[k];
      ((float *)rt_tensor_data(result))[gi] = p;
    } else if (compute == IR_DTYPE_FLOAT64) {
      const double *x = (const double *)rt_tensor_data(g.data) + gi * g.n;
      double p = 1;
      for (int64_t k = 0; k < g.n; k++)
        p *= x[k];
      ((double *)rt_tensor_data(result))[gi] = p;
    } else {
      const gint64 *x = (const gint64 *)rt_tensor_data(g.data) + gi * g.n;
      guint64 p = 1; /* wraps as PyTorch's */
      for (int64_t k = 0; k < g.n; k++)
        p *= (guint64)x[k];
      ((gint64 *)rt_tensor_data(result))[gi] = (gint64)p;
    }
  }
  rt_tensor_unref(g.data);
  outs[0] = rt_tensor(k_to_dtype(result, out_dtype));
  rt_tensor_unref(result);
  return true;
}

/* The ord-norm of n values as PyTorch 1.13's CPU kernels compute it in T: 0 counts the
 * nonzero ones (NaN among them), +-inf the largest (smallest) magnitude with NaN winning, 1
 * and 2 sum |x| and x^2 (2 then its square root), any other ord (sum |x|^ord)^(1 / ord); no
 * values give 0 (norm's empty reductions, whatever p). */
#define VECTOR_NORM_OF(NAME, T)                                             \
  static T NAME(const T *v, int64_t n, double ord) {                        \
    if (n == 0)                                                             \
      return 0;                                                             \
    T acc = 0;                                                              \
    for (int64_t k = 0; k < n; k++) {                                       \
      T a = v[k] < 0 ? -v[k] : v[k];                                        \
      if (ord == 0)                                                         \
        acc += v[k] != 0;                                                   \
      else if (isinf(ord))                                                  \
        acc = k == 0 || a != a || (ord > 0 ? a > acc : a < acc) ? a : acc;  \
      else if (ord == 1)                                                    \
        acc += a;                                                           \
      else if (ord == 2)                                                    \
        acc += v[k] * v[k];                                                 \
      else                                                                  \
        acc += (T)pow(a, ord);                                              \
      if (isinf(ord) && acc != acc)                                         \
        break;                                                              \
    }                                                                       \
    if (ord == 2)                                                           \
      return (T)sqrt(acc);                                                  \
    return ord == 0 || ord == 1 || isinf(ord) ? acc : (T)pow(acc, 1 / ord); \
  }
VECTOR_NORM_OF(vector_norm_f32, float)
VECTOR_NORM_OF(vector_norm_f64, double)
#undef VECTOR_NORM_OF

/* linalg_vector_norm(self, ord, dim, keepdim, dtype) as PyTorch 1.13's: floating selves only,
 * cast first to a given dtype that does not narrow them; an empty reduction is 0 for ord >= 0
 * and PyTorch's error for the others, which have no identity. norm(self, p) and norm(self, p,
 * dim, keepdim) (p None: 2) compute the same norms, without dtype, and reduce an empty
 * tensor to 0 for every p. */
bool rt_kernel_vector_norm(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                           RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  bool linalg = schema->kind == IR_ATEN_LINALG_VECTOR_NORM, with_dims = schema->n_args > 2;
  bool dtype_arg = linalg || k_overload_is(schema, "ScalarOpt_dim_dtype");
  RtTensor *self;
  KScalar ord = {.kind = K_SCALAR_INT, .i = 2, .d = 2};
  bool keepdim = false, has_dtype = false;
  IrDtype given = IR_DTYPE_FLOAT32;
  if (!k_arg_tensor(schema, args, 0, &self, error) ||
      (!k_arg_is_none(args, 1) && !k_arg_scalar(schema, args, 1, &ord, error)) ||
      (with_dims && !k_arg_bool(schema, args, 3, &keepdim, error)) ||
      (dtype_arg && !k_arg_dtype(schema, args, 4, &has_dtype, &given, error)))
    return false;
  bool norm_dtype = dtype_arg && !linalg; /* norm's own: computes in any float dtype given */
  if (norm_dtype && !k_dtype_is_float(given)) {
    K_ERR_DTYPE(error,
                "norm(): the desired output dtype should be either floating point or complex. "
                "Got %s instead.",
                ir_dtype_type_name(given));
    return false;
  }
  if (!norm_dtype && !k_dtype_is_float(self->dtype)) {
    if (linalg)
      K_ERR_DTYPE(error,
                  "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                  "%s",
                  ir_dtype_type_name(self->dtype));
    else
      K_ERR_DTYPE(error,
                  "norm(): input dtype should be either floating point or complex. Got %s "
                  "instead.",
                  ir_dtype_type_name(self->dtype));
    return false;
  }
  IrDtype dtype = has_dtype ? given : self->dtype;
  if (!norm_dtype &&
      (!k_dtype_is_float(dtype) || (self->dtype == IR_DTYPE_FLOAT64 && dtype != self->dtype) ||
       (self->dtype == IR_DTYPE_FLOAT32 && dtype == IR_DTYPE_FLOAT16))) {
    K_ERR_DTYPE(error,
                "linalg.vector_norm: the dtype of the input (%s) should be convertible without "
                "narrowing to the specified dtype (%s)",
                ir_dtype_type_name(self->dtype), ir_dtype_type_name(dtype));
    return false;
  }
  if (linalg && rt_tensor_numel(self) == 0 && (ord.d < 0 || isinf(ord.d))) {
    int64_t dims[RT_MAX_DIMS];
    int nd = 0;
    if (!k_arg_is_none(args, 2) && !k_arg_int_list(schema, args, 2, dims, &nd, error))
      return false;
    for (int k = 0; k < nd; k++) {
      int w;
      if (!k_wrap_dim(dims[k], self->ndim, &w, error))
        return false;
      if (self->ndim > 0 && self->sizes[w] == 0) {
        K_ERR_SHAPE(error,
                    "linalg.vector_norm cannot compute the %g norm on the dimension "
                    "%" G_GINT64_FORMAT "because this dimension is empty and the operation does "
                    "not have an identity",
                    ord.d, dims[k]);
        return false;
      }
    }
    if (nd == 0) {
      K_ERR_SHAPE(error,
                  "linalg.vector_norm cannot compute the %g norm on an empty tensor because the "
                  "operation does not have an identity",
                  ord.d);
      return false;
    }
  }
  IrDtype compute = dtype == IR_DTYPE_FLOAT64 ? IR_DTYPE_FLOAT64 : IR_DTYPE_FLOAT32;
  KGroups g;
  if (!k_groups(schema, args, with_dims ? 2 : -1, self, keepdim, compute, &g, error))
    return false;
  RtTensor *result = rt_tensor_new_checked(compute, g.out_ndim, g.out_shape, error);
  if (!result) {
    rt_tensor_unref(g.data);
    return false;
  }
  for (int64_t gi = 0; gi < g.groups; gi++) {
    if (compute == IR_DTYPE_FLOAT32)
      ((float *)rt_tensor_data(result))[gi] =
          vector_norm_f32((const float *)rt_tensor_data(g.data) + gi * g.n, g.n, ord.d);
    else
      ((double *)rt_tensor_data(result))[gi] =
          vector_norm_f64((const double *)rt_tensor_data(g.data) + gi * g.n, g.n, ord.d);
  }
  rt_tensor_unref(g.data);
  outs[0] = rt_tensor(k_to_dtype(result, dtype));
  rt_tensor_unref(result);
  return true;
}
