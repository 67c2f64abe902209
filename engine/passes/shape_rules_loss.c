/* shape_rules_loss: the result rules of the class and binary losses (nll_loss, nll_loss_nd,
 * cross_entropy_loss, binary_cross_entropy_with_logits; see shape_rules.h). The loss has
 * self's dtype and device; reduction none (0) keeps one element per target (the target's
 * shape), mean and sum give a 0-dim tensor. The reduction must be a constant. */
#include "passes/pass_util.h"
#include "passes/shape_rules.h"

static bool reduced(const IrNode *node, const ShapeInfo *per_element, ShapeInfo *out) {
  gint64 reduction;
  if (!pu_arg_int(node, "reduction", &reduction))
    return false;
  if (reduction == 0) {
    out->rank = per_element->rank;
    out->has_sizes = per_element->has_sizes;
    for (int k = 0; k < out->rank; k++)
      out->sizes[k] = per_element->sizes[k];
  } else {
    out->rank = 0;
    out->has_sizes = true;
  }
  shape_info_contiguous(out);
  return true;
}

bool shape_rule_nll_loss(const IrNode *node, ShapeInfo *out) {
  ShapeInfo target;
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 1, &target))
    return false;
  return reduced(node, &target, out);
}

bool shape_rule_bce_with_logits(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  if (!shape_tensor_input(node, 0, &self))
    return false;
  *out = self;
  return reduced(node, &self, out);
}
