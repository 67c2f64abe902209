/* RtValue: constructors, reference counting, conversions and printing (contract in value.h).
 * Strings and tuples are immutable once built and shared by reference count; lists and dicts
 * change in place. */
#include "runtime/value.h"

#include "runtime/device.h"

#include <string.h>

RtValue rt_none(void) {
  RtValue v = {.tag = RT_NONE};
  return v;
}

RtValue rt_int(gint64 i) {
  RtValue v = {.tag = RT_INT, .u.i = i};
  return v;
}

RtValue rt_double(double d) {
  RtValue v = {.tag = RT_DOUBLE, .u.d = d};
  return v;
}

RtValue rt_bool(bool b) {
  RtValue v = {.tag = RT_BOOL, .u.b = b};
  return v;
}

RtValue rt_device(int device) {
  RtValue v = {.tag = RT_DEVICE, .u.device = device};
  return v;
}

RtValue rt_tensor(RtTensor *t) {
  RtValue v = {.tag = RT_TENSOR, .u.tensor = t};
  return v;
}

RtValue rt_str(const char *text) {
  size_t len = strlen(text);
  RtString *s = g_malloc(sizeof(RtString) + len + 1);
  s->refcount = 1;
  memcpy(s->text, text, len + 1);
  RtValue v = {.tag = RT_STR, .u.s = s};
  return v;
}

static RtSeq *seq_alloc(guint n) {
  RtSeq *q = g_malloc(sizeof(RtSeq) + (size_t)n * sizeof(RtValue));
  q->refcount = 1;
  q->len = q->capacity = n;
  q->items = q->inline_items;
  return q;
}

static RtSeq *seq_new(const RtValue *items, guint n) {
  RtSeq *q = seq_alloc(n);
  if (n > 0)
    memcpy(q->items, items, (size_t)n * sizeof(RtValue));
  return q;
}

RtValue rt_list(RtValue *items, guint n) {
  RtValue v = {.tag = RT_LIST, .u.seq = seq_new(items, n)};
  return v;
}

RtValue rt_tuple(RtValue *items, guint n) {
  RtValue v = {.tag = RT_TUPLE, .u.seq = seq_new(items, n)};
  return v;
}

RtValue rt_int_list(const gint64 *values, guint n) {
  RtSeq *q = seq_alloc(n);
  for (guint i = 0; i < n; i++)
    q->items[i] = rt_int(values[i]);
  RtValue v = {.tag = RT_LIST, .u.seq = q};
  return v;
}

void rt_list_append(RtValue list, RtValue item) {
  g_assert(list.tag == RT_LIST);
  RtSeq *q = list.u.seq;
  if (q->len == q->capacity) {
    guint capacity = MAX(4u, q->capacity * 2);
    if (q->items == q->inline_items) {
      q->items = g_new(RtValue, capacity);
      memcpy(q->items, q->inline_items, (size_t)q->len * sizeof(RtValue));
    } else {
      q->items = g_renew(RtValue, q->items, capacity);
    }
    q->capacity = capacity;
  }
  q->items[q->len++] = item;
}

RtValue rt_dict_new(void) {
  RtDict *d = g_new0(RtDict, 1);
  d->refcount = 1;
  RtValue v = {.tag = RT_DICT, .u.dict = d};
  return v;
}

bool rt_dict_key_equal(RtValue a, RtValue b) {
  if (a.tag != b.tag)
    return false;
  switch (a.tag) {
  case RT_STR: return strcmp(a.u.s->text, b.u.s->text) == 0;
  case RT_INT: return a.u.i == b.u.i;
  case RT_TENSOR: return a.u.tensor == b.u.tensor;
  default: return false;
  }
}

gint64 rt_dict_find(const RtDict *dict, RtValue key) {
  for (guint i = 0; i < dict->len; i++)
    if (rt_dict_key_equal(dict->keys[i], key))
      return i;
  return -1;
}

void rt_dict_set(RtValue dict, RtValue key, RtValue value) {
  g_assert(dict.tag == RT_DICT);
  RtDict *d = dict.u.dict;
  gint64 at = rt_dict_find(d, key);
  if (at >= 0) {
    rt_value_unref(key);
    rt_value_unref(d->values[at]);
    d->values[at] = value;
    return;
  }
  if (d->len == d->capacity) {
    d->capacity = MAX(4u, d->capacity * 2);
    d->keys = g_renew(RtValue, d->keys, d->capacity);
    d->values = g_renew(RtValue, d->values, d->capacity);
  }
  d->keys[d->len] = key;
  d->values[d->len++] = value;
}

RtValue rt_dict_take(RtDict *dict, guint index) {
  g_assert(index < dict->len);
  RtValue value = dict->values[index];
  rt_value_unref(dict->keys[index]);
  guint after = dict->len - index - 1;
  memmove(dict->keys + index, dict->keys + index + 1, (size_t)after * sizeof(RtValue));
  memmove(dict->values + index, dict->values + index + 1, (size_t)after * sizeof(RtValue));
  dict->len--;
  return value;
}

RtValue rt_value_ref(RtValue v) {
  switch (v.tag) {
  case RT_TENSOR:
    if (v.u.tensor != NULL)
      rt_tensor_ref(v.u.tensor);
    break;
  case RT_STR: g_atomic_int_inc(&v.u.s->refcount); break;
  case RT_LIST:
  case RT_TUPLE: g_atomic_int_inc(&v.u.seq->refcount); break;
  case RT_DICT: g_atomic_int_inc(&v.u.dict->refcount); break;
  default: break;
  }
  return v;
}

