/* Calls as PyTorch wrote them until 2018, read as their later forms (text_parse.h):
 * - Arguments written as attributes: `aten::add[alpha={2}](%a, %b)`, `aten::stack[dim=0](%a,
 *   %b)`. Such a node's attributes are arguments of its schema; text_attr_args_to_inputs makes
 *   them constant inputs, in the schema's order, so that the node resolves and runs as its
 *   later form does (`aten::add(%a, %b, %two)`). Ignoring them would run another computation
 *   (alpha=1).
 * - Argument values of their time, where a call matches no overload as written: a device as
 *   a list `[type, index]` (0 the CPU, 1 CUDA: `aten::zeros(%size, %dtype, %layout,
 *   %device_list)`), a flag as an int 0 or 1 (`aten::sum(%x, %dims, %keepdim_int)`);
 *   text_legacy_values_to_inputs makes them Device and bool constants where that makes an
 *   overload match. */
#include <string.h>

#include "ir/ops.h"
#include "ir/text_parse.h"
#include "tensor/tensor.h"

typedef enum { SOURCE_INPUT, SOURCE_ATTR, SOURCE_DEFAULT, SOURCE_TENSOR_LIST } SourceKind;

typedef struct {
  SourceKind kind;
  guint first, count; /* SOURCE_INPUT: the input; SOURCE_TENSOR_LIST: the inputs it packs */
  const IrAttr *attr;
} Source;

static bool is_tensor_list(const IrType *t) {
  return t->kind == IR_TYPE_LIST && t->elem->kind == IR_TYPE_TENSOR;
}

/* An attribute's number, when it holds one (an int, a double, a one-element tensor `{2}`);
 * *integral says whether it was written as an integer. */
static bool attr_number(const IrAttr *a, double *v, bool *integral) {
  switch (a->kind) {
  case IR_ATTR_I:
    *v = (double)a->v.i;
    *integral = true;
    return true;
  case IR_ATTR_F:
    *v = a->v.f;
    *integral = false;
    return true;
  case IR_ATTR_T:
    if (rt_tensor_numel(a->v.t) != 1 || a->v.t->storage == NULL ||
        a->v.t->storage->device != IR_DEVICE_CPU)
      return false;
    *v = rt_tensor_get(a->v.t, 0);
    *integral = !ir_type_is_float_dtype(a->v.t->dtype);
    return true;
  default: return false;
  }
}

/* Whether the attribute can stand for an argument of this type (tensors never: an attribute
 * was a scalar, a list or a string). */
static bool attr_suits(const IrAttr *a, const IrType *type) {
  double v;
  bool integral;
  gint64 i;
  switch (type->kind) {
  case IR_TYPE_INT: return attr_number(a, &v, &integral) && text_double_as_int(v, &i);
  case IR_TYPE_BOOL: return attr_number(a, &v, &integral) && (v == 0 || v == 1);
  case IR_TYPE_FLOAT:
  case IR_TYPE_NUMBER: return attr_number(a, &v, &integral);
  case IR_TYPE_STR: return a->kind == IR_ATTR_S;
  case IR_TYPE_OPTIONAL: return attr_suits(a, type->elem);
  case IR_TYPE_LIST:
    if (type->elem->kind == IR_TYPE_INT)
      return a->kind == IR_ATTR_IS || a->kind == IR_ATTR_I;
    if (type->elem->kind == IR_TYPE_FLOAT)
      return a->kind == IR_ATTR_FS;
    return false;
  default: return false;
  }
}

/* Plans `node`'s inputs under `schema`: every attribute an argument, the written inputs the
 * other arguments in order (a Tensor[] argument packs the written tensors it can take),
 * defaults where a later argument is given. */
static bool plan_sources(const IrNode *node, const GPtrArray *written, const IrSchema *schema,
                         Source *sources) {
  guint pos = 0, attrs_used = 0, last_given = 0;
  for (guint k = 0; k < schema->n_args; k++) {
    const IrArgument *arg = &schema->args[k];
    const IrAttr *a = ir_node_attr(node, arg->name);
    if (a != NULL) {
      if (!attr_suits(a, arg->type))
        return false;
      sources[k] = (Source){.kind = SOURCE_ATTR, .attr = a};
      attrs_used++;
      last_given = k + 1;
      continue;
    }
    guint left = written->len - pos;
    if (is_tensor_list(arg->type) && left > 0 &&
        ir_type_is_tensor(((IrValue *)g_ptr_array_index(written, pos))->type)) {
      guint count = 0;
      while (count < left &&
             ir_type_is_tensor(((IrValue *)g_ptr_array_index(written, pos + count))->type))
        count++;
      sources[k] = (Source){.kind = SOURCE_TENSOR_LIST, .first = pos, .count = count};
      pos += count;
      last_given = k + 1;
    } else if (left > 0) {
      sources[k] = (Source){.kind = SOURCE_INPUT, .first = pos++};
      last_given = k + 1;
    } else if (arg->def.kind != IR_DEFAULT_NONE_GIVEN) {
      sources[k] = (Source){.kind = SOURCE_DEFAULT};
    } else {
      return false;
    }
  }
  if (pos != written->len || attrs_used != ir_n_attrs(node))
    return false;
  /* Defaults after the last given argument stay implicit. */
  for (guint k = last_given; k < schema->n_args; k++)
    sources[k].kind = SOURCE_DEFAULT;
  return true;
}

