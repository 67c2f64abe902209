/* differentiate (reference section 3): a graph becomes a Gradient {f, df, index lists}; the
 * reverse program is built in a detached block as one prim::GradOf per forward node whose
 * outputs require grad, cleaned up, and lambda-lifted into df. */
#include <string.h>

#include "autodiff/autodiff.h"
#include "autodiff/formulas.h"
#include "autodiff/subgraph_utils.h"
#include "passes/passes.h"

typedef struct {
  IrGraph *f;
  IrNode *holder; /* detached node owning the reverse block; never inserted */
  IrBlock *rev;
  GHashTable *grad_map; /* forward IrValue* -> its gradient so far */
  AdGradient *gradient;
  AdFormulaLookup lookup; /* graph formulas preferred to the C ones, or NULL */
  gpointer lookup_data;
} Reverse;

/* Does v take part in autodiff? Tensors whose requires_grad is yes, or unknown with a
 * floating (or unknown) dtype. */
static bool requires_grad(const IrValue *v) {
  const IrType *t = v->type;
  if (!ir_type_is_tensor(t) || t->undefined)
    return false;
  if (t->has_dtype && !ir_type_is_float_dtype(t->dtype))
    return false;
  return t->requires_grad != IR_NO;
}

static bool output_requires_grad(const IrNode *node) {
  for (guint i = 0; i < ir_n_outputs(node); i++)
    if (requires_grad(ir_output(node, i)))
      return true;
  return false;
}

static IrValue *insert_autograd_zero(IrGraph *g) {
  IrNode *z = ir_node_create(g, IR_PRIM_AUTOGRAD_ZERO, 1);
  ir_graph_insert(g, z);
  return ir_output(z, 0);
}

static IrNode *create_autograd_add(IrGraph *g, IrValue *a, IrValue *b) {
  IrNode *n = ir_node_create(g, IR_PRIM_AUTOGRAD_ADD, 1);
  ir_node_add_input(n, a);
  ir_node_add_input(n, b);
  return n;
}

static IrValue *get_grad(Reverse *r, IrValue *v) {
  IrValue *g = g_hash_table_lookup(r->grad_map, v);
  if (!g) {
    g = insert_autograd_zero(r->f);
    g_hash_table_insert(r->grad_map, v, g);
  }
  return g;
}

static void set_grad(Reverse *r, IrValue *x, IrValue *dx) {
  IrValue *prev = g_hash_table_lookup(r->grad_map, x);
  if (prev)
    dx = ir_output(ir_graph_insert(r->f, create_autograd_add(r->f, prev, dx)), 0);
  g_hash_table_insert(r->grad_map, x, dx);
}

/* Gives input `in` of a reversed node its gradient `grad`, computed in the GradOf block
 * `grad_of`: a new GradOf output accumulated into grad_map. A Tensor[] gradient of a list
 * built by prim::ListConstruct (cat, stack, broadcast_tensors) is unpacked in the block
 * into one gradient per element, so gradients flow to the tensors the list was built from
 * and no list value ever holds a gradient. */
static void add_input_gradient(Reverse *r, IrNode *grad_of, IrValue *in, IrValue *grad) {
  IrGraph *f = r->f;
  IrBlock *body = ir_block(grad_of, 0);
  if (!ir_type_is_tensor_list(in->type) || !ir_type_is_tensor_list(grad->type)) {
    ir_block_add_output(body, grad);
    IrValue *out = ir_node_add_output(grad_of, grad->type);
    if (requires_grad(in))
      set_grad(r, in, out);
    return;
  }
  IrNode *construct = in->node;
  if (construct->kind != IR_PRIM_LIST_CONSTRUCT)
    g_error("autodiff invariant: a Tensor[] gradient for a list not built in the graph");
  guint n = ir_n_inputs(construct);
  IrNode *saved_point = f->insert_before;
  ir_graph_set_insert_point(f, body->ret);
  IrNode *unpack = ir_graph_insert(f, ir_node_create(f, IR_PRIM_LIST_UNPACK, n));
  ir_node_add_input(unpack, grad);
  for (guint i = 0; i < n; i++)
    ir_value_set_type(ir_output(unpack, i), ir_type_tensor());
  ir_graph_set_insert_point(f, saved_point);
  for (guint i = 0; i < n; i++) {
    IrValue *element = ir_input(construct, i);
    if (!requires_grad(element))
      continue;
    ir_block_add_output(body, ir_output(unpack, i));
    set_grad(r, element, ir_node_add_output(grad_of, ir_type_tensor()));
  }
}

