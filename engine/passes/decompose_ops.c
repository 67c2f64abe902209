/* pass_decompose_ops: addmm(self, m1, m2, beta=1, alpha=1) with both scalars constant 1 ->
 * add(mm(m1, m2), self, 1); meant for graphs that are not differentiated (runNondiff). */
#include "passes/pass_util.h"
#include "passes/passes.h"

/* Algorithm: PyTorch's passes/decompose_ops.cpp (2019): the decomposition exposes the mm to
 * BatchMM and the add to the fuser. The executor runs it only in runNondiffOptimization,
 * where no gradient formula for addmm is needed. The add takes over the addmm's output type,
 * debug name and source; the mm gets a tensor type of rank 2 with the output's dtype and
 * device when those are known, else Tensor. */

static const IrType *mm_type(const IrType *out) {
  if (!ir_type_is_tensor(out) || !out->has_dtype || out->device < 0)
    return ir_type_tensor();
  IrType proto = {.kind = IR_TYPE_TENSOR,
                  .has_dtype = true,
                  .dtype = out->dtype,
                  .rank = 2,
                  .requires_grad = out->requires_grad,
                  .device = out->device};
  return ir_type_tensor_from(&proto);
}

static bool decompose(IrNode *node) {
  double beta, alpha;
  if (node->kind != IR_ATEN_ADDMM || !pu_arg_number(node, "beta", &beta) ||
      !pu_arg_number(node, "alpha", &alpha) || beta != 1 || alpha != 1)
    return false;
  IrGraph *graph = ir_node_graph(node);
  IrNode *mm = ir_node_create(graph, IR_ATEN_MM, 1);
  ir_node_add_input(mm, ir_input(node, 1));
  ir_node_add_input(mm, ir_input(node, 2));
  ir_node_insert_before(mm, node);
  PASS_INVARIANT(ir_node_resolve_schema(mm) != NULL, "pass_decompose_ops", "aten::mm resolves");
  mm->source = node->source;
  ir_value_set_type(ir_output(mm, 0), mm_type(ir_output(node, 0)->type));
  IrValue *one = pu_insert_int_before(node, 1);
  IrNode *add = ir_node_create(graph, IR_ATEN_ADD, 1);
  ir_node_add_input(add, ir_output(mm, 0));
  ir_node_add_input(add, ir_input(node, 0));
  ir_node_add_input(add, one);
  ir_node_insert_before(add, node);
  PASS_INVARIANT(ir_node_resolve_schema(add) != NULL, "pass_decompose_ops",
                 "aten::add.Tensor resolves");
  add->source = node->source;
  IrValue *old = ir_output(node, 0), *out = ir_output(add, 0);
  ir_value_set_type(out, old->type);
  ir_value_replace_all_uses_with(old, out);
  if (old->name) {
    char *name = g_strdup(old->name);
    ir_value_set_name(old, NULL);
    ir_value_set_name(out, name);
    g_free(name);
  }
  ir_node_destroy(node);
  return true;
}

static bool decompose_block(IrBlock *block) {
  bool changed = false;
  IR_FOR_EACH_NODE(n, block) {
    for (guint b = 0; b < ir_n_blocks(n); b++)
      changed |= decompose_block(ir_block(n, b));
    changed |= decompose(n);
  }
  return changed;
}

bool pass_decompose_ops(IrGraph *graph) {
  return decompose_block(graph->block);
}
