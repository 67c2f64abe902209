/* Static memory plans (contract in memory_plan.h): sizes by shape propagation on a copy (with
 * run-time size lists folded to constants), storage groups by union-find over views and
 * containers, lifetimes from last uses, greedy-by-size buffer assignment. */
#include "exec/memory_plan.h"

#include <string.h>

#include "passes/passes.h"
#include "runtime/tensor_type.h"

/* Schema ops whose result may share its input's storage (views, and ops that return their
 * input unchanged when nothing needs doing). */
static const char *const aliasing_ops[] = {
    "aten::t",
    "aten::transpose",
    "aten::permute",
    "aten::view",
    "aten::view_as",
    "aten::reshape",
    "aten::reshape_as",
    "aten::expand",
    "aten::expand_as",
    "aten::narrow",
    "aten::select",
    "aten::slice",
    "aten::squeeze",
    "aten::unsqueeze",
    "aten::chunk",
    "aten::split",
    "aten::unbind",
    "aten::flatten",
    "aten::contiguous",
    "aten::to",
    "aten::type_as",
    "aten::detach",
    "aten::alias",
    "aten::sum_to_size",
    "aten::_grad_sum_to_size",
    "aten::broadcast_tensors",
};

typedef struct {
  guint parent; /* union-find */
  guint64 value_id;
  size_t bytes;
  guint first, last;
  bool owned_elsewhere; /* holds a graph input or a constant */
  bool escapes;
} Group;

typedef struct {
  GArray *groups;          /* of Group */
  GHashTable *value_group; /* const IrValue* -> group index + 1 */
  ExecMemoryPlan *plan;
} Planner;

static bool is_aliasing(const IrNode *node) {
  if (node->kind == IR_PRIM_FUSION_GROUP || node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH)
    return false;
  const char *name = ir_kind_name(node->kind);
  if (g_str_has_prefix(name, "prim::"))
    return true;
  for (guint i = 0; i < G_N_ELEMENTS(aliasing_ops); i++)
    if (strcmp(name, aliasing_ops[i]) == 0)
      return true;
  return false;
}

/* Whether values of this type hold tensor storage (tensors and containers of them). */
static bool carries_storage(const IrType *t) {
  switch (t->kind) {
  case IR_TYPE_TENSOR: return !t->undefined;
  case IR_TYPE_LIST:
  case IR_TYPE_OPTIONAL: return carries_storage(t->elem);
  case IR_TYPE_TUPLE:
    for (guint i = 0; i < t->n_elems; i++)
      if (carries_storage(t->elems[i]))
        return true;
    return false;
  default: return false;
  }
}

/* Bytes of a tensor type with complete sizes; false when a size or the dtype is unknown. */
static bool tensor_bytes(const IrType *t, size_t *out) {
  if (t->kind != IR_TYPE_TENSOR || !t->has_dtype || t->rank < 0 || (t->rank > 0 && !t->sizes))
    return false;
  size_t n = ir_dtype_size(t->dtype);
  for (int d = 0; d < t->rank; d++) {
    if (t->sizes[d] < 0)
      return false;
    n *= (size_t)t->sizes[d];
  }
  *out = n;
  return true;
}

static guint find(Planner *p, guint g) {
  while (g_array_index(p->groups, Group, g).parent != g)
    g = g_array_index(p->groups, Group, g).parent;
  return g;
}

static guint new_group(Planner *p, const IrValue *v, guint pos, size_t bytes, bool elsewhere) {
  Group group = {.parent = p->groups->len,
                 .value_id = v->id,
                 .bytes = bytes,
                 .first = pos,
                 .last = pos,
                 .owned_elsewhere = elsewhere};
  g_array_append_val(p->groups, group);
  g_hash_table_insert(p->value_group, (gpointer)v, GUINT_TO_POINTER(group.parent + 1));
  return group.parent;
}

/* The root of v's group, or -1 when v holds no planned storage. */
static int group_of(Planner *p, const IrValue *v) {
  guint g = GPOINTER_TO_UINT(g_hash_table_lookup(p->value_group, v));
  return g == 0 ? -1 : (int)find(p, g - 1);
}

static void join(Planner *p, guint a, guint b) {
  a = find(p, a);
  b = find(p, b);
  if (a == b)
    return;
  Group *ga = &g_array_index(p->groups, Group, a), *gb = &g_array_index(p->groups, Group, b);
  gb->parent = a;
  ga->bytes += gb->bytes;
  ga->first = MIN(ga->first, gb->first);
  ga->last = MAX(ga->last, gb->last);
  ga->owned_elsewhere |= gb->owned_elsewhere;
  ga->escapes |= gb->escapes;
  ga->value_id = MIN(ga->value_id, gb->value_id);
}

