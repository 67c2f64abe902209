/* Operator calls from script: overload resolution through the op table (contract in emit.h).
 * Algorithm: PyTorch's schema matching (script/schema_matching.cpp): overloads tried in
 * table order; positional arguments fill the schema's leading non-keyword-only arguments,
 * keywords fill by name, the rest take their defaults (materialized as constants without a
 * source range, as PyTorch prints them); the first overload whose argument types all accept
 * the given values wins. When none does, trailing values may fill a last positional list
 * argument (`torch.zeros(3, 4)`, `torch.broadcast_tensors(x, y)`: PyTorch's varargs lists).
 * The type variable `t` of list and dict ops is bound from the first container argument, so
 * `d["k"]` of a Dict(str, Tensor) is a Tensor and `l[1:]` of an int[] an int[]. An argument
 * of a fixed-size list type `T[N]` also takes one T, repeated N times by a
 * prim::ListConstruct (`x.sum(-1)` for `int[1]? dim`), and a list argument a homogeneous
 * tuple (`(1, n)` for `int[2]`), as PyTorch's tryConvertToType. */
#include <string.h>

#include "ir/ops.h"
#include "script/emit.h"

static bool accepts(const IrType *arg_type, const IrType *value_type) {
  return ir_schema_arg_accepts(arg_type, value_type);
}

/* The list type of `arg` (T[] or T[]?), or NULL. */
static const IrType *list_of(const IrArgument *arg) {
  const IrType *t = arg->type->kind == IR_TYPE_OPTIONAL ? arg->type->elem : arg->type;
  return t->kind == IR_TYPE_LIST ? t : NULL;
}

/* Whether `arg` takes the tuple `value` only as a list of its elements (a homogeneous tuple
 * for a list, as PyTorch's tryConvertToType: `(1, n)` for `int[2]`). */
static bool tuple_into_list(const IrArgument *arg, const IrType *value) {
  const IrType *list = list_of(arg);
  if (list == NULL || value->kind != IR_TYPE_TUPLE || accepts(arg->type, value))
    return false;
  for (guint i = 0; i < value->n_elems; i++)
    if (!accepts(list->elem, value->elems[i]))
      return false;
  return true;
}

/* Whether `arg` takes `value` only as its one element repeated (a T for a `T[N]`, `T[N]?`). */
static bool repeats_into_list(const IrArgument *arg, const IrType *value) {
  const IrType *list = list_of(arg);
  return arg->fixed_len > 0 && list && !accepts(arg->type, value) && accepts(list->elem, value);
}

/* Whether `value` is an empty list display written at this call (`[]`: not bound to a name,
 * not used yet) that `arg` takes as its own list type: PyTorch emits the display with the
 * parameter's type as hint (`torch.max_pool2d(x, 2, [])` builds an int[]). */
static bool empty_display_into_list(const IrArgument *arg, const IrValue *value) {
  return list_of(arg) && value->node->kind == IR_PRIM_LIST_CONSTRUCT &&
         ir_n_inputs(value->node) == 0 && value->name == NULL && value->uses->len == 0 &&
         !accepts(arg->type, value->type);
}

/* Whether `arg` is a Device (or Device?) that takes the string constant `value`, as PyTorch
 * converts a str with aten::device (`x.to("cpu")`), which its constant propagation folds. */
static bool str_into_device(const IrArgument *arg, const IrValue *value) {
  const IrType *t = arg->type->kind == IR_TYPE_OPTIONAL ? arg->type->elem : arg->type;
  return t->kind == IR_TYPE_DEVICE && value->type->kind == IR_TYPE_STR &&
         value->node->kind == IR_PRIM_CONSTANT && ir_node_has_attr(value->node, IR_ATTR_VALUE);
}

/* Whether `arg`'s default is one int repeated into its `T[N]` (`int[2] padding=0`), which
 * *value receives. */
static bool repeated_default(const IrArgument *arg, gint64 *value) {
  if (arg->fixed_len == 0 || arg->def.kind != IR_DEFAULT_INT_LIST ||
      arg->def.n_ints != arg->fixed_len)
    return false;
  for (guint i = 1; i < arg->def.n_ints; i++)
    if (arg->def.ints[i] != arg->def.ints[0])
      return false;
  *value = arg->def.ints[0];
  return true;
}