/* The forward's arguments for `node`: its inputs, then for prim::ConstantChunk (whose formula
 * is aten::chunk's) its chunks and dim attributes as constants. */
static GPtrArray *formula_arguments(IrGraph *f, IrNode *node) {
  GPtrArray *args = g_ptr_array_new();
  for (guint i = 0; i < ir_n_inputs(node); i++)
    g_ptr_array_add(args, ir_input(node, i));
  if (node->kind == IR_PRIM_CONSTANT_CHUNK) {
    g_ptr_array_add(args, ir_graph_insert_constant_int(f, ir_node_attr_i(node, IR_ATTR_CHUNKS)));
    g_ptr_array_add(args, ir_graph_insert_constant_int(f, ir_node_attr_i(node, IR_ATTR_DIM)));
  }
  return args;
}

/* The formula's results as the node's outputs: a Tensor[] result for a node with one output
 * per piece (prim::ConstantChunk) is unpacked. */
static GPtrArray *formula_results(IrGraph *f, IrNode *node, GPtrArray *forward) {
  GPtrArray *results = g_ptr_array_new();
  IrValue *first = g_ptr_array_index(forward, 0);
  guint n_out = ir_n_outputs(node);
  if (ir_type_is_tensor_list(first->type) &&
      (n_out != 1 || !ir_type_is_tensor_list(ir_output(node, 0)->type))) {
    IrNode *unpack = ir_graph_insert(f, ir_node_create(f, IR_PRIM_LIST_UNPACK, n_out));
    ir_node_add_input(unpack, first);
    for (guint i = 0; i < n_out; i++)
      g_ptr_array_add(results, ir_output(unpack, i));
  } else {
    for (guint i = 0; i < n_out; i++)
      g_ptr_array_add(results, g_ptr_array_index(forward, i));
  }
  return results;
}

IrNode *ad_insert_grad_of(IrGraph *graph, const IrNode *node, IrValue *const *grads, guint n) {
  IrNode *grad_of = ir_node_create(graph, IR_PRIM_GRAD_OF, 0);
  for (guint i = 0; i < n; i++)
    ir_node_add_input(grad_of, grads[i]);
  ir_node_set_attr_s(grad_of, IR_ATTR_NAME, ir_kind_name(node->kind));
  ir_graph_insert(graph, grad_of);
  ir_node_add_block(grad_of);
  return grad_of;
}

/* v itself, or, where a ListUnpack declared the tensor it unpacked Tensor? (PyTorch's inliner
 * leaves such outputs; the verifier's [unpack] admits them), v refined to Tensor. */
static IrValue *as_tensor(IrGraph *graph, IrValue *v) {
  if (ir_type_is_tensor(v->type))
    return v;
  IrNode *cast = ir_graph_insert(graph, ir_node_create(graph, IR_PRIM_UNCHECKED_CAST, 1));
  ir_node_add_input(cast, v);
  ir_value_set_type(ir_output(cast, 0), ir_type_tensor());
  ir_node_resolve_schema(cast);
  return ir_output(cast, 0);
}

IrValue *ad_insert_gradient_list(IrGraph *graph, IrValue *const *grads, IrValue *const *pieces,
                                 guint n) {
  IrNode *list = ir_node_create(graph, IR_PRIM_LIST_CONSTRUCT, 1);
  for (guint i = 0; i < n; i++) {
    IrValue *g = grads[i];
    if (g->node->kind == IR_PRIM_AUTOGRAD_ZERO)
      g = ir_output(ir_graph_insert_op(graph, IR_ATEN_ZEROS_LIKE,
                                       (IrValue *[]){as_tensor(graph, pieces[i])}, 1, 1),
                    0);
    ir_node_add_input(list, g);
  }
  ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_tensor()));
  return ir_output(ir_graph_insert(graph, list), 0);
}

/* The backward's gradient arguments: the output gradients, or, where the formula takes a
 * Tensor[] for several outputs, their list with known-zero pieces as zeros (as the C formula
 * of prim::ConstantChunk builds it). */
