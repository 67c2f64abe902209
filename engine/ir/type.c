/* IR types: hash-consed in one process-wide table guarded by a mutex. Types are normalized
 * before interning (unknown sizes/strides collapse to NULL, unused fields zeroed) so that
 * structural equality is pointer equality. */
#include "ir/type.h"

#include <string.h>

#include "ir/text_out.h"

static GMutex type_lock;
static GHashTable *type_table; /* IrType* -> IrType* (key == value) */

static guint hash_i64s(guint h, const int64_t *v, int n) {
  if (!v)
    return h * 31u + 7u;
  for (int i = 0; i < n; i++)
    h = h * 1000003u ^ (guint)(v[i] ^ (v[i] >> 32));
  return h;
}

static guint type_hash(gconstpointer p) {
  const IrType *t = p;
  guint h = (guint)t->kind * 2654435761u;
  h = h * 31u + (guint)t->undefined;
  h = h * 31u + (guint)t->has_dtype;
  h = h * 31u + (guint)t->dtype;
  h = h * 31u + (guint)(t->rank + 1);
  h = hash_i64s(h, t->sizes, t->rank);
  h = hash_i64s(h, t->strides, t->rank);
  h = h * 31u + (guint)(t->requires_grad + 1);
  h = h * 31u + (guint)(t->device + 1);
  h = h * 31u + g_direct_hash(t->elem);
  h = h * 31u + t->n_elems;
  for (guint i = 0; i < t->n_elems; i++)
    h = h * 31u + g_direct_hash(t->elems[i]);
  if (t->name)
    h = h * 31u + g_str_hash(t->name);
  return h;
}

static bool i64s_equal(const int64_t *a, const int64_t *b, int n) {
  if (!a || !b)
    return a == b;
  return memcmp(a, b, sizeof(int64_t) * (size_t)n) == 0;
}

static gboolean type_equal(gconstpointer pa, gconstpointer pb) {
  const IrType *a = pa, *b = pb;
  if (a->kind != b->kind || a->undefined != b->undefined || a->has_dtype != b->has_dtype ||
      a->dtype != b->dtype || a->rank != b->rank || a->requires_grad != b->requires_grad ||
      a->device != b->device || a->elem != b->elem || a->n_elems != b->n_elems)
    return FALSE;
  if (!i64s_equal(a->sizes, b->sizes, a->rank) || !i64s_equal(a->strides, b->strides, a->rank))
    return FALSE;
  for (guint i = 0; i < a->n_elems; i++)
    if (a->elems[i] != b->elems[i])
      return FALSE;
  if (!a->name || !b->name)
    return a->name == b->name;
  return strcmp(a->name, b->name) == 0;
}

static bool all_unknown(const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] != IR_SIZE_UNKNOWN)
      return false;
  return true;
}

/* Interns a normalized copy of *t; the key's arrays are copied on first insertion. */
static const IrType *intern(const IrType *proto) {
  IrType key = *proto;
  if (key.kind == IR_TYPE_TENSOR) {
    if (!key.has_dtype)
      key.dtype = 0;
    if (key.rank < 0) {
      key.rank = -1;
      key.sizes = NULL;
      key.strides = NULL;
    }
    if (key.rank > IR_MAX_RANK)
      g_error("ir type invariant: tensor rank %d exceeds IR_MAX_RANK", key.rank);
    if (key.sizes && all_unknown(key.sizes, key.rank))
      key.sizes = NULL;
    if (key.strides && all_unknown(key.strides, key.rank))
      key.strides = NULL;
    if (key.rank == 0)
      key.sizes = key.strides = NULL;
    if (key.requires_grad != IR_YES && key.requires_grad != IR_NO)
      key.requires_grad = IR_UNKNOWN;
    if (key.device < 0)
      key.device = -1;
    key.elem = NULL;
    key.n_elems = 0;
    key.elems = NULL;
    key.name = NULL;
  } else {
    key.undefined = false;
    key.has_dtype = false;
    key.dtype = 0;
    key.rank = -1;
    key.sizes = key.strides = NULL;
    key.requires_grad = IR_UNKNOWN;
    key.device = -1;
    if (key.kind != IR_TYPE_LIST && key.kind != IR_TYPE_OPTIONAL)
      key.elem = NULL;
    if ((key.kind != IR_TYPE_TUPLE && key.kind != IR_TYPE_DICT) || key.n_elems == 0) {
      key.n_elems = 0;
      key.elems = NULL;
    }
    if (key.kind != IR_TYPE_CLASS)
      key.name = NULL;
  }

  key.printed = NULL;
  g_mutex_lock(&type_lock);
  if (!type_table)
    type_table = g_hash_table_new(type_hash, type_equal);
  IrType *found = g_hash_table_lookup(type_table, &key);
  if (!found) {
    found = g_new(IrType, 1);
    *found = key;
    if (key.sizes)
      found->sizes = g_memdup2(key.sizes, sizeof(int64_t) * (size_t)key.rank);
    if (key.strides)
      found->strides = g_memdup2(key.strides, sizeof(int64_t) * (size_t)key.rank);
    if (key.n_elems)
      found->elems = g_memdup2(key.elems, sizeof(IrType *) * key.n_elems);
    if (key.name)
      found->name = g_strdup(key.name);
    g_hash_table_add(type_table, found);
  }
  g_mutex_unlock(&type_lock);
  return found;
}

