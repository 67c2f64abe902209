/* The emitter's expressions (contract in emit.h): Python operators to aten ops, calls of
 * torch.* / F.* functions, tensor methods and builtins, short-circuit and/or and conditional
 * expressions as prim::If, tuple and list displays, tuple indexing. */
#include <math.h>
#include <string.h>

#include "script/emit.h"

const IrType *emit_unify_types(const IrType *a, const IrType *b) {
  if (a == b)
    return a;
  if (ir_type_is_tensor(a) && ir_type_is_tensor(b))
    return ir_type_tensor();
  if (a->kind == IR_TYPE_NONE && b->kind != IR_TYPE_OPTIONAL)
    return ir_type_optional(b);
  if (b->kind == IR_TYPE_NONE && a->kind != IR_TYPE_OPTIONAL)
    return ir_type_optional(a);
  if (a->kind == IR_TYPE_OPTIONAL && ir_type_is_subtype(b, a))
    return a;
  if (b->kind == IR_TYPE_OPTIONAL && ir_type_is_subtype(a, b))
    return b;
  if (a->kind == IR_TYPE_LIST && b->kind == IR_TYPE_LIST && ir_type_is_tensor(a->elem) &&
      ir_type_is_tensor(b->elem))
    return ir_type_list(ir_type_tensor());
  if (a->kind == IR_TYPE_TUPLE && b->kind == IR_TYPE_TUPLE && a->n_elems == b->n_elems) {
    g_autofree const IrType **elems = g_new(const IrType *, a->n_elems + 1);
    for (guint i = 0; i < a->n_elems; i++)
      if (!(elems[i] = emit_unify_types(a->elems[i], b->elems[i])))
        return NULL;
    return ir_type_tuple(elems, a->n_elems);
  }
  return NULL;
}

static const ScriptExpr *arg(const ScriptExpr *e, guint i) {
  return g_ptr_array_index(e->args, i);
}

/* Binary and comparison operators: Python spelling -> aten op. */
static const struct {
  const char *op, *aten;
} operator_ops[] = {
    {"+", "aten::add"},       {"-", "aten::sub"},
    {"*", "aten::mul"},       {"/", "aten::div"},
    {"%", "aten::remainder"}, {"**", "aten::pow"},
    {"//", "aten::floordiv"}, {"@", "aten::matmul"},
    {"<", "aten::lt"},        {">", "aten::gt"},
    {"<=", "aten::le"},       {">=", "aten::ge"},
    {"==", "aten::eq"},       {"!=", "aten::ne"},
    {"is", "aten::__is__"},   {"is not", "aten::__isnot__"},
    {"&", "aten::__and__"},   {"|", "aten::__or__"},
    {"^", "aten::__xor__"},
};

/* A number on the left of a tensor's + - * /: PyTorch 1.13 calls the tensor's reflected method,
 * a TorchScript builtin whose nodes carry its own source (`<string>:L:C`): n + x and n * x
 * swap the operands, n - x is neg(x) + n, n / x is reciprocal(x) * n. False when the operator
 * has no such form here (n ** x: aten::pow.Scalar is not in the op table); *out is NULL after
 * an error. */
static bool emit_reflected(Emitter *em, const ScriptExpr *e, IrValue *number, IrValue *tensor,
                           IrValue **out) {
  static const struct {
    const char *op, *first, *then, *source;
  } reflected[] = {{"+", NULL, "aten::add", "<string>:5:9"},
                   {"*", NULL, "aten::mul", "<string>:3:9"},
                   {"-", "aten::neg", "aten::add", "<string>:11:9"},
                   {"/", "aten::reciprocal", "aten::mul", "<string>:13:9"}};
  for (guint i = 0; i < G_N_ELEMENTS(reflected); i++) {
    if (strcmp(reflected[i].op, e->op) != 0)
      continue;
    const char *source = g_string_chunk_insert_const(em->graph->strings, reflected[i].source);
    IrValue *operand = tensor;
    *out = NULL;
    if (reflected[i].first) {
      operand = emit_builtin_call(em, reflected[i].first, e->loc, &tensor, 1, NULL, NULL);
      if (operand == NULL)
        return true;
      operand->node->source = source;
    }
    *out = emit_builtin_call(em, reflected[i].then, e->loc, (IrValue *const[]){operand, number},
                             2, NULL, NULL);
    if (*out)
      (*out)->node->source = source;
    return true;
  }
  return false;
}

