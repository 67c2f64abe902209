/* shape_rules: per-op tensor result rules for pass_propagate_input_shapes (see shape_rules.h);
 * a table keyed by op kind, elementwise ops found through the op table's expressions. */
#include "passes/shape_rules.h"
#include "passes/pass_util.h"

#include "ir/ops.h"

#include <string.h>

/* Rules follow PyTorch's shape_analysis.cpp (2019) for ranks and sizes and PyTorch's
 * result_type for dtypes (dimensioned tensors, then zero-dim tensors, then wrapped scalars,
 * a lower class counting only when its category, bool < int < float, is higher). Sizes are
 * computed only when every tensor input's sizes are known. The device may stay unknown
 * (`Float(*, *)` as a user writes it); inputs on different or unknown devices give an
 * unknown device. */

void shape_info_from_type(const IrType *t, ShapeInfo *out) {
  memset(out, 0, sizeof *out);
  if (!ir_type_is_tensor(t) || t->undefined || !t->has_dtype || t->rank < 0)
    return;
  out->known = true;
  out->dtype = t->dtype;
  out->device = t->device;
  out->rank = t->rank;
  out->has_sizes = t->sizes != NULL || t->rank == 0;
  for (int d = 0; d < t->rank && out->has_sizes; d++) {
    out->sizes[d] = t->sizes[d];
    out->has_sizes = t->sizes[d] != IR_SIZE_UNKNOWN;
  }
  out->has_strides = out->has_sizes && (t->strides != NULL || t->rank == 0);
  for (int d = 0; d < t->rank && out->has_strides; d++)
    out->strides[d] = t->strides[d];
}

const IrType *shape_info_to_type(const ShapeInfo *info, IrTristate requires_grad) {
  if (!info->known)
    return ir_type_with_requires_grad(ir_type_tensor(), requires_grad);
  IrType proto = {.kind = IR_TYPE_TENSOR,
                  .has_dtype = true,
                  .dtype = info->dtype,
                  .rank = info->rank,
                  .sizes = info->has_sizes ? info->sizes : NULL,
                  .strides = info->has_sizes && info->has_strides ? info->strides : NULL,
                  .requires_grad = requires_grad,
                  .device = info->device};
  return ir_type_tensor_from(&proto);
}

void shape_info_contiguous(ShapeInfo *info) {
  int64_t stride = 1;
  for (int d = info->rank; d-- > 0;) {
    info->strides[d] = stride;
    /* Sizes whose product overflows (hostile constants) get no strides: running the node
     * reports them, naming it. */
    if (d > 0 && __builtin_mul_overflow(stride, info->sizes[d] > 1 ? info->sizes[d] : 1, &stride)) {
      info->has_strides = false;
      return;
    }
  }
  info->has_strides = info->has_sizes;
}

/* --- dtype promotion --- */

static int dtype_order(IrDtype d) {
  switch (d) {
  case IR_DTYPE_BOOL: return 0;
  case IR_DTYPE_INT64: return 1;
  case IR_DTYPE_FLOAT16: return 2;
  case IR_DTYPE_FLOAT32: return 3;
  case IR_DTYPE_FLOAT64: return 4;
  default: return 0;
  }
}

static int promote(int a, int b) /* dtypes as int, -1 = none yet */
{
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  return dtype_order((IrDtype)a) >= dtype_order((IrDtype)b) ? a : b;
}

static int combine_categories(int higher, int lower) {
  if (higher >= 0 && ir_type_is_float_dtype((IrDtype)higher))
    return higher;
  if (higher == IR_DTYPE_BOOL || (lower >= 0 && ir_type_is_float_dtype((IrDtype)lower)))
    return promote(higher, lower);
  return higher >= 0 ? higher : lower;
}

typedef struct {
  int dim, zero, wrapped;
} Promotion;

static void promotion_add_tensor(Promotion *p, const ShapeInfo *t) {
  if (t->rank > 0)
    p->dim = promote(p->dim, t->dtype);
  else
    p->zero = promote(p->zero, t->dtype);
}

