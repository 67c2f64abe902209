/* ir_graph_fingerprint (contract in text.h): a 64-bit hash of everything ir_graph_print
 * writes, computed without formatting text. Iterative, like the printer: a stack of blocks
 * (each marked where it begins and ends, so a node moved between blocks changes the sequence)
 * and of the Subgraph graphs met on the way. */
#include <string.h>

#include "ir/text.h"
#include "tensor/tensor.h"

typedef struct {
  guint64 h;
} Hash;

static void mix(Hash *s, guint64 x) {
  /* One round of splitmix64's finalizer over the running state. */
  guint64 z = s->h ^ (x + 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  s->h = z ^ (z >> 31);
}

static void mix_string(Hash *s, const char *text) {
  if (text == NULL) {
    mix(s, 0x6e756c6cULL);
    return;
  }
  guint64 fnv = 0xcbf29ce484222325ULL;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    fnv = (fnv ^ *p) * 0x100000001b3ULL;
  mix(s, fnv);
}

static void mix_double(Hash *s, double d) {
  guint64 bits;
  memcpy(&bits, &d, sizeof bits);
  mix(s, bits);
}

/* A value as a reference (display name) and, with its type (types are interned: one pointer
 * per type). */
static void mix_value(Hash *s, const IrValue *v, bool with_type) {
  mix(s, v->id);
  mix_string(s, v->name);
  if (with_type)
    mix(s, (guint64)(guintptr)v->type);
}

static void mix_values(Hash *s, const GPtrArray *values, bool with_types) {
  mix(s, values->len);
  for (guint i = 0; i < values->len; i++)
    mix_value(s, g_ptr_array_index(values, i), with_types);
}

static void mix_attr(Hash *s, const IrAttr *a, GPtrArray *graphs) {
  mix_string(s, a->name);
  mix(s, (guint64)a->kind);
  switch (a->kind) {
  case IR_ATTR_F: mix_double(s, a->v.f); break;
  case IR_ATTR_I: mix(s, (guint64)a->v.i); break;
  case IR_ATTR_S:
  case IR_ATTR_RAW: mix_string(s, a->v.s); break;
  case IR_ATTR_FS:
    mix(s, a->v.fs->len);
    for (guint i = 0; i < a->v.fs->len; i++)
      mix_double(s, g_array_index(a->v.fs, double, i));
    break;
  case IR_ATTR_IS:
    mix(s, a->v.is->len);
    for (guint i = 0; i < a->v.is->len; i++)
      mix(s, (guint64)g_array_index(a->v.is, gint64, i));
    break;
  case IR_ATTR_SS:
    mix(s, a->v.ss->len);
    for (guint i = 0; i < a->v.ss->len; i++)
      mix_string(s, g_ptr_array_index(a->v.ss, i));
    break;
  case IR_ATTR_T: {
    const RtTensor *t = a->v.t;
    mix(s, (guint64)t->dtype);
    mix(s, (guint64)t->ndim);
    int64_t numel = 1;
    for (int i = 0; i < t->ndim; i++) {
      mix(s, (guint64)t->sizes[i]);
      numel *= t->sizes[i];
    }
    /* The printer shows a one-element host tensor's value only. */
    if (numel == 1 && t->storage != NULL && t->storage->device == IR_DEVICE_CPU)
      mix_double(s, rt_tensor_get(t, 0));
    break;
  }
  case IR_ATTR_G:
    if (strcmp(a->name, IR_ATTR_SUBGRAPH) == 0)
      g_ptr_array_add(graphs, a->v.g);
    break;
  case IR_ATTR_TS:
  case IR_ATTR_GS: break; /* printed as placeholders */
  }
}

static void mix_node(Hash *s, const IrNode *node, GPtrArray *graphs) {
  mix(s, (guint64)node->kind);
  mix_string(s, ir_node_kind_name(node));
  mix_values(s, node->outputs, true);
  mix_values(s, node->inputs, false);
  mix(s, ir_n_attrs(node));
  for (guint i = 0; i < ir_n_attrs(node); i++)
    mix_attr(s, ir_attr_at(node, i), graphs);
  mix_string(s, node->scope);
  mix_string(s, node->source);
  mix(s, ir_n_blocks(node));
}

/* Hashes one graph's header, nodes (nested blocks included) and return; Subgraph graphs met
 * are appended to `graphs`. */
static void mix_graph(Hash *s, const IrGraph *graph, GPtrArray *graphs) {
  mix(s, 0x67726170ULL); /* a graph begins */
  mix_values(s, ir_graph_inputs(graph), true);
  GPtrArray *blocks = g_ptr_array_new();
  g_ptr_array_add(blocks, graph->block);
  while (blocks->len > 0) {
    const IrBlock *block = g_ptr_array_steal_index(blocks, blocks->len - 1);
    mix(s, 0x626c6f63ULL); /* a block begins */
    mix_values(s, ir_block_inputs(block), true);
    IR_FOR_EACH_NODE(node, block) {
      mix_node(s, node, graphs);
      for (guint b = ir_n_blocks(node); b-- > 0;)
        g_ptr_array_add(blocks, ir_block(node, b));
    }
    mix_values(s, ir_block_outputs(block), false);
    mix(s, 0x656e64ULL); /* and ends */
  }
  g_ptr_array_free(blocks, TRUE);
}

guint64 ir_graph_fingerprint(const IrGraph *graph) {
  Hash s = {0x6a697473636f7065ULL};
  GPtrArray *graphs = g_ptr_array_new();
  g_ptr_array_add(graphs, (gpointer)graph);
  for (guint i = 0; i < graphs->len; i++)
    mix_graph(&s, g_ptr_array_index(graphs, i), graphs);
  g_ptr_array_free(graphs, TRUE);
  return s.h;
}
