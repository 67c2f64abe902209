/* shape_rules_index: the result rules of masked_fill, gather and baddbmm (see
 * shape_rules.h); scatter_add keeps self's shape (`like`). */
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