static IrValue *emit_operator(Emitter *em, const ScriptExpr *e) {
  if (strcmp(e->op, "in") == 0 || strcmp(e->op, "not in") == 0)
    return emit_contains(em, e, e->op[0] == 'n');
  const char *aten = NULL;
  for (guint i = 0; i < G_N_ELEMENTS(operator_ops) && !aten; i++)
    if (strcmp(operator_ops[i].op, e->op) == 0)
      aten = operator_ops[i].aten;
  if (aten == NULL)
    return emit_fail(em, e->loc, "operator '%s' is not supported", e->op);
  IrValue *operands[2];
  for (int i = 0; i < 2; i++)
    if (!(operands[i] = emit_expr(em, arg(e, i))))
      return NULL;
  if (strcmp(e->op, "//") == 0 && ir_type_is_tensor(operands[0]->type)) {
    /* a tensor's __floordiv__, a TorchScript builtin: aten::floor_divide at its own source */
    IrValue *r = emit_builtin_call(em, "aten::floor_divide", e->loc, operands, 2, NULL, NULL);
    if (r)
      r->node->source = g_string_chunk_insert_const(em->graph->strings, "<string>:3:9");
    return r;
  }
  IrTypeKind left = operands[0]->type->kind;
  IrValue *reflected;
  if ((left == IR_TYPE_INT || left == IR_TYPE_FLOAT) && ir_type_is_tensor(operands[1]->type) &&
      emit_reflected(em, e, operands[0], operands[1], &reflected))
    return reflected;
  return emit_builtin_call(em, aten, e->loc, operands, 2, NULL, NULL);
}

static IrValue *emit_unary(Emitter *em, const ScriptExpr *e) {
  const ScriptExpr *operand = arg(e, 0);
  if (strcmp(e->op, "-") == 0 && (operand->kind == SE_INT || operand->kind == SE_FLOAT))
    return emit_literal(em, operand, true, operand->loc); /* located at the digits, as PyTorch */
  if (strcmp(e->op, "not") == 0) {
    IrValue *v = emit_condition(em, operand);
    return v ? emit_builtin_call(em, "aten::__not__", e->loc, &v, 1, NULL, NULL) : NULL;
  }
  IrValue *v = emit_expr(em, operand);
  if (v == NULL)
    return NULL;
  if (strcmp(e->op, "+") == 0)
    return v;
  if (strcmp(e->op, "-") == 0)
    return emit_builtin_call(em, "aten::neg", e->loc, &v, 1, NULL, NULL);
  if (strcmp(e->op, "~") == 0) /* on tensors only, as TorchScript */
    return emit_builtin_call(em, "aten::bitwise_not", e->loc, &v, 1, NULL, NULL);
  return emit_fail(em, e->loc, "operator '%s' is not supported", e->op);
}

/* prim::If(cond) whose blocks yield `then_expr` / `else_expr` (NULL: the constant `fixed`). */
static IrValue *emit_if_expr(Emitter *em, ScriptLoc loc, IrValue *cond,
                             const ScriptExpr *cond_expr, const ScriptExpr *then_expr,
                             const ScriptExpr *else_expr, bool fixed) {
  IrNode *node = ir_node_create(em->graph, IR_PRIM_IF, 0);
  ir_node_add_input(node, cond);
  emit_set_source(em, node, loc);
  emit_append(em, node);
  IrValue *results[2];
  const ScriptExpr *exprs[2] = {then_expr, else_expr};
  for (int i = 0; i < 2; i++) {
    emit_frame_push(em, ir_node_add_block(node));
    emit_refine(em, cond_expr, i == 0); /* m is not None and m.sum() > 0 */
    bool as_condition = then_expr == NULL || else_expr == NULL; /* and/or */
    results[i] = exprs[i] == NULL ? emit_constant_bool(em, fixed, &loc)
                 : as_condition   ? emit_condition(em, exprs[i])
                                  : emit_expr(em, exprs[i]);
    emit_frame_pop(em);
    if (results[i] == NULL)
      return NULL;
    ir_block_add_output(ir_block(node, i), results[i]);
  }
  const IrType *type = emit_unify_types(results[0]->type, results[1]->type);
  if (type == NULL) {
    g_autofree char *a = ir_type_to_string(results[0]->type);
    g_autofree char *b = ir_type_to_string(results[1]->type);
    return emit_fail(em, loc, "the two sides of this expression have different types: %s and %s", a,
                     b);
  }
  return ir_node_add_output(node, type);
}