static bool promotion_add_scalar(Promotion *p, const IrType *t) {
  switch (t->kind) {
  case IR_TYPE_INT: p->wrapped = promote(p->wrapped, IR_DTYPE_INT64); return true;
  case IR_TYPE_FLOAT: p->wrapped = promote(p->wrapped, IR_DTYPE_FLOAT32); return true;
  case IR_TYPE_BOOL: p->wrapped = promote(p->wrapped, IR_DTYPE_BOOL); return true;
  default: return false;
  }
}

static int promotion_result(const Promotion *p) {
  return combine_categories(p->dim, combine_categories(p->zero, p->wrapped));
}

/* --- broadcasting --- */

static bool broadcast_into(ShapeInfo *acc, const ShapeInfo *t) {
  int rank = acc->rank > t->rank ? acc->rank : t->rank;
  int64_t sizes[IR_MAX_RANK];
  bool has_sizes = acc->has_sizes && t->has_sizes;
  for (int d = 0; d < rank && has_sizes; d++) {
    int ia = d - (rank - acc->rank), it = d - (rank - t->rank);
    int64_t a = ia >= 0 ? acc->sizes[ia] : 1, b = it >= 0 ? t->sizes[it] : 1;
    if (a != b && a != 1 && b != 1)
      has_sizes = false;
    sizes[d] = a == 1 ? b : a;
  }
  acc->rank = rank;
  acc->has_sizes = has_sizes;
  if (has_sizes)
    memcpy(acc->sizes, sizes, sizeof(int64_t) * (size_t)rank);
  return true;
}

/* --- rules --- */

bool shape_tensor_input(const IrNode *node, guint i, ShapeInfo *out) {
  if (i >= ir_n_inputs(node))
    return false;
  shape_info_from_type(ir_input(node, i)->type, out);
  return out->known;
}

static bool excluded_from_promotion(const char *arg) {
  static const char *const names[] = {"alpha", "value", "weight", "threshold", "condition"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    if (strcmp(arg, names[i]) == 0)
      return true;
  }
  return false;
}

/* Elementwise ops: broadcast rank (and sizes), promoted dtype by the row's dtype rule
 * (pointwise_bool: Bool; pointwise_float: Float for integral inputs, as PyTorch 1.x;
 * pointwise_long: Long for Bool), device
 * of the tensor inputs (all must agree). */
static bool elementwise(const IrNode *node, IrDtypeRule dtype_rule, ShapeInfo *out) {
  const IrSchema *s = node->schema;
  Promotion p = {-1, -1, -1};
  bool first = true;
  for (guint i = 0; i < ir_n_inputs(node) && i < s->n_args; i++) {
    const IrArgument *arg = &s->args[i];
    const IrValue *v = ir_input(node, i);
    bool promotes = !excluded_from_promotion(arg->name);
    if (ir_type_is_tensor(arg->type)) {
      ShapeInfo t;
      if (!shape_tensor_input(node, i, &t))
        return false;
      if (first) {
        *out = t;
        first = false;
      } else {
        if (t.device != out->device)
          out->device = -1;
        broadcast_into(out, &t);
      }
      if (promotes)
        promotion_add_tensor(&p, &t);
    } else if (promotes && v->type->kind != IR_TYPE_NONE) {
      /* clamp's bounds promote, as PyTorch's; a None bound takes no part */
      if (!promotion_add_scalar(&p, v->type))
        return false;
    }
  }
  if (first)
    return false;
  int dtype = promotion_result(&p);
  if (dtype < 0)
    return false;
  if (dtype_rule == IR_DTYPE_RULE_BOOL)
    dtype = IR_DTYPE_BOOL;
  else if (dtype_rule == IR_DTYPE_RULE_FLOAT && !ir_type_is_float_dtype((IrDtype)dtype))
    dtype = IR_DTYPE_FLOAT32;
  else if (dtype_rule == IR_DTYPE_RULE_LONG && dtype == IR_DTYPE_BOOL)
    dtype = IR_DTYPE_INT64;
  out->dtype = (IrDtype)dtype;
  shape_info_contiguous(out);
  return true;
}

static bool shape_rule_pointwise(const IrNode *node, ShapeInfo *out) {
  return elementwise(node, IR_DTYPE_RULE_PROMOTE, out);
}

static bool shape_rule_pointwise_float(const IrNode *node, ShapeInfo *out) {
  return elementwise(node, IR_DTYPE_RULE_FLOAT, out);
}