/* Fills slots[0..schema->n_args) from the call; false when the call does not fit. */
static bool fit_call(const IrSchema *schema, IrValue *const *args, guint n_args,
                     GPtrArray *kw_names, IrValue *const *kw_values, IrValue **slots) {
  if (n_args > schema->n_args)
    return false;
  for (guint i = 0; i < schema->n_args; i++)
    slots[i] = NULL;
  for (guint i = 0; i < n_args; i++) {
    if (schema->args[i].kwarg_only)
      return false;
    slots[i] = args[i];
  }
  for (guint k = 0; kw_names && k < kw_names->len; k++) {
    const char *name = g_ptr_array_index(kw_names, k);
    guint j = 0;
    while (j < schema->n_args && strcmp(schema->args[j].name, name) != 0)
      j++;
    if (j == schema->n_args || slots[j] != NULL)
      return false;
    slots[j] = kw_values[k];
  }
  for (guint i = 0; i < schema->n_args; i++) {
    if (slots[i] == NULL) {
      if (schema->args[i].def.kind == IR_DEFAULT_NONE_GIVEN)
        return false;
    } else if (!accepts(schema->args[i].type, slots[i]->type) &&
               !repeats_into_list(&schema->args[i], slots[i]->type) &&
               !tuple_into_list(&schema->args[i], slots[i]->type) &&
               !empty_display_into_list(&schema->args[i], slots[i]) &&
               !str_into_device(&schema->args[i], slots[i])) {
      return false;
    }
  }
  return true;
}

/* The index of a schema's last positional argument when it is a list that the call's
 * positional arguments from there on (at least one, each an element) can fill; -1 otherwise.
 * As PyTorch's varargsCanBeUsedAsList: not a fixed-size list (one element fills that), not a
 * list of a type variable. */
static int varargs_index(const IrSchema *schema, IrValue *const *args, guint n_args) {
  guint last = 0;
  while (last < schema->n_args && !schema->args[last].kwarg_only)
    last++;
  if (last == 0 || n_args < last)
    return -1;
  const IrArgument *a = &schema->args[last - 1];
  if (a->type->kind != IR_TYPE_LIST || a->fixed_len > 0 || a->type->elem->kind == IR_TYPE_ANY)
    return -1;
  for (guint i = last - 1; i < n_args; i++)
    if (!accepts(a->type->elem, args[i]->type))
      return -1;
  return (int)last - 1;
}

/* What `t` stands for in this call: the element of the first t[] argument's list or the
 * value type of the first Dict(K, t) argument's dict; NULL when no argument binds it. */
static const IrType *bind_type_var(const IrSchema *schema, IrValue *const *slots) {
  for (guint i = 0; i < schema->n_args; i++) {
    const IrType *a = schema->args[i].type, *v = slots[i]->type;
    if (a->kind == IR_TYPE_LIST && a->elem->kind == IR_TYPE_ANY && v->kind == IR_TYPE_LIST)
      return v->elem;
    if (a->kind == IR_TYPE_DICT && a->elems[1]->kind == IR_TYPE_ANY && v->kind == IR_TYPE_DICT)
      return v->elems[1];
  }
  return NULL;
}

/* `type` with every type variable replaced by `bound`. */
static const IrType *substitute(const IrType *type, const IrType *bound) {
  switch (type->kind) {
  case IR_TYPE_ANY: return bound;
  case IR_TYPE_LIST: return ir_type_list(substitute(type->elem, bound));
  case IR_TYPE_OPTIONAL: return ir_type_optional(substitute(type->elem, bound));
  case IR_TYPE_DICT:
    return ir_type_dict(substitute(type->elems[0], bound), substitute(type->elems[1], bound));
  case IR_TYPE_TUPLE: {
    g_autofree const IrType **elems = g_new(const IrType *, type->n_elems + 1);
    for (guint i = 0; i < type->n_elems; i++)
      elems[i] = substitute(type->elems[i], bound);
    return ir_type_tuple(elems, type->n_elems);
  }
  default: return type;
  }
}

static IrValue *default_constant(Emitter *em, const IrArgument *arg) {
  const IrType *t = arg->type->kind == IR_TYPE_OPTIONAL ? arg->type->elem : arg->type;
  switch (arg->def.kind) {
  case IR_DEFAULT_NONE: return emit_constant_none(em, NULL);
  case IR_DEFAULT_INT:
    if (t->kind == IR_TYPE_BOOL)
      return emit_constant_bool(em, arg->def.i != 0, NULL);
    if (t->kind == IR_TYPE_FLOAT)
      return emit_constant_float(em, (double)arg->def.i, NULL);
    return emit_constant_int(em, arg->def.i, NULL);
  case IR_DEFAULT_FLOAT: return emit_constant_float(em, arg->def.f, NULL);
  case IR_DEFAULT_STR: return emit_constant_str(em, arg->def.s, NULL);
  case IR_DEFAULT_INT_LIST: {
    IrNode *n = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
    ir_value_set_type(ir_output(n, 0), ir_type_list(ir_type_int()));
    ir_node_set_attr_is(n, IR_ATTR_VALUE, arg->def.ints, arg->def.n_ints);
    emit_append(em, n);
    return ir_output(n, 0);
  }
  case IR_DEFAULT_NONE_GIVEN: break;
  }
  g_error("script invariant: default of argument %s has no value", arg->name);
}