IrValue *emit_condition(Emitter *em, const ScriptExpr *e) {
  IrValue *v = emit_expr(em, e);
  if (v == NULL || v->type->kind == IR_TYPE_BOOL)
    return v;
  return emit_builtin_call(em, "aten::Bool", e->loc, &v, 1, NULL, NULL);
}

/* The dotted module a name chain spells ("torch", "torch.nn.functional", "F"), when its root
 * is not a variable; NULL otherwise. */
static char *module_path(Emitter *em, const ScriptExpr *e) {
  if (e->kind == SE_NAME)
    return emit_lookup(em, e->name) == NULL ? g_strdup(e->name) : NULL;
  if (e->kind != SE_ATTRIBUTE)
    return NULL;
  g_autofree char *base = module_path(em, arg(e, 0));
  return base ? g_strdup_printf("%s.%s", base, e->name) : NULL;
}

static bool is_op_module(const char *path) {
  return strcmp(path, "torch") == 0 || strcmp(path, "F") == 0 ||
         strcmp(path, "torch.linalg") == 0 || strcmp(path, "torch.nn.functional") == 0 ||
         strcmp(path, "math") == 0 || strcmp(path, "torch._C._nn") == 0;
}

static const ScriptDef *top_level_def(Emitter *em, const char *name) {
  for (guint i = 0; i < em->tree->defs->len; i++)
    if (strcmp(((ScriptDef *)g_ptr_array_index(em->tree->defs, i))->name, name) == 0)
      return g_ptr_array_index(em->tree->defs, i);
  return NULL;
}

/* Evaluates call arguments from index `first` of e->args, then the keywords. */
static bool emit_call_args(Emitter *em, const ScriptExpr *e, guint first, GPtrArray *args,
                           GPtrArray *kw_values) {
  for (guint i = first; i < e->args->len; i++) {
    IrValue *v = emit_expr(em, arg(e, i));
    if (v == NULL)
      return false;
    g_ptr_array_add(args, v);
  }
  for (guint i = 0; i < e->kwargs->len; i++) {
    IrValue *v = emit_expr(em, g_ptr_array_index(e->kwargs, i));
    if (v == NULL)
      return false;
    g_ptr_array_add(kw_values, v);
  }
  return true;
}

/* Calls aten::op (self first when given); with `function` (NULL: none), a function that
 * PyTorch compiles as a call (F.cross_entropy: "cross_entropy"; torch.norm: "torch.norm")
 * becomes that call instead. */
static IrValue *call_with(Emitter *em, const ScriptExpr *e, const char *op, IrValue *self,
                          const char *function) {
  g_autoptr(GPtrArray) args = g_ptr_array_new();
  g_autoptr(GPtrArray) kw_values = g_ptr_array_new();
  if (self)
    g_ptr_array_add(args, self);
  if (!emit_call_args(em, e, 1, args, kw_values))
    return NULL;
  IrValue *result;
  if (function && emit_function_call(em, function, e->loc, (IrValue *const *)args->pdata, args->len,
                                     e->kwargs->len ? e->keywords : NULL,
                                     (IrValue *const *)kw_values->pdata, &result))
    return result;
  g_autofree char *qualified = g_strdup_printf("aten::%s", op);
  return emit_builtin_call(em, qualified, e->loc, (IrValue *const *)args->pdata, args->len,
                           e->kwargs->len ? e->keywords : NULL, (IrValue *const *)kw_values->pdata);
}

