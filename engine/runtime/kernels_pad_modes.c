/* Padding that repeats self's own elements: aten::pad in modes 'reflect', 'replicate' and
 * 'circular' (k_pad_by_mode, called by kernels_repeat_pad.c's aten::pad after its checks of the
 * mode, the pad's length and the value), and the gradients of the first two,
 * aten::reflection_pad{1,2,3}d_backward and aten::replication_pad{1,2,3}d_backward
 * (rt_kernel_pad_backward).
 *
 * Contracts, as PyTorch 1.13's PadNd.cpp (_pad_enum, _pad_circular), ReflectionPad.cpp and
 * ReplicationPadding.cpp:
 * - k = len(pad) / 2 dims are padded, the last k of self; pad[2p], pad[2p + 1] are the pads
 *   before and after the p-th dim from the end. aten::pad runs mode m with k pads on a self of
 *   rank k + 1 or k + 2 (k in 1..3), else PyTorch's NotImplementedError message; circular
 *   wants rank k + 2 exactly.
 * - Output sizes are self's plus both pads (PyTorch's int64 arithmetic, which wraps: a sum
 *   that wraps to a size PyTorch accepts is an overflow error here). Negative pads crop.
 * - reflect: out[o] = self[i] with i mirrored about the first and last kept element (the
 *   edge element itself not repeated); each pad must be smaller than its dim. replicate: the
 *   edge element repeated. circular: PyTorch's copies (the kept part first, then the pad
 *   before and the pad after of each dim from the last, taken from the far end of the kept
 *   part); a pad larger than its dim, or a crop leaving a negative size, is PyTorch's error;
 *   a pad taken from a part that is itself padding (a crop on one side shorter than the pad
 *   on the other) is refused with the message PyTorch's copy_ gives for a contiguous tensor
 *   (PyTorch copies uninitialized memory where the tensor is not contiguous).
 * - reflect and replicate run on float32 and float64 only, circular on every dtype; checks
 *   of self's shape and of the pads come first, with PyTorch's messages (per op: they
 *   differ in spacing and in which sizes they name).
 * - The backward ops: grad_input = zeros of self's shape, to which each element of
 *   grad_output is added at the place it was read from, in grad_output's row-major order
 *   (PyTorch's CPU loops, so sums round as theirs). padding has exactly 2k ints; self is
 *   checked as the forward checks it; grad_output must have the forward's output shape and
 *   self's dtype. */
#include <string.h>

#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

typedef enum { PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR } PadMode;

/* Padded dims j = 0..k-1 (j = 0 the first of them, self's dim rank - k + j). */
typedef struct {
  PadMode mode;
  int k;
  int64_t before[3], after[3], in[3], out[3];
} PadPlan;

/* The name PyTorch's dtype dispatch gives in its "not implemented for" message. */
static const char *kernel_name(PadMode mode, int k, bool backward) {
  static const char *const names[2][2][3] = {
      {{"reflection_pad1d", "reflection_pad2d", "reflection_pad3d_cpu"},
       {"reflection_pad1d_backward_cpu", "reflection_pad2d_backward",
        "reflection_pad3d_backward_cpu"}},
      {{"replication_pad1d_cpu", "replication_pad2d_cpu", "replication_pad3d_cpu"},
       {"replication_pad1d_backward_cpu", "replication_pad2d_backward_cpu",
        "replication_pad3d_backward_cpu"}},
  };
  return names[mode == PAD_REPLICATE][backward][k - 1];
}