static bool shape_rule_pointwise_bool(const IrNode *node, ShapeInfo *out) {
  return elementwise(node, IR_DTYPE_RULE_BOOL, out);
}

static bool shape_rule_pointwise_long(const IrNode *node, ShapeInfo *out) {
  return elementwise(node, IR_DTYPE_RULE_LONG, out);
}

/* mse_loss: elementwise for reduction none (0), else a 0-dim result. */
static bool shape_rule_mse_loss(const IrNode *node, ShapeInfo *out) {
  gint64 reduction;
  if (!pu_arg_int(node, "reduction", &reduction) || !elementwise(node, IR_DTYPE_RULE_PROMOTE, out))
    return false;
  if (reduction != 0) {
    out->rank = 0;
    out->has_sizes = true;
    shape_info_contiguous(out);
  }
  return true;
}

static bool shape_rule_type_as(const IrNode *node, ShapeInfo *out) {
  ShapeInfo other;
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 1, &other))
    return false;
  out->dtype = other.dtype;
  out->device = other.device;
  return true;
}

static bool shape_rule_mm(const IrNode *node, ShapeInfo *out) {
  guint first = node->kind == IR_ATEN_ADDMM ? 1 : 0;
  ShapeInfo a, b;
  if (!shape_tensor_input(node, first, &a) || !shape_tensor_input(node, first + 1, &b) ||
      a.rank != 2 || b.rank != 2)
    return false;
  *out = a;
  out->dtype = (IrDtype)promote(a.dtype, b.dtype);
  out->has_sizes = a.has_sizes && b.has_sizes;
  out->sizes[0] = a.sizes[0];
  out->sizes[1] = b.sizes[1];
  if (node->kind == IR_ATEN_ADDMM) {
    ShapeInfo self;
    if (!shape_tensor_input(node, 0, &self))
      return false;
    out->dtype = (IrDtype)promote(out->dtype, self.dtype);
  }
  shape_info_contiguous(out);
  return true;
}

static bool shape_rule_matmul(const IrNode *node, ShapeInfo *out) {
  ShapeInfo a, b;
  if (!shape_tensor_input(node, 0, &a) || !shape_tensor_input(node, 1, &b) || a.rank < 1 ||
      b.rank < 1)
    return false;
  *out = a;
  out->dtype = (IrDtype)promote(a.dtype, b.dtype);
  bool sizes = a.has_sizes && b.has_sizes;
  if (a.rank == 1 && b.rank == 1) {
    out->rank = 0;
  } else if (a.rank == 2 && b.rank == 1) {
    out->rank = 1;
  } else if (a.rank == 1 && b.rank == 2) {
    out->rank = 1;
    out->sizes[0] = b.sizes[1];
  } else if (a.rank == 2 && b.rank == 2) {
    out->sizes[1] = b.sizes[1];
  } else {
    /* Batched: broadcast the batch dims; a vector operand loses its dim. */
    ShapeInfo ba = a, bb = b;
    ba.rank = a.rank >= 2 ? a.rank - 2 : 0;
    bb.rank = b.rank >= 2 ? b.rank - 2 : 0;
    broadcast_into(&ba, &bb);
    sizes = sizes && ba.has_sizes;
    int r = ba.rank;
    memcpy(out->sizes, ba.sizes, sizeof(int64_t) * (size_t)r);
    if (a.rank >= 2)
      out->sizes[r++] = a.sizes[a.rank - 2];
    if (b.rank >= 2)
      out->sizes[r++] = b.sizes[b.rank - 1];
    out->rank = r;
  }
  out->has_sizes = sizes;
  shape_info_contiguous(out);
  return true;
}

/* linear: input's shape with its last dim replaced by weight's rows (dropped for a vector
 * weight), the bias taking part in dtype promotion only. */
static bool shape_rule_linear(const IrNode *node, ShapeInfo *out) {
  ShapeInfo w, bias;
  IrValue *b = pu_named_input(node, "bias");
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 1, &w) || out->rank < 1 ||
      w.rank < 1 || w.rank > 2)
    return false;
  out->dtype = (IrDtype)promote(out->dtype, w.dtype);
  if (b && !pu_must_be_none(b)) {
    if (!shape_tensor_input(node, 2, &bias))
      return false;
    out->dtype = (IrDtype)promote(out->dtype, bias.dtype);
  }
  if (w.rank == 2)
    out->sizes[out->rank - 1] = w.sizes[0];
  else
    out->rank--;
  out->has_sizes = out->has_sizes && w.has_sizes;
  shape_info_contiguous(out);
  return true;
}