static IrValue *emit_builtin_function(Emitter *em, const ScriptExpr *e, const char *name) {
  static const struct {
    const char *python, *aten;
  } conversions[] = {
      {"bool", "Bool"}, {"int", "Int"}, {"float", "Float"}, {"len", "len"}, {"list", "list"}};
  for (guint i = 0; i < G_N_ELEMENTS(conversions); i++)
    if (strcmp(name, conversions[i].python) == 0) {
      if (e->args->len != 2 || e->kwargs->len != 0)
        return emit_fail(em, e->loc, "%s() takes exactly one argument", name);
      return call_with(em, e, conversions[i].aten, NULL, NULL);
    }
  if (strcmp(name, "range") == 0)
    return emit_fail(em, e->loc, "range() is supported only as the iterable of a for loop");
  const ScriptDef *def = top_level_def(em, name);
  if (def == NULL)
    return emit_fail(em, e->loc, "unknown function '%s'", name);
  g_autoptr(GPtrArray) args = g_ptr_array_new();
  g_autoptr(GPtrArray) kw_values = g_ptr_array_new();
  if (!emit_call_args(em, e, 1, args, kw_values))
    return NULL;
  return emit_def_call(em, def, e->loc, (IrValue *const *)args->pdata, args->len,
                       e->kwargs->len ? e->keywords : NULL, (IrValue *const *)kw_values->pdata);
}

static IrValue *emit_call(Emitter *em, const ScriptExpr *e) {
  const ScriptExpr *callee = arg(e, 0);
  if (callee->kind == SE_NAME) {
    if (emit_lookup(em, callee->name) != NULL)
      return emit_fail(em, e->loc, "'%s' is a value and cannot be called", callee->name);
    return emit_builtin_function(em, e, callee->name);
  }
  if (callee->kind != SE_ATTRIBUTE)
    return emit_fail(em, e->loc, "this expression cannot be called");
  g_autofree char *module = module_path(em, arg(callee, 0));
  if (module != NULL) {
    if (!is_op_module(module))
      return emit_fail(em, callee->loc,
                       "unknown module '%s' (use torch, torch.linalg, F or math)", module);
    bool functional = strcmp(module, "F") == 0 || strcmp(module, "torch.nn.functional") == 0;
    if (strcmp(module, "torch.linalg") == 0) { /* torch.linalg.f is the builtin aten::linalg_f */
      g_autofree char *op = g_strdup_printf("linalg_%s", callee->name);
      return call_with(em, e, op, NULL, NULL);
    }
    g_autofree char *torch_function =
        strcmp(module, "torch") == 0 ? g_strdup_printf("torch.%s", callee->name) : NULL;
    return call_with(em, e, callee->name, NULL, functional ? callee->name : torch_function);
  }
  IrValue *self = emit_expr(em, arg(callee, 0));
  if (self == NULL)
    return NULL;
  /* List and dict methods (append, pop, keys, items, ...): mutations in place, as
   * TorchScript's, so every name bound to the list or dict sees the change. */
  if (self->type->kind == IR_TYPE_LIST || self->type->kind == IR_TYPE_DICT)
    return call_with(em, e, callee->name, self, NULL);
  if (!ir_type_is_tensor(self->type)) {
    g_autofree char *ts = ir_type_to_string(self->type);
    return emit_fail(em, callee->loc, "a value of type %s has no method '%s'", ts, callee->name);
  }
  /* x.float(), x.long(), ...: aten::to(x, dtype) with the dtype's code made at the call and
   * located there, as PyTorch emits them */
  static const struct {
    const char *method;
    gint64 code; /* c10::ScalarType */
  } casts[] = {{"half", 5}, {"float", 6}, {"double", 7}, {"long", 4}, {"int", 3}};
  for (guint i = 0; i < G_N_ELEMENTS(casts); i++)
    if (strcmp(callee->name, casts[i].method) == 0) {
      if (e->args->len != 1 || e->kwargs->len != 0)
        return emit_fail(em, e->loc, "%s() takes no arguments", callee->name);
      IrValue *args[2] = {self, emit_constant_int(em, casts[i].code, &e->loc)};
      return emit_builtin_call(em, "aten::to", e->loc, args, 2, NULL, NULL);
    }
  return call_with(em, e, callee->name, self, NULL);
}

