/* Lists (ops.def's `list` family) with TorchScript's semantics: reads (len, __getitem__,
 * __contains__, index), new lists (slice, add, list, mul) and the in-place mutations (append,
 * _set_item, extend, insert, pop, reverse, clear). Negative indices count from the end, an
 * index out of range is an error, and a mutation changes the one list every holder sees
 * (value.h). */
#include <string.h>

#include "runtime/kernel_args.h"
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"
#include "tensor/memory_budget.h"

/* The list argument i, or an error naming what came instead. */
static bool arg_list(const IrSchema *schema, RtValue *args, guint i, RtSeq **out, GError **error) {
  if (args[i].tag != RT_LIST) {
    K_ERR(error, "%s: argument %u must be a list", ir_kind_name(schema->kind), i + 1);
    return false;
  }
  *out = args[i].u.seq;
  return true;
}

/* Python's index rule: -len <= idx < len, negative counts from the end. */
static bool list_index(const RtSeq *list, gint64 idx, guint *out, GError **error) {
  gint64 len = (gint64)list->len;
  if (idx < -len || idx >= len) {
    K_ERR(error,
          "list index out of range (index %" G_GINT64_FORMAT " of a list of %" G_GINT64_FORMAT ")",
          idx, len);
    return false;
  }
  *out = (guint)(idx < 0 ? idx + len : idx);
  return true;
}

/* A list of n items is allowed: its item array fits the memory budget and a guint count. */
static bool list_size_ok(guint64 n, GError **error) {
  if (n > G_MAXUINT / 2) {
    K_ERR(error, "list of %" G_GUINT64_FORMAT " items is too long", n);
    return false;
  }
  return rt_memory_check(n * sizeof(RtValue), error);
}

/* A new list of the n items items[k * step + start] for k < n (new references). */
static RtValue list_gather(const RtSeq *list, gint64 start, gint64 step, guint n) {
  g_autofree RtValue *items = g_new(RtValue, n + 1);
  for (guint k = 0; k < n; k++)
    items[k] = rt_value_ref(list->items[start + (gint64)k * step]);
  return rt_list(items, n);
}

/* Python's slice bounds (PySlice_AdjustIndices) for a positive step: None start is 0, None
 * end is len, negatives count from the end, then both are clamped to [0, len]. Returns the
 * item count. */
static guint slice_count(gint64 len, RtValue start_v, RtValue end_v, gint64 step, gint64 *start) {
  gint64 s = start_v.tag == RT_INT ? start_v.u.i : 0;
  gint64 e = end_v.tag == RT_INT ? end_v.u.i : len;
  if (s < 0)
    s = MAX(s + len, 0);
  if (e < 0)
    e = MAX(e + len, 0);
  s = MIN(s, len);
  e = MIN(e, len);
  *start = s;
  return e > s ? (guint)((e - s + step - 1) / step) : 0;
}

/* The same for a negative step: None start is len - 1, None end is before the first item. */
static guint slice_count_down(gint64 len, RtValue start_v, RtValue end_v, gint64 step,
                              gint64 *start) {
  gint64 s = start_v.tag == RT_INT ? start_v.u.i : len - 1;
  gint64 e = end_v.tag == RT_INT ? end_v.u.i : -1;
  if (start_v.tag == RT_INT && s < 0)
    s = MAX(s + len, -1);
  if (end_v.tag == RT_INT && e < 0)
    e = MAX(e + len, -1);
  s = MIN(s, len - 1);
  e = MIN(e, len - 1);
  *start = s;
  return s > e ? (guint)((s - e + (-step) - 1) / (-step)) : 0;
}

static bool list_slice(const IrSchema *schema, RtValue *args, RtSeq *list, RtValue *out,
                       GError **error) {
  gint64 step;
  if (!k_arg_int(schema, args, 3, &step, error))
    return false;
  if (step == 0) {
    K_ERR(error, "slice step cannot be zero");
    return false;
  }
  for (guint i = 1; i <= 2; i++)
    if (args[i].tag != RT_INT && args[i].tag != RT_NONE) {
      K_ERR(error, "aten::slice: argument %u must be an int or None", i + 1);
      return false;
    }
  gint64 start;
  guint n = step > 0 ? slice_count(list->len, args[1], args[2], step, &start)
                     : slice_count_down(list->len, args[1], args[2], step, &start);
  *out = list_gather(list, start, step, n);
  return true;
}

/* Whether two list items are equal as Python's `==` on ints, floats and strs. */
static bool item_equal(RtValue a, RtValue b) {
  if (a.tag == RT_STR || b.tag == RT_STR)
    return a.tag == b.tag && strcmp(a.u.s->text, b.u.s->text) == 0;
  double x, y;
  return a.tag != RT_TENSOR && b.tag != RT_TENSOR && rt_value_to_double(a, &x) &&
         rt_value_to_double(b, &y) && x == y;
}

static gint64 list_find(const RtSeq *list, RtValue item) {
  for (guint i = 0; i < list->len; i++)
    if (item_equal(list->items[i], item))
      return i;
  return -1;
}

/* l * n (n <= 0 gives []) */
static bool list_repeat(RtSeq *list, gint64 times, RtValue *out, GError **error) {
  if (times > 0 && list->len > 0 && (guint64)times > G_MAXUINT / list->len) {
    K_ERR(error, "list of %u items repeated %" G_GINT64_FORMAT " times is too long", list->len,
          times);
    return false;
  }
  guint64 n = times <= 0 ? 0 : (guint64)times * list->len;
  if (!list_size_ok(n, error))
    return false;
  g_autofree RtValue *items = g_new(RtValue, n + 1);
  for (guint64 k = 0; k < n; k++)
    items[k] = rt_value_ref(list->items[k % list->len]);
  *out = rt_list(items, (guint)n);
  return true;
}