bool shape_normalize_dim(gint64 dim, int rank, int *out) {
  if (dim < 0)
    dim += rank;
  if (dim < 0 || dim >= rank)
    return false;
  *out = (int)dim;
  return true;
}

static void swap_dims(ShapeInfo *t, int a, int b) {
  int64_t s = t->sizes[a], st = t->strides[a];
  t->sizes[a] = t->sizes[b];
  t->strides[a] = t->strides[b];
  t->sizes[b] = s;
  t->strides[b] = st;
}

static bool shape_rule_transpose(const IrNode *node, ShapeInfo *out) {
  if (!shape_tensor_input(node, 0, out))
    return false;
  if (node->kind == IR_ATEN_T) {
    if (out->rank > 2)
      return false;
    if (out->rank == 2)
      swap_dims(out, 0, 1);
    return true;
  }
  gint64 d0, d1;
  int a, b;
  if (!pu_arg_int(node, "dim0", &d0) || !pu_arg_int(node, "dim1", &d1) ||
      !shape_normalize_dim(d0, out->rank, &a) || !shape_normalize_dim(d1, out->rank, &b))
    return false;
  swap_dims(out, a, b);
  return true;
}

static bool shape_rule_unsqueeze(const IrNode *node, ShapeInfo *out) {
  gint64 dim;
  int d;
  if (!shape_tensor_input(node, 0, out) || !pu_arg_int(node, "dim", &dim) ||
      !shape_normalize_dim(dim, out->rank + 1, &d) || out->rank + 1 > IR_MAX_RANK)
    return false;
  int64_t stride = d < out->rank ? out->sizes[d] * out->strides[d] : 1;
  memmove(out->sizes + d + 1, out->sizes + d, sizeof(int64_t) * (size_t)(out->rank - d));
  memmove(out->strides + d + 1, out->strides + d, sizeof(int64_t) * (size_t)(out->rank - d));
  out->sizes[d] = 1;
  out->strides[d] = stride;
  out->rank++;
  return true;
}

static bool shape_rule_squeeze(const IrNode *node, ShapeInfo *out) {
  if (!shape_tensor_input(node, 0, out) || !out->has_sizes)
    return false;
  gint64 dim = -1;
  int only = -1;
  bool with_dim = pu_arg_index(node, "dim") >= 0;
  if (with_dim && (!pu_arg_int(node, "dim", &dim) || !shape_normalize_dim(dim, out->rank, &only)))
    return false;
  int r = 0;
  for (int d = 0; d < out->rank; d++) {
    if (out->sizes[d] == 1 && (!with_dim || d == only))
      continue;
    out->sizes[r] = out->sizes[d];
    out->strides[r] = out->strides[d];
    r++;
  }
  out->rank = r;
  return true;
}

/* Length (and, when constant, values) of an int[] argument. */
bool shape_int_list_arg(const IrNode *node, const char *name, gint64 *vals, guint *n,
                        bool *all_known) {
  IrValue *v = pu_named_input(node, name);
  const gint64 *items;
  if (!v)
    return false;
  if (pu_constant_int_list(v, &items, n)) {
    if (*n > IR_MAX_RANK)
      return false;
    if (*n > 0) /* an empty list's items may be NULL */
      memcpy(vals, items, sizeof(gint64) * *n);
    *all_known = true;
    return true;
  }
  if (v->node->kind == IR_PRIM_LIST_CONSTRUCT && ir_n_inputs(v->node) <= IR_MAX_RANK) {
    *n = ir_n_inputs(v->node);
    *all_known = true;
    for (guint i = 0; i < *n; i++) {
      if (!pu_constant_int(ir_input(v->node, i), &vals[i])) {
        vals[i] = IR_SIZE_UNKNOWN;
        *all_known = false;
      }
    }
    return true;
  }
  return false;
}