/* "(Tensor, int, alpha=float)" for the error message. */
static char *describe_call(IrValue *const *args, guint n_args, GPtrArray *kw_names,
                           IrValue *const *kw_values) {
  GString *s = g_string_new("(");
  for (guint i = 0; i < n_args; i++) {
    if (i)
      g_string_append(s, ", ");
    ir_type_print(s, args[i]->type);
  }
  for (guint k = 0; kw_names && k < kw_names->len; k++) {
    if (n_args || k)
      g_string_append(s, ", ");
    g_string_append_printf(s, "%s=", (const char *)g_ptr_array_index(kw_names, k));
    ir_type_print(s, kw_values[k]->type);
  }
  g_string_append_c(s, ')');
  return g_string_free(s, FALSE);
}

/* Fills the omitted arguments with their defaults and converts the given ones the schema
 * takes only after a conversion (a tuple into a list, one value repeated into a `T[N]`).
 * `python_defaults`: a function's `T[N]` default of one value repeated is that value made a
 * list at the call, as PyTorch compiles a Python default (`padding: BroadcastingList2[int] =
 * 0`); a builtin's is a list constant. */
static void fill_slots(Emitter *em, const IrSchema *schema, IrValue **slots, bool python_defaults) {
  for (guint i = 0; i < schema->n_args; i++) {
    const IrArgument *a = &schema->args[i];
    gint64 repeated;
    if (slots[i] == NULL && python_defaults && repeated_default(a, &repeated))
      slots[i] = emit_constant_int(em, repeated, NULL);
    if (slots[i] == NULL) {
      slots[i] = default_constant(em, a);
    } else if (empty_display_into_list(a, slots[i])) {
      /* made here, as PyTorch emits the display when it matches the argument */
      ir_value_set_type(slots[i], list_of(a));
      ir_node_move_before(slots[i]->node, em->frame->block->ret);
    } else if (str_into_device(a, slots[i])) {
      IrNode *device = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
      ir_value_set_type(ir_output(device, 0), ir_type_device());
      ir_node_set_attr_s(device, IR_ATTR_VALUE, ir_node_attr_s(slots[i]->node, IR_ATTR_VALUE));
      emit_append(em, device);
      slots[i] = ir_output(device, 0);
    } else if (tuple_into_list(a, slots[i]->type)) {
      /* The tuple's elements, read from its TupleConstruct when it has one (as PyTorch's
       * LowerSimpleTuples leaves it), else through a TupleUnpack. */
      IrValue *tuple = slots[i];
      IrNode *source = tuple->node;
      if (source->kind != IR_PRIM_TUPLE_CONSTRUCT) {
        source = ir_node_create(em->graph, IR_PRIM_TUPLE_UNPACK, tuple->type->n_elems);
        ir_node_add_input(source, tuple);
        for (guint k = 0; k < tuple->type->n_elems; k++)
          ir_value_set_type(ir_output(source, k), tuple->type->elems[k]);
        emit_append(em, source);
      }
      IrNode *list = ir_node_create(em->graph, IR_PRIM_LIST_CONSTRUCT, 1);
      for (guint k = 0; k < tuple->type->n_elems; k++)
        ir_node_add_input(list, source->kind == IR_PRIM_TUPLE_CONSTRUCT ? ir_input(source, k)
                                                                        : ir_output(source, k));
      ir_value_set_type(ir_output(list, 0), list_of(a));
      emit_append(em, list);
      slots[i] = ir_output(list, 0);
    } else if (repeats_into_list(a, slots[i]->type)) {
      IrNode *list = ir_node_create(em->graph, IR_PRIM_LIST_CONSTRUCT, 1);
      for (guint k = 0; k < a->fixed_len; k++)
        ir_node_add_input(list, slots[i]);
      ir_value_set_type(ir_output(list, 0), list_of(a));
      emit_append(em, list);
      slots[i] = ir_output(list, 0);
    }
  }
}