/* PyTorch's check that self is a (batched) k-dim input without empty dims beyond the batch. */
static bool check_self(PadMode mode, int k, const RtTensor *self, GError **error) {
  int rank = self->ndim;
  bool batched = rank == k + 2, valid = rank == k + 1 || batched;
  bool legacy = mode == PAD_REFLECT && k < 3; /* reflection_pad1d/2d's own check */
  /* legacy: dims 1.. must be non-empty whatever the rank; else every dim past the batch */
  for (int d = legacy || batched ? 1 : 0; d < rank && valid; d++)
    valid = self->sizes[d] != 0;
  if (valid)
    return true;
  if (legacy) {
    /* self is empty here, so PyTorch's print of it is its legacy type and sizes only */
    g_autoptr(GString) sizes = g_string_new(NULL);
    for (int d = 0; d < rank; d++)
      g_string_append_printf(sizes, "%s%" G_GINT64_FORMAT, d ? "," : "", self->sizes[d]);
    K_ERR_SHAPE(
        error, "%dD or %dD (batch mode) tensor expected for input, but got: [ torch.%sTensor{%s} ]",
        k + 1, k + 2, ir_dtype_type_name(self->dtype), sizes->str);
    return false;
  }
  char shape[256];
  k_shape_text(shape, sizeof shape, rank, self->sizes);
  K_ERR_SHAPE(error,
              "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other "
              "non-zero dimensions for input, but got: %s",
              k + 1, k + 2, shape);
  return false;
}

/* PyTorch's "too small" message: the input's and the output's padded sizes (each op's own
 * spacing; reflection_pad1d's check passes 2, an argument position, which lands in its text). */
static void too_small(PadMode mode, const PadPlan *p, GError **error) {
  const int64_t *i = p->in, *o = p->out;
#define I64 "%" G_GINT64_FORMAT
  if (p->k == 1 && mode == PAD_REFLECT)
    K_ERR_SHAPE(error, "2input (W: " I64 ")is too small. Calculated output W: " I64, i[0], o[0]);
  else if (p->k == 1)
    K_ERR_SHAPE(error, "input (W: " I64 ") is too small. Calculated output W: " I64, i[0], o[0]);
  else if (p->k == 2 && mode == PAD_REFLECT)
    K_ERR_SHAPE(error,
                "input (H: " I64 ", W: " I64 ")is too small. Calculated output H: " I64 " W: " I64,
                i[0], i[1], o[0], o[1]);
  else if (p->k == 2)
    K_ERR_SHAPE(
        error, "input (H: " I64 ", W: " I64 " ) is too small. Calculated output H: " I64 " W: " I64,
        i[0], i[1], o[0], o[1]);
  else
    K_ERR_SHAPE(error,
                "input (D: " I64 " H: " I64 ", W: " I64 ") is too small. Calculated output D: " I64
                " H: " I64 " W: " I64,
                i[0], i[1], i[2], o[0], o[1], o[2]);
#undef I64
}

/* An output size whose int64 sum wrapped (to one PyTorch's checks let through) is an error. */
static bool fits_int64(const PadPlan *p, int lead, const bool *overflow, GError **error) {
  for (int j = 0; j < p->k; j++) {
    if (overflow[j]) {
      K_ERR_SHAPE(error,
                  "pad: the input size %" G_GINT64_FORMAT " plus padding %" G_GINT64_FORMAT
                  " and %" G_GINT64_FORMAT " overflows int64 (dimension %d)",
                  p->in[j], p->before[j], p->after[j], lead + j);
      return false;
    }
  }
  return true;
}