/* A prim::Constant appended to `block` before the node; its value is numbered when the graph
 * is complete. */
static IrNode *new_constant(GraphFrame *gf, IrBlock *block, const IrType *type) {
  IrNode *c = ir_node_create(gf->graph, IR_PRIM_CONSTANT, 1);
  ir_value_set_type(ir_output(c, 0), type);
  ir_node_append_to(c, block);
  g_ptr_array_add(gf->renumber, ir_output(c, 0));
  return c;
}

static IrValue *attr_constant(GraphFrame *gf, IrBlock *block, const IrAttr *a, const IrType *type) {
  if (type->kind == IR_TYPE_OPTIONAL)
    type = type->elem;
  double v = 0;
  bool integral = false;
  attr_number(a, &v, &integral);
  if (type->kind == IR_TYPE_NUMBER)
    type = integral ? ir_type_int() : ir_type_float();
  IrNode *c = new_constant(gf, block, type);
  switch (type->kind) {
  case IR_TYPE_INT:
  case IR_TYPE_BOOL: ir_node_set_attr_i(c, IR_ATTR_VALUE, (gint64)v); break;
  case IR_TYPE_FLOAT: ir_node_set_attr_f(c, IR_ATTR_VALUE, v); break;
  case IR_TYPE_STR: ir_node_set_attr_s(c, IR_ATTR_VALUE, a->v.s); break;
  case IR_TYPE_LIST:
    if (a->kind == IR_ATTR_I)
      ir_node_set_attr_is(c, IR_ATTR_VALUE, &a->v.i, 1);
    else if (a->kind == IR_ATTR_IS)
      ir_node_set_attr_is(c, IR_ATTR_VALUE, (const gint64 *)a->v.is->data, a->v.is->len);
    else
      ir_node_set_attr_fs(c, IR_ATTR_VALUE, (const double *)a->v.fs->data, a->v.fs->len);
    break;
  default: break;
  }
  return ir_output(c, 0);
}

/* The argument's default as a constant appended to `block` before the node. */
static IrValue *default_constant(GraphFrame *gf, IrBlock *block, const IrArgument *arg) {
  IrNode *c = ir_default_constant_new(gf->graph, arg);
  if (c == NULL)
    return NULL;
  ir_node_append_to(c, block);
  g_ptr_array_add(gf->renumber, ir_output(c, 0));
  return ir_output(c, 0);
}

/* The planned inputs' types, for overload matching before anything is built. */
static bool plan_matches(const IrSchema *schema, const Source *sources, const GPtrArray *written) {
  g_autofree const IrType **types = g_new(const IrType *, schema->n_args);
  guint n = 0;
  for (guint k = 0; k < schema->n_args; k++) {
    switch (sources[k].kind) {
    case SOURCE_INPUT:
      types[n++] = ((IrValue *)g_ptr_array_index(written, sources[k].first))->type;
      break;
    case SOURCE_TENSOR_LIST: types[n++] = ir_type_list(ir_type_tensor()); break;
    case SOURCE_ATTR: {
      double v;
      bool integral = false;
      attr_number(sources[k].attr, &v, &integral);
      const IrType *t = schema->args[k].type;
      types[n++] = t->kind == IR_TYPE_NUMBER ? (integral ? ir_type_int() : ir_type_float()) : t;
      break;
    }
    case SOURCE_DEFAULT: types[n++] = schema->args[k].type; break;
    }
  }
  while (n > 0 && sources[n - 1].kind == SOURCE_DEFAULT)
    n--;
  return ir_schema_matches(schema, types, n);
}