IrValue *emit_builtin_call(Emitter *em, const char *qualified_name, ScriptLoc loc,
                           IrValue *const *args, guint n_args, GPtrArray *kw_names,
                           IrValue *const *kw_values) {
  IrOpKind kind;
  guint n_overloads = 0;
  const IrSchema *const *overloads = NULL;
  if (ir_kind_from_name(qualified_name, &kind))
    overloads = ir_ops_overloads(kind, &n_overloads);
  if (n_overloads == 0)
    return emit_fail(em, loc, "unknown operator '%s'", qualified_name);
  const IrSchema *chosen = NULL;
  guint max_args = 0;
  for (guint i = 0; i < n_overloads; i++)
    max_args = MAX(max_args, overloads[i]->n_args);
  g_autofree IrValue **slots = g_new0(IrValue *, max_args + 1);
  for (guint i = 0; i < n_overloads && !chosen; i++)
    if (fit_call(overloads[i], args, n_args, kw_names, kw_values, slots))
      chosen = overloads[i];
  /* Varargs: checked with a stand-in list value, built once an overload takes it. */
  int packed = -1;
  IrValue stand_in = {0};
  g_autofree IrValue **packed_args = g_new(IrValue *, n_args + 1);
  for (guint i = 0; i < n_overloads && !chosen; i++) {
    packed = varargs_index(overloads[i], args, n_args);
    if (packed < 0)
      continue;
    memcpy(packed_args, args, sizeof(IrValue *) * (guint)packed);
    stand_in.type = overloads[i]->args[packed].type;
    packed_args[packed] = &stand_in;
    if (fit_call(overloads[i], packed_args, (guint)packed + 1, kw_names, kw_values, slots))
      chosen = overloads[i];
  }
  if (chosen && packed >= 0) {
    IrNode *list = ir_node_create(em->graph, IR_PRIM_LIST_CONSTRUCT, 1);
    for (guint i = (guint)packed; i < n_args; i++)
      ir_node_add_input(list, args[i]);
    ir_value_set_type(ir_output(list, 0), stand_in.type);
    emit_append(em, list);
    slots[packed] = ir_output(list, 0);
  }
  if (chosen == NULL) {
    g_autofree char *call = describe_call(args, n_args, kw_names, kw_values);
    GString *candidates = g_string_new(NULL);
    for (guint i = 0; i < n_overloads; i++)
      g_string_append_printf(candidates, "%s%s", i ? " | " : "", overloads[i]->text);
    IrValue *r = emit_fail(em, loc, "no overload of %s accepts %s; candidates: %s", qualified_name,
                           call, candidates->str);
    g_string_free(candidates, TRUE);
    return r;
  }
  fill_slots(em, chosen, slots, false);
  IrNode *node = ir_node_create(em->graph, kind, chosen->n_returns);
  for (guint i = 0; i < chosen->n_args; i++)
    ir_node_add_input(node, slots[i]);
  const IrType *bound = bind_type_var(chosen, slots);
  for (guint i = 0; i < chosen->n_returns; i++)
    ir_value_set_type(ir_output(node, i),
                      bound ? substitute(chosen->returns[i], bound) : chosen->returns[i]);
  node->schema = chosen;
  emit_set_source(em, node, loc);
  emit_append(em, node);
  if (chosen->n_returns == 1)
    return ir_output(node, 0);
  if (chosen->n_returns == 0)
    return emit_constant_none(em, NULL);
  IrNode *tuple = ir_node_create(em->graph, IR_PRIM_TUPLE_CONSTRUCT, 1);
  g_autofree const IrType **types = g_new(const IrType *, chosen->n_returns);
  for (guint i = 0; i < chosen->n_returns; i++) {
    ir_node_add_input(tuple, ir_output(node, i));
    types[i] = ir_output(node, i)->type;
  }
  ir_value_set_type(ir_output(tuple, 0), ir_type_tuple(types, chosen->n_returns));
  emit_append(em, tuple);
  return ir_output(tuple, 0);
}

/* torch.nn.functional functions that PyTorch 1.13 compiles as calls (not builtins), with
 * their Python signatures as schemas; engine/passes/functional_defs.c defines their bodies,
 * which the command line and the window inline before a run. */