void rt_value_unref(RtValue v) {
  switch (v.tag) {
  case RT_TENSOR: rt_tensor_unref(v.u.tensor); break;
  case RT_STR:
    if (g_atomic_int_dec_and_test(&v.u.s->refcount))
      g_free(v.u.s);
    break;
  case RT_LIST:
  case RT_TUPLE:
    if (g_atomic_int_dec_and_test(&v.u.seq->refcount)) {
      for (guint i = 0; i < v.u.seq->len; i++)
        rt_value_unref(v.u.seq->items[i]);
      if (v.u.seq->items != v.u.seq->inline_items)
        g_free(v.u.seq->items);
      g_free(v.u.seq);
    }
    break;
  case RT_DICT:
    if (g_atomic_int_dec_and_test(&v.u.dict->refcount)) {
      for (guint i = 0; i < v.u.dict->len; i++) {
        rt_value_unref(v.u.dict->keys[i]);
        rt_value_unref(v.u.dict->values[i]);
      }
      g_free(v.u.dict->keys);
      g_free(v.u.dict->values);
      g_free(v.u.dict);
    }
    break;
  default: break;
  }
}

bool rt_value_is_tensor(RtValue v) {
  return v.tag == RT_TENSOR;
}

bool rt_value_to_double(RtValue v, double *out) {
  switch (v.tag) {
  case RT_INT: *out = (double)v.u.i; return true;
  case RT_DOUBLE: *out = v.u.d; return true;
  case RT_BOOL: *out = v.u.b ? 1.0 : 0.0; return true;
  case RT_TENSOR: {
    if (v.u.tensor == NULL || rt_tensor_numel(v.u.tensor) != 1)
      return false;
    if (v.u.tensor->storage->device == IR_DEVICE_CPU) {
      *out = rt_tensor_get(v.u.tensor, 0);
      return true;
    }
    /* Device memory: the one element is copied to the host (when a backend can). */
    RtTensor *host = rt_tensor_on_device(v.u.tensor) ? rt_tensor_to_host(v.u.tensor, NULL) : NULL;
    if (host == NULL)
      return false;
    *out = rt_tensor_get(host, 0);
    rt_tensor_unref(host);
    return true;
  }
  default: return false;
  }
}

bool rt_value_to_int_list(RtValue v, gint64 *out, guint max, guint *n) {
  if (v.tag != RT_LIST && v.tag != RT_TUPLE)
    return false;
  if (v.u.seq->len > max)
    return false;
  for (guint i = 0; i < v.u.seq->len; i++) {
    if (v.u.seq->items[i].tag != RT_INT)
      return false;
    out[i] = v.u.seq->items[i].u.i;
  }
  *n = v.u.seq->len;
  return true;
}

/* Shortest text that reads back as the same double, always with a '.', 'e', "inf" or
 * "nan" so it is recognisably a float. */
static void print_double(GString *out, double d) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  static const char *const formats[] = {"%.15g", "%.16g", "%.17g"};
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_ascii_formatd(buf, sizeof buf, formats[i], d);
    if (g_ascii_strtod(buf, NULL) == d || d != d)
      break;
  }
  g_string_append(out, buf);
  if (strpbrk(buf, ".eEna") == NULL)
    g_string_append(out, ".0");
}

void rt_value_print(GString *out, RtValue v) {
  switch (v.tag) {
  case RT_NONE: g_string_append(out, "None"); return;
  case RT_INT: g_string_append_printf(out, "%" G_GINT64_FORMAT, v.u.i); return;
  case RT_DOUBLE: print_double(out, v.u.d); return;
  case RT_BOOL: g_string_append(out, v.u.b ? "True" : "False"); return;
  case RT_STR: {
    g_autofree char *esc = g_strescape(v.u.s->text, NULL);
    g_string_append_printf(out, "\"%s\"", esc);
    return;
  }
  case RT_DEVICE: g_string_append(out, ir_device_name(v.u.device)); return;
  case RT_TENSOR: {
    const RtTensor *t = v.u.tensor;
    if (t == NULL) {
      g_string_append(out, "Tensor[Undefined]");
      return;
    }
    g_string_append(out, ir_dtype_type_name(t->dtype));
    g_string_append_c(out, '(');
    for (int d = 0; d < t->ndim; d++)
      g_string_append_printf(out, d ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, t->sizes[d]);
    if (t->storage->device != IR_DEVICE_CPU)
      g_string_append_printf(out, "%sdevice=%s", t->ndim ? ", " : "",
                             ir_device_name(t->storage->device));
    g_string_append_c(out, ')');
    return;
  }
  case RT_LIST:
  case RT_TUPLE: {
    bool list = v.tag == RT_LIST;
    g_string_append_c(out, list ? '[' : '(');
    for (guint i = 0; i < v.u.seq->len; i++) {
      if (i)
        g_string_append(out, ", ");
      rt_value_print(out, v.u.seq->items[i]);
    }
    if (!list && v.u.seq->len == 1)
      g_string_append_c(out, ','); /* Python's one-element tuple */
    g_string_append_c(out, list ? ']' : ')');
    return;
  }
  case RT_DICT:
    g_string_append_c(out, '{');
    for (guint i = 0; i < v.u.dict->len; i++) {
      if (i)
        g_string_append(out, ", ");
      rt_value_print(out, v.u.dict->keys[i]);
      g_string_append(out, ": ");
      rt_value_print(out, v.u.dict->values[i]);
    }
    g_string_append_c(out, '}');
    return;
  }
  g_error("rt_value_print: invalid tag %d", (int)v.tag);
}
