/* Closures (contract in emit.h): a nested def compiles to its own graph, inputs (context,
 * params...), whose first node unpacks the context tuple into the outer values the body
 * reads; the outer graph gets prim::Function[Subgraph=that graph] and
 * prim::TupleConstruct(function, TupleConstruct(captured values...)). Algorithm: PyTorch's
 * emitClosure (script/compiler.cpp, seed 003); captured values in order of first use. */
#include "script/emit.h"

#include "passes/passes.h"

bool emit_closure(Emitter *em, const ScriptDef *def) {
  IrGraph *outer_graph = em->graph;
  Frame *outer_frame = em->frame;
  IrGraph *body_graph = ir_graph_new();
  IrValue *context = ir_graph_add_input(body_graph, ir_type_tuple(NULL, 0), "context");
  IrNode *unpack = ir_node_create(body_graph, IR_PRIM_TUPLE_UNPACK, 0);
  ir_node_add_input(unpack, context);
  ir_node_append_to(unpack, body_graph->block);

  GHashTable *outer_literals = em->literals;
  em->literals = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  em->graph = body_graph;
  em->frame = NULL;
  Frame *top = emit_frame_push(em, body_graph->block);
  top->capture_from = outer_frame;
  top->capture_unpack = unpack;
  top->captured = g_ptr_array_new();
  bool ok = true;
  for (guint i = 0; ok && i < def->params->len; i++) {
    const ScriptParam *param = g_ptr_array_index(def->params, i);
    const IrType *type = emit_param_type(em, param->type);
    if (type == NULL)
      ok = false;
    else
      g_hash_table_insert(top->vars, (gpointer)param->name,
                          ir_graph_add_input(body_graph, type, param->name));
  }
  ok = ok && emit_function_body(em, def);
  g_autoptr(GPtrArray) captured = g_ptr_array_ref(top->captured);
  emit_frame_pop(em);
  g_hash_table_unref(em->literals);
  em->literals = outer_literals;
  em->graph = outer_graph;
  em->frame = outer_frame;
  if (!ok) {
    ir_graph_free(body_graph);
    return false;
  }
  /* What the exit transform made and left unused goes; the context's unpack stays whole, as
   * PyTorch prints it (held by temporary graph outputs while dead code is removed). */
  GPtrArray *outputs = ir_graph_outputs(body_graph);
  guint n_results = outputs->len;
  for (guint i = 0; i < ir_n_outputs(unpack); i++)
    ir_graph_add_output(body_graph, ir_output(unpack, i));
  pass_eliminate_dead_code(body_graph);
  while (outputs->len > n_results)
    ir_graph_erase_output(body_graph, n_results);

  guint n = captured->len;
  g_autofree const IrType **types = g_new(const IrType *, n + 1);
  for (guint i = 0; i < n; i++)
    types[i] = ((IrValue *)g_ptr_array_index(captured, i))->type;
  const IrType *context_type = ir_type_tuple(types, n);
  ir_value_set_type(context, context_type);
  if (n == 0 && !unpack->destroyed)
    ir_node_destroy(unpack);

  IrNode *function = ir_node_create(em->graph, IR_PRIM_FUNCTION, 1);
  ir_value_set_type(ir_output(function, 0), ir_type_none());
  ir_node_set_attr_g(function, IR_ATTR_SUBGRAPH, body_graph);
  emit_append(em, function);
  IrNode *pack = ir_node_create(em->graph, IR_PRIM_TUPLE_CONSTRUCT, 1);
  for (guint i = 0; i < n; i++)
    ir_node_add_input(pack, g_ptr_array_index(captured, i));
  ir_value_set_type(ir_output(pack, 0), context_type);
  emit_append(em, pack);
  IrNode *closure = ir_node_create(em->graph, IR_PRIM_TUPLE_CONSTRUCT, 1);
  ir_node_add_input(closure, ir_output(function, 0));
  ir_node_add_input(closure, ir_output(pack, 0));
  const IrType *pair[2] = {ir_type_none(), context_type};
  ir_value_set_type(ir_output(closure, 0), ir_type_tuple(pair, 2));
  emit_append(em, closure);
  emit_bind(em, def->name, ir_output(closure, 0));
  return true;
}