/* The pads of self's last k dims and the output sizes, with PyTorch's checks in its order. */
static bool plan_pads(PadMode mode, int k, const RtTensor *self, const int64_t *pad, PadPlan *p,
                      int64_t *out_sizes, GError **error) {
  int rank = self->ndim, lead = rank - k;
  p->mode = mode;
  p->k = k;
  bool overflow[3] = {false};
  for (int j = 0; j < k; j++) {
    p->before[j] = pad[2 * (k - 1 - j)];
    p->after[j] = pad[2 * (k - 1 - j) + 1];
    p->in[j] = self->sizes[lead + j];
    int64_t sum;
    overflow[j] = __builtin_add_overflow(p->in[j], p->before[j], &sum) ||
                  __builtin_add_overflow(sum, p->after[j], &sum);
    /* PyTorch's int64 sum, wrapped */
    p->out[j] = (int64_t)((uint64_t)p->in[j] + (uint64_t)p->before[j] + (uint64_t)p->after[j]);
  }
  memcpy(out_sizes, self->sizes, sizeof(int64_t) * (size_t)rank);
  for (int j = 0; j < k; j++)
    out_sizes[lead + j] = p->out[j];
  char shape[256];
  if (mode == PAD_CIRCULAR) {
    for (int j = 0; j < k; j++) {
      if (p->before[j] > p->in[j] || p->after[j] > p->in[j]) {
        K_ERR_SHAPE(error, "Padding value causes wrapping around more than once.");
        return false;
      }
      if (p->out[j] < 0) {
        K_ERR_SHAPE(error, "Negative padding value is resulting in an empty dimension");
        return false;
      }
    }
    if (!fits_int64(p, lead, overflow, error))
      return false;
    for (int j = 0; j < k; j++) {
      if ((p->before[j] > 0 && p->before[j] > p->in[j] + MIN(p->after[j], 0)) ||
          (p->after[j] > 0 && p->after[j] > p->in[j] + MIN(p->before[j], 0))) {
        K_ERR_SHAPE(error, "unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.");
        return false;
      }
    }
    return true;
  }
  if (mode == PAD_REFLECT) {
    /* the width first, then the height, then the depth: Argument #4, #6, #8 */
    for (int j = k - 1; j >= 0; j--) {
      if (p->before[j] < p->in[j] && p->after[j] < p->in[j])
        continue;
      if (k == 2)
        g_snprintf(shape, sizeof shape, "%" G_GINT64_FORMAT, p->in[j]);
      else
        k_shape_text(shape, sizeof shape, rank, self->sizes);
      K_ERR_SHAPE(error,
                  "Argument #%d: Padding size should be less than the corresponding input "
                  "dimension, but got: padding (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                  ") at dimension %d of input %s",
                  4 + 2 * (k - 1 - j), p->before[j], p->after[j], lead + j, shape);
      return false;
    }
  }
  bool any_positive = false, any_negative = false;
  for (int j = 0; j < k; j++) {
    any_positive |= p->out[j] >= 1;
    any_negative |= p->out[j] < 0;
  }
  if (!any_positive) {
    too_small(mode, p, error);
    return false;
  }
  if (any_negative) {
    if (mode == PAD_REFLECT && k == 2) {
      K_ERR_SHAPE(error, "numel: integer multiplication overflow");
    } else {
      int j = 0;
      while (p->out[j] >= 0)
        j++;
      k_shape_text(shape, sizeof shape, rank, out_sizes);
      K_ERR_SHAPE(error, "Trying to create tensor with negative dimension %" G_GINT64_FORMAT ": %s",
                  p->out[j], shape);
    }
    return false;
  }
  return fits_int64(p, lead, overflow, error);
}

/* The index in self of output index o along padded dim j. Written in terms of o - before
 * (exact in uint64 once o >= before), so that no pad PyTorch accepts overflows. */
static int64_t source_index(const PadPlan *p, int j, int64_t o) {
  int64_t before = p->before[j], size = p->in[j];
  if (p->mode == PAD_CIRCULAR) {
    int64_t after = p->after[j], out = p->out[j];
    if (before > 0 && o < before) /* taken from the kept part's far end */
      o += size + MIN(after, 0);
    else if (after > 0 && o >= out - after)
      o -= out - after - MAX(before, 0);
    return o - before;
  }
  if (o < before) /* only when before > 0 */
    return p->mode == PAD_REFLECT ? before - o : 0;
  uint64_t into = (uint64_t)o - (uint64_t)before;
  if (into < (uint64_t)size)
    return (int64_t)into;
  return p->mode == PAD_REFLECT ? (int64_t)(2 * (uint64_t)(size - 1) - into) : size - 1;
}

/* Per padded dim, the source index of every output index (the output has elements, so each
 * map is no longer than the output). */
