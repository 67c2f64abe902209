/* pass_specialize_autograd_zero: in a backward graph whose inputs' types say which gradients
 * are undefined (Tensor[Undefined] = Zero, other tensors Nonzero), a GradOf whose inputs are
 * all Zero yields AutogradZero, one whose inputs are all known is inlined, and AutogradAdd
 * with a Zero side becomes the other side, with two Nonzero sides aten::add(a, b, 1).
 * Top-level block only (reference section 3, PyTorch's specializeAutogradZero). */
#include "autodiff/autodiff.h"

typedef enum { STATE_UNKNOWN = 0, STATE_ZERO, STATE_NONZERO } ZeroState;

static ZeroState state_of(GHashTable *state, IrValue *v) {
  return (ZeroState)GPOINTER_TO_INT(g_hash_table_lookup(state, v));
}

static void set_state(GHashTable *state, IrValue *v, ZeroState s) {
  g_hash_table_insert(state, v, GINT_TO_POINTER(s));
}

static bool specialize_grad_of(IrGraph *graph, IrNode *n, GHashTable *state) {
  bool all_zero = true, all_known = true;
  for (guint i = 0; i < ir_n_inputs(n); i++) {
    ZeroState s = state_of(state, ir_input(n, i));
    all_zero = all_zero && s == STATE_ZERO;
    all_known = all_known && s != STATE_UNKNOWN;
  }
  if (all_zero) {
    IrNode *z = ir_node_create(graph, IR_PRIM_AUTOGRAD_ZERO, 1);
    ir_node_insert_after(z, n);
    set_state(state, ir_output(z, 0), STATE_ZERO);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      ir_value_replace_all_uses_with(ir_output(n, i), ir_output(z, 0));
    ir_node_destroy(n);
    return true;
  }
  if (!all_known) {
    for (guint i = 0; i < ir_n_outputs(n); i++)
      set_state(state, ir_output(n, i), STATE_UNKNOWN);
    return false;
  }
  IrBlock *body = ir_block(n, 0);
  IR_FOR_EACH_NODE(m, body) {
    ir_node_move_before(m, n);
  }
  for (guint i = 0; i < ir_n_outputs(n); i++) {
    IrValue *result = ir_input(body->ret, i);
    ir_value_replace_all_uses_with(ir_output(n, i), result);
    set_state(state, result, STATE_NONZERO);
  }
  while (ir_n_inputs(body->ret) > 0)
    ir_block_erase_output(body, ir_n_inputs(body->ret) - 1);
  ir_node_destroy(n);
  return true;
}

static bool specialize_autograd_add(IrGraph *graph, IrNode *n, GHashTable *state) {
  IrValue *a = ir_input(n, 0), *b = ir_input(n, 1), *out = ir_output(n, 0);
  ZeroState sa = state_of(state, a), sb = state_of(state, b);
  if (sa == STATE_ZERO || sb == STATE_ZERO) {
    IrValue *other = sa == STATE_ZERO ? b : a;
    ir_value_replace_all_uses_with(out, other);
    ir_node_destroy(n);
    return true;
  }
  if (sa == STATE_NONZERO && sb == STATE_NONZERO) {
    ir_graph_set_insert_point(graph, n);
    IrValue *one = ir_graph_insert_constant_int(graph, 1);
    IrNode *add = ir_graph_insert_op(graph, IR_ATEN_ADD, (IrValue *const[]){a, b, one}, 3, 1);
    ir_value_set_type(ir_output(add, 0), out->type);
    set_state(state, ir_output(add, 0), STATE_NONZERO);
    ir_value_replace_all_uses_with(out, ir_output(add, 0));
    ir_node_destroy(n);
    ir_graph_set_insert_point(graph, NULL);
    return true;
  }
  set_state(state, out, STATE_UNKNOWN);
  return false;
}

bool pass_specialize_autograd_zero(IrGraph *graph) {
  GHashTable *state = g_hash_table_new(NULL, NULL);
  GPtrArray *inputs = ir_graph_inputs(graph);
  for (guint i = 0; i < inputs->len; i++) {
    IrValue *in = g_ptr_array_index(inputs, i);
    if (ir_type_is_tensor(in->type))
      set_state(state, in, in->type->undefined ? STATE_ZERO : STATE_NONZERO);
  }
  bool changed = false;
  IR_FOR_EACH_NODE(n, graph->block) {
    switch (n->kind) {
    case IR_PRIM_GRAD_OF: changed |= specialize_grad_of(graph, n, state); break;
    case IR_PRIM_AUTOGRAD_ADD: changed |= specialize_autograd_add(graph, n, state); break;
    case IR_PRIM_AUTOGRAD_ZERO: set_state(state, ir_output(n, 0), STATE_ZERO); break;
    default: break;
    }
  }
  g_hash_table_destroy(state);
  return changed;
}