static bool shape_rule_expand(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  gint64 size[IR_MAX_RANK];
  guint n;
  bool all_known;
  if (!shape_tensor_input(node, 0, &self) ||
      !shape_int_list_arg(node, "size", size, &n, &all_known) || (int)n < self.rank)
    return false;
  *out = self;
  out->rank = (int)n;
  out->has_sizes = all_known;
  for (int d = 0; d < (int)n; d++) {
    int sd = d - ((int)n - self.rank);
    if (size[d] == -1) {
      out->has_sizes = out->has_sizes && sd >= 0 && self.has_sizes;
      out->sizes[d] = sd >= 0 ? self.sizes[sd] : IR_SIZE_UNKNOWN;
    } else {
      out->sizes[d] = size[d];
    }
    out->strides[d] =
        sd >= 0 && self.has_strides && self.sizes[sd] == out->sizes[d] ? self.strides[sd] : 0;
  }
  out->has_strides = out->has_sizes && self.has_strides;
  return true;
}

static bool shape_rule_expand_as(const IrNode *node, ShapeInfo *out) {
  ShapeInfo other;
  if (!shape_tensor_input(node, 0, out) || !shape_tensor_input(node, 1, &other))
    return false;
  out->rank = other.rank;
  out->has_sizes = other.has_sizes;
  memcpy(out->sizes, other.sizes, sizeof out->sizes);
  out->has_strides = false;
  return true;
}

static bool shape_rule_view(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  gint64 size[IR_MAX_RANK];
  guint n;
  bool all_known;
  const char *arg = node->kind == IR_ATEN_VIEW ? "size" : "shape";
  if (!shape_tensor_input(node, 0, &self) || !shape_int_list_arg(node, arg, size, &n, &all_known))
    return false;
  *out = self;
  out->rank = (int)n;
  int infer = -1;
  int64_t known_numel = 1, numel = 1;
  bool overflow = false; /* hostile sizes: left unknown, the kernel names the node */
  for (int d = 0; d < self.rank; d++)
    overflow |= __builtin_mul_overflow(numel, self.sizes[d], &numel);
  for (int d = 0; d < (int)n; d++) {
    out->sizes[d] = size[d];
    if (size[d] == -1)
      infer = d;
    else
      overflow |= __builtin_mul_overflow(known_numel, size[d], &known_numel);
  }
  out->has_sizes = !overflow && all_known && (infer < 0 || (self.has_sizes && known_numel > 0));
  if (out->has_sizes && infer >= 0)
    out->sizes[infer] = numel / known_numel;
  out->has_strides = false;
  if (out->has_sizes)
    shape_info_contiguous(out);
  return true;
}

static int scalar_type_code(gint64 code) /* c10::ScalarType numbering */
{
  switch (code) {
  case 4: return IR_DTYPE_INT64;
  case 5: return IR_DTYPE_FLOAT16;
  case 6: return IR_DTYPE_FLOAT32;
  case 7: return IR_DTYPE_FLOAT64;
  case 11: return IR_DTYPE_BOOL;
  default: return -1;
  }
}

/* `dtype` argument: omitted/None -> fallback; a constant code -> that dtype; else unknown. */
static bool dtype_arg(const IrNode *node, int fallback, int *out) {
  IrValue *v = pu_named_input(node, "dtype");
  gint64 code;
  if (!v || pu_must_be_none(v)) {
    *out = fallback;
    return true;
  }
  if (!pu_constant_int(v, &code) || scalar_type_code(code) < 0)
    return false;
  *out = scalar_type_code(code);
  return true;
}

static bool shape_rule_sum(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  if (!shape_tensor_input(node, 0, &self))
    return false;
  int dtype;
  int fallback = ir_type_is_float_dtype(self.dtype) ? (int)self.dtype : IR_DTYPE_INT64;
  if (!dtype_arg(node, fallback, &dtype))
    return false;
  *out = self;
  out->dtype = (IrDtype)dtype;
  bool reduce[IR_MAX_RANK];
  bool keepdim = false;
  IrValue *dims = pu_named_input(node, "dim");
  if (!dims || pu_must_be_none(dims)) {
    for (int d = 0; d < self.rank; d++)
      reduce[d] = true;
    if (dims && !pu_arg_bool(node, "keepdim", &keepdim))
      return false;
  } else {
    gint64 vals[IR_MAX_RANK];
    guint n;
    bool all_known;
    if (!shape_int_list_arg(node, "dim", vals, &n, &all_known) || !all_known ||
        !pu_arg_bool(node, "keepdim", &keepdim))
      return false;
    for (int d = 0; d < self.rank; d++) /* an empty list reduces every dim */
      reduce[d] = n == 0;
    for (guint i = 0; i < n; i++) {
      int d;
      if (!shape_normalize_dim(vals[i], self.rank, &d))
        return false;
      reduce[d] = true;
    }
  }
  int r = 0;
  for (int d = 0; d < self.rank; d++) {
    if (reduce[d] && !keepdim)
      continue;
    out->sizes[r++] = reduce[d] ? 1 : self.sizes[d];
  }
  out->rank = r;
  out->has_sizes = self.has_sizes || r == 0;
  shape_info_contiguous(out);
  return true;
}