static const struct {
  const char *name, *signature;
} script_functions[] = {
    {"cross_entropy",
     "F::cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, "
     "int ignore_index=-100, bool? reduce=None, str reduction=\"mean\", float "
     "label_smoothing=0.0) -> Tensor"},
    {"binary_cross_entropy_with_logits",
     "F::binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, bool? "
     "size_average=None, bool? reduce=None, str reduction=\"mean\", Tensor? pos_weight=None) -> "
     "Tensor"},
    {"nll_loss",
     "F::nll_loss(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int "
     "ignore_index=-100, bool? reduce=None, str reduction=\"mean\") -> Tensor"},
    {"smooth_l1_loss",
     "F::smooth_l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, "
     "str reduction=\"mean\", float beta=1.0) -> Tensor"},
    {"huber_loss", "F::huber_loss(Tensor input, Tensor target, str reduction=\"mean\", float "
                   "delta=1.0) -> Tensor"},
    {"soft_margin_loss", "F::soft_margin_loss(Tensor input, Tensor target, bool? "
                         "size_average=None, bool? reduce=None, str reduction=\"mean\") -> Tensor"},
    {"binary_cross_entropy",
     "F::binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? "
     "size_average=None, bool? reduce=None, str reduction=\"mean\") -> Tensor"},
    {"kl_div", "F::kl_div(Tensor input, Tensor target, bool? size_average=None, bool? "
               "reduce=None, str reduction=\"mean\", bool log_target=False) -> Tensor"},
    {"multilabel_soft_margin_loss",
     "F::multilabel_soft_margin_loss(Tensor input, Tensor target, Tensor? weight=None, bool? "
     "size_average=None, bool? reduce=None, str reduction=\"mean\") -> Tensor"},
    {"mse_loss", "F::mse_loss(Tensor input, Tensor target, bool? size_average=None, bool? "
                 "reduce=None, str reduction=\"mean\") -> Tensor"},
    {"l1_loss", "F::l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? "
                "reduce=None, str reduction=\"mean\") -> Tensor"},
    {"dropout",
     "F::dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor"},
    {"relu", "F::relu(Tensor input, bool inplace=False) -> Tensor"},
    {"silu", "F::silu(Tensor input, bool inplace=False) -> Tensor"},
    {"mish", "F::mish(Tensor input, bool inplace=False) -> Tensor"},
    {"hardsigmoid", "F::hardsigmoid(Tensor input, bool inplace=False) -> Tensor"},
    {"relu6", "F::relu6(Tensor input, bool inplace=False) -> Tensor"},
    {"hardswish", "F::hardswish(Tensor input, bool inplace=False) -> Tensor"},
    {"elu", "F::elu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor"},
    {"leaky_relu",
     "F::leaky_relu(Tensor input, float negative_slope=0.01, bool inplace=False) -> Tensor"},
    {"threshold", "F::_threshold(Tensor input, float threshold, float value, bool "
                  "inplace=False) -> Tensor"},
    {"celu", "F::celu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor"},
    {"selu", "F::selu(Tensor input, bool inplace=False) -> Tensor"},
    {"rrelu", "F::rrelu(Tensor input, float lower=0.125, float upper=0.3333333333333333, bool "
              "training=False, bool inplace=False) -> Tensor"},
    {"softsign", "F::softsign(Tensor input) -> Tensor"},
    {"tanhshrink", "F::tanhshrink(Tensor input) -> Tensor"},
    {"normalize", "F::normalize(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? "
                  "out=None) -> Tensor"},
    {"hardtanh", "F::hardtanh(Tensor input, float min_val=-1.0, float max_val=1.0, bool "
                 "inplace=False) -> Tensor"},
    {"softmax",
     "F::softmax(Tensor input, int? dim=None, int _stacklevel=3, int? dtype=None) -> Tensor"},
    {"log_softmax",
     "F::log_softmax(Tensor input, int? dim=None, int _stacklevel=3, int? dtype=None) -> Tensor"},
    {"layer_norm", "F::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05) -> Tensor"},
    {"group_norm", "F::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? "
                   "bias=None, float eps=1e-05) -> Tensor"},
    {"embedding", "F::embedding(Tensor input, Tensor weight, int? padding_idx=None, float? "
                  "max_norm=None, float norm_type=2.0, bool scale_grad_by_freq=False, bool "
                  "sparse=False) -> Tensor"},
    {"adaptive_avg_pool2d", "F::adaptive_avg_pool2d(Tensor input, int[2] output_size) -> Tensor"},
    {"instance_norm", "F::instance_norm(Tensor input, Tensor? running_mean=None, Tensor? "
                      "running_var=None, Tensor? weight=None, Tensor? bias=None, bool "
                      "use_input_stats=True, float momentum=0.1, float eps=1e-05) -> Tensor"},
    {"batch_norm", "F::batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, "
                   "Tensor? weight=None, Tensor? bias=None, bool training=False, float "
                   "momentum=0.1, float eps=1e-05) -> Tensor"},
    /* size and scale_factor take an int or float, a list or a tuple of them, or None (Python
     * overloads in torch/nn/functional.py); functional_defs.c defines each form */
    {"interpolate", "F::interpolate(Tensor input, Any size=None, Any scale_factor=None, str "
                    "mode=\"nearest\", bool? align_corners=None, bool? "
                    "recompute_scale_factor=None, bool antialias=False) -> Tensor"},
    {"max_pool2d",
     "F::_max_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, "
     "int[2] dilation=1, bool ceil_mode=False, bool return_indices=False) -> Tensor"},
    {"max_pool2d_with_indices",
     "F::max_pool2d_with_indices(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] "
     "padding=0, int[2] dilation=1, bool ceil_mode=False, bool return_indices=False) -> (Tensor, "
     "Tensor)"},
    {"max_pool1d",
     "F::_max_pool1d(Tensor input, int[1] kernel_size, int[1]? stride=None, int[1] padding=0, "
     "int[1] dilation=1, bool ceil_mode=False, bool return_indices=False) -> Tensor"},
    {"max_pool1d_with_indices",
     "F::max_pool1d_with_indices(Tensor input, int[1] kernel_size, int[1]? stride=None, int[1] "
     "padding=0, int[1] dilation=1, bool ceil_mode=False, bool return_indices=False) -> (Tensor, "
     "Tensor)"},
    {"adaptive_max_pool1d", "F::_adaptive_max_pool1d(Tensor input, int[1] output_size, bool "
                            "return_indices=False) -> Tensor"},
    {"adaptive_max_pool1d_with_indices",
     "F::adaptive_max_pool1d_with_indices(Tensor input, int[1] output_size, bool "
     "return_indices=False) -> (Tensor, Tensor)"},
    /* torch.norm is torch.functional.norm, four TorchScript overloads tried in order (p a str
     * or a number, dim a list or an int); functional_defs.c defines each form */
    {"torch.norm", "torch::norm(Tensor input, str p=\"fro\", int[]? dim=None, bool keepdim=False, "
                   "Tensor? out=None, int? dtype=None) -> Tensor"},
    {"torch.norm", "torch::norm(Tensor input, Scalar? p=\"fro\", int[]? dim=None, bool "
                   "keepdim=False, Tensor? out=None, int? dtype=None) -> Tensor"},
    {"torch.norm", "torch::norm(Tensor input, Scalar? p=\"fro\", int? dim=None, bool "
                   "keepdim=False, Tensor? out=None, int? dtype=None) -> Tensor"},
    {"torch.norm", "torch::norm(Tensor input, str p=\"fro\", int? dim=None, bool keepdim=False, "
                   "Tensor? out=None, int? dtype=None) -> Tensor"},
};