static IrType blank(IrTypeKind kind) {
  IrType t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.rank = -1;
  t.requires_grad = IR_UNKNOWN;
  t.device = -1;
  return t;
}

static const IrType *simple(IrTypeKind kind) {
  IrType t = blank(kind);
  return intern(&t);
}

#define SINGLETON(fn, expr)                      \
  const IrType *fn(void) {                       \
    static gsize cached;                         \
    if (g_once_init_enter(&cached))              \
      g_once_init_leave(&cached, (gsize)(expr)); \
    return (const IrType *)cached;               \
  }

static const IrType *make_undefined_tensor(void) {
  IrType t = blank(IR_TYPE_TENSOR);
  t.undefined = true;
  return intern(&t);
}

SINGLETON(ir_type_tensor, simple(IR_TYPE_TENSOR))
SINGLETON(ir_type_int, simple(IR_TYPE_INT))
SINGLETON(ir_type_float, simple(IR_TYPE_FLOAT))
SINGLETON(ir_type_bool, simple(IR_TYPE_BOOL))
SINGLETON(ir_type_number, simple(IR_TYPE_NUMBER))
SINGLETON(ir_type_str, simple(IR_TYPE_STR))
SINGLETON(ir_type_none, simple(IR_TYPE_NONE))
SINGLETON(ir_type_device, simple(IR_TYPE_DEVICE))
SINGLETON(ir_type_any, simple(IR_TYPE_ANY))
SINGLETON(ir_type_undefined_tensor, make_undefined_tensor())

const IrType *ir_type_tensor_from(const IrType *proto) {
  IrType t = *proto;
  t.kind = IR_TYPE_TENSOR;
  return intern(&t);
}

const IrType *ir_type_list(const IrType *elem) {
  g_assert(elem);
  IrType t = blank(IR_TYPE_LIST);
  t.elem = elem;
  return intern(&t);
}

const IrType *ir_type_optional(const IrType *elem) {
  g_assert(elem);
  IrType t = blank(IR_TYPE_OPTIONAL);
  t.elem = elem;
  return intern(&t);
}

const IrType *ir_type_tuple(const IrType *const *elems, guint n) {
  IrType t = blank(IR_TYPE_TUPLE);
  t.n_elems = n;
  t.elems = elems;
  return intern(&t);
}

const IrType *ir_type_class(const char *name) {
  g_assert(name);
  IrType t = blank(IR_TYPE_CLASS);
  t.name = name;
  return intern(&t);
}

const IrType *ir_type_dict(const IrType *key, const IrType *value) {
  const IrType *elems[2] = {key, value};
  IrType t = blank(IR_TYPE_DICT);
  t.n_elems = 2;
  t.elems = elems;
  return intern(&t);
}

const IrType *ir_type_with_requires_grad(const IrType *t, IrTristate rg) {
  if (t->kind != IR_TYPE_TENSOR)
    g_error("ir type invariant: with_requires_grad on a non-tensor type");
  IrType c = *t;
  c.requires_grad = rg;
  return intern(&c);
}

const IrType *ir_type_dimensioned(const IrType *t) {
  if (t->kind != IR_TYPE_TENSOR)
    g_error("ir type invariant: dimensioned on a non-tensor type");
  IrType c = *t;
  c.sizes = NULL;
  c.strides = NULL;
  return intern(&c);
}

bool ir_type_is_tensor(const IrType *t) {
  return t && t->kind == IR_TYPE_TENSOR;
}

bool ir_type_is_tensor_list(const IrType *t) {
  return t->kind == IR_TYPE_LIST && ir_type_is_tensor(t->elem);
}

bool ir_type_is_float_dtype(IrDtype d) {
  return d == IR_DTYPE_FLOAT32 || d == IR_DTYPE_FLOAT64 || d == IR_DTYPE_FLOAT16;
}

/* A tensor type is a subtype of another when every fact the super type states holds for the
 * sub type (PyTorch's TensorType::isSubtypeOf merges the two and checks nothing changed). */