static void add_gradient_arguments(IrGraph *f, IrNode *node, const IrGraph *backward,
                                   IrValue *const *grads, IrValue *const *outputs,
                                   GPtrArray *args) {
  guint n_out = ir_n_outputs(node);
  IrValue *first = g_ptr_array_index(ir_graph_inputs(backward), 0);
  if (!ir_type_is_tensor_list(first->type) ||
      (n_out == 1 && ir_type_is_tensor_list(ir_output(node, 0)->type))) {
    for (guint i = 0; i < n_out; i++)
      g_ptr_array_add(args, grads[i]);
    return;
  }
  g_ptr_array_add(args, ad_insert_gradient_list(f, grads, outputs, n_out));
}

/* reverse_node with a graph formula (contract at ad_differentiate_with). The original node
 * is left without uses; the final dead code pass removes it. */
static void reverse_node_graph_formula(Reverse *r, IrNode *node, const AdGraphFormula *formula) {
  IrGraph *f = r->f;
  guint n_in = ir_n_inputs(node), n_out = ir_n_outputs(node);
  g_autofree IrValue **grads = g_new0(IrValue *, n_out);
  for (guint i = 0; i < n_out; i++)
    grads[i] = get_grad(r, ir_output(node, i));
  ir_graph_set_insert_point(f, node->next);
  g_autoptr(GPtrArray) arguments = formula_arguments(f, node);
  g_autoptr(GPtrArray) forward =
      ad_insert_graph(f, formula->forward, (IrValue *const *)arguments->pdata);
  g_autoptr(GPtrArray) results = formula_results(f, node, forward);
  for (guint i = 0; i < n_out; i++) {
    IrValue *old = ir_output(node, i), *replacement = g_ptr_array_index(results, i);
    ir_value_set_type(replacement, old->type);
    ir_value_replace_all_uses_with(old, replacement);
  }

  ir_graph_set_insert_point(f, r->rev->ret);
  IrNode *grad_of = ad_insert_grad_of(f, node, grads, n_out);
  IrBlock *body = ir_block(grad_of, 0);
  ir_graph_set_insert_point(f, body->ret);
  g_autoptr(GPtrArray) backward_inputs = g_ptr_array_new();
  add_gradient_arguments(f, node, formula->backward, grads, (IrValue *const *)results->pdata,
                         backward_inputs);
  guint n_formula_results =
      ir_type_is_tensor_list(((IrValue *)g_ptr_array_index(forward, 0))->type) ? 1 : n_out;
  for (guint i = n_formula_results; i < forward->len; i++)
    g_ptr_array_add(backward_inputs, g_ptr_array_index(forward, i));
  g_autoptr(GPtrArray) formula_grads =
      ad_insert_graph(f, formula->backward, (IrValue *const *)backward_inputs->pdata);
  ir_graph_set_insert_point(f, r->rev->ret);
  for (guint i = 0; i < n_in; i++) {
    IrValue *grad = g_ptr_array_index(formula_grads, i);
    if (grad->type->kind != IR_TYPE_NONE)
      add_input_gradient(r, grad_of, ir_input(node, i), grad);
  }
}

/* One GradOf for `node`: the forward part goes right after node, the backward part into the
 * GradOf's block; input gradients are accumulated into grad_map. */
static void reverse_node(Reverse *r, IrNode *node) {
  const AdGraphFormula *formula = r->lookup ? r->lookup(node, r->lookup_data) : NULL;
  if (formula) {
    reverse_node_graph_formula(r, node, formula);
    return;
  }
  if (!ad_formula_exists(node))
    g_error("autodiff invariant: differentiate met %s, which has no gradient formula",
            ir_kind_name(node->kind));
  IrGraph *f = r->f;
  guint n_in = ir_n_inputs(node), n_out = ir_n_outputs(node);
  IrValue **inputs = (IrValue **)node->inputs->pdata;
  IrValue **outputs = (IrValue **)node->outputs->pdata;

  GPtrArray *saved = g_ptr_array_new();
  ir_graph_set_insert_point(f, node->next);
  ad_formula_forward(f, node, inputs, outputs, saved);
  ir_graph_set_insert_point(f, r->rev->ret);

  IrValue **grads = g_new0(IrValue *, n_out);
  for (guint i = 0; i < n_out; i++)
    grads[i] = get_grad(r, outputs[i]);
  IrNode *grad_of = ad_insert_grad_of(f, node, grads, n_out);
  IrBlock *body = ir_block(grad_of, 0);

  IrValue **grad_inputs = g_new0(IrValue *, n_in);
  ir_graph_set_insert_point(f, body->ret);
  ad_formula_backward(f, node, inputs, outputs, (IrValue *const *)saved->pdata, grads, grad_inputs);
  ir_graph_set_insert_point(f, r->rev->ret);

  for (guint i = 0; i < n_in; i++) {
    if (grad_inputs[i])
      add_input_gradient(r, grad_of, inputs[i], grad_inputs[i]);
  }
  g_free(grad_inputs);
  g_free(grads);
  g_ptr_array_free(saved, TRUE);
}

