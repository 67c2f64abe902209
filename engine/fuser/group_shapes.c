/* Natural shapes of a fusion group's values (contract in group_shapes.h). */
#include "fuser/group_shapes.h"

#include <string.h>

#include "fuser/kernel_expr.h"
#include "tensor/tensor.h"

bool fuser_shape_broadcast_into(FuserShape *acc, const FuserShape *s, GError **error) {
  FuserShape out;
  if (!rt_broadcast_shapes(acc->nd, acc->sizes, s->nd, s->sizes, &out.nd, out.sizes, error))
    return false;
  *acc = out;
  return true;
}

static bool chunk_piece_shape(const IrNode *chunk, const FuserShape *src, FuserShape *piece,
                              GError **error) {
  int dim;
  gint64 chunks = ir_node_attr_i(chunk, IR_ATTR_CHUNKS);
  if (!rt_wrap_dim((int)ir_node_attr_i(chunk, IR_ATTR_DIM), src->nd, &dim, error))
    return false;
  if (chunks <= 0 || src->sizes[dim] % chunks != 0) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_SHAPE,
                "FusionGroup: size %" G_GINT64_FORMAT
                " along dim %d does not divide into %" G_GINT64_FORMAT " chunks",
                src->sizes[dim], dim, chunks);
    return false;
  }
  *piece = *src;
  piece->sizes[dim] /= chunks;
  return true;
}

/* The shape of a node's single result from its operands' shapes. */
static bool node_shape(const IrNode *node, GHashTable *shapes, FuserShape *s, GError **error) {
  bool concat = node->kind == IR_PRIM_FUSED_CONCAT;
  for (guint a = 0; a < ir_n_inputs(node); a++) {
    const FuserShape *in = g_hash_table_lookup(shapes, ir_input(node, a));
    if (in && !concat && !fuser_shape_broadcast_into(s, in, error))
      return false;
    if (in && concat && a == 0)
      *s = *in;
  }
  if (!concat)
    return true;
  int dim;
  if (!rt_wrap_dim((int)ir_node_attr_i(node, IR_ATTR_DIM), s->nd, &dim, error))
    return false;
  s->sizes[dim] *= (int64_t)ir_n_inputs(node);
  return true;
}

GHashTable *fuser_group_value_shapes(const IrGraph *kg, const RtValue *inputs, GError **error) {
  GHashTable *shapes = g_hash_table_new_full(NULL, NULL, NULL, g_free);
  GPtrArray *in = ir_graph_inputs(kg);
  guint n = kernel_graph_n_tensor_inputs(kg);
  for (guint i = 0; i < n; i++) {
    const RtTensor *t = inputs[i].u.tensor;
    FuserShape *s = g_new0(FuserShape, 1);
    s->nd = t->ndim;
    memcpy(s->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    g_hash_table_insert(shapes, g_ptr_array_index(in, i), s);
  }
  IR_FOR_EACH_NODE(node, kg->block) {
    FuserShape s = {0};
    if (node->kind == IR_PRIM_CONSTANT_CHUNK) {
      const FuserShape *src = g_hash_table_lookup(shapes, ir_input(node, 0));
      if (src == NULL) {
        g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                    "FusionGroup: prim::ConstantChunk of a value that is not a group input");
        g_hash_table_unref(shapes);
        return NULL;
      }
      if (!chunk_piece_shape(node, src, &s, error)) {
        g_hash_table_unref(shapes);
        return NULL;
      }
      for (guint o = 0; o < ir_n_outputs(node); o++)
        g_hash_table_insert(shapes, ir_output(node, o), g_memdup2(&s, sizeof s));
      continue;
    }
    if (!node_shape(node, shapes, &s, error)) {
      g_hash_table_unref(shapes);
      return NULL;
    }
    if (ir_n_outputs(node) == 1)
      g_hash_table_insert(shapes, ir_output(node, 0), g_memdup2(&s, sizeof s));
  }
  return shapes;
}

const FuserShape *fuser_group_output_shape(GHashTable *shapes, const IrGraph *kg, guint o) {
  return g_hash_table_lookup(shapes, g_ptr_array_index(ir_graph_outputs(kg), o));
}