static bool tensor_is_subtype(const IrType *sub, const IrType *super) {
  if (super->undefined && !sub->undefined)
    return false;
  if (super->has_dtype && (!sub->has_dtype || sub->dtype != super->dtype))
    return false;
  if (super->rank >= 0) {
    if (sub->rank != super->rank)
      return false;
    for (int i = 0; i < super->rank; i++) {
      if (super->sizes && super->sizes[i] != IR_SIZE_UNKNOWN &&
          (!sub->sizes || sub->sizes[i] != super->sizes[i]))
        return false;
      if (super->strides && super->strides[i] != IR_SIZE_UNKNOWN &&
          (!sub->strides || sub->strides[i] != super->strides[i]))
        return false;
    }
  }
  if (super->requires_grad != IR_UNKNOWN && sub->requires_grad != super->requires_grad)
    return false;
  if (super->device >= 0 && sub->device != super->device)
    return false;
  return true;
}

/* Whether t holds a schema type variable (`t`, Any) anywhere: `(str, t)[]`, `t[]?`. */
static bool has_type_var(const IrType *t) {
  switch (t->kind) {
  case IR_TYPE_ANY: return true;
  case IR_TYPE_LIST:
  case IR_TYPE_OPTIONAL: return has_type_var(t->elem);
  case IR_TYPE_TUPLE:
  case IR_TYPE_DICT:
    for (guint i = 0; i < t->n_elems; i++)
      if (has_type_var(t->elems[i]))
        return true;
    return false;
  default: return false;
  }
}

/* An element type of an invariant container (list element, dict value) fits: equal, a
 * refined tensor for Tensor, or anything fitting a type variable. */
static bool elem_fits(const IrType *sub, const IrType *super) {
  return sub == super || (super == ir_type_tensor() && sub->kind == IR_TYPE_TENSOR) ||
         (has_type_var(super) && ir_type_is_subtype(sub, super));
}

bool ir_type_is_subtype(const IrType *sub, const IrType *super) {
  if (sub == super)
    return true;
  switch (super->kind) {
  case IR_TYPE_ANY: return true;
  case IR_TYPE_TENSOR: return sub->kind == IR_TYPE_TENSOR && tensor_is_subtype(sub, super);
  case IR_TYPE_NUMBER:
    return sub->kind == IR_TYPE_INT || sub->kind == IR_TYPE_FLOAT || sub->kind == IR_TYPE_BOOL;
  case IR_TYPE_OPTIONAL:
    if (sub->kind == IR_TYPE_NONE)
      return true;
    if (sub->kind == IR_TYPE_OPTIONAL)
      return ir_type_is_subtype(sub->elem, super->elem);
    return ir_type_is_subtype(sub, super->elem);
  case IR_TYPE_LIST:
    if (sub->kind != IR_TYPE_LIST)
      return false;
    /* Lists are invariant except toward Any-like element types: a list of refined tensors
     * is a Tensor[]. */
    return elem_fits(sub->elem, super->elem);
  case IR_TYPE_DICT:
    /* Invariant as lists: equal keys; values equal, or toward Any-like value types. */
    return sub->kind == IR_TYPE_DICT && sub->elems[0] == super->elems[0] &&
           elem_fits(sub->elems[1], super->elems[1]);
  case IR_TYPE_TUPLE:
    if (sub->kind != IR_TYPE_TUPLE || sub->n_elems != super->n_elems)
      return false;
    for (guint i = 0; i < sub->n_elems; i++)
      if (!ir_type_is_subtype(sub->elems[i], super->elems[i]))
        return false;
    return true;
  default: return false; /* scalar kinds: only equal types, handled above */
  }
}

const char *ir_dtype_type_name(IrDtype d) {
  static const char *names[] = {"Float", "Double", "Half", "Long", "Bool"};
  if ((unsigned)d >= IR_DTYPE_COUNT)
    g_error("ir type invariant: dtype %d out of range", (int)d);
  return names[d];
}

const char *ir_dtype_name(IrDtype d) {
  static const char *names[] = {"float32", "float64", "float16", "int64", "bool"};
  if ((unsigned)d >= IR_DTYPE_COUNT)
    g_error("ir type invariant: dtype %d out of range", (int)d);
  return names[d];
}

size_t ir_dtype_size(IrDtype d) {
  static const size_t sizes[] = {4, 8, 2, 8, 1};
  if ((unsigned)d >= IR_DTYPE_COUNT)
    g_error("ir type invariant: dtype %d out of range", (int)d);
  return sizes[d];
}