/* The mutations that change the list's length or order. */
static bool list_mutate(const IrSchema *schema, RtValue *args, RtSeq *list, RtValue *outs,
                        GError **error) {
  gint64 idx = 0;
  guint at;
  switch (schema->kind) {
  case IR_ATEN_EXTEND: {
    RtSeq *other;
    if (!arg_list(schema, args, 1, &other, error) ||
        !list_size_ok((guint64)list->len + other->len, error))
      return false;
    guint n = other->len; /* l.extend(l) appends the items it had before */
    for (guint i = 0; i < n; i++)
      rt_list_append(args[0], rt_value_ref(other->items[i]));
    return true;
  }
  case IR_ATEN_INSERT: {
    if (!k_arg_int(schema, args, 1, &idx, error))
      return false;
    gint64 len = (gint64)list->len; /* Python clamps the position */
    gint64 pos = idx < 0 ? MAX(idx + len, 0) : MIN(idx, len);
    rt_list_append(args[0], rt_none()); /* room for one more, then shift the tail */
    memmove(list->items + pos + 1, list->items + pos, (size_t)(len - pos) * sizeof(RtValue));
    list->items[pos] = rt_value_ref(args[2]);
    return true;
  }
  case IR_ATEN_POP:
    if (!k_arg_int(schema, args, 1, &idx, error))
      return false;
    if (list->len == 0) {
      K_ERR(error, "pop from empty list");
      return false;
    }
    if (!list_index(list, idx, &at, error))
      return false;
    outs[0] = list->items[at];
    memmove(list->items + at, list->items + at + 1, (size_t)(list->len - at - 1) * sizeof(RtValue));
    list->len--;
    return true;
  case IR_ATEN_REVERSE:
    for (guint i = 0; i < list->len / 2; i++) {
      RtValue t = list->items[i];
      list->items[i] = list->items[list->len - 1 - i];
      list->items[list->len - 1 - i] = t;
    }
    return true;
  case IR_ATEN_CLEAR:
    for (guint i = 0; i < list->len; i++)
      rt_value_unref(list->items[i]);
    list->len = 0;
    return true;
  default: K_INVARIANT(false, "list_mutate called for another op"); return false;
  }
}

bool rt_kernel_list(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (schema->kind == IR_ATEN_LEN && k_overload_is(schema, "Tensor")) {
    RtTensor *t;
    if (!k_arg_tensor(schema, args, 0, &t, error))
      return false;
    if (t->ndim == 0) {
      K_ERR(error, "len() of a 0-d tensor");
      return false;
    }
    outs[0] = rt_int(t->sizes[0]);
    return true;
  }
  bool right = schema->kind == IR_ATEN_MUL && k_overload_is(schema, "right_");
  RtSeq *list;
  if (!arg_list(schema, args, right ? 1 : 0, &list, error))
    return false;
  gint64 idx = 0;
  guint at;
  switch (schema->kind) {
  case IR_ATEN_LEN: outs[0] = rt_int((gint64)list->len); return true;
  case IR_ATEN_GETITEM:
    if (!k_arg_int(schema, args, 1, &idx, error) || !list_index(list, idx, &at, error))
      return false;
    outs[0] = rt_value_ref(list->items[at]);
    return true;
  case IR_ATEN_APPEND:
    rt_list_append(args[0], rt_value_ref(args[1]));
    outs[0] = rt_value_ref(args[0]);
    return true;
  case IR_ATEN_SET_ITEM:
    if (!k_arg_int(schema, args, 1, &idx, error) || !list_index(list, idx, &at, error))
      return false;
    rt_value_unref(list->items[at]);
    list->items[at] = rt_value_ref(args[2]);
    outs[0] = rt_value_ref(args[0]);
    return true;
  case IR_ATEN_SLICE: return list_slice(schema, args, list, &outs[0], error);
  case IR_ATEN_LIST: outs[0] = list_gather(list, 0, 1, list->len); return true;
  case IR_ATEN_ADD: {
    RtSeq *other;
    if (!arg_list(schema, args, 1, &other, error) ||
        !list_size_ok((guint64)list->len + other->len, error))
      return false;
    outs[0] = list_gather(list, 0, 1, list->len);
    for (guint i = 0; i < other->len; i++)
      rt_list_append(outs[0], rt_value_ref(other->items[i]));
    return true;
  }
  case IR_ATEN_MUL:
    return k_arg_int(schema, args, right ? 0 : 1, &idx, error) &&
           list_repeat(list, idx, &outs[0], error);
  case IR_ATEN___CONTAINS__: outs[0] = rt_bool(list_find(list, args[1]) >= 0); return true;
  case IR_ATEN_INDEX: {
    gint64 found = list_find(list, args[1]);
    if (found < 0) {
      g_autoptr(GString) item = g_string_new(NULL);
      rt_value_print(item, args[1]);
      K_ERR(error, "%s is not in list", item->str);
      return false;
    }
    outs[0] = rt_int(found);
    return true;
  }
  case IR_ATEN_EXTEND:
  case IR_ATEN_INSERT:
  case IR_ATEN_POP:
  case IR_ATEN_REVERSE:
  case IR_ATEN_CLEAR: return list_mutate(schema, args, list, outs, error);
  default: K_INVARIANT(false, "rt_kernel_list called for an op of another family"); return false;
  }
}
