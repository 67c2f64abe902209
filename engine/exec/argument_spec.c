/* ArgumentSpec: construction from runtime inputs, hashing, printing, and applying a spec to a
 * graph's input types (reference section 2, facts 2-4 of section 7). */
#include "exec/argument_spec.h"

static void spec_add_value(GArray *args, RtValue v, bool grad_enabled) {
  ExecArgInfo info = {0};
  switch (v.tag) {
  case RT_TENSOR:
    info.kind = EXEC_ARG_TENSOR;
    info.defined = v.u.tensor != NULL;
    if (info.defined) {
      const RtTensor *t = v.u.tensor;
      info.requires_grad = t->requires_grad && grad_enabled;
      info.rank = t->ndim;
      info.device = t->storage ? t->storage->device : IR_DEVICE_CPU;
      info.dtype = t->dtype;
    }
    g_array_append_val(args, info);
    return;
  case RT_TUPLE:
    for (guint i = 0; i < v.u.seq->len; i++)
      spec_add_value(args, v.u.seq->items[i], grad_enabled);
    return;
  default:
    info.kind = EXEC_ARG_OTHER;
    info.present = v.tag != RT_NONE;
    info.tag = v.tag;
    g_array_append_val(args, info);
    return;
  }
}

static guint spec_compute_hash(const ExecArgumentSpec *spec) {
  guint h = spec->grad_enabled ? 17u : 23u;
  for (guint i = 0; i < spec->n_args; i++) {
    const ExecArgInfo *a = &spec->args[i];
    guint x = (guint)a->kind | (guint)a->defined << 2 | (guint)a->requires_grad << 3 |
              (guint)a->present << 4 | (guint)(a->rank & 0xff) << 5 |
              (guint)(a->device & 0xf) << 13 | (guint)a->dtype << 17;
    h = h * 1000003u ^ x;
  }
  return h;
}

ExecArgumentSpec *exec_argument_spec_new(const RtValue *inputs, guint n_inputs, bool grad_enabled) {
  GArray *args = g_array_new(FALSE, TRUE, sizeof(ExecArgInfo));
  for (guint i = 0; i < n_inputs; i++)
    spec_add_value(args, inputs[i], grad_enabled);
  ExecArgumentSpec *spec = g_new0(ExecArgumentSpec, 1);
  spec->n_args = args->len;
  spec->args = (ExecArgInfo *)g_array_free(args, FALSE);
  spec->grad_enabled = grad_enabled;
  spec->hash = spec_compute_hash(spec);
  return spec;
}

/* Compares the entries of one input (a tuple: its flattened elements) from *next on with what
 * spec_add_value would record for it; advances *next. */
static bool value_matches(const ExecArgumentSpec *spec, guint *next, RtValue v) {
  if (v.tag == RT_TUPLE) {
    for (guint i = 0; i < v.u.seq->len; i++)
      if (!value_matches(spec, next, v.u.seq->items[i]))
        return false;
    return true;
  }
  if (*next >= spec->n_args)
    return false;
  const ExecArgInfo *a = &spec->args[(*next)++];
  if (v.tag != RT_TENSOR)
    return a->kind == EXEC_ARG_OTHER && a->present == (v.tag != RT_NONE);
  const RtTensor *t = v.u.tensor;
  if (a->kind != EXEC_ARG_TENSOR || a->defined != (t != NULL))
    return false;
  return !t ||
         (a->requires_grad == (t->requires_grad && spec->grad_enabled) && a->rank == t->ndim &&
          a->device == (t->storage ? t->storage->device : IR_DEVICE_CPU) && a->dtype == t->dtype);
}

bool exec_argument_spec_matches(const ExecArgumentSpec *spec, const RtValue *inputs, guint n_inputs,
                                bool grad_enabled) {
  if (spec->grad_enabled != grad_enabled)
    return false;
  guint next = 0;
  for (guint i = 0; i < n_inputs; i++)
    if (!value_matches(spec, &next, inputs[i]))
      return false;
  return next == spec->n_args;
}

void exec_argument_spec_free(ExecArgumentSpec *spec) {
  if (!spec)
    return;
  g_free(spec->args);
  g_free(spec);
}

guint exec_argument_spec_hash(gconstpointer spec) {
  return ((const ExecArgumentSpec *)spec)->hash;
}

gboolean exec_argument_spec_equal(gconstpointer pa, gconstpointer pb) {
  const ExecArgumentSpec *a = pa, *b = pb;
  if (a->hash != b->hash || a->n_args != b->n_args || a->grad_enabled != b->grad_enabled)
    return FALSE;
  for (guint i = 0; i < a->n_args; i++) {
    const ExecArgInfo *x = &a->args[i], *y = &b->args[i];
    if (x->kind != y->kind || x->defined != y->defined || x->present != y->present)
      return FALSE;
    if (x->kind == EXEC_ARG_TENSOR && x->defined &&
        (x->requires_grad != y->requires_grad || x->rank != y->rank || x->device != y->device ||
         x->dtype != y->dtype))
      return FALSE;
  }
  return TRUE;
}

/* The type a spec entry gives a tensor input: dimensioned, sizes unknown. */
static const IrType *spec_tensor_type(const ExecArgInfo *a) {
  if (!a->defined)
    return ir_type_undefined_tensor();
  int64_t sizes[IR_MAX_RANK];
  for (int d = 0; d < a->rank; d++)
    sizes[d] = IR_SIZE_UNKNOWN;
  IrType proto = {
      .kind = IR_TYPE_TENSOR,
      .has_dtype = true,
      .dtype = a->dtype,
      .rank = a->rank,
      .sizes = sizes,
      .requires_grad = a->requires_grad ? IR_YES : IR_NO,
      .device = a->device,
  };
  return ir_type_tensor_from(&proto);
}

