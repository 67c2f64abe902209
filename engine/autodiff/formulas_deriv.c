/* DERIV gradients (ops.def `grad` column): a derivative expression of the op table turned
 * into IR. Arguments An become the node's inputs, R its result, numbers constants, operators
 * the aten ops (a + b: aten::add(a, b, 1); comparisons: aten::gt ... as a 0/1 tensor of the
 * derivative's dtype; c ? a : b: aten::where), a call of f the op aten::f. Every derivative
 * has a tensor operand on at least one side of each operator; a number on the left is moved
 * to the right (1 - x: neg(x) + 1). */
#include "autodiff/formulas.h"

#include "ir/ops.h"
#include "ir/scalar_expr.h"

typedef struct {
  IrGraph *g;
  IrValue *const *in;
  IrValue *result;
  const char *text;
} DerivCtx;

static IrValue *op(DerivCtx *c, IrOpKind kind, guint n, IrValue *const *args) {
  return ir_output(ir_graph_insert_op(c->g, kind, args, n, 1), 0);
}

static IrValue *number(DerivCtx *c, double v) {
  if (v == (double)(gint64)v)
    return ir_graph_insert_constant_int(c->g, (gint64)v);
  return ir_graph_insert_constant_float(c->g, v);
}

static IrValue *build(DerivCtx *c, const PwExpr *e);

static IrOpKind mirrored(IrOpKind cmp) {
  switch (cmp) {
  case IR_ATEN_LT: return IR_ATEN_GT;
  case IR_ATEN_GT: return IR_ATEN_LT;
  case IR_ATEN_LE: return IR_ATEN_GE;
  case IR_ATEN_GE: return IR_ATEN_LE;
  default: return cmp;
  }
}

/* A literal, or a Scalar argument (xlogy.Scalar_Self's self). */
static bool is_number(const DerivCtx *c, const PwExpr *e) {
  return e->op == PW_NUM || (e->op == PW_ARG && !ir_type_is_tensor(c->in[e->arg]->type));
}

static IrValue *binary(DerivCtx *c, const PwExpr *e) {
  bool left_number = is_number(c, e->a);
  if (left_number && is_number(c, e->b))
    g_error("autodiff invariant: DERIV \"%s\" has an operator between two numbers", c->text);
  IrValue *a = build(c, e->a), *b = build(c, e->b);
  IrValue *one = NULL;
  switch (e->op) {
  case PW_ADD:
  case PW_SUB:
    one = ir_graph_insert_constant_int(c->g, 1);
    if (left_number && e->op == PW_SUB) /* a - b = -b + a */
      return op(c, IR_ATEN_ADD, 3, (IrValue *const[]){op(c, IR_ATEN_NEG, 1, &b), a, one});
    if (left_number)
      return op(c, IR_ATEN_ADD, 3, (IrValue *const[]){b, a, one});
    return op(c, e->op == PW_ADD ? IR_ATEN_ADD : IR_ATEN_SUB, 3, (IrValue *const[]){a, b, one});
  case PW_MUL:
    return op(c, IR_ATEN_MUL, 2, left_number ? (IrValue *const[]){b, a} : (IrValue *const[]){a, b});
  case PW_DIV:
    if (left_number)
      return op(c, IR_ATEN_MUL, 2, (IrValue *const[]){op(c, IR_ATEN_RECIPROCAL, 1, &b), a});
    return op(c, IR_ATEN_DIV, 2, (IrValue *const[]){a, b});
  default: {
    static const IrOpKind cmp[] = {
        [PW_LT] = IR_ATEN_LT, [PW_LE] = IR_ATEN_LE, [PW_GT] = IR_ATEN_GT,
        [PW_GE] = IR_ATEN_GE, [PW_EQ] = IR_ATEN_EQ, [PW_NE] = IR_ATEN_NE};
    IrOpKind k = cmp[e->op];
    IrValue *mask = left_number ? op(c, mirrored(k), 2, (IrValue *const[]){b, a})
                                : op(c, k, 2, (IrValue *const[]){a, b});
    /* 0/1 in the dtype of the op's first input, as the symbolic formulas' type_as. */
    return op(c, IR_ATEN_TYPE_AS, 2, (IrValue *const[]){mask, c->in[0]});
  }
  }
}

static IrValue *build(DerivCtx *c, const PwExpr *e) {
  switch (e->op) {
  case PW_ARG: return c->in[e->arg];
  case PW_RESULT: return c->result;
  case PW_NUM: return number(c, e->num);
  case PW_NEG: {
    IrValue *a = build(c, e->a);
    return op(c, IR_ATEN_NEG, 1, &a);
  }
  case PW_COND: {
    IrValue *cond = build(c, e->a);
    IrValue *as_bool = op(c, IR_ATEN_NE, 2, (IrValue *const[]){cond, number(c, 0)});
    return op(c, IR_ATEN_WHERE, 3, (IrValue *const[]){as_bool, build(c, e->b), build(c, e->c)});
  }
  case PW_CALL: {
    g_autofree char *name = g_strconcat("aten::", pw_function(e->fn)->name, NULL);
    IrOpKind kind;
    if (!ir_kind_from_name(name, &kind))
      g_error("autodiff invariant: DERIV \"%s\" calls %s, which is no op", c->text, name);
    IrValue *args[2] = {build(c, e->a), e->b ? build(c, e->b) : NULL};
    return op(c, kind, e->b ? 2 : 1, args);
  }
  default: return binary(c, e);
  }
}

/* The k-th top-level comma-separated part of `text`. */
static char *nth_part(const char *text, guint k) {
  int depth = 0;
  const char *start = text;
  for (const char *p = text;; p++) {
    if (*p == '(')
      depth++;
    else if (*p == ')')
      depth--;
    if (*p == '\0' || (*p == ',' && depth == 0)) {
      if (k == 0)
        return g_strndup(start, (gsize)(p - start));
      if (*p == '\0')
        return NULL;
      k--;
      start = p + 1;
    }
  }
}

IrValue *ad_deriv_value(IrGraph *graph, const IrNode *node, guint k, IrValue *const *inputs,
                        IrValue *result) {
  const IrOpDef *def = ir_node_op_def(node);
  g_autofree char *part = def && def->deriv ? nth_part(def->deriv, k) : NULL;
  if (!part)
    g_error("autodiff invariant: %s has no derivative for its Tensor argument %u",
            ir_kind_name(node->kind), k);
  GError *error = NULL;
  g_autoptr(PwExpr) e = pw_expr_parse(part, true, &error);
  if (!e)
    g_error("autodiff invariant: DERIV of %s does not parse: %s", ir_kind_name(node->kind),
            error->message);
  DerivCtx c = {graph, inputs, result, part};
  return build(&c, e);
}
