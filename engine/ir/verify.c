/* The IR verifier (verify.h). Rules, each named in its messages:
 *   [sentinels]  a block's param/ret nodes have the sentinel kinds, no inputs (param) / no
 *                outputs (ret), belong to the block; no other node has a sentinel kind.
 *   [links]      prev/next agree, every listed node belongs to this block and graph and is not
 *                destroyed; block owners agree.
 *   [topo]       topological positions strictly increase along each block.
 *   [outputs]    a value's producer and offset match its position.
 *   [uses]       every input slot appears exactly once in its value's use list and every use
 *                points back to an input slot reading that value.
 *   [dominance]  every input and block output reads a value of this graph that is defined
 *                earlier in the same block or an enclosing one.
 *   [names]      display names (debug name or id) are unique in the graph.
 *   [origins]    node origins (the stable ids drawings and stage diffs key nodes by) are
 *                unique in the graph, nested blocks included: two nodes sharing one would be
 *                drawn as one.
 *   [arity]      If / Loop / GradOf block counts and block input/output counts; other nodes
 *                have no blocks; prim::Constant has no inputs and one output.
 *   [schema]     a schema op has a resolved overload of its kind that matches its input types,
 *                with one output per return, each a subtype of the return type.
 *   [unpack]     prim::ListUnpack and prim::TupleUnpack read one value; unpacking a list,
 *                each output's type and the element type are one a subtype of the other (or
 *                both tensor types); unpacking a tuple, one output per element, each related
 *                to it the same way. Passes that differentiate or run an unpacked
 *                value trust its type.
 *   [construct]  prim::ListConstruct makes one list, prim::TupleConstruct one tuple with an
 *                element per input; each input related to its element as for [unpack].
 *   [flow]       what flows into an If's or a Loop's output (each branch's block output; a
 *                loop's initial value, its body's input and output) is related to the output's
 *                type as for [unpack]: passes that forward a branch's value in place of the
 *                output (an output both branches give alike) trust that type.
 *   [attrs]      the attributes passes read without looking: prim::ConstantChunk has one
 *                input, int `chunks` (at least 1) and `dim`, and an output per chunk;
 *                prim::FusedConcat an int `dim`; prim::FusionGroup and
 *                prim::DifferentiableGraph a graph `Subgraph`.
 *   [subgraph]   graphs held in attributes (Subgraph and any other g/gs) verify too; the
 *                first failure is reported with the path of attributes leading to it.
 * Iterative over blocks; subgraphs are handled with a work list, so nesting cannot overflow. */
#include <stdarg.h>
#include <string.h>

#include "ir/ops.h"
#include "ir/text.h"
#include "ir/verify.h"

G_DEFINE_QUARK(jitscope - verify - error - quark, jitscope_verify_error)

typedef struct {
  const IrNode *node;
  guint index;
} Slot;

static guint slot_hash(gconstpointer p) {
  const Slot *s = p;
  return g_direct_hash(s->node) ^ (s->index * 2654435761u);
}

static gboolean slot_equal(gconstpointer a, gconstpointer b) {
  const Slot *x = a, *y = b;
  return x->node == y->node && x->index == y->index;
}

typedef struct {
  const IrGraph *graph;
  const char *path; /* "" for the outermost graph, else "in prim::FusionGroup_0 body: " */
  GError **error;
  GHashTable *slots;     /* Slot* -> IrValue* (input slot -> value read) */
  GHashTable *counts;    /* IrValue* -> number of slots reading it */
  GHashTable *in_scope;  /* IrValue* set */
  GHashTable *names;     /* display name -> IrValue* */
  GHashTable *origins;   /* &node->origin -> IrNode* (nodes of the node lists, not sentinels) */
  GPtrArray *all_values; /* every value defined, for the use-list check */
  GPtrArray *subgraphs;  /* IrGraph* found in Subgraph attributes (shared work list) */
  GPtrArray *sub_paths;  /* their message prefixes (owned strings) */
} Verifier;