static void use_at(Planner *p, const IrValue *v, guint pos, bool escapes) {
  int g = group_of(p, v);
  if (g < 0)
    return;
  Group *group = &g_array_index(p->groups, Group, g);
  group->last = MAX(group->last, pos);
  group->escapes |= escapes;
}

/* Uses by node and by everything in its blocks count at pos. */
static void note_uses(Planner *p, const IrNode *node, guint pos, bool escapes) {
  for (guint i = 0; i < node->inputs->len; i++)
    use_at(p, ir_input(node, i), pos, escapes);
  for (guint b = 0; b < ir_n_blocks(node); b++) {
    const IrBlock *block = ir_block(node, b);
    IR_FOR_EACH_NODE(inner, block) note_uses(p, inner, pos, false);
    note_uses(p, block->ret, pos, false);
  }
}

static void define_outputs(Planner *p, const IrNode *node, guint pos) {
  bool aliasing = is_aliasing(node);
  for (guint o = 0; o < ir_n_outputs(node); o++) {
    const IrValue *v = ir_output(node, o);
    if (!carries_storage(v->type))
      continue;
    if (node->kind == IR_PRIM_CONSTANT) {
      new_group(p, v, pos, 0, true);
      continue;
    }
    if (aliasing) {
      guint g = new_group(p, v, pos, 0, false);
      for (guint i = 0; i < node->inputs->len; i++) {
        int in = group_of(p, ir_input(node, i));
        if (in >= 0)
          join(p, (guint)in, g);
      }
      continue;
    }
    size_t bytes = 0;
    if (v->type->kind == IR_TYPE_TENSOR) {
      p->plan->n_values++;
      if (!tensor_bytes(v->type, &bytes))
        p->plan->n_unsized++;
    }
    new_group(p, v, pos, bytes, false);
  }
}