/* Functions whose Function constant PyTorch names otherwise: F.<name> calls `if_false` or,
 * for PyTorch's boolean_dispatch, when its return_indices is a constant true, the entry
 * `if_true` of script_functions (NULL: no dispatch; torch.norm's constant is "norm"). */
static const struct {
  const char *name, *if_false, *if_true;
} dispatched_functions[] = {
    {"max_pool2d", "_max_pool2d", "max_pool2d_with_indices"},
    {"max_pool1d", "_max_pool1d", "max_pool1d_with_indices"},
    {"adaptive_max_pool1d", "_adaptive_max_pool1d", "adaptive_max_pool1d_with_indices"},
    {"torch.norm", "norm", NULL},
    {"threshold", "_threshold", NULL},
};

static bool function_known(const char *name) {
  for (guint i = 0; i < G_N_ELEMENTS(script_functions); i++)
    if (strcmp(script_functions[i].name, name) == 0)
      return true;
  return false;
}

/* The value of a dispatched call's return_indices (its default false when not given); false
 * with an error where it is not a constant. */
static bool return_indices_of(Emitter *em, const IrSchema *schema, IrValue *const *slots,
                              const char *name, ScriptLoc loc, bool *out) {
  *out = false;
  for (guint i = 0; i < schema->n_args; i++) {
    if (strcmp(schema->args[i].name, "return_indices") != 0 || slots[i] == NULL)
      continue;
    const IrNode *producer = slots[i]->node;
    if (producer->kind != IR_PRIM_CONSTANT || !ir_node_has_attr(producer, IR_ATTR_VALUE)) {
      emit_fail(em, loc,
                "F.%s: return_indices must be a constant bool, as PyTorch's "
                "boolean_dispatch needs",
                name);
      return false;
    }
    *out = ir_node_attr_i(producer, IR_ATTR_VALUE) != 0;
  }
  return true;
}