static int64_t *source_maps(const PadPlan *p, int64_t **maps) {
  int64_t total = 0;
  for (int j = 0; j < p->k; j++)
    total += p->out[j];
  int64_t *all = g_new(int64_t, total), *at = all;
  for (int j = 0; j < p->k; j++) {
    maps[j] = at;
    for (int64_t o = 0; o < p->out[j]; o++) {
      at[o] = source_index(p, j, o);
      K_INVARIANT(at[o] >= 0 && at[o] < p->in[j], "a padded place reads inside self");
    }
    at += p->out[j];
  }
  return all;
}

/* Visits the elements of a tensor of `sizes` in row-major order, giving each one's offset
 * (in elements) in a tensor of `strides` and the offset of its source in self. */
typedef void (*PadVisit)(int64_t at, int64_t source, void *ctx);

static void visit_padded(const PadPlan *p, int rank, const int64_t *sizes, const int64_t *strides,
                         const int64_t *self_strides, PadVisit visit, void *ctx) {
  int64_t numel = 1;
  for (int d = 0; d < rank; d++)
    numel *= sizes[d];
  if (numel == 0)
    return;
  int lead = rank - p->k;
  int64_t *maps[3];
  g_autofree int64_t *all = source_maps(p, maps);
  int64_t coord[RT_MAX_DIMS] = {0};
  for (int64_t i = 0; i < numel; i++) {
    int64_t at = 0, source = 0;
    for (int d = 0; d < rank; d++) {
      at += coord[d] * strides[d];
      source += (d < lead ? coord[d] : maps[d - lead][coord[d]]) * self_strides[d];
    }
    visit(at, source, ctx);
    for (int d = rank - 1; d >= 0 && ++coord[d] == sizes[d]; d--)
      coord[d] = 0;
  }
}

typedef struct {
  char *to;
  const char *from;
  size_t elsize;
  IrDtype dtype;
} PadCopy;

static void copy_element(int64_t at, int64_t source, void *ctx) {
  PadCopy *c = ctx;
  memcpy(c->to + at * (int64_t)c->elsize, c->from + source * (int64_t)c->elsize, c->elsize);
}

static void add_element(int64_t at, int64_t source, void *ctx) {
  PadCopy *c = ctx; /* from: grad_output at `at`; to: grad_input at `source` */
  if (c->dtype == IR_DTYPE_FLOAT32)
    ((float *)c->to)[source] += ((const float *)c->from)[at];
  else
    ((double *)c->to)[source] += ((const double *)c->from)[at];
}

/* reflect and replicate run on float32 and float64 (not half: PyTorch 1.13's CPU kernels) */
static bool runs_on(IrDtype dtype) {
  return dtype == IR_DTYPE_FLOAT32 || dtype == IR_DTYPE_FLOAT64;
}

static bool mode_of(const char *name, PadMode *mode) {
  static const char *const names[] = {"reflect", "replicate", "circular"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(name, names[i]) == 0) {
      *mode = (PadMode)i;
      return true;
    }
  return false;
}