static bool fail(Verifier *v, const char *rule, const IrNode *node, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

static bool fail(Verifier *v, const char *rule, const IrNode *node, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *detail = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_autoptr(GString) line = g_string_new(NULL);
  if (node == NULL)
    g_string_append(line, "graph");
  else if (node->owning_block && node == node->owning_block->ret)
    g_string_append(line, node->owning_block->owning_node ? "block outputs" : "return");
  else if (node->owning_block && node == node->owning_block->param)
    g_string_append(line, "block inputs");
  else
    ir_node_print_line(line, node);
  g_set_error(v->error, JITSCOPE_VERIFY_ERROR, 0, "%s[%s] %s: %s", v->path, rule, line->str,
              detail);
  return false;
}

static const char *vname(const IrValue *value, char buf[32]) {
  return ir_value_display_name(value, buf);
}

static bool check_arity(Verifier *v, const IrNode *n) {
  guint nb = ir_n_blocks(n), ni = ir_n_inputs(n), no = ir_n_outputs(n);
  switch (n->kind) {
  case IR_PRIM_IF:
    if (ni != 1 || nb != 2)
      return fail(v, "arity", n, "prim::If needs 1 input and 2 blocks, has %u and %u", ni, nb);
    for (guint b = 0; b < 2; b++)
      if (ir_block_inputs(ir_block(n, b))->len != 0 || ir_block_outputs(ir_block(n, b))->len != no)
        return fail(v, "arity", n, "block%u needs 0 inputs and %u outputs", b, no);
    return true;
  case IR_PRIM_LOOP: {
    if (ni < 2 || nb != 1)
      return fail(v, "arity", n, "prim::Loop needs at least 2 inputs and 1 block");
    const IrBlock *b = ir_block(n, 0);
    if (ir_block_inputs(b)->len != ni - 1 || ir_block_outputs(b)->len != ni - 1 || no != ni - 2)
      return fail(v, "arity", n,
                  "a loop with %u inputs needs %u block inputs, %u block outputs, %u outputs", ni,
                  ni - 1, ni - 1, ni - 2);
    return true;
  }
  case IR_PRIM_GRAD_OF:
    if (nb != 1 || ir_block_inputs(ir_block(n, 0))->len != 0 ||
        ir_block_outputs(ir_block(n, 0))->len != no)
      return fail(v, "arity", n, "prim::GradOf needs 1 block with 0 inputs and %u outputs", no);
    return true;
  case IR_PRIM_CONSTANT:
    if (ni != 0 || no != 1)
      return fail(v, "arity", n, "prim::Constant takes no inputs and has one output");
    break;
  default: break;
  }
  if (nb != 0)
    return fail(v, "arity", n, "%s takes no blocks, has %u", ir_kind_name(n->kind), nb);
  return true;
}

static bool check_schema(Verifier *v, const IrNode *n) {
  guint n_overloads = 0;
  ir_ops_overloads(n->kind, &n_overloads);
  if (n->schema == NULL)
    return n_overloads == 0 ? true : fail(v, "schema", n, "no resolved overload");
  const IrSchema *s = n->schema;
  if (s->kind != (int)n->kind)
    return fail(v, "schema", n, "resolved overload %s is of another kind", s->text);
  const IrType **types = g_new(const IrType *, ir_n_inputs(n) + 1);
  for (guint i = 0; i < ir_n_inputs(n); i++)
    types[i] = ir_input(n, i)->type;
  bool match = ir_schema_matches(s, types, ir_n_inputs(n));
  g_free(types);
  if (!match)
    return fail(v, "schema", n, "input types do not match %s", s->text);
  if (s->n_returns != ir_n_outputs(n))
    return fail(v, "schema", n, "%s returns %u values, node has %u outputs", s->text, s->n_returns,
                ir_n_outputs(n));
  for (guint i = 0; i < s->n_returns; i++) {
    const IrType *ret = s->returns[i];
    if (ret->kind != IR_TYPE_ANY && !ir_type_is_subtype(ir_output(n, i)->type, ret))
      return fail(v, "schema", n, "output %u is not a subtype of the return type of %s", i,
                  s->text);
  }
  return true;
}

/* An unpacked value's type may refine its element's, and the element's may refine it (PyTorch's
 * inliner refines a tuple's element to NoneType and keeps the unpacked Tensor?); tensor types
 * may differ either way (what shape propagation knows of one and not of the other). */
static bool unpacks_as(const IrType *out, const IrType *elem) {
  return ir_type_is_subtype(out, elem) || ir_type_is_subtype(elem, out) ||
         (ir_type_is_tensor(out) && ir_type_is_tensor(elem));
}

/* Each of `values` (a construct's inputs, an unpack's outputs) against its element of
 * `container` (a list or a tuple with one element per value): the first mismatch, or NULL. */
static char *elements_problem(const IrNode *n, const GPtrArray *values, const IrType *container) {
  bool tuple = container->kind == IR_TYPE_TUPLE;
  for (guint i = 0; i < values->len; i++) {
    const IrType *elem = tuple ? container->elems[i] : container->elem;
    const IrType *type = ((const IrValue *)g_ptr_array_index(values, i))->type;
    if (!unpacks_as(type, elem)) {
      g_autofree char *text = ir_type_to_string(type);
      g_autofree char *elem_text = ir_type_to_string(elem);
      return g_strdup_printf("%s %u is %s, the element it %s is %s",
                             values == n->inputs ? "input" : "output", i, text,
                             values == n->inputs ? "makes" : "unpacks", elem_text);
    }
  }
  return NULL;
}

/* prim::ListConstruct makes a list, prim::TupleConstruct a tuple of its inputs. */
static char *construct_problem(const IrNode *n) {
  bool tuple = n->kind == IR_PRIM_TUPLE_CONSTRUCT;
  if (ir_n_outputs(n) != 1)
    return g_strdup_printf("%s has one output, has %u", ir_kind_name(n->kind), ir_n_outputs(n));
  const IrType *made = ir_output(n, 0)->type;
  if (made->kind == IR_TYPE_ANY)
    return NULL;
  if (made->kind != (tuple ? IR_TYPE_TUPLE : IR_TYPE_LIST)) {
    g_autofree char *text = ir_type_to_string(made);
    return g_strdup_printf("its output is %s, not a %s", text, tuple ? "tuple" : "list");
  }
  if (tuple && made->n_elems != ir_n_inputs(n))
    return g_strdup_printf("a tuple of %u elements made of %u inputs", made->n_elems,
                           ir_n_inputs(n));
  return elements_problem(n, n->inputs, made);
}

static char *unpack_problem(const IrNode *n) {
  if (ir_n_inputs(n) != 1)
    return g_strdup_printf("%s reads one value, has %u inputs", ir_kind_name(n->kind),
                           ir_n_inputs(n));
  const IrType *packed = ir_input(n, 0)->type;
  bool tuple = packed->kind == IR_TYPE_TUPLE;
  if (packed->kind != IR_TYPE_LIST && !tuple)
    return NULL; /* Any or a class: nothing to compare with */
  if (tuple && ir_n_outputs(n) != packed->n_elems)
    return g_strdup_printf("unpacks a tuple of %u elements into %u outputs", packed->n_elems,
                           ir_n_outputs(n));
  return elements_problem(n, n->outputs, packed);
}

char *ir_container_types_problem(const IrNode *node, const char **rule) {
  switch (node->kind) {
  case IR_PRIM_LIST_CONSTRUCT:
  case IR_PRIM_TUPLE_CONSTRUCT: *rule = "construct"; return construct_problem(node);
  case IR_PRIM_LIST_UNPACK:
  case IR_PRIM_TUPLE_UNPACK: *rule = "unpack"; return unpack_problem(node);
  default: return NULL;
  }
}

static char *flow_problem(const char *what, guint index, const IrValue *into, const IrValue *v) {
  if (unpacks_as(v->type, into->type))
    return NULL;
  g_autofree char *text = ir_type_to_string(v->type);
  g_autofree char *out_text = ir_type_to_string(into->type);
  return g_strdup_printf("%s %u is %s for an output of type %s", what, index, text, out_text);
}

char *ir_control_flow_types_problem(const IrNode *node) {
  if (node->kind == IR_PRIM_IF && ir_n_blocks(node) == 2) {
    for (guint b = 0; b < 2; b++) {
      GPtrArray *outs = ir_block_outputs(ir_block(node, b));
      for (guint i = 0; i < outs->len && i < ir_n_outputs(node); i++) {
        char *problem = flow_problem(b == 0 ? "block0 output" : "block1 output", i,
                                     ir_output(node, i), g_ptr_array_index(outs, i));
        if (problem)
          return problem;
      }
    }
  } else if (node->kind == IR_PRIM_LOOP && ir_n_blocks(node) == 1) {
    /* The carried values only: 2018's printed loops pass an int where the condition goes. */
    const IrBlock *body = ir_block(node, 0);
    GPtrArray *ins = ir_block_inputs(body), *outs = ir_block_outputs(body);
    for (guint i = 0; i < ir_n_outputs(node); i++) {
      IrValue *out = ir_output(node, i);
      char *problem = NULL;
      if (i + 2 < ir_n_inputs(node))
        problem = flow_problem("initial value", i, out, ir_input(node, i + 2));
      if (!problem && i + 1 < ins->len)
        problem = flow_problem("block input", i + 1, out, g_ptr_array_index(ins, i + 1));
      if (!problem && i + 1 < outs->len)
        problem = flow_problem("block output", i + 1, out, g_ptr_array_index(outs, i + 1));
      if (problem)
        return problem;
    }
  }
  return NULL;
}

/* Does n carry attribute `name` of kind `kind`? */
static bool has_attr_of(const IrNode *n, const char *name, IrAttrKind kind) {
  const IrAttr *a = ir_node_attr(n, name);
  return a != NULL && a->kind == kind;
}

static bool check_attrs(Verifier *v, const IrNode *n) {
  switch (n->kind) {
  case IR_PRIM_CONSTANT_CHUNK:
    if (!has_attr_of(n, IR_ATTR_CHUNKS, IR_ATTR_I) || !has_attr_of(n, IR_ATTR_DIM, IR_ATTR_I))
      return fail(v, "attrs", n, "prim::ConstantChunk needs int attributes 'chunks' and 'dim'");
    if (ir_node_attr_i(n, IR_ATTR_CHUNKS) < 1 || ir_n_inputs(n) != 1 ||
        (gint64)ir_n_outputs(n) != ir_node_attr_i(n, IR_ATTR_CHUNKS))
      return fail(v, "attrs", n,
                  "prim::ConstantChunk reads one value into 'chunks' (>= 1) outputs");
    return true;
  case IR_PRIM_FUSED_CONCAT:
    return has_attr_of(n, IR_ATTR_DIM, IR_ATTR_I) ||
           fail(v, "attrs", n, "prim::FusedConcat needs an int attribute 'dim'");
  case IR_PRIM_FUSION_GROUP:
  case IR_PRIM_DIFFERENTIABLE_GRAPH:
    return has_attr_of(n, IR_ATTR_SUBGRAPH, IR_ATTR_G) ||
           fail(v, "attrs", n, "%s needs a graph attribute 'Subgraph'", ir_kind_name(n->kind));
  default: return true;
  }
}

static bool check_flow(Verifier *v, const IrNode *n) {
  g_autofree char *problem = ir_control_flow_types_problem(n);
  return problem == NULL || fail(v, "flow", n, "%s", problem);
}

static bool check_containers(Verifier *v, const IrNode *n) {
  const char *rule = NULL;
  g_autofree char *problem = ir_container_types_problem(n, &rule);
  return problem == NULL || fail(v, rule, n, "%s", problem);
}

/* Structure of one node in `block`: sentinel kinds, links, outputs, slots, names. */
static bool check_node_local(Verifier *v, const IrNode *n, const IrBlock *block) {
  if (n->destroyed)
    return fail(v, "links", n, "node is destroyed but still listed");
  if (n->owning_block != block)
    return fail(v, "links", n, "owning_block is not the block that lists it");
  if (ir_node_graph(n) != v->graph)
    return fail(v, "links", n, "node belongs to another graph");
  if (n != block->ret && (n->next == NULL || n->next->prev != n))
    return fail(v, "links", n, "next->prev does not point back");
  for (guint i = 0; i < ir_n_inputs(n); i++) {
    Slot *s = g_new(Slot, 1);
    s->node = n;
    s->index = i;
    IrValue *in = ir_input(n, i);
    g_hash_table_insert(v->slots, s, in);
    gpointer c = g_hash_table_lookup(v->counts, in);
    g_hash_table_insert(v->counts, in, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(c) + 1));
    char buf[32];
    if (!g_hash_table_contains(v->in_scope, in))
      return fail(v, "dominance", n,
                  "input %u reads %%%s, which is not defined before it in "
                  "an enclosing block",
                  i, vname(in, buf));
  }
  for (guint i = 0; i < ir_n_outputs(n); i++) {
    IrValue *o = ir_output(n, i);
    if (o->node != n || o->offset != i)
      return fail(v, "outputs", n, "output %u records node/offset of another position", i);
  }
  for (guint i = 0; i < ir_n_attrs(n); i++) {
    const IrAttr *a = ir_attr_at(n, i);
    guint count = a->kind == IR_ATTR_G ? 1 : a->kind == IR_ATTR_GS ? a->v.gs->len : 0;
    for (guint k = 0; k < count; k++) {
      g_autoptr(GString) line = g_string_new(NULL);
      ir_node_print_line(line, n);
      g_ptr_array_add(v->subgraphs, a->kind == IR_ATTR_G ? a->v.g : g_ptr_array_index(a->v.gs, k));
      g_ptr_array_add(v->sub_paths,
                      g_strdup_printf("%sin the %s of `%s`: ", v->path, a->name, line->str));
    }
  }
  return check_arity(v, n) && check_attrs(v, n) && check_schema(v, n) && check_containers(v, n) &&
         check_flow(v, n);
}

