/* Lists (ops.def's `list` family): len, __getitem__, and the in-place mutations append and
 * _set_item, with TorchScript's semantics: negative indices count from the end, an index out
 * of range is an error, and a mutation changes the one list every holder sees (value.h). */
#include "runtime/kernel_args.h"
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

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
  RtSeq *list;
  if (!arg_list(schema, args, 0, &list, error))
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
  default: K_INVARIANT(false, "rt_kernel_list called for an op of another family"); return false;
  }
}
