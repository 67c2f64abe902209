/* shape_rules_layout: the result rules of permute, flatten, slice, select, narrow, repeat,
 * constant_pad_nd and pad, stack, index_select and embedding (see
 * shape_rules.h). Views keep self's strides where PyTorch's do; flatten's result is
 * described as contiguous only when self is. */
#include "passes/pass_util.h"
#include "passes/shape_rules.h"

#include <string.h>

bool shape_rule_permute(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  gint64 dims[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_tensor_input(node, 0, &self) ||
      !shape_int_list_arg(node, "dims", dims, &n, &all_known) || !all_known || (int)n != self.rank)
    return false;
  *out = self;
  for (guint i = 0; i < n; i++) {
    int d;
    if (!shape_normalize_dim(dims[i], self.rank, &d))
      return false;
    out->sizes[i] = self.sizes[d];
    out->strides[i] = self.strides[d];
  }
  return true;
}

bool shape_rule_flatten(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  gint64 start, end;
  int s, e;
  if (!shape_tensor_input(node, 0, &self) || !pu_arg_int(node, "start_dim", &start) ||
      !pu_arg_int(node, "end_dim", &end))
    return false;
  *out = self;
  if (self.rank == 0) {
    out->rank = 1;
    out->sizes[0] = 1;
    out->has_sizes = true;
    shape_info_contiguous(out);
    return true;
  }
  if (!shape_normalize_dim(start, self.rank, &s) || !shape_normalize_dim(end, self.rank, &e) ||
      s > e)
    return false;
  int r = 0;
  for (int d = 0; d < self.rank; d++) {
    if (d > s && d <= e)
      out->sizes[r - 1] *= self.sizes[d];
    else
      out->sizes[r++] = self.sizes[d];
  }
  out->rank = r;
  bool contiguous = self.has_strides;
  ShapeInfo dense = self;
  shape_info_contiguous(&dense);
  for (int d = 0; d < self.rank && contiguous; d++)
    contiguous = self.sizes[d] == 1 || dense.strides[d] == self.strides[d];
  if (contiguous)
    shape_info_contiguous(out);
  else
    out->has_strides = false;
  return true;
}

/* slice.Tensor and select.int: the dim shrinks to the slice's length or disappears. */
bool shape_rule_slice(const IrNode *node, ShapeInfo *out) {
  gint64 dim;
  int d;
  if (!shape_tensor_input(node, 0, out) || !pu_arg_int(node, "dim", &dim) ||
      !shape_normalize_dim(dim, out->rank, &d))
    return false;
  if (node->kind == IR_ATEN_SELECT) {
    memmove(out->sizes + d, out->sizes + d + 1, sizeof(int64_t) * (size_t)(out->rank - d - 1));
    memmove(out->strides + d, out->strides + d + 1, sizeof(int64_t) * (size_t)(out->rank - d - 1));
    out->rank--;
    return true;
  }
  IrValue *start_v = pu_named_input(node, "start"), *end_v = pu_named_input(node, "end");
  gint64 start = 0, end = INT64_MAX, step;
  if (!pu_arg_int(node, "step", &step) || step <= 0 ||
      (start_v && !pu_must_be_none(start_v) && !pu_constant_int(start_v, &start)) ||
      (end_v && !pu_must_be_none(end_v) && !pu_constant_int(end_v, &end)))
    return false;
  if (out->has_sizes) {
    int64_t size = out->sizes[d];
    start = start < 0 ? MAX(start + size, 0) : MIN(start, size);
    end = end < 0 ? MAX(end + size, 0) : MIN(end, size);
    out->sizes[d] = end > start ? (end - start + step - 1) / step : 0;
  }
  out->strides[d] *= step;
  return true;
}

/* narrow: a view whose dim is length long (known when length is a constant). */
bool shape_rule_narrow(const IrNode *node, ShapeInfo *out) {
  gint64 dim, length;
  int d;
  if (!shape_tensor_input(node, 0, out) || !pu_arg_int(node, "dim", &dim) ||
      !shape_normalize_dim(dim, out->rank, &d))
    return false;
  if (pu_arg_int(node, "length", &length) && length >= 0)
    out->sizes[d] = length;
  else
    out->has_sizes = false;
  return true;
}