/* The schema of the first form of `name` (several for torch.norm's overloads, tried in order)
 * that the call's arguments fit, filled into *slots; NULL with the error emitted when none
 * fits. */
static IrSchema *fit_signature(Emitter *em, const char *name, ScriptLoc loc, IrValue *const *args,
                               guint n_args, GPtrArray *kw_names, IrValue *const *kw_values,
                               IrValue ***slots) {
  g_autoptr(GString) signatures = g_string_new(NULL);
  for (guint i = 0; i < G_N_ELEMENTS(script_functions); i++) {
    if (strcmp(script_functions[i].name, name) != 0)
      continue;
    g_autoptr(GError) bad = NULL;
    IrSchema *schema = ir_schema_parse(script_functions[i].signature, &bad);
    if (schema == NULL)
      g_error("script invariant: signature of %s does not parse: %s", name, bad->message);
    g_free(*slots);
    *slots = g_new0(IrValue *, schema->n_args + 1);
    if (fit_call(schema, args, n_args, kw_names, kw_values, *slots))
      return schema;
    g_string_append_printf(signatures, "%s%s", signatures->len ? "; " : "",
                           script_functions[i].signature);
    ir_schema_free(schema);
  }
  g_autofree char *call = describe_call(args, n_args, kw_names, kw_values);
  emit_fail(em, loc, "%s%s does not accept %s; its signature%s: %s",
            g_str_has_prefix(name, "torch.") ? "" : "F.", name, call,
            strchr(signatures->str, ';') ? "s" : "", signatures->str);
  return NULL;
}

bool emit_function_call(Emitter *em, const char *name, ScriptLoc loc, IrValue *const *args,
                        guint n_args, GPtrArray *kw_names, IrValue *const *kw_values,
                        IrValue **out) {
  const char *function = name;
  if (!function_known(name))
    return false;
  *out = NULL;
  g_autofree IrValue **slots = NULL;
  IrSchema *schema = fit_signature(em, name, loc, args, n_args, kw_names, kw_values, &slots);
  if (schema == NULL)
    return true;
  for (guint i = 0; i < G_N_ELEMENTS(dispatched_functions); i++) {
    if (strcmp(dispatched_functions[i].name, name) != 0)
      continue;
    function = dispatched_functions[i].if_false;
    if (dispatched_functions[i].if_true == NULL)
      continue;
    bool indices;
    if (!return_indices_of(em, schema, slots, name, loc, &indices)) {
      ir_schema_free(schema);
      return true;
    }
    if (indices) {
      function = dispatched_functions[i].if_true;
      ir_schema_free(schema);
      schema = fit_signature(em, function, loc, args, n_args, kw_names, kw_values, &slots);
      if (schema == NULL)
        return true;
    }
  }
  fill_slots(em, schema, slots, true);
  IrNode *fn = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1); /* after the defaults: PyTorch */
  ir_node_set_attr_s(fn, IR_ATTR_NAME, function);
  ir_value_set_type(ir_output(fn, 0), ir_type_class("Function"));
  emit_append(em, fn);
  IrNode *call = ir_node_create(em->graph, IR_PRIM_CALL_FUNCTION, 1);
  ir_node_add_input(call, ir_output(fn, 0));
  for (guint i = 0; i < schema->n_args; i++)
    ir_node_add_input(call, slots[i]);
  /* a Python function returns one value: several returns are one tuple */
  ir_value_set_type(ir_output(call, 0), schema->n_returns == 1
                                            ? schema->returns[0]
                                            : ir_type_tuple(schema->returns, schema->n_returns));
  ir_schema_free(schema);
  emit_set_source(em, call, loc);
  emit_append(em, call);
  *out = ir_output(call, 0);
  return true;
}

/* --- calls of the file's other defs --- */

/* A parameter's default as a schema default: a literal (a number, its negation, a bool,
 * None, a string, a list of ints). False with *error otherwise: the frontend evaluates no
 * Python, where PyTorch's compiler evaluates the default expression. */