const char *ir_device_name(int device) {
  switch (device) {
  case IR_DEVICE_CPU: return "cpu";
  case IR_DEVICE_CUDA: return "cuda";
  default: g_error("ir type invariant: device %d is neither cpu nor cuda", device);
  }
}

/* As PyTorch 1.13's operator<<(ostream, Type) for TensorType at full verbosity. */
static void print_tensor(GString *out, const IrType *t) {
  if (t->has_dtype) {
    text_put(out, ir_dtype_type_name(t->dtype));
    if (t->rank < 0)
      text_put(out, "Tensor");
  } else {
    text_put(out, "Tensor");
  }
  int n = 0; /* fields printed inside the parentheses */
  if (t->rank >= 0) {
    g_string_append_c(out, '(');
    for (int i = 0; i < t->rank; i++, n++) {
      if (i > 0)
        text_put(out, ", ");
      if (t->sizes && t->sizes[i] != IR_SIZE_UNKNOWN)
        g_string_append_printf(out, "%" G_GINT64_FORMAT, (gint64)t->sizes[i]);
      else
        g_string_append_c(out, '*');
    }
    if (t->rank > 0 && t->strides) {
      bool complete = true;
      for (int i = 0; i < t->rank; i++)
        if (t->strides[i] == IR_SIZE_UNKNOWN)
          complete = false;
      if (complete) {
        text_put(out, ", strides=[");
        for (int i = 0; i < t->rank; i++)
          g_string_append_printf(out, "%s%" G_GINT64_FORMAT, i ? ", " : "", (gint64)t->strides[i]);
        g_string_append_c(out, ']');
      }
    }
    if (t->requires_grad != IR_UNKNOWN) {
      g_string_append_printf(out, "%srequires_grad=%d", n ? ", " : "", (int)t->requires_grad);
      n++;
    }
    if (t->device >= 0)
      g_string_append_printf(out, "%sdevice=%s", n ? ", " : "", ir_device_name(t->device));
    g_string_append_c(out, ')');
  } else {
    if (t->requires_grad != IR_UNKNOWN) {
      g_string_append_printf(out, "(requires_grad=%d", (int)t->requires_grad);
      n++;
    }
    if (t->device >= 0) {
      g_string_append_printf(out, "%sdevice=%s", n ? ", " : "(", ir_device_name(t->device));
      n++;
    }
    if (n)
      g_string_append_c(out, ')');
  }
  if (t->undefined)
    text_put(out, "[Undefined]");
}

void ir_type_print(GString *out, const IrType *t) {
  switch (t->kind) {
  case IR_TYPE_TENSOR: {
    /* Interned types only are printed; the first print of one keeps its text. */
    IrType *shared = (IrType *)t;
    const char *text = g_atomic_pointer_get(&shared->printed);
    if (text == NULL) {
      GString *made = g_string_new(NULL);
      print_tensor(made, t);
      char *fresh = g_string_free(made, FALSE);
      if (!g_atomic_pointer_compare_and_exchange(&shared->printed, NULL, fresh))
        g_free(fresh);
      text = g_atomic_pointer_get(&shared->printed);
    }
    text_put(out, text);
    break;
  }
  case IR_TYPE_INT: text_put(out, "int"); break;
  case IR_TYPE_FLOAT: text_put(out, "float"); break;
  case IR_TYPE_BOOL: text_put(out, "bool"); break;
  case IR_TYPE_NUMBER: text_put(out, "Scalar"); break;
  case IR_TYPE_STR: text_put(out, "str"); break;
  case IR_TYPE_NONE: text_put(out, "NoneType"); break;
  case IR_TYPE_DEVICE: text_put(out, "Device"); break;
  case IR_TYPE_ANY: text_put(out, "Any"); break;
  case IR_TYPE_CLASS: text_put(out, t->name); break;
  case IR_TYPE_DICT:
    text_put(out, "Dict(");
    ir_type_print(out, t->elems[0]);
    text_put(out, ", ");
    ir_type_print(out, t->elems[1]);
    g_string_append_c(out, ')');
    break;
  case IR_TYPE_LIST:
    ir_type_print(out, t->elem);
    text_put(out, "[]");
    break;
  case IR_TYPE_OPTIONAL:
    ir_type_print(out, t->elem);
    g_string_append_c(out, '?');
    break;
  case IR_TYPE_TUPLE:
    g_string_append_c(out, '(');
    for (guint i = 0; i < t->n_elems; i++) {
      if (i)
        text_put(out, ", ");
      ir_type_print(out, t->elems[i]);
    }
    g_string_append_c(out, ')');
    break;
  }
}

char *ir_type_to_string(const IrType *t) {
  GString *s = g_string_new(NULL);
  ir_type_print(s, t);
  return g_string_free(s, FALSE);
}