/* repeat: one dim per repeat, each self's size (1 for the leading ones) times its repeat. */
bool shape_rule_repeat(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  gint64 repeats[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_tensor_input(node, 0, &self) ||
      !shape_int_list_arg(node, "repeats", repeats, &n, &all_known) || (int)n < self.rank)
    return false;
  *out = self;
  out->rank = (int)n;
  int lead = (int)n - self.rank;
  for (int d = 0; d < (int)n; d++) {
    int64_t size = d < lead ? 1 : self.sizes[d - lead];
    out->has_sizes = out->has_sizes && repeats[d] >= 0 &&
                     !__builtin_mul_overflow(size, repeats[d], &out->sizes[d]);
  }
  out->has_sizes = out->has_sizes && all_known;
  shape_info_contiguous(out);
  return true;
}

/* constant_pad_nd, pad: self's rank and dtype; each padded dim grows by its two pads (sizes
 * known when the pads are constants). */
bool shape_rule_pad(const IrNode *node, ShapeInfo *out) {
  gint64 pad[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_tensor_input(node, 0, out) || !shape_int_list_arg(node, "pad", pad, &n, &all_known) ||
      n % 2 != 0 || (int)n / 2 > out->rank)
    return false;
  out->has_sizes = out->has_sizes && all_known;
  for (int k = 0; k < (int)n / 2 && out->has_sizes; k++) {
    int64_t *size = &out->sizes[out->rank - 1 - k];
    out->has_sizes = !__builtin_add_overflow(*size, pad[2 * k], size) &&
                     !__builtin_add_overflow(*size, pad[2 * k + 1], size) && *size >= 0;
  }
  shape_info_contiguous(out);
  return true;
}

/* stack: the pieces' common shape with their count inserted at dim; one dtype only (mixed
 * dtypes are left to the kernel's promotion). */
bool shape_rule_stack(const IrNode *node, ShapeInfo *out) {
  const IrNode *list = ir_input(node, 0)->node;
  gint64 dim;
  int d;
  if (list->kind != IR_PRIM_LIST_CONSTRUCT || ir_n_inputs(list) == 0 ||
      !pu_arg_int(node, "dim", &dim) || !shape_tensor_input(list, 0, out) ||
      out->rank + 1 > IR_MAX_RANK || !shape_normalize_dim(dim, out->rank + 1, &d))
    return false;
  for (guint i = 1; i < ir_n_inputs(list); i++) {
    ShapeInfo t;
    if (!shape_tensor_input(list, i, &t) || t.rank != out->rank || t.dtype != out->dtype)
      return false;
    if (t.device != out->device)
      out->device = -1;
    out->has_sizes = out->has_sizes && t.has_sizes;
  }
  memmove(out->sizes + d + 1, out->sizes + d, sizeof(int64_t) * (size_t)(out->rank - d));
  out->sizes[d] = ir_n_inputs(list);
  out->rank++;
  shape_info_contiguous(out);
  return true;
}

/* index_select: self's shape with dim's size the index's length. */
bool shape_rule_index_select(const IrNode *node, ShapeInfo *out) {
  ShapeInfo index;
  gint64 dim;
  int d;
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 2, &index) || index.rank > 1 ||
      out->rank < 1 || !pu_arg_int(node, "dim", &dim) || !shape_normalize_dim(dim, out->rank, &d))
    return false;
  out->has_sizes = out->has_sizes && index.has_sizes;
  out->sizes[d] = index.rank == 1 ? index.sizes[0] : 1;
  shape_info_contiguous(out);
  return true;
}

/* embedding: indices' shape plus weight's row length, in weight's dtype. */
bool shape_rule_embedding(const IrNode *node, ShapeInfo *out) {
  ShapeInfo weight;
  if (!shape_tensor_input(node, 0, &weight) || !shape_tensor_input(node, 1, out) ||
      weight.rank != 2 || out->rank + 1 > IR_MAX_RANK)
    return false;
  out->dtype = weight.dtype;
  out->has_sizes = out->has_sizes && weight.has_sizes;
  out->sizes[out->rank++] = weight.sizes[1];
  shape_info_contiguous(out);
  return true;
}