static gint by_size_descending(gconstpointer a, gconstpointer b) {
  const ExecPlannedGroup *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static bool overlaps(const ExecPlannedGroup *a, const ExecPlannedGroup *b) {
  return a->first <= b->last && b->first <= a->last;
}

/* Greedy by size: each group (largest first) into the first buffer it fits in time. */
static void assign_buffers(ExecMemoryPlan *plan) {
  guint n = plan->groups->len;
  g_autoptr(GArray) order = g_array_sized_new(FALSE, FALSE, sizeof(ExecPlannedGroup), n);
  g_array_append_vals(order, plan->groups->data, n);
  for (guint i = 0; i < n; i++)
    g_array_index(order, ExecPlannedGroup, i).buffer = i; /* remember the slot */
  g_array_sort(order, by_size_descending);
  g_autoptr(GPtrArray) members = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
  g_autoptr(GArray) exclusive = g_array_new(FALSE, FALSE, sizeof(bool));
  for (guint i = 0; i < n; i++) {
    ExecPlannedGroup *group = &g_array_index(order, ExecPlannedGroup, i);
    guint slot = group->buffer;
    guint chosen = members->len;
    for (guint b = 0; !group->escapes && b < members->len && chosen == members->len; b++) {
      if (g_array_index(exclusive, bool, b))
        continue;
      GArray *in = g_ptr_array_index(members, b);
      bool free_then = true;
      for (guint k = 0; k < in->len && free_then; k++)
        free_then = !overlaps(
            group, &g_array_index(plan->groups, ExecPlannedGroup, g_array_index(in, guint, k)));
      if (free_then)
        chosen = b;
    }
    if (chosen == members->len) {
      g_ptr_array_add(members, g_array_new(FALSE, FALSE, sizeof(guint)));
      g_array_append_val(exclusive, group->escapes);
      size_t bytes = group->bytes;
      g_array_append_val(plan->buffer_bytes, bytes);
      plan->peak_bytes += bytes;
    }
    g_array_append_val(g_ptr_array_index(members, chosen), slot);
    g_array_index(plan->groups, ExecPlannedGroup, slot).buffer = chosen;
  }
}

ExecMemoryPlan *exec_memory_plan_of_typed_graph(const IrGraph *graph) {
  ExecMemoryPlan *plan = g_new0(ExecMemoryPlan, 1);
  plan->groups = g_array_new(FALSE, FALSE, sizeof(ExecPlannedGroup));
  plan->buffer_bytes = g_array_new(FALSE, FALSE, sizeof(size_t));
  Planner p = {.groups = g_array_new(FALSE, FALSE, sizeof(Group)),
               .value_group = g_hash_table_new(NULL, NULL),
               .plan = plan};
  GPtrArray *inputs = ir_graph_inputs(graph);
  for (guint i = 0; i < inputs->len; i++)
    new_group(&p, g_ptr_array_index(inputs, i), 0, 0, true);
  guint pos = 0;
  g_autoptr(GArray) nested = g_array_new(FALSE, FALSE, sizeof(ExecPlannedGroup));
  IR_FOR_EACH_NODE(node, graph->block) {
    bool kept_by_autograd = node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH;
    note_uses(&p, node, pos, kept_by_autograd);
    define_outputs(&p, node, pos);
    if (kept_by_autograd) {
      for (guint o = 0; o < ir_n_outputs(node); o++)
        use_at(&p, ir_output(node, o), pos, true);
      g_autoptr(ExecMemoryPlan) sub =
          exec_memory_plan_of_typed_graph(ir_node_attr_g(node, IR_ATTR_SUBGRAPH));
      ExecPlannedGroup inner = {.first = pos, .last = pos, .bytes = sub->peak_bytes};
      g_array_append_val(nested, inner);
      plan->n_values += sub->n_values;
      plan->n_unsized += sub->n_unsized;
    }
    pos++;
  }
  note_uses(&p, graph->block->ret, pos, true);
  for (guint g = 0; g < p.groups->len; g++) {
    Group *group = &g_array_index(p.groups, Group, g);
    if (group->parent != g || group->owned_elsewhere)
      continue;
    ExecPlannedGroup planned = {.value_id = group->value_id,
                                .first = group->first,
                                .last = group->escapes ? pos : group->last,
                                .bytes = group->bytes,
                                .escapes = group->escapes};
    g_array_append_val(plan->groups, planned);
  }
  g_array_append_vals(plan->groups, nested->data, nested->len);
  for (guint g = 0; g < plan->groups->len; g++)
    plan->unshared_bytes += g_array_index(plan->groups, ExecPlannedGroup, g).bytes;
  assign_buffers(plan);
  g_array_unref(p.groups);
  g_hash_table_destroy(p.value_group);
  return plan;
}

/* The list a prim::Constant int list holds. */
static bool constant_int_list(const IrValue *v, gint64 *out, guint *n) {
  const IrAttr *a = v->node->kind == IR_PRIM_CONSTANT ? ir_node_attr(v->node, "value") : NULL;
  if (a == NULL || a->kind != IR_ATTR_IS || a->v.is->len > IR_MAX_RANK)
    return false;
  *n = a->v.is->len;
  for (guint i = 0; i < *n; i++)
    out[i] = g_array_index(a->v.is, gint64, i);
  return true;
}

/* The sizes list node computes when its inputs are known: aten::size of a sized tensor, or
 * prim::BroadcastSizes of constant lists. */
static bool known_sizes(const IrNode *node, gint64 *out, guint *n) {
  if (node->kind == IR_ATEN_SIZE && ir_n_inputs(node) == 1) {
    const IrType *t = ir_input(node, 0)->type;
    size_t bytes;
    if (!tensor_bytes(t, &bytes))
      return false;
    *n = (guint)t->rank;
    for (int d = 0; d < t->rank; d++)
      out[d] = t->sizes[d];
    return true;
  }
  if (node->kind != IR_PRIM_BROADCAST_SIZES)
    return false;
  *n = 0;
  for (guint i = 0; i < ir_n_inputs(node); i++) {
    gint64 in[IR_MAX_RANK];
    guint m;
    if (!constant_int_list(ir_input(node, i), in, &m))
      return false;
    gint64 merged[IR_MAX_RANK];
    guint r = MAX(*n, m);
    for (guint d = 0; d < r; d++) {
      gint64 a = d + *n >= r ? out[d + *n - r] : 1, b = d + m >= r ? in[d + m - r] : 1;
      if (a != b && a != 1 && b != 1)
        return false;
      merged[d] = a == 1 ? b : a;
    }
    *n = r;
    memcpy(out, merged, sizeof(gint64) * r);
  }
  return true;
}

/* On the throwaway copy only: size lists computed at run time from sized tensors become
 * constants, so that the next shape propagation sizes the expands (and the fusion groups
 * behind them) that read them. Returns whether anything was folded. */
static bool fold_size_lists(IrBlock *block) {
  bool folded = false;
  IR_FOR_EACH_NODE(node, block) {
    for (guint b = 0; b < ir_n_blocks(node); b++)
      folded |= fold_size_lists(ir_block(node, b));
    if (node->kind == IR_PRIM_FUSION_GROUP || node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH)
      folded |= fold_size_lists(ir_node_attr_g(node, IR_ATTR_SUBGRAPH)->block);
    gint64 sizes[IR_MAX_RANK];
    guint n;
    if (ir_n_outputs(node) != 1 || ir_output(node, 0)->uses->len == 0 ||
        !known_sizes(node, sizes, &n))
      continue;
    ir_graph_set_insert_point(block->graph, node);
    IrValue *constant = ir_graph_insert_constant_int_list(block->graph, sizes, n);
    ir_value_replace_all_uses_with(ir_output(node, 0), constant);
    folded = true;
  }
  return folded;
}

/* Rounds of shape propagation and size folding; each round sizes one more link of a chain
 * size -> BroadcastSizes -> expand -> group. */
#define SIZING_ROUNDS 4

/* One input as a memory plan reads it; nothing is held (a list of tensors is not kept alive). */
typedef struct {
  const IrType *type; /* a tensor's (interned), or NULL */
  int n_sizes;        /* an int list's length; -1: not one (nor None); -2: None */
  gint64 sizes[IR_MAX_RANK];
} MemoryInput;

struct ExecMemoryInputs {
  guint n;
  MemoryInput *inputs;
};

ExecMemoryInputs *exec_memory_inputs_new(const RtValue *inputs, guint n_inputs) {
  ExecMemoryInputs *m = g_new0(ExecMemoryInputs, 1);
  m->n = n_inputs;
  m->inputs = g_new0(MemoryInput, n_inputs + 1);
  for (guint i = 0; i < n_inputs; i++) {
    MemoryInput *in = &m->inputs[i];
    guint n = 0;
    in->n_sizes = -1;
    if (inputs[i].tag == RT_TENSOR && inputs[i].u.tensor)
      in->type = rt_tensor_type(inputs[i].u.tensor);
    else if (inputs[i].tag == RT_NONE)
      in->n_sizes = -2;
    else if (inputs[i].tag == RT_LIST &&
             rt_value_to_int_list(inputs[i], in->sizes, IR_MAX_RANK, &n))
      in->n_sizes = (int)n;
  }
  return m;
}

void exec_memory_inputs_free(ExecMemoryInputs *m) {
  if (m == NULL)
    return;
  g_free(m->inputs);
  g_free(m);
}

ExecMemoryPlan *exec_memory_plan_new(const IrGraph *graph, const RtValue *inputs, guint n_inputs) {
  ExecMemoryInputs *m = exec_memory_inputs_new(inputs, n_inputs);
  ExecMemoryPlan *plan = exec_memory_plan_for(graph, m);
  exec_memory_inputs_free(m);
  return plan;
}

ExecMemoryPlan *exec_memory_plan_for(const IrGraph *graph, const ExecMemoryInputs *m) {
  IrGraph *sized = ir_graph_copy(graph);
  GPtrArray *params = ir_graph_inputs(sized);
  IrNode *first = NULL;
  IR_FOR_EACH_NODE(node, sized->block) {
    if (first == NULL)
      first = node;
  }
  for (guint i = 0; i < params->len && i < m->n; i++) {
    IrValue *v = g_ptr_array_index(params, i);
    const MemoryInput *in = &m->inputs[i];
    if (in->type) {
      if (v->type->kind == IR_TYPE_TENSOR)
        v->type = in->type;
    } else if (first != NULL && v->uses->len > 0 && in->n_sizes != -1) {
      /* Size lists (backward graphs take them) become constants, as the sizes they give. */
      ir_graph_set_insert_point(sized, first);
      ir_value_replace_all_uses_with(
          v, in->n_sizes == -2
                 ? ir_graph_insert_constant_none(sized)
                 : ir_graph_insert_constant_int_list(sized, in->sizes, (guint)in->n_sizes));
    }
  }
  for (int round = 0; round < SIZING_ROUNDS; round++) {
    pass_propagate_input_shapes(sized);
    if (!fold_size_lists(sized->block))
      break;
  }
  ExecMemoryPlan *plan = exec_memory_plan_of_typed_graph(sized);
  ir_graph_free(sized);
  return plan;
}

void exec_memory_plan_free(ExecMemoryPlan *plan) {
  if (plan == NULL)
    return;
  g_array_unref(plan->groups);
  g_array_unref(plan->buffer_bytes);
  g_free(plan);
}