bool k_pad_by_mode(const char *mode_name, RtTensor *self, const int64_t *pad, int n_pad,
                   RtValue *out, GError **error) {
  PadMode mode;
  K_INVARIANT(mode_of(mode_name, &mode), "k_pad_by_mode gets reflect, replicate or circular");
  int k = n_pad / 2;
  if (n_pad == 0 || k > 3 || (self->ndim != k + 1 && self->ndim != k + 2)) {
    K_ERR(error, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    return false;
  }
  if (mode == PAD_CIRCULAR && self->ndim != k + 2) {
    K_ERR_SHAPE(error, "Invalid padding size, expected %d but got %d", 2 * (self->ndim - 2), n_pad);
    return false;
  }
  PadPlan p;
  int64_t sizes[RT_MAX_DIMS];
  if ((mode != PAD_CIRCULAR && !check_self(mode, k, self, error)) ||
      !plan_pads(mode, k, self, pad, &p, sizes, error))
    return false;
  if (mode != PAD_CIRCULAR && !runs_on(self->dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", kernel_name(mode, k, false),
                ir_dtype_type_name(self->dtype));
    return false;
  }
  RtTensor *result = rt_tensor_new_checked(self->dtype, self->ndim, sizes, error);
  if (!result)
    return false;
  PadCopy c = {rt_tensor_data(result), rt_tensor_data(self), rt_dtype_size(self->dtype),
               self->dtype};
  visit_padded(&p, self->ndim, sizes, result->strides, self->strides, copy_element, &c);
  *out = rt_tensor(result);
  return true;
}

bool rt_kernel_pad_backward(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                            RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  RtTensor *grad, *self;
  int64_t pad[RT_MAX_DIMS];
  int n_pad;
  if (!k_arg_tensor(schema, args, 0, &grad, error) ||
      !k_arg_tensor(schema, args, 1, &self, error) ||
      !k_arg_int_list(schema, args, 2, pad, &n_pad, error))
    return false;
  const char *name = k_op_short_name(schema); /* reflection_pad2d_backward, ... */
  PadMode mode = g_str_has_prefix(name, "reflection") ? PAD_REFLECT : PAD_REPLICATE;
  int k = name[strlen(mode == PAD_REFLECT ? "reflection_pad" : "replication_pad")] - '0';
  if (n_pad != 2 * k) {
    K_ERR_SHAPE(error, "padding size is expected to be %d", 2 * k);
    return false;
  }
  if (self->ndim != k + 1 && self->ndim != k + 2) {
    char shape[256];
    k_shape_text(shape, sizeof shape, self->ndim, self->sizes);
    K_ERR_SHAPE(error, "%s: self must have %d or %d dims, not %s", name, k + 1, k + 2, shape);
    return false;
  }
  PadPlan p;
  int64_t sizes[RT_MAX_DIMS];
  if (!check_self(mode, k, self, error) || !plan_pads(mode, k, self, pad, &p, sizes, error))
    return false;
  if (grad->ndim == self->ndim)
    for (int j = k - 1; j >= 0; j--) {
      int64_t got = grad->sizes[self->ndim - k + j];
      if (got == p.out[j])
        continue;
      static const char *const what[3] = {"depth", "height", "width"};
      bool reflect1 = mode == PAD_REFLECT && k == 1, replicate1 = mode == PAD_REPLICATE && k == 1;
      K_ERR_SHAPE(error,
                  "%s %s unexpected. Expected: %" G_GINT64_FORMAT "%s Got: %" G_GINT64_FORMAT,
                  reflect1 ? "grad_output" : "gradOutput", what[3 - k + j], p.out[j],
                  replicate1 ? "" : ",", got);
      return false;
    }
  if (grad->ndim != self->ndim ||
      memcmp(grad->sizes, sizes, sizeof(int64_t) * (size_t)grad->ndim)) {
    char want[256], got[256];
    k_shape_text(want, sizeof want, self->ndim, sizes);
    k_shape_text(got, sizeof got, grad->ndim, grad->sizes);
    K_ERR_SHAPE(error, "%s: grad_output's shape %s is not the padded input's %s", name, got, want);
    return false;
  }
  if (!runs_on(self->dtype)) {
    K_ERR_DTYPE(error, "\"%s\" not implemented for '%s'", kernel_name(mode, k, true),
                ir_dtype_type_name(self->dtype));
    return false;
  }
  if (grad->dtype != self->dtype) {
    K_ERR_DTYPE(error, "expected scalar type %s but found %s", ir_dtype_type_name(self->dtype),
                ir_dtype_type_name(grad->dtype));
    return false;
  }
  RtTensor *result = rt_tensor_zeros_checked(self->dtype, self->ndim, self->sizes, error);
  if (!result)
    return false;
  PadCopy c = {rt_tensor_data(result), rt_tensor_data(grad), rt_dtype_size(self->dtype),
               self->dtype};
  visit_padded(&p, self->ndim, grad->sizes, grad->strides, result->strides, add_element, &c);
  outs[0] = rt_tensor(result);
  return true;
}