static bool define(Verifier *v, const IrNode *n, IrValue *value) {
  char buf[32];
  const char *name = vname(value, buf);
  IrValue *other = g_hash_table_lookup(v->names, name);
  if (other != NULL && other != value)
    return fail(v, "names", n, "two values display as %%%s", name);
  if (ir_node_graph(value->node) != v->graph)
    return fail(v, "links", n, "value %%%s belongs to another graph", name);
  g_hash_table_insert(v->names, g_strdup(name), value);
  g_hash_table_add(v->in_scope, value);
  g_ptr_array_add(v->all_values, value);
  return true;
}

typedef struct {
  const IrBlock *block;
  const IrNode *cur;
  const IrNode *owner;
  guint index;
  GPtrArray *defined; /* values to take out of scope when the block closes */
} VFrame;

static bool open_block(Verifier *v, GArray *stack, const IrNode *owner, guint index) {
  const IrBlock *b = owner ? ir_block(owner, index) : v->graph->block;
  VFrame f = {b, NULL, owner, index, g_ptr_array_new()};
  g_array_append_val(stack, f);
  VFrame *top = &g_array_index(stack, VFrame, stack->len - 1);
  if (b->graph != v->graph || b->owning_node != owner)
    return fail(v, "links", owner, "block %u's graph or owning node is wrong", index);
  if (b->param == NULL || b->param->kind != IR_PRIM_PARAM || ir_n_inputs(b->param) != 0 ||
      b->param->owning_block != b)
    return fail(v, "sentinels", owner, "block %u's param sentinel is missing or malformed", index);
  if (b->ret == NULL || b->ret->kind != IR_PRIM_RETURN || ir_n_outputs(b->ret) != 0 ||
      b->ret->owning_block != b)
    return fail(v, "sentinels", owner, "block %u's return sentinel is missing or malformed", index);
  for (guint i = 0; i < ir_block_inputs(b)->len; i++) {
    IrValue *in = g_ptr_array_index(ir_block_inputs(b), i);
    if (in->node != b->param || in->offset != i)
      return fail(v, "outputs", b->param, "block input %u records another position", i);
    if (!define(v, b->param, in))
      return false;
    g_ptr_array_add(top->defined, in);
  }
  top->cur = b->param->next;
  if (top->cur == NULL || top->cur->prev != b->param)
    return fail(v, "links", b->param, "param->next->prev does not point back");
  return true;
}