/* argmax: int64 indices; no dim reduces the flattened tensor (a 0-dim result, or all 1s
 * with keepdim). */
static bool shape_rule_argmax(const IrNode *node, ShapeInfo *out) {
  bool keepdim;
  gint64 dim;
  int d;
  IrValue *dim_v = pu_named_input(node, "dim");
  if (!shape_tensor_input(node, 0, out) || !pu_arg_bool(node, "keepdim", &keepdim))
    return false;
  out->dtype = IR_DTYPE_INT64;
  if (!dim_v || pu_must_be_none(dim_v)) {
    out->rank = keepdim ? out->rank : 0;
    for (int k = 0; k < out->rank; k++)
      out->sizes[k] = 1;
    out->has_sizes = true;
  } else {
    if (!pu_arg_int(node, "dim", &dim) || !shape_normalize_dim(dim, out->rank, &d))
      return false;
    if (keepdim) {
      out->sizes[d] = 1;
    } else {
      memmove(out->sizes + d, out->sizes + d + 1, sizeof(int64_t) * (size_t)(out->rank - d - 1));
      out->rank--;
    }
  }
  shape_info_contiguous(out);
  return true;
}

/* prod: sum's dtype (the given one, else int64 for integral inputs); every dim reduced, or
 * the one dim as argmax's. */
static bool shape_rule_prod(const IrNode *node, ShapeInfo *out) {
  ShapeInfo self;
  int dtype;
  if (!shape_tensor_input(node, 0, &self) ||
      !dtype_arg(node, ir_type_is_float_dtype(self.dtype) ? (int)self.dtype : IR_DTYPE_INT64,
                 &dtype))
    return false;
  if (pu_named_input(node, "dim") == NULL) {
    *out = self;
    out->rank = 0;
    out->has_sizes = true;
  } else if (!shape_rule_argmax(node, out)) {
    return false;
  }
  out->dtype = (IrDtype)dtype;
  shape_info_contiguous(out);
  return true;
}

/* max() / min() of every element: a 0-dim tensor of self's dtype. */
static bool shape_rule_max_all(const IrNode *node, ShapeInfo *out) {
  if (!shape_tensor_input(node, 0, out))
    return false;
  out->rank = 0;
  out->has_sizes = true;
  shape_info_contiguous(out);
  return true;
}

/* max.dim / min.dim: the values (output 0) keep self's dtype, dim reduced (kept as 1 with
 * keepdim); the indices (output 1) get no rule. */
static bool shape_rule_max_dim(const IrNode *node, ShapeInfo *out) {
  IrDtype dtype;
  if (!shape_tensor_input(node, 0, out))
    return false;
  dtype = out->dtype;
  if (!shape_rule_argmax(node, out))
    return false;
  out->dtype = dtype;
  return true;
}