bool text_attr_args_to_inputs(GraphFrame *gf, IrBlock *block, IrNode *node, GPtrArray *written) {
  guint n = 0;
  const IrSchema *const *overloads = ir_ops_overloads(node->kind, &n);
  if (n == 0 || ir_n_attrs(node) == 0)
    return false;
  for (guint o = 0; o < n; o++) {
    const IrSchema *schema = overloads[o];
    if (schema->varargs)
      continue;
    g_autofree Source *sources = g_new0(Source, schema->n_args);
    if (!plan_sources(node, written, schema, sources) || !plan_matches(schema, sources, written))
      continue;
    GPtrArray *inputs = g_ptr_array_new();
    guint given = schema->n_args;
    while (given > 0 && sources[given - 1].kind == SOURCE_DEFAULT)
      given--;
    for (guint k = 0; k < given; k++) {
      const Source *s = &sources[k];
      IrValue *v = NULL;
      if (s->kind == SOURCE_INPUT) {
        v = g_ptr_array_index(written, s->first);
      } else if (s->kind == SOURCE_ATTR) {
        v = attr_constant(gf, block, s->attr, schema->args[k].type);
      } else if (s->kind == SOURCE_DEFAULT) {
        v = default_constant(gf, block, &schema->args[k]);
      } else {
        IrNode *list = ir_node_create(gf->graph, IR_PRIM_LIST_CONSTRUCT, 1);
        for (guint i = 0; i < s->count; i++)
          ir_node_add_input(list, g_ptr_array_index(written, s->first + i));
        ir_value_set_type(ir_output(list, 0), ir_type_list(ir_type_tensor()));
        ir_node_append_to(list, block);
        g_ptr_array_add(gf->renumber, ir_output(list, 0));
        v = ir_output(list, 0);
      }
      g_ptr_array_add(inputs, v);
    }
    g_ptr_array_set_size(written, 0);
    for (guint i = 0; i < inputs->len; i++)
      g_ptr_array_add(written, g_ptr_array_index(inputs, i));
    g_ptr_array_free(inputs, TRUE);
    while (ir_n_attrs(node) > 0)
      ir_node_remove_attr(node, ir_attr_at(node, 0)->name);
    return true;
  }
  return false;
}

/* What a 2018 argument value stands for where `want` is expected: a device list [type, index]
 * for a Device (*device set: "cpu", "cuda", "cuda:N"), an int constant 0 or 1 for a bool
 * (*flag set). False when the value is not such a stand-in. */
static bool legacy_value(const IrValue *v, const IrType *want, char **device, gint64 *flag) {
  if (want->kind == IR_TYPE_OPTIONAL)
    want = want->elem;
  const IrAttr *a = v->node->kind == IR_PRIM_CONSTANT ? ir_node_attr(v->node, IR_ATTR_VALUE) : NULL;
  if (a == NULL)
    return false;
  if (want->kind == IR_TYPE_DEVICE && a->kind == IR_ATTR_IS && a->v.is->len == 2) {
    gint64 type = g_array_index(a->v.is, gint64, 0), index = g_array_index(a->v.is, gint64, 1);
    if (type != 0 && type != 1)
      return false;
    *device = type == 0   ? g_strdup("cpu")
              : index < 0 ? g_strdup("cuda")
                          : g_strdup_printf("cuda:%" G_GINT64_FORMAT, index);
    return true;
  }
  if (want->kind == IR_TYPE_BOOL && v->type->kind == IR_TYPE_INT && a->kind == IR_ATTR_I &&
      (a->v.i == 0 || a->v.i == 1)) {
    *flag = a->v.i;
    return true;
  }
  return false;
}

bool text_legacy_values_to_inputs(GraphFrame *gf, IrBlock *block, IrNode *node,
                                  GPtrArray *written) {
  guint n = 0;
  const IrSchema *const *overloads = ir_ops_overloads(node->kind, &n);
  g_autofree const IrType **types = g_new(const IrType *, written->len + 1);
  for (guint i = 0; i < written->len; i++)
    types[i] = ((IrValue *)g_ptr_array_index(written, i))->type;
  for (guint o = 0; o < n; o++)
    if (ir_schema_matches(overloads[o], types, written->len))
      return false; /* a call of today's form */
  for (guint o = 0; o < n; o++) {
    const IrSchema *schema = overloads[o];
    if (written->len > schema->n_args)
      continue;
    /* The types the stand-ins would have: does this overload then match? */
    g_autofree const IrType **as = g_memdup2(types, sizeof *types * (written->len + 1));
    bool any = false;
    for (guint k = 0; k < written->len; k++) {
      g_autofree char *device = NULL;
      gint64 flag = 0;
      if (legacy_value(g_ptr_array_index(written, k), schema->args[k].type, &device, &flag)) {
        as[k] = device ? ir_type_device() : ir_type_bool();
        any = true;
      }
    }
    if (!any || !ir_schema_matches(schema, as, written->len))
      continue;
    for (guint k = 0; k < written->len; k++) {
      g_autofree char *device = NULL;
      gint64 flag = 0;
      if (!legacy_value(g_ptr_array_index(written, k), schema->args[k].type, &device, &flag))
        continue;
      IrNode *c = new_constant(gf, block, device ? ir_type_device() : ir_type_bool());
      if (device)
        ir_node_set_attr_s(c, IR_ATTR_VALUE, device);
      else
        ir_node_set_attr_i(c, IR_ATTR_VALUE, flag);
      g_ptr_array_index(written, k) = ir_output(c, 0);
    }
    return true;
  }
  return false;
}