static IrValue *emit_subscript(Emitter *em, const ScriptExpr *e) {
  IrValue *base = emit_expr(em, arg(e, 0));
  if (base == NULL)
    return NULL;
  const ScriptExpr *index = arg(e, 1);
  if (base->type->kind == IR_TYPE_LIST || base->type->kind == IR_TYPE_DICT)
    return emit_container_subscript(em, base, e);
  if (ir_type_is_tensor(base->type))
    return emit_tensor_subscript(em, base, e);
  if (base->type->kind != IR_TYPE_TUPLE) {
    g_autofree char *ts = ir_type_to_string(base->type);
    return emit_fail(em, e->loc,
                     "indexing a value of type %s is not supported (only tensors, tuples, lists "
                     "and dicts)",
                     ts);
  }
  gint64 i;
  if (index->kind == SE_SLICE)
    return emit_fail(em, index->loc, "slices are not supported");
  if (index->kind == SE_INT)
    i = index->int_value;
  else if (index->kind == SE_UNARY && strcmp(index->op, "-") == 0 && arg(index, 0)->kind == SE_INT)
    i = -arg(index, 0)->int_value;
  else
    return emit_fail(em, index->loc, "a tuple index must be an integer literal");
  gint64 n = base->type->n_elems;
  if (i < -n || i >= n)
    return emit_fail(em, index->loc,
                     "tuple index %" G_GINT64_FORMAT
                     " out of range for a tuple of %" G_GINT64_FORMAT " elements",
                     i, n);
  const ScriptExpr literal = {.kind = SE_INT, .int_value = i};
  ScriptLoc digits = index->kind == SE_UNARY ? arg(index, 0)->loc : index->loc;
  IrValue *index_value = emit_literal(em, &literal, false, digits);
  IrNode *node = ir_node_create(em->graph, IR_PRIM_TUPLE_INDEX, 1);
  ir_node_add_input(node, base);
  ir_node_add_input(node, index_value);
  ir_value_set_type(ir_output(node, 0), base->type->elems[i < 0 ? i + n : i]);
  emit_append(em, node);
  return ir_output(node, 0);
}

static IrValue *emit_display(Emitter *em, const ScriptExpr *e) {
  guint n = e->args->len;
  bool is_list = e->kind == SE_LIST;
  IrNode *node =
      ir_node_create(em->graph, is_list ? IR_PRIM_LIST_CONSTRUCT : IR_PRIM_TUPLE_CONSTRUCT, 1);
  g_autofree const IrType **types = g_new(const IrType *, n + 1);
  for (guint i = 0; i < n; i++) {
    IrValue *v = emit_expr(em, arg(e, i));
    if (v == NULL)
      return NULL;
    ir_node_add_input(node, v);
    types[i] = v->type;
  }
  const IrType *type;
  if (!is_list) {
    type = ir_type_tuple(types, n);
  } else {
    const IrType *elem = n ? types[0] : ir_type_tensor(); /* [] is List[Tensor] in PyTorch */
    for (guint i = 1; i < n; i++) {
      elem = emit_unify_types(elem, types[i]);
      if (elem == NULL || elem->kind == IR_TYPE_OPTIONAL)
        return emit_fail(em, arg(e, i)->loc, "list elements must all have one type");
    }
    type = ir_type_list(elem);
  }
  ir_value_set_type(ir_output(node, 0), type);
  emit_append(em, node);
  return ir_output(node, 0);
}

/* torch.float64 and the other dtypes: their ScalarType codes, as int constants inserted
 * where used and located at the attribute (PyTorch 1.13 emits `int =
 * prim::Constant[value=7]()` for torch.float64). */