static bool define_outputs(Verifier *v, const IrNode *n, VFrame *f) {
  for (guint i = 0; i < ir_n_outputs(n); i++) {
    if (!define(v, n, ir_output(n, i)))
      return false;
    g_ptr_array_add(f->defined, ir_output(n, i));
  }
  return true;
}

/* Walks the blocks in order with an explicit stack (dominance, structure, arity, schema). */
static bool walk(Verifier *v) {
  if (v->graph->block == NULL || v->graph->block->owning_node != NULL)
    return fail(v, "links", NULL, "the top block is missing or has an owner");
  GArray *stack = g_array_new(FALSE, FALSE, sizeof(VFrame));
  bool ok = open_block(v, stack, NULL, 0);
  while (ok && stack->len > 0) {
    VFrame *f = &g_array_index(stack, VFrame, stack->len - 1);
    const IrNode *n = f->cur;
    if (n->prev->topo >= n->topo) {
      ok = fail(v, "topo", n,
                "topological position %" G_GINT64_FORMAT
                " does not exceed the previous node's %" G_GINT64_FORMAT,
                (gint64)n->topo, (gint64)n->prev->topo);
      break;
    }
    if (n == f->block->ret) {
      if (!(ok = check_node_local(v, n, f->block)))
        break;
      for (guint i = 0; i < f->defined->len; i++)
        g_hash_table_remove(v->in_scope, g_ptr_array_index(f->defined, i));
      const IrNode *owner = f->owner;
      guint index = f->index;
      g_ptr_array_free(f->defined, TRUE);
      g_array_set_size(stack, stack->len - 1);
      if (owner == NULL)
        continue;
      if (index + 1 < ir_n_blocks(owner)) {
        ok = open_block(v, stack, owner, index + 1);
      } else {
        VFrame *parent = &g_array_index(stack, VFrame, stack->len - 1);
        ok = define_outputs(v, owner, parent);
        parent->cur = owner->next;
      }
      continue;
    }
    if (n->kind == IR_PRIM_PARAM || n->kind == IR_PRIM_RETURN) {
      ok = fail(v, "sentinels", n, "a sentinel kind inside the node list");
      break;
    }
    if (!(ok = check_node_local(v, n, f->block)))
      break;
    const IrNode *twin = g_hash_table_lookup(v->origins, &n->origin);
    if (twin) {
      g_autoptr(GString) line = g_string_new(NULL);
      ir_node_print_line(line, twin);
      ok = fail(v, "origins", n, "origin %" G_GUINT64_FORMAT " is also the origin of `%s`",
                n->origin, line->str);
      break;
    }
    g_hash_table_insert(v->origins, (gpointer)&n->origin, (gpointer)n);
    if (ir_n_blocks(n) > 0) {
      ok = open_block(v, stack, n, 0);
    } else {
      ok = define_outputs(v, n, f);
      f->cur = n->next;
    }
  }
  for (guint i = 0; i < stack->len; i++)
    g_ptr_array_free(g_array_index(stack, VFrame, i).defined, TRUE);
  g_array_free(stack, TRUE);
  return ok;
}

