/* Node attributes: a small array of named, typed values. Nodes own graphs and strings, hold
 * a reference on tensors, and copy arrays. */
#include "ir/ir-internal.h"
#include "tensor/tensor.h"

#include <string.h>

/* Frees the heap parts of one attribute. */
static void ir_internal_attr_clear(IrAttr *a) {
  switch (a->kind) {
  case IR_ATTR_F:
  case IR_ATTR_I: break;
  case IR_ATTR_S:
  case IR_ATTR_RAW: g_free(a->v.s); break;
  case IR_ATTR_FS: g_array_free(a->v.fs, TRUE); break;
  case IR_ATTR_IS: g_array_free(a->v.is, TRUE); break;
  case IR_ATTR_SS: g_ptr_array_free(a->v.ss, TRUE); break;
  case IR_ATTR_T:
    if (a->v.t)
      rt_tensor_unref(a->v.t);
    break;
  case IR_ATTR_TS: g_ptr_array_free(a->v.ts, TRUE); break;
  case IR_ATTR_G: ir_graph_free(a->v.g); break;
  case IR_ATTR_GS: g_ptr_array_free(a->v.gs, TRUE); break;
  }
  memset(&a->v, 0, sizeof a->v);
}

void ir_internal_node_free_attrs(IrNode *node) {
  for (guint i = 0; i < ir_n_attrs(node); i++)
    ir_internal_attr_clear(ir_attr_at(node, i));
  if (node->attrs)
    g_array_set_size(node->attrs, 0);
}

/* Compares by content: lookups of absent names must not grow the global intern table, and
 * the arrays are a handful of entries long. */
static IrAttr *find(const IrNode *node, const char *name) {
  for (guint i = 0; i < ir_n_attrs(node); i++) {
    IrAttr *a = ir_attr_at(node, i);
    if (a->name == name || strcmp(a->name, name) == 0)
      return a;
  }
  return NULL;
}

const IrAttr *ir_node_attr(const IrNode *node, const char *name) {
  return find(node, name);
}

bool ir_node_has_attr(const IrNode *node, const char *name) {
  return find(node, name) != NULL;
}

static const IrAttr *require(const IrNode *node, const char *name, IrAttrKind kind) {
  const IrAttr *a = find(node, name);
  if (!a)
    g_error("ir invariant: %s node has no attribute '%s'", ir_kind_name(node->kind), name);
  if (a->kind != kind)
    g_error("ir invariant: attribute '%s' of %s has another kind than asked", name,
            ir_kind_name(node->kind));
  return a;
}

gint64 ir_node_attr_i(const IrNode *node, const char *name) {
  return require(node, name, IR_ATTR_I)->v.i;
}

double ir_node_attr_f(const IrNode *node, const char *name) {
  return require(node, name, IR_ATTR_F)->v.f;
}

const char *ir_node_attr_s(const IrNode *node, const char *name) {
  return require(node, name, IR_ATTR_S)->v.s;
}

IrGraph *ir_node_attr_g(const IrNode *node, const char *name) {
  return require(node, name, IR_ATTR_G)->v.g;
}

/* The slot for `name`, cleared: an existing attribute keeps its position. */
static IrAttr *slot(IrNode *node, const char *name, IrAttrKind kind) {
  IrAttr *a = find(node, name);
  if (a) {
    ir_internal_attr_clear(a);
  } else {
    IrAttr fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.name = g_string_chunk_insert_const(node->graph->strings, name);
    if (!node->attrs)
      node->attrs = g_array_new(FALSE, FALSE, sizeof(IrAttr));
    g_array_append_val(node->attrs, fresh);
    a = ir_attr_at(node, ir_n_attrs(node) - 1);
  }
  a->kind = kind;
  return a;
}

void ir_node_set_attr_i(IrNode *node, const char *name, gint64 v) {
  slot(node, name, IR_ATTR_I)->v.i = v;
}

void ir_node_set_attr_f(IrNode *node, const char *name, double v) {
  slot(node, name, IR_ATTR_F)->v.f = v;
}

void ir_node_set_attr_s(IrNode *node, const char *name, const char *v) {
  char *copy = g_strdup(v);
  slot(node, name, IR_ATTR_S)->v.s = copy;
}

void ir_node_set_attr_raw(IrNode *node, const char *name, const char *text) {
  char *copy = g_strdup(text);
  slot(node, name, IR_ATTR_RAW)->v.s = copy;
}

void ir_node_set_attr_is(IrNode *node, const char *name, const gint64 *v, guint n) {
  GArray *a = g_array_sized_new(FALSE, FALSE, sizeof(gint64), n);
  g_array_append_vals(a, v, n);
  slot(node, name, IR_ATTR_IS)->v.is = a;
}