static bool literal_default(Emitter *em, const ScriptParam *param, IrDefault *out,
                            GPtrArray *owned) {
  const ScriptExpr *e = param->default_value;
  bool negate = e->kind == SE_UNARY && strcmp(e->op, "-") == 0;
  const ScriptExpr *v = negate ? g_ptr_array_index(e->args, 0) : e;
  switch (v->kind) {
  case SE_INT:
    *out = (IrDefault){.kind = IR_DEFAULT_INT, .i = negate ? -v->int_value : v->int_value};
    return true;
  case SE_FLOAT:
    *out = (IrDefault){.kind = IR_DEFAULT_FLOAT, .f = negate ? -v->float_value : v->float_value};
    return true;
  case SE_BOOL:
    if (negate)
      break;
    *out = (IrDefault){.kind = IR_DEFAULT_INT, .i = v->int_value};
    return true;
  case SE_NONE:
    if (negate)
      break;
    *out = (IrDefault){.kind = IR_DEFAULT_NONE};
    return true;
  case SE_STRING:
    if (negate)
      break;
    *out = (IrDefault){.kind = IR_DEFAULT_STR, .s = v->name};
    return true;
  case SE_LIST: {
    if (negate)
      break;
    gint64 *ints = g_new(gint64, v->args->len + 1);
    g_ptr_array_add(owned, ints);
    for (guint i = 0; i < v->args->len; i++) {
      const ScriptExpr *item = g_ptr_array_index(v->args, i);
      if (item->kind != SE_INT)
        return emit_fail(em, e->loc, "the default of '%s' must be a literal", param->name);
      ints[i] = item->int_value;
    }
    *out = (IrDefault){.kind = IR_DEFAULT_INT_LIST, .ints = ints, .n_ints = v->args->len};
    return true;
  }
  default: break;
  }
  return emit_fail(em, e->loc, "the default of '%s' must be a literal", param->name);
}

IrValue *emit_def_call(Emitter *em, const ScriptDef *def, ScriptLoc loc, IrValue *const *args,
                       guint n_args, GPtrArray *kw_names, IrValue *const *kw_values) {
  const IrGraph *callee = emit_callee(em, def, loc);
  if (callee == NULL)
    return NULL;
  GPtrArray *inputs = ir_graph_inputs(callee);
  const IrType *result_type = ((IrValue *)g_ptr_array_index(ir_graph_outputs(callee), 0))->type;
  g_autofree IrArgument *params = g_new0(IrArgument, inputs->len + 1);
  g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
  GString *signature = g_string_new("(");
  for (guint i = 0; i < inputs->len; i++) {
    const ScriptParam *param = g_ptr_array_index(def->params, i);
    params[i].name = param->name;
    params[i].type = ((IrValue *)g_ptr_array_index(inputs, i))->type;
    if (param->default_value && !literal_default(em, param, &params[i].def, owned)) {
      g_string_free(signature, TRUE);
      return NULL;
    }
    g_string_append_printf(signature, "%s%s: ", i ? ", " : "", param->name);
    ir_type_print(signature, params[i].type);
  }
  g_string_append_c(signature, ')');
  g_autofree char *signature_text = g_string_free(signature, FALSE);
  IrSchema schema = {.name = def->name,
                     .overload = "",
                     .text = signature_text,
                     .n_args = inputs->len,
                     .args = params,
                     .n_returns = 1,
                     .returns = &result_type};
  g_autofree IrValue **slots = g_new0(IrValue *, inputs->len + 1);
  if (!fit_call(&schema, args, n_args, kw_names, kw_values, slots)) {
    g_autofree char *call = describe_call(args, n_args, kw_names, kw_values);
    return emit_fail(em, loc, "'%s' does not accept %s; its parameters: %s", def->name, call,
                     signature_text);
  }
  fill_slots(em, &schema, slots, true);
  IrNode *fn = ir_node_create(em->graph, IR_PRIM_CONSTANT, 1);
  ir_node_set_attr_s(fn, IR_ATTR_NAME, def->name);
  ir_value_set_type(ir_output(fn, 0), ir_type_class("Function"));
  emit_append(em, fn);
  IrNode *call = ir_node_create(em->graph, IR_PRIM_CALL_FUNCTION, 1);
  ir_node_add_input(call, ir_output(fn, 0));
  for (guint i = 0; i < inputs->len; i++)
    ir_node_add_input(call, slots[i]);
  ir_value_set_type(ir_output(call, 0), result_type);
  emit_set_source(em, call, loc);
  emit_append(em, call);
  /* The inliner finds the callee, and what it calls, in the caller's own table. */
  ir_graph_set_function(em->graph, def->name, ir_graph_copy(callee));
  if (callee->functions) {
    GHashTableIter it;
    gpointer name, definition;
    g_hash_table_iter_init(&it, callee->functions);
    while (g_hash_table_iter_next(&it, &name, &definition))
      ir_graph_set_function(em->graph, name, ir_graph_copy(definition));
  }
  return ir_output(call, 0);
}