/* Use lists against input slots: same count, every use points at a slot reading the value,
 * no slot listed twice. */
static bool check_uses(Verifier *v) {
  g_autoptr(GHashTable) seen = g_hash_table_new_full(slot_hash, slot_equal, g_free, NULL);
  bool ok = true;
  for (guint i = 0; ok && i < v->all_values->len; i++) {
    IrValue *value = g_ptr_array_index(v->all_values, i);
    char buf[32];
    guint expected = (guint)GPOINTER_TO_SIZE(g_hash_table_lookup(v->counts, value));
    for (guint u = 0; ok && u < value->uses->len; u++) {
      IrUse *use = &g_array_index(value->uses, IrUse, u);
      Slot key = {use->user, use->index};
      if (g_hash_table_lookup(v->slots, &key) != value) {
        ok = fail(v, "uses", value->node,
                  "a use of %%%s names input %u of a node that does not read it there",
                  vname(value, buf), use->index);
      } else if (g_hash_table_contains(seen, &key)) {
        ok = fail(v, "uses", value->node, "the use list of %%%s lists one input twice",
                  vname(value, buf));
      } else {
        g_hash_table_add(seen, g_memdup2(&key, sizeof key));
      }
    }
    if (ok && value->uses->len != expected)
      ok = fail(v, "uses", value->node, "%%%s is read by %u inputs but its use list has %u",
                vname(value, buf), expected, value->uses->len);
  }
  return ok;
}