static IrValue *emit_attribute(Emitter *em, const ScriptExpr *e) {
  static const struct {
    const char *name;
    gint64 code;
  } dtypes[] = {
      {"uint8", 0},   {"int8", 1},  {"int16", 2},   {"short", 2},   {"int32", 3},
      {"int", 3},     {"int64", 4}, {"long", 4},    {"float16", 5}, {"half", 5},
      {"float32", 6}, {"float", 6}, {"float64", 7}, {"double", 7},  {"bool", 11},
  };
  static const struct {
    const char *name;
    double value;
  } math_constants[] = {
      {"pi", G_PI}, {"e", G_E}, {"tau", 2 * G_PI}, {"inf", INFINITY}, {"nan", NAN}};
  g_autofree char *module = module_path(em, arg(e, 0));
  if (module != NULL && strcmp(module, "torch") == 0)
    for (guint i = 0; i < G_N_ELEMENTS(dtypes); i++)
      if (strcmp(e->name, dtypes[i].name) == 0)
        return emit_constant_int(em, dtypes[i].code, &e->loc);
  if (module != NULL && strcmp(module, "math") == 0)
    for (guint i = 0; i < G_N_ELEMENTS(math_constants); i++)
      if (strcmp(e->name, math_constants[i].name) == 0)
        return emit_constant_float(em, math_constants[i].value, &e->loc);
  /* A tensor's properties, as PyTorch 1.13 compiles them (shape and ndim come from its own
   * script definitions, located in those; here at the attribute) */
  static const struct {
    const char *name, *op;
  } properties[] = {{"shape", "aten::size"},
                    {"ndim", "aten::dim"},
                    {"dtype", "prim::dtype"},
                    {"device", "prim::device"},
                    {"requires_grad", "prim::requires_grad"},
                    {"is_cuda", "prim::is_cuda"}};
  if (module == NULL)
    for (guint i = 0; i < G_N_ELEMENTS(properties); i++)
      if (strcmp(e->name, properties[i].name) == 0) {
        IrValue *self = emit_expr(em, arg(e, 0));
        if (self == NULL)
          return NULL;
        if (!ir_type_is_tensor(self->type)) {
          g_autofree char *ts = ir_type_to_string(self->type);
          return emit_fail(em, e->loc, "a value of type %s has no attribute '%s'", ts, e->name);
        }
        IrValue *v = emit_builtin_call(em, properties[i].op, e->loc, &self, 1, NULL, NULL);
        if (v && v->node->kind != IR_ATEN_SIZE && v->node->kind != IR_ATEN_DIM)
          v->node->source = NULL; /* PyTorch prints the prim:: reads without a location */
        return v;
      }
  return emit_fail(em, e->loc,
                   "attribute '%s' is not supported here (only tensor properties, method calls, "
                   "torch dtypes and math constants)",
                   e->name);
}

static IrValue *emit_name(Emitter *em, const ScriptExpr *e) {
  IrValue *v = emit_lookup(em, e->name);
  if (v != NULL)
    return v;
  const char *why = emit_why_undefined(em, e->name);
  if (why != NULL)
    return emit_fail(em, e->loc, "%s", why);
  if (is_op_module(e->name))
    return emit_fail(em, e->loc, "module '%s' used as a value", e->name);
  return emit_fail(em, e->loc, "name '%s' is not defined", e->name);
}

IrValue *emit_expr(Emitter *em, const ScriptExpr *e) {
  switch (e->kind) {
  case SE_NAME: return emit_name(em, e);
  case SE_INT:
  case SE_FLOAT:
  case SE_BOOL:
  case SE_NONE:
  case SE_STRING: return emit_literal(em, e, false, e->loc);
  case SE_BINARY:
  case SE_COMPARE: return emit_operator(em, e);
  case SE_UNARY: return emit_unary(em, e);
  case SE_AND:
  case SE_OR: {
    IrValue *first = emit_condition(em, arg(e, 0));
    if (first == NULL)
      return NULL;
    bool is_and = e->kind == SE_AND;
    return emit_if_expr(em, e->loc, first, arg(e, 0), is_and ? arg(e, 1) : NULL,
                        is_and ? NULL : arg(e, 1), !is_and);
  }
  case SE_TERNARY: {
    IrValue *cond = emit_condition(em, arg(e, 1));
    return cond ? emit_if_expr(em, e->loc, cond, arg(e, 1), arg(e, 0), arg(e, 2), false) : NULL;
  }
  case SE_CALL: return emit_call(em, e);
  case SE_ATTRIBUTE: return emit_attribute(em, e);
  case SE_SUBSCRIPT: return emit_subscript(em, e);
  case SE_SLICE: return emit_fail(em, e->loc, "slices are not supported");
  case SE_TUPLE:
  case SE_LIST: return emit_display(em, e);
  case SE_DICT: return emit_dict_display(em, e);
  case SE_ELLIPSIS: return emit_fail(em, e->loc, "'...' is only supported in a tensor subscript");
  }
  return emit_fail(em, e->loc, "unsupported expression");
}