/* A node that makes a Tensor[] (split, chunk, unbind, broadcast_tensors) whose list got a
 * gradient from the prim::ListUnpack reading it. */
static bool list_output_has_grad(Reverse *r, const IrNode *node) {
  for (guint i = 0; i < ir_n_outputs(node); i++)
    if (ir_type_is_tensor_list(ir_output(node, i)->type) &&
        g_hash_table_contains(r->grad_map, ir_output(node, i)))
      return true;
  return false;
}

/* prim::ListUnpack (differentiable only as the single reader of a list made in the same
 * graph): the pieces' gradients go straight to the tensors a prim::ListConstruct was given;
 * for a list an op made, a GradOf builds the list's gradient from them (zeros for pieces known
 * to have none, as prim::ConstantChunk's formula does), which that op's formula then takes. */
static void reverse_list_unpack(Reverse *r, IrNode *node) {
  IrGraph *f = r->f;
  IrValue *list = ir_input(node, 0);
  guint n = ir_n_outputs(node);
  if (list->node->kind == IR_PRIM_LIST_CONSTRUCT) {
    for (guint i = 0; i < n; i++) {
      IrValue *element = ir_input(list->node, i);
      if (requires_grad(element) && g_hash_table_contains(r->grad_map, ir_output(node, i)))
        set_grad(r, element, get_grad(r, ir_output(node, i)));
    }
    return;
  }
  if (g_hash_table_contains(r->grad_map, list))
    g_error("autodiff invariant: a Tensor[] read by more than one prim::ListUnpack");
  g_autofree IrValue **grads = g_new(IrValue *, n);
  for (guint i = 0; i < n; i++)
    grads[i] = get_grad(r, ir_output(node, i));
  IrNode *grad_of = ad_insert_grad_of(f, node, grads, n);
  IrBlock *body = ir_block(grad_of, 0);
  ir_graph_set_insert_point(f, body->ret);
  IrValue *list_grad = ad_insert_gradient_list(f, grads, (IrValue *const *)node->outputs->pdata, n);
  ir_graph_set_insert_point(f, r->rev->ret);
  ir_block_add_output(body, list_grad);
  set_grad(r, list, ir_node_add_output(grad_of, list_grad->type));
}

static void add_reverse_inline(Reverse *r) {
  IrGraph *f = r->f;
  AdGradient *gr = r->gradient;
  r->holder = ir_node_create(f, IR_PRIM_GRAD_OF, 0);
  r->rev = ir_node_add_block(r->holder);
  ir_graph_set_insert_point(f, r->rev->ret);

  IrNode *ret = f->block->ret;
  for (guint i = 0; i < ir_n_inputs(ret); i++) {
    IrValue *out = ir_input(ret, i);
    if (!requires_grad(out))
      continue;
    IrValue *vjp = ir_block_add_input(r->rev, out->type, NULL);
    set_grad(r, out, vjp);
    g_array_append_val(gr->df_input_vjps, i);
  }
  /* dropout(train=True) keeps its mask only as native_dropout: replace it first. */
  IR_FOR_EACH_NODE(node, f->block) {
    if (ad_dropout_needs_native(node) && output_requires_grad(node))
      ad_dropout_to_native(node);
  }
  IR_FOR_EACH_NODE_REVERSE(node, f->block) {
    if (node->kind == IR_PRIM_LIST_UNPACK) {
      if (output_requires_grad(node))
        reverse_list_unpack(r, node);
    } else if (output_requires_grad(node) || list_output_has_grad(r, node)) {
      reverse_node(r, node);
    }
  }
  GPtrArray *ins = ir_graph_inputs(f);
  for (guint i = 0; i < ins->len; i++) {
    IrValue *in = g_ptr_array_index(ins, i);
    if (!requires_grad(in) || !g_hash_table_contains(r->grad_map, in))
      continue;
    ir_block_add_output(r->rev, get_grad(r, in));
    g_array_append_val(gr->df_output_vjps, i);
  }
}