static bool shape_rule_cat(const IrNode *node, ShapeInfo *out) {
  /* aten::cat reads the elements of a ListConstruct; prim::FusedConcat its own inputs. */
  bool fused = node->kind == IR_PRIM_FUSED_CONCAT;
  const IrNode *list = fused ? node : ir_input(node, 0)->node;
  gint64 dim;
  int d;
  if ((!fused && list->kind != IR_PRIM_LIST_CONSTRUCT) || ir_n_inputs(list) == 0 ||
      (fused && !ir_node_has_attr(node, IR_ATTR_DIM)))
    return false;
  if (fused)
    dim = ir_node_attr_i(node, IR_ATTR_DIM);
  else if (!pu_arg_int(node, "dim", &dim))
    return false;
  if (!shape_tensor_input(list, 0, out) || !shape_normalize_dim(dim, out->rank, &d))
    return false;
  for (guint i = 1; i < ir_n_inputs(list); i++) {
    ShapeInfo t;
    if (!shape_tensor_input(list, i, &t) || t.rank != out->rank)
      return false;
    if (t.device != out->device)
      out->device = -1;
    out->dtype = (IrDtype)promote(out->dtype, t.dtype);
    out->has_sizes = out->has_sizes && t.has_sizes;
    if (out->has_sizes)
      out->sizes[d] += t.sizes[d];
  }
  shape_info_contiguous(out);
  return true;
}

static bool shape_rule_grad_sum_to_size(const IrNode *node, ShapeInfo *out) {
  IrValue *size = ir_input(node, 1);
  if (!shape_tensor_input(node, 0, out))
    return false;
  if (pu_must_be_none(size))
    return true;
  const gint64 *items;
  guint n;
  if (!pu_constant_int_list(size, &items, &n) || n > IR_MAX_RANK)
    return false;
  out->rank = (int)n;
  out->has_sizes = true;
  for (guint i = 0; i < n; i++)
    out->sizes[i] = items[i];
  shape_info_contiguous(out);
  return true;
}

static bool shape_rule_like(const IrNode *node, ShapeInfo *out) {
  int dtype;
  if (!shape_tensor_input(node, 0, out) || !dtype_arg(node, out->dtype, &dtype))
    return false;
  out->dtype = (IrDtype)dtype;
  shape_info_contiguous(out);
  return true;
}

/* cumsum, cumprod: self's shape; the given dtype, else int64 for integral inputs (bool's
 * running sums count), as sum's. */
static bool shape_rule_cumsum(const IrNode *node, ShapeInfo *out) {
  int dtype;
  if (!shape_tensor_input(node, 0, out) ||
      !dtype_arg(node, ir_type_is_float_dtype(out->dtype) ? (int)out->dtype : IR_DTYPE_INT64,
                 &dtype))
    return false;
  out->dtype = (IrDtype)dtype;
  shape_info_contiguous(out);
  return true;
}

/* _softmax_backward_data, _log_softmax_backward_data: grad_output's shape in input_dtype. */
static bool shape_rule_softmax_backward(const IrNode *node, ShapeInfo *out) {
  gint64 code;
  if (!shape_tensor_input(node, 0, out) || !pu_arg_int(node, "input_dtype", &code) ||
      scalar_type_code(code) < 0)
    return false;
  out->dtype = (IrDtype)scalar_type_code(code);
  shape_info_contiguous(out);
  return true;
}

bool shape_rule_chunk_piece(const ShapeInfo *self, gint64 chunks, gint64 dim, guint index,
                            ShapeInfo *out) {
  int d;
  if (!self->known || chunks <= 0 || !shape_normalize_dim(dim, self->rank, &d))
    return false;
  *out = *self;
  if (self->has_sizes) {
    int64_t split = (self->sizes[d] + chunks - 1) / chunks;
    int64_t start = split * index;
    int64_t rest = self->sizes[d] - start;
    out->sizes[d] = rest < 0 ? 0 : (rest < split ? rest : split);
  }
  return true;
}

typedef bool (*ShapeRuleFn)(const IrNode *node, ShapeInfo *out);

/* The op table's `shape` column: one rule per ops.def row (NULL for `none`). */
#define shape_rule_none NULL
static const ShapeRuleFn row_rules[] = {
#define OP(kind, schema, family, shape, grad, flags, expr) shape_rule_##shape,
#define OVERLOAD OP
#include "ir/ops.def"
#undef OP
#undef OVERLOAD
};
#undef shape_rule_none

bool shape_rule_apply(const IrNode *node, ShapeInfo *out) {
  memset(out, 0, sizeof *out);
  ShapeRuleFn rule = NULL;
  if (node->kind == IR_PRIM_FUSED_CONCAT)
    rule = shape_rule_cat;
  else if (node->schema)
    rule = row_rules[node->schema->index];
  if (!rule)
    return false;
  bool ok = rule(node, out);
  if (!ok)
    memset(out, 0, sizeof *out);
  return ok;
}