void ir_node_set_attr_fs(IrNode *node, const char *name, const double *v, guint n) {
  GArray *a = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
  g_array_append_vals(a, v, n);
  slot(node, name, IR_ATTR_FS)->v.fs = a;
}

void ir_node_set_attr_ss(IrNode *node, const char *name, const char *const *v, guint n) {
  GPtrArray *a = g_ptr_array_new_full(n, g_free);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add(a, g_strdup(v[i]));
  slot(node, name, IR_ATTR_SS)->v.ss = a;
}

void ir_node_set_attr_t(IrNode *node, const char *name, RtTensor *v) {
  RtTensor *ref = v ? rt_tensor_ref(v) : NULL;
  slot(node, name, IR_ATTR_T)->v.t = ref;
}

static void unref_tensor(gpointer t) {
  if (t)
    rt_tensor_unref(t);
}

void ir_node_set_attr_ts(IrNode *node, const char *name, RtTensor *const *v, guint n) {
  GPtrArray *a = g_ptr_array_new_full(n, unref_tensor);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add(a, v[i] ? rt_tensor_ref(v[i]) : NULL);
  slot(node, name, IR_ATTR_TS)->v.ts = a;
}

void ir_node_set_attr_g(IrNode *node, const char *name, IrGraph *v) {
  IrAttr *a = find(node, name);
  if (a && a->kind == IR_ATTR_G && a->v.g == v)
    return; /* re-setting the owned graph must not free it */
  slot(node, name, IR_ATTR_G)->v.g = v;
}

static void free_graph(gpointer g) {
  ir_graph_free(g);
}

void ir_node_set_attr_gs(IrNode *node, const char *name, IrGraph *const *v, guint n) {
  GPtrArray *a = g_ptr_array_new_full(n, free_graph);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add(a, v[i]);
  slot(node, name, IR_ATTR_GS)->v.gs = a;
}

IrGraph *ir_node_take_attr_g(IrNode *node, const char *name) {
  IrAttr *a = find(node, name);
  if (!a || a->kind != IR_ATTR_G)
    return NULL;
  IrGraph *g = a->v.g;
  a->v.g = NULL; /* cleared without freeing it */
  ir_node_remove_attr(node, name);
  return g;
}

void ir_node_remove_attr(IrNode *node, const char *name) {
  IrAttr *a = find(node, name);
  if (!a)
    return;
  ir_internal_attr_clear(a);
  g_array_remove_index(node->attrs, (guint)(a - ir_attr_at(node, 0)));
}

void ir_node_copy_attrs(IrNode *dst, const IrNode *src) {
  if (dst == src)
    return;
  ir_internal_node_free_attrs(dst);
  for (guint i = 0; i < ir_n_attrs(src); i++) {
    const IrAttr *a = ir_attr_at(src, i);
    switch (a->kind) {
    case IR_ATTR_F: ir_node_set_attr_f(dst, a->name, a->v.f); break;
    case IR_ATTR_I: ir_node_set_attr_i(dst, a->name, a->v.i); break;
    case IR_ATTR_S: ir_node_set_attr_s(dst, a->name, a->v.s); break;
    case IR_ATTR_RAW: ir_node_set_attr_raw(dst, a->name, a->v.s); break;
    case IR_ATTR_FS:
      ir_node_set_attr_fs(dst, a->name, (const double *)a->v.fs->data, a->v.fs->len);
      break;
    case IR_ATTR_IS:
      ir_node_set_attr_is(dst, a->name, (const gint64 *)a->v.is->data, a->v.is->len);
      break;
    case IR_ATTR_SS:
      ir_node_set_attr_ss(dst, a->name, (const char *const *)a->v.ss->pdata, a->v.ss->len);
      break;
    case IR_ATTR_T: ir_node_set_attr_t(dst, a->name, a->v.t); break;
    case IR_ATTR_TS:
      ir_node_set_attr_ts(dst, a->name, (RtTensor *const *)a->v.ts->pdata, a->v.ts->len);
      break;
    case IR_ATTR_G: ir_node_set_attr_g(dst, a->name, ir_graph_copy(a->v.g)); break;
    case IR_ATTR_GS: {
      GPtrArray *copies = g_ptr_array_new();
      for (guint k = 0; k < a->v.gs->len; k++)
        g_ptr_array_add(copies, ir_graph_copy(g_ptr_array_index(a->v.gs, k)));
      ir_node_set_attr_gs(dst, a->name, (IrGraph *const *)copies->pdata, copies->len);
      g_ptr_array_free(copies, TRUE);
      break;
    }
    }
  }
}
