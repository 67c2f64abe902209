/* Shape rules of pass_propagate_input_shapes: what PyTorch's shape_analysis.cpp knows about
 * one op's tensor result, from what is known about its inputs. Private to engine/passes. */
#ifndef JITSCOPE_PASSES_SHAPE_RULES_H
#define JITSCOPE_PASSES_SHAPE_RULES_H

#include "ir/ir.h"

/* What is known about one tensor. `known`: dtype and rank known (PyTorch's
 * DimensionedTensorType; `device` is -1 when unknown); `has_sizes`: every size known too (CompleteTensorType), with
 * `has_strides` when the strides follow as well. Anything less is an unknown Tensor. */
typedef struct {
  bool known;
  IrDtype dtype;
  int device;
  int rank;
  bool has_sizes;
  int64_t sizes[IR_MAX_RANK];
  bool has_strides;
  int64_t strides[IR_MAX_RANK];
} ShapeInfo;

void shape_info_from_type(const IrType *type, ShapeInfo *out);
/* The interned tensor type for `info` with the given requires_grad ("Tensor" when unknown). */
const IrType *shape_info_to_type(const ShapeInfo *info, IrTristate requires_grad);
/* Contiguous strides for the sizes (sets has_strides). */
void shape_info_contiguous(ShapeInfo *info);

/* Computes output 0 of a schema node. Returns false when no rule applies or an input is not
 * known well enough; then the output is an unknown Tensor. */
bool shape_rule_apply(const IrNode *node, ShapeInfo *out);

/* Helpers of the rules (shape_rules*.c). Input i of node when it is a tensor known at least
 * by dtype and rank; */
bool shape_tensor_input(const IrNode *node, guint i, ShapeInfo *out);
/* dim wrapped into [0, rank) (false when out of range); */
bool shape_normalize_dim(gint64 dim, int rank, int *out);
/* the length of an int[] argument and its values, IR_SIZE_UNKNOWN where not constant. */
bool shape_int_list_arg(const IrNode *node, const char *name, gint64 *vals, guint *n,
                        bool *all_known);

/* Rules of shape_rules_layout.c (the op table's `shape` column). */
bool shape_rule_permute(const IrNode *node, ShapeInfo *out);
bool shape_rule_flatten(const IrNode *node, ShapeInfo *out);
bool shape_rule_slice(const IrNode *node, ShapeInfo *out);
bool shape_rule_narrow(const IrNode *node, ShapeInfo *out);
bool shape_rule_repeat(const IrNode *node, ShapeInfo *out);
bool shape_rule_pad(const IrNode *node, ShapeInfo *out);
bool shape_rule_stack(const IrNode *node, ShapeInfo *out);
bool shape_rule_index_select(const IrNode *node, ShapeInfo *out);
bool shape_rule_embedding(const IrNode *node, ShapeInfo *out);

/* Rules of shape_rules_loss.c. */
bool shape_rule_nll_loss(const IrNode *node, ShapeInfo *out);
bool shape_rule_bce_with_logits(const IrNode *node, ShapeInfo *out);
/* Rules of shape_rules_index.c. */
bool shape_rule_masked_fill(const IrNode *node, ShapeInfo *out);
bool shape_rule_gather(const IrNode *node, ShapeInfo *out);
bool shape_rule_advanced_index(const IrNode *node, ShapeInfo *out);
bool shape_rule_topk(const IrNode *node, ShapeInfo *out);
bool shape_rule_argsort(const IrNode *node, ShapeInfo *out);
bool shape_rule_baddbmm(const IrNode *node, ShapeInfo *out);
/* Rules of shape_rules_factory.c. */
bool shape_rule_factory(const IrNode *node, ShapeInfo *out);
bool shape_rule_to(const IrNode *node, ShapeInfo *out);
bool shape_rule_num_to_tensor(const IrNode *node, ShapeInfo *out);
/* Rules of shape_rules_conv.c. */
bool shape_rule_conv(const IrNode *node, ShapeInfo *out);
bool shape_rule_pool(const IrNode *node, ShapeInfo *out);
bool shape_rule_adaptive_pool(const IrNode *node, ShapeInfo *out);
bool shape_rule_pool1d(const IrNode *node, ShapeInfo *out);
bool shape_rule_adaptive_pool1d(const IrNode *node, ShapeInfo *out);
bool shape_rule_upsample2d(const IrNode *node, ShapeInfo *out);
bool shape_rule_upsample2d_backward(const IrNode *node, ShapeInfo *out);

/* Piece `index` of chunking `self` into `chunks` along `dim` (ConstantChunk / chunk). */
bool shape_rule_chunk_piece(const ShapeInfo *self, gint64 chunks, gint64 dim, guint index,
                            ShapeInfo *out);

#endif