static bool in_reverse(const Reverse *r, IrNode *user) {
  return ir_node_ancestor_in(user, r->rev) != NULL;
}

/* Constants used by the reverse program are copied into it instead of being captured. */
static void lift_constants_in(Reverse *r, IrBlock *block, GHashTable *copies) {
  IR_FOR_EACH_NODE(n, block) {
    for (guint i = 0; i < ir_n_inputs(n); i++) {
      IrValue *v = ir_input(n, i);
      if (v->node->kind != IR_PRIM_CONSTANT || ir_node_ancestor_in(v->node, r->rev))
        continue;
      IrValue *copy = g_hash_table_lookup(copies, v);
      if (!copy) {
        const char *name = v->name;
        IrNode *k = ir_node_copy_into(r->f, v->node, NULL, NULL);
        ir_node_insert_before(k, r->rev->param->next);
        copy = ir_output(k, 0);
        if (name) { /* the copy stays unnamed; v keeps its name */
          ir_value_set_name(copy, NULL);
          ir_value_set_name(v, name);
        }
        g_hash_table_insert(copies, v, copy);
      }
      ir_node_replace_input(n, i, copy);
    }
    for (guint b = 0; b < ir_n_blocks(n); b++)
      lift_constants_in(r, ir_block(n, b), copies);
  }
}

static void add_capture_if_used(Reverse *r, IrValue *v, GPtrArray *captures) {
  for (guint u = 0; u < v->uses->len; u++) {
    if (in_reverse(r, g_array_index(v->uses, IrUse, u).user)) {
      g_ptr_array_add(captures, v);
      return;
    }
  }
}

/* Values of f used by the reverse program, in topological order. */
static GPtrArray *reverse_captures(Reverse *r) {
  GPtrArray *captures = g_ptr_array_new();
  GPtrArray *ins = ir_graph_inputs(r->f);
  for (guint i = 0; i < ins->len; i++)
    add_capture_if_used(r, g_ptr_array_index(ins, i), captures);
  IR_FOR_EACH_NODE(n, r->f->block) {
    for (guint i = 0; i < ir_n_outputs(n); i++)
      add_capture_if_used(r, ir_output(n, i), captures);
  }
  return captures;
}

/* An aten::size used only by backward whose operand is captured anyway is recomputed there. */
static void deduplicate_size_captures(Reverse *r) {
  GPtrArray *captures = reverse_captures(r);
  GHashTable *set = g_hash_table_new(NULL, NULL);
  for (guint i = 0; i < captures->len; i++)
    g_hash_table_add(set, g_ptr_array_index(captures, i));
  for (guint i = 0; i < captures->len; i++) {
    IrValue *v = g_ptr_array_index(captures, i);
    IrNode *n = v->node;
    if (n->kind != IR_ATEN_SIZE || ir_n_inputs(n) != 1 ||
        !g_hash_table_contains(set, ir_input(n, 0)))
      continue;
    bool only_reverse = true;
    for (guint u = 0; u < v->uses->len; u++)
      if (!in_reverse(r, g_array_index(v->uses, IrUse, u).user))
        only_reverse = false;
    if (!only_reverse)
      continue;
    ir_graph_set_insert_point(r->f, r->rev->param->next);
    IrValue *arg = ir_input(n, 0);
    IrValue *size = ir_output(ir_graph_insert_op(r->f, IR_ATEN_SIZE, &arg, 1, 1), 0);
    ir_value_replace_all_uses_with(v, size);
    ir_node_destroy(n);
  }
  ir_graph_set_insert_point(r->f, r->rev->ret);
  g_hash_table_destroy(set);
  g_ptr_array_free(captures, TRUE);
}

static bool node_outputs_unused(const IrNode *n) {
  for (guint i = 0; i < ir_n_outputs(n); i++)
    if (ir_value_has_uses(ir_output(n, i)))
      return false;
  return true;
}

/* Dead code in the reverse program: unused GradOf outputs are pruned (with their block
 * outputs), then nodes with no used output go, innermost first. */