static const char *other_kind_name(RtTag tag) {
  switch (tag) {
  case RT_INT: return "int";
  case RT_DOUBLE: return "float";
  case RT_BOOL: return "bool";
  case RT_STR: return "str";
  case RT_DEVICE: return "Device";
  case RT_LIST: return "int[]";
  case RT_NONE: return "None";
  default: return "value";
  }
}

char *exec_argument_spec_to_string(const ExecArgumentSpec *spec) {
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < spec->n_args; i++) {
    const ExecArgInfo *a = &spec->args[i];
    if (i)
      g_string_append(out, ", ");
    if (a->kind == EXEC_ARG_TENSOR)
      ir_type_print(out, spec_tensor_type(a));
    else
      g_string_append(out, other_kind_name(a->tag));
  }
  return g_string_free(out, FALSE);
}

bool exec_argument_spec_needs_gradient(const ExecArgumentSpec *spec) {
  if (!spec->grad_enabled)
    return false;
  for (guint i = 0; i < spec->n_args; i++)
    if (spec->args[i].kind == EXEC_ARG_TENSOR && spec->args[i].defined &&
        spec->args[i].requires_grad)
      return true;
  return false;
}

/* Number of flattened arguments a graph input of type `t` stands for. */
static guint flattened_width(const IrType *t) {
  if (t->kind != IR_TYPE_TUPLE)
    return 1;
  guint n = 0;
  for (guint i = 0; i < t->n_elems; i++)
    n += flattened_width(t->elems[i]);
  return n;
}

/* Replaces tuple-typed graph input `index` by its flattened elements, rebuilding the tuple
 * with prim::TupleConstruct at the top of the graph. Returns the number of inputs it became. */
static guint flatten_tuple_input(IrGraph *graph, guint index) {
  IrValue *input = g_ptr_array_index(ir_graph_inputs(graph), index);
  const IrType *t = input->type;
  IrNode *construct = ir_node_create(graph, IR_PRIM_TUPLE_CONSTRUCT, 0);
  ir_node_insert_before(construct, graph->block->param->next);
  IrValue *rebuilt = ir_node_add_output(construct, t);
  ir_value_replace_all_uses_with(input, rebuilt);
  for (guint e = 0; e < t->n_elems; e++) {
    IrValue *elem = ir_graph_add_input(graph, t->elems[e], NULL);
    ir_node_add_input(construct, elem);
  }
  /* The new inputs were appended; move them to where the tuple was, in order. */
  GPtrArray *inputs = ir_graph_inputs(graph);
  guint n_new = t->n_elems;
  ir_graph_erase_input(graph, index);
  for (guint e = 0; e < n_new; e++) {
    gpointer v = g_ptr_array_steal_index(inputs, inputs->len - n_new + e);
    g_ptr_array_insert(inputs, (gint)(index + e), v);
  }
  for (guint i = 0; i < inputs->len; i++)
    ((IrValue *)g_ptr_array_index(inputs, i))->offset = i;
  return n_new;
}

bool exec_argument_spec_apply(const ExecArgumentSpec *spec, IrGraph *graph, GError **error) {
  GPtrArray *inputs = ir_graph_inputs(graph);
  /* Flatten tuple inputs first (repeatedly: nested tuples flatten level by level). */
  for (guint i = 0; i < inputs->len;) {
    IrValue *input = g_ptr_array_index(inputs, i);
    if (input->type->kind == IR_TYPE_TUPLE)
      flatten_tuple_input(graph, i);
    else
      i++;
  }
  guint expected = 0;
  for (guint i = 0; i < inputs->len; i++)
    expected += flattened_width(((IrValue *)g_ptr_array_index(inputs, i))->type);
  if (expected != spec->n_args) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0, "the graph takes %u inputs but %u were given",
                expected, spec->n_args);
    return false;
  }
  for (guint i = 0; i < inputs->len; i++) {
    IrValue *input = g_ptr_array_index(inputs, i);
    const ExecArgInfo *a = &spec->args[i];
    const IrType *declared = input->type;
    if (a->kind == EXEC_ARG_TENSOR) {
      const IrType *target = declared->kind == IR_TYPE_OPTIONAL ? declared->elem : declared;
      if (!ir_type_is_tensor(target) && target->kind != IR_TYPE_ANY) {
        g_autofree char *want = ir_type_to_string(declared);
        g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0,
                    "input %u is a tensor but the graph declares %s", i, want);
        return false;
      }
      ir_value_set_type(input, spec_tensor_type(a));
      continue;
    }
    if (ir_type_is_tensor(declared)) {
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0, "input %u must be a tensor but is not", i);
      return false;
    }
    if (declared->kind != IR_TYPE_OPTIONAL)
      continue;
    if (a->present) {
      ir_value_set_type(input, declared->elem);
    } else {
      IrNode *first = graph->block->param->next;
      ir_graph_set_insert_point(graph, first);
      IrValue *none = ir_graph_insert_constant_none(graph);
      ir_value_replace_all_uses_with(input, none);
      ir_graph_set_insert_point(graph, graph->block->ret);
    }
  }
  return true;
}