static bool verify_graph(const IrGraph *graph, const char *path, GPtrArray *subgraphs,
                         GPtrArray *sub_paths, GError **error) {
  Verifier v = {0};
  v.graph = graph;
  v.path = path;
  v.error = error;
  v.slots = g_hash_table_new_full(slot_hash, slot_equal, g_free, NULL);
  v.counts = g_hash_table_new(g_direct_hash, g_direct_equal);
  v.in_scope = g_hash_table_new(g_direct_hash, g_direct_equal);
  v.names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  v.origins = g_hash_table_new(g_int64_hash, g_int64_equal);
  v.all_values = g_ptr_array_new();
  v.subgraphs = subgraphs;
  v.sub_paths = sub_paths;
  bool ok = walk(&v) && check_uses(&v);
  g_hash_table_destroy(v.slots);
  g_hash_table_destroy(v.counts);
  g_hash_table_destroy(v.in_scope);
  g_hash_table_destroy(v.names);
  g_hash_table_destroy(v.origins);
  g_ptr_array_free(v.all_values, TRUE);
  return ok;
}

bool ir_graph_verify(const IrGraph *graph, GError **error) {
  g_return_val_if_fail(error == NULL || *error == NULL, false);
  g_autoptr(GPtrArray) subgraphs = g_ptr_array_new();
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
  bool ok = verify_graph(graph, "", subgraphs, paths, error);
  for (guint i = 0; ok && i < subgraphs->len; i++)
    ok = verify_graph(g_ptr_array_index(subgraphs, i), g_ptr_array_index(paths, i), subgraphs,
                      paths, error);
  return ok;
}

void ir_graph_assert_valid(const IrGraph *graph, const char *after_what) {
  GError *error = NULL;
  if (!ir_graph_verify(graph, &error))
    g_error("IR invariant violated after %s: %s", after_what ? after_what : "(unknown)",
            error->message);
}