static void eliminate_dead_reverse(IrBlock *block) {
  IR_FOR_EACH_NODE_REVERSE(n, block) {
    if (n->kind == IR_PRIM_GRAD_OF) {
      IrBlock *body = ir_block(n, 0);
      for (guint i = ir_n_outputs(n); i-- > 0;) {
        if (!ir_value_has_uses(ir_output(n, i))) {
          ir_block_erase_output(body, i);
          ir_node_erase_output(n, i);
        }
      }
    }
    if (node_outputs_unused(n)) {
      ir_node_destroy(n);
      continue;
    }
    for (guint b = 0; b < ir_n_blocks(n); b++)
      eliminate_dead_reverse(ir_block(n, b));
  }
}

/* Gradients the dead-code elimination of the reverse program took: their node destroyed, or
 * their GradOf output erased (a gradient nothing read, such as that of an aten::to(self,
 * other) output whose self needs none). */
static void forget_dead_grads(Reverse *r) {
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, r->grad_map);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    const IrValue *g = value;
    bool live = !g->node->destroyed && g->offset < ir_n_outputs(g->node) &&
                ir_output(g->node, g->offset) == g;
    if (!live)
      g_hash_table_iter_remove(&it);
  }
}

typedef struct {
  GHashTable *map; /* reverse-block value or captured value -> df value */
} LiftMap;

static IrValue *lift_lookup(IrValue *src, gpointer data) {
  IrValue *v = g_hash_table_lookup(((LiftMap *)data)->map, src);
  if (!v)
    g_error("autodiff invariant: the reverse program uses a value of f that was not captured");
  return v;
}

static guint index_of(GPtrArray *values, IrValue *v, bool *found) {
  for (guint i = 0; i < values->len; i++)
    if (g_ptr_array_index(values, i) == v) {
      *found = true;
      return i;
    }
  *found = false;
  return 0;
}

/* Captured values become df inputs (inputs of f, outputs of f, or new temporary outputs);
 * temporaries that received a gradient get a vjp input; the block moves into df. */
static void lambda_lift_reverse(Reverse *r) {
  IrGraph *f = r->f;
  AdGradient *gr = r->gradient;
  GPtrArray *captures = reverse_captures(r);
  GPtrArray *f_outputs = ir_graph_outputs(f);
  GPtrArray *f_inputs = ir_graph_inputs(f);
  gr->f_real_outputs = f_outputs->len;

  for (guint i = 0; i < captures->len; i++) {
    IrValue *v = g_ptr_array_index(captures, i);
    bool found;
    guint idx = index_of(f_outputs, v, &found);
    if (found) {
      g_array_append_val(gr->df_input_captured_outputs, idx);
      continue;
    }
    idx = index_of(f_inputs, v, &found);
    if (found) {
      g_array_append_val(gr->df_input_captured_inputs, idx);
      continue;
    }
    idx = ir_graph_add_output(f, v);
    g_array_append_val(gr->df_input_captured_outputs, idx);
  }

  for (guint i = gr->f_real_outputs; i < f_outputs->len; i++) {
    IrValue *tmp = g_ptr_array_index(f_outputs, i);
    IrValue *prev = g_hash_table_lookup(r->grad_map, tmp);
    if (!prev)
      continue;
    IrValue *vjp = ir_block_add_input(r->rev, tmp->type, NULL);
    IrNode *add = create_autograd_add(f, vjp, vjp);
    if (prev->node->kind == IR_PRIM_PARAM)
      ir_node_insert_before(add, r->rev->param->next);
    else
      ir_node_insert_after(add, prev->node);
    ir_value_replace_all_uses_with(prev, ir_output(add, 0));
    ir_node_replace_input(add, 1, prev);
    g_hash_table_insert(r->grad_map, tmp, ir_output(add, 0));
    g_array_append_val(gr->df_input_vjps, i);
  }

  IrGraph *df = ir_graph_new();
  LiftMap lm = {g_hash_table_new(NULL, NULL)};
  GPtrArray *rev_inputs = ir_block_inputs(r->rev);
  for (guint i = 0; i < rev_inputs->len; i++) {
    IrValue *src = g_ptr_array_index(rev_inputs, i);
    g_hash_table_insert(lm.map, src, ir_graph_add_input(df, src->type, NULL));
  }
  for (guint i = 0; i < gr->df_input_captured_inputs->len; i++) {
    IrValue *v = g_ptr_array_index(f_inputs, g_array_index(gr->df_input_captured_inputs, guint, i));
    if (!g_hash_table_contains(lm.map, v))
      g_hash_table_insert(lm.map, v, ir_graph_add_input(df, v->type, v->name));
  }
  for (guint i = 0; i < gr->df_input_captured_outputs->len; i++) {
    IrValue *v =
        g_ptr_array_index(f_outputs, g_array_index(gr->df_input_captured_outputs, guint, i));
    if (!g_hash_table_contains(lm.map, v))
      g_hash_table_insert(lm.map, v, ir_graph_add_input(df, v->type, v->name));
  }
  IR_FOR_EACH_NODE(n, r->rev) {
    IrNode *copy = ir_node_clone_into(df, n, lift_lookup, &lm);
    ir_node_append_to(copy, df->block);
    for (guint i = 0; i < ir_n_outputs(n); i++)
      g_hash_table_insert(lm.map, ir_output(n, i), ir_output(copy, i));
  }
  GPtrArray *rev_outputs = ir_block_outputs(r->rev);
  for (guint i = 0; i < rev_outputs->len; i++)
    ir_graph_add_output(df, lift_lookup(g_ptr_array_index(rev_outputs, i), &lm));
  g_hash_table_destroy(lm.map);
  g_ptr_array_free(captures, TRUE);

  /* The reverse block is gone: drop its nodes (their uses of f's values with them). */
  while (ir_n_inputs(r->rev->ret) > 0)
    ir_block_erase_output(r->rev, ir_n_inputs(r->rev->ret) - 1);
  IR_FOR_EACH_NODE_REVERSE(n, r->rev) {
    for (guint i = 0; i < ir_n_outputs(n); i++)
      if (ir_value_has_uses(ir_output(n, i)))
        g_error("autodiff invariant: reverse program value (%s output) used after lifting "
                "by %s",
                ir_kind_name(n->kind),
                ir_kind_name(g_array_index(ir_output(n, i)->uses, IrUse, 0).user->kind));
    ir_node_destroy(n);
  }
  ir_node_destroy(r->holder);
  ir_graph_set_insert_point(f, NULL);
  gr->df = df;
}

