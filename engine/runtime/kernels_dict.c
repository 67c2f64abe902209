/* Dicts (ops.def's `dict` family) with TorchScript's semantics: str or int keys, insertion
 * order as Python's; reads (len, __getitem__, __contains__, get, keys, values, items), a new
 * empty dict (aten::dict) and the in-place mutations (_set_item, pop, update, clear) that
 * every holder of the dict sees (value.h). A missing key is an error naming the key. */
#include "runtime/kernel_args.h"
#include "runtime/kernels.h"
#include "runtime/kernels_internal.h"

/* The dict argument i, or an error naming what came instead. */
static bool arg_dict(const IrSchema *schema, RtValue *args, guint i, RtDict **out, GError **error) {
  if (args[i].tag != RT_DICT) {
    K_ERR(error, "%s: argument %u must be a dict", ir_kind_name(schema->kind), i + 1);
    return false;
  }
  *out = args[i].u.dict;
  return true;
}

/* The key argument i: a str or an int as the overload's key type says. */
static bool arg_key(const IrSchema *schema, RtValue *args, guint i, GError **error) {
  RtTag want = schema->args[0].type->elems[0]->kind == IR_TYPE_STR ? RT_STR : RT_INT;
  if (args[i].tag != want) {
    K_ERR(error, "%s: the key must be %s", ir_kind_name(schema->kind),
          want == RT_STR ? "a str" : "an int");
    return false;
  }
  return true;
}

static void missing_key(RtValue key, GError **error) {
  g_autoptr(GString) text = g_string_new(NULL);
  rt_value_print(text, key);
  K_ERR(error, "KeyError: key %s is not in the dict", text->str);
}

/* A new list of the dict's keys (part 0), values (1) or (key, value) tuples (2). */
static RtValue dict_list(const RtDict *d, int part) {
  g_autofree RtValue *items = g_new(RtValue, d->len + 1);
  for (guint i = 0; i < d->len; i++) {
    if (part == 2) {
      RtValue pair[2] = {rt_value_ref(d->keys[i]), rt_value_ref(d->values[i])};
      items[i] = rt_tuple(pair, 2);
    } else {
      items[i] = rt_value_ref(part == 0 ? d->keys[i] : d->values[i]);
    }
  }
  return rt_list(items, d->len);
}

/* __getitem__, get and pop: the value of args[1], or the default args[2] when given. */
static bool dict_lookup(const IrSchema *schema, RtValue *args, guint n_args, RtDict *d,
                        RtValue *out, GError **error) {
  if (!arg_key(schema, args, 1, error))
    return false;
  gint64 at = rt_dict_find(d, args[1]);
  if (at < 0) {
    if (n_args == 3) {
      *out = rt_value_ref(args[2]);
      return true;
    }
    if (schema->kind == IR_ATEN_GET) {
      *out = rt_none();
      return true;
    }
    missing_key(args[1], error);
    return false;
  }
  *out = schema->kind == IR_ATEN_POP ? rt_dict_take(d, (guint)at) : rt_value_ref(d->values[at]);
  return true;
}

bool rt_kernel_dict(const IrSchema *schema, const IrNode *node, RtValue *args, guint n_args,
                    RtValue *outs, guint n_outs, GError **error) {
  k_check_call(schema, n_args, n_outs);
  if (schema->kind == IR_ATEN_DICT) {
    outs[0] = rt_dict_new();
    return true;
  }
  RtDict *d;
  if (!arg_dict(schema, args, 0, &d, error))
    return false;
  switch (schema->kind) {
  case IR_ATEN_LEN: outs[0] = rt_int((gint64)d->len); return true;
  case IR_ATEN_GETITEM:
  case IR_ATEN_GET:
  case IR_ATEN_POP: return dict_lookup(schema, args, n_args, d, &outs[0], error);
  case IR_ATEN___CONTAINS__:
    if (!arg_key(schema, args, 1, error))
      return false;
    outs[0] = rt_bool(rt_dict_find(d, args[1]) >= 0);
    return true;
  case IR_ATEN_SET_ITEM:
    if (!arg_key(schema, args, 1, error))
      return false;
    rt_dict_set(args[0], rt_value_ref(args[1]), rt_value_ref(args[2]));
    return true;
  case IR_ATEN_KEYS: outs[0] = dict_list(d, 0); return true;
  case IR_ATEN_VALUES: outs[0] = dict_list(d, 1); return true;
  case IR_ATEN_ITEMS: outs[0] = dict_list(d, 2); return true;
  case IR_ATEN_UPDATE: {
    RtDict *other;
    if (!arg_dict(schema, args, 1, &other, error))
      return false;
    guint n = other->len; /* d.update(d) leaves d as it is */
    for (guint i = 0; i < n; i++)
      rt_dict_set(args[0], rt_value_ref(other->keys[i]), rt_value_ref(other->values[i]));
    return true;
  }
  case IR_ATEN_CLEAR:
    while (d->len > 0)
      rt_value_unref(rt_dict_take(d, d->len - 1));
    return true;
  default: K_INVARIANT(false, "rt_kernel_dict called for an op of another family"); return false;
  }
}
