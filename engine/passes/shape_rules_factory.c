/* shape_rules_factory: the result rules of the factories (zeros, ones, full, arange,
 * NumToTensor) and of to() (see shape_rules.h). Factories make contiguous cpu tensors; their
 * dtype is the constant dtype argument or PyTorch's default for the other arguments' kinds. */
#include "passes/pass_util.h"
#include "passes/shape_rules.h"
#include "runtime/kernel_args.h"

#include <math.h>

/* The constant `dtype` argument (*given false for None); false when it is not constant. */
static bool dtype_argument(const IrNode *node, bool *given, IrDtype *out) {
  IrValue *v = pu_named_input(node, "dtype");
  gint64 code;
  *given = false;
  if (!v || pu_must_be_none(v))
    return true;
  *given = true;
  return pu_constant_int(v, &code) && k_dtype_from_scalar_type(code, out);
}

static bool is_float_number(const IrNode *node, const char *name) {
  IrValue *v = pu_named_input(node, name);
  return v && v->type->kind == IR_TYPE_FLOAT;
}

/* arange: [ceil((end - start) / step)] when the bounds are constants. */
static void arange_size(const IrNode *node, ShapeInfo *out) {
  double start = 0, end, step = 1;
  out->has_sizes = pu_arg_number(node, "end", &end) &&
                   (pu_arg_index(node, "start") < 0 || pu_arg_number(node, "start", &start)) &&
                   (pu_arg_index(node, "step") < 0 || pu_arg_number(node, "step", &step)) &&
                   step != 0 && (end - start) / step >= 0 && (end - start) / step < 9e18;
  if (out->has_sizes)
    out->sizes[0] = (int64_t)ceil((end - start) / step);
}

bool shape_rule_factory(const IrNode *node, ShapeInfo *out) {
  bool given;
  IrDtype dtype = IR_DTYPE_FLOAT32;
  if (!dtype_argument(node, &given, &dtype))
    return false;
  IrValue *device = pu_named_input(node, "device");
  out->known = true;
  out->device = !device || pu_must_be_none(device) ? IR_DEVICE_CPU : -1;
  if (node->schema->kind == IR_ATEN_ARANGE) {
    out->rank = 1;
    arange_size(node, out);
    if (!given && !is_float_number(node, "end") && !is_float_number(node, "start") &&
        !is_float_number(node, "step"))
      dtype = IR_DTYPE_INT64;
  } else {
    gint64 sizes[IR_MAX_RANK];
    guint n;
    bool all_known;
    if (!shape_int_list_arg(node, "size", sizes, &n, &all_known))
      return false;
    out->rank = (int)n;
    out->has_sizes = all_known;
    for (guint d = 0; d < n; d++)
      out->sizes[d] = sizes[d];
    IrValue *fill = pu_named_input(node, "fill_value");
    if (fill && !given) {
      if (fill->type->kind == IR_TYPE_INT)
        dtype = IR_DTYPE_INT64;
      else if (fill->type->kind == IR_TYPE_BOOL)
        dtype = IR_DTYPE_BOOL;
      else if (fill->type->kind != IR_TYPE_FLOAT)
        return false;
    }
  }
  out->dtype = dtype;
  shape_info_contiguous(out);
  return true;
}

/* to: self itself when the dtype stays, else a contiguous copy in the new dtype (other's for
 * to.other). */
bool shape_rule_to(const IrNode *node, ShapeInfo *out) {
  bool given;
  IrDtype dtype = IR_DTYPE_FLOAT32;
  if (!shape_tensor_input(node, 0, out))
    return false;
  if (pu_named_input(node, "other")) {
    ShapeInfo other;
    if (!shape_tensor_input(node, 1, &other))
      return false;
    given = true;
    dtype = other.dtype;
  } else if (!dtype_argument(node, &given, &dtype)) {
    return false;
  }
  if (given && dtype != out->dtype) {
    out->dtype = dtype;
    shape_info_contiguous(out);
  }
  return true;
}

/* NumToTensor: a 0-dim cpu tensor, int64 / float64 / bool by the number's type. */
bool shape_rule_num_to_tensor(const IrNode *node, ShapeInfo *out) {
  switch (ir_input(node, 0)->type->kind) {
  case IR_TYPE_INT: out->dtype = IR_DTYPE_INT64; break;
  case IR_TYPE_FLOAT: out->dtype = IR_DTYPE_FLOAT64; break;
  case IR_TYPE_BOOL: out->dtype = IR_DTYPE_BOOL; break;
  default: return false;
  }
  out->known = true;
  out->device = IR_DEVICE_CPU;
  out->rank = 0;
  out->has_sizes = true;
  shape_info_contiguous(out);
  return true;
}