AdGradient *ad_differentiate(IrGraph *graph) {
  return ad_differentiate_with(graph, NULL, NULL);
}

AdGradient *ad_differentiate_with(IrGraph *graph, AdFormulaLookup lookup, gpointer data) {
  AdGradient *gr = g_new0(AdGradient, 1);
  gr->f = graph;
  gr->df_input_vjps = g_array_new(FALSE, FALSE, sizeof(guint));
  gr->df_input_captured_inputs = g_array_new(FALSE, FALSE, sizeof(guint));
  gr->df_input_captured_outputs = g_array_new(FALSE, FALSE, sizeof(guint));
  gr->df_output_vjps = g_array_new(FALSE, FALSE, sizeof(guint));
  pass_propagate_requires_grad(graph);

  Reverse r = {.f = graph,
               .grad_map = g_hash_table_new(NULL, NULL),
               .gradient = gr,
               .lookup = lookup,
               .lookup_data = data};
  add_reverse_inline(&r);
  /* A script formula's forward for prim::ConstantChunk unpacks an aten::chunk: back to the
   * ConstantChunk that the fuser takes (as the required canonicalize_ops stage left it). */
  if (lookup)
    pass_canonicalize_ops(graph);

  GHashTable *copies = g_hash_table_new(NULL, NULL);
  lift_constants_in(&r, r.rev, copies);
  g_hash_table_destroy(copies);
  pass_eliminate_common_subexpression(graph);
  deduplicate_size_captures(&r);
  eliminate_dead_reverse(r.rev);
  forget_dead_grads(&r);

  lambda_lift_reverse(&r);
  pass_eliminate_dead_code(graph);
  g_hash_table_destroy(r.grad_map);
  return gr;
}

void ad_gradient_free(AdGradient *gradient) {
  if (!gradient)
    return;
  if (gradient->f)
    ir_graph_free(gradient->f);
  if (gradient->df)
    ir_graph_free(gradient->df);
  g_array_free(gradient->df_input_vjps, TRUE);
  g_array_free(gradient->df_input_captured_inputs, TRUE);
  g_array_free(gradient->df_input_captured_outputs, TRUE);
  g_array_free(gradient->df_output_vjps, TRUE);
  g_free(gradient);
}
