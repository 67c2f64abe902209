/* shape_rules_index: the result rules of masked_fill, gather, index.Tensor, topk, argsort and
 * baddbmm (see shape_rules.h); scatter_add, index_put and sort's values keep self's shape
 * (`like`). */
#include "passes/pass_util.h"
#include "passes/shape_rules.h"

/* masked_fill: self and mask broadcast, in self's dtype. */
bool shape_rule_masked_fill(const IrNode *node, ShapeInfo *out) {
  ShapeInfo mask;
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 1, &mask))
    return false;
  ShapeInfo self = *out;
  int rank = self.rank > mask.rank ? self.rank : mask.rank;
  out->rank = rank;
  out->has_sizes = self.has_sizes && mask.has_sizes;
  for (int d = 0; d < rank && out->has_sizes; d++) {
    int is = d - (rank - self.rank), im = d - (rank - mask.rank);
    int64_t a = is >= 0 ? self.sizes[is] : 1, b = im >= 0 ? mask.sizes[im] : 1;
    if (a != b && a != 1 && b != 1)
      return false;
    out->sizes[d] = a == 1 ? b : a;
  }
  shape_info_contiguous(out);
  return true;
}

/* gather: index's shape in self's dtype. */
bool shape_rule_gather(const IrNode *node, ShapeInfo *out) {
  ShapeInfo index;
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 2, &index))
    return false;
  out->rank = index.rank;
  out->has_sizes = index.has_sizes;
  for (int d = 0; d < index.rank; d++)
    out->sizes[d] = index.sizes[d];
  shape_info_contiguous(out);
  return true;
}

/* index.Tensor: self's dtype; its rank when the indices are a ListConstruct whose tensors'
 * ranks and dtypes are known (an int64 index takes one dim, a bool mask its own rank, and
 * their common shape, a mask counting as one dim, goes in their place). The sizes depend on
 * the values of masks and are left unknown. */
bool shape_rule_advanced_index(const IrNode *node, ShapeInfo *out) {
  const IrValue *list = ir_input(node, 1);
  if (!shape_tensor_input(node, 0, out) || list->node->kind != IR_PRIM_LIST_CONSTRUCT)
    return false;
  int covered = 0, indexed = 0, index_rank = 0; /* dims the list reaches, dims indexed */
  for (guint i = 0; i < ir_n_inputs(list->node); i++) {
    const IrType *t = ir_input(list->node, i)->type;
    if (t->kind == IR_TYPE_NONE) {
      covered++;
      continue;
    }
    ShapeInfo index;
    shape_info_from_type(t, &index);
    if (!index.known || (index.dtype != IR_DTYPE_INT64 && index.dtype != IR_DTYPE_BOOL))
      return false;
    bool mask = index.dtype == IR_DTYPE_BOOL;
    if (mask && index.rank == 0) /* no nonzero() columns: indexes nothing */
      continue;
    covered += mask ? index.rank : 1;
    indexed += mask ? index.rank : 1;
    index_rank = MAX(index_rank, mask ? 1 : index.rank);
  }
  if ((int)ir_n_inputs(list->node) > out->rank || covered > out->rank ||
      out->rank - indexed + index_rank > IR_MAX_RANK)
    return false; /* the kernel refuses these */
  out->rank = out->rank - indexed + index_rank;
  out->has_sizes = false;
  out->has_strides = false;
  return true;
}

/* topk's values (output 0): self's dtype, k elements along dim (unknown sizes where k or dim
 * is not a constant). */
bool shape_rule_topk(const IrNode *node, ShapeInfo *out) {
  gint64 k, dim;
  int d;
  if (!shape_tensor_input(node, 0, out))
    return false;
  if (pu_arg_int(node, "k", &k) && pu_arg_int(node, "dim", &dim) &&
      shape_normalize_dim(dim, out->rank, &d) && out->rank > 0) {
    out->sizes[d] = k;
  } else {
    out->has_sizes = false;
  }
  shape_info_contiguous(out);
  return true;
}

/* argsort: self's shape in int64. */
bool shape_rule_argsort(const IrNode *node, ShapeInfo *out) {
  if (!shape_tensor_input(node, 0, out))
    return false;
  out->dtype = IR_DTYPE_INT64;
  shape_info_contiguous(out);
  return true;
}

/* baddbmm: [b, n, p] from batch1 [b, n, m] and batch2 [b, m, p], in batch1's dtype. */
bool shape_rule_baddbmm(const IrNode *node, ShapeInfo *out) {
  ShapeInfo b2;
  if (!shape_tensor_input(node, 1, out) || !shape_tensor_input(node, 2, &b2) || out->rank != 3 ||
      b2.rank != 3)
    return false;
  out->has_sizes = out->has_sizes && b2.has_sizes;
  if (out->has_sizes && (out->sizes[0] != b2.sizes[0] || out->sizes[2] != b2.sizes[1]))
    return false; /* the kernel refuses these */
  out->sizes[2] = b2.sizes[2];
  shape_info_contiguous(out);
  return true;
}
