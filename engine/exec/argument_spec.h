/* ArgumentSpec (reference section 2): what a plan is specialized on. Per tensor: defined,
 * requires_grad (AND grad mode), rank, device, dtype; per Optional input a present bit; tuples
 * flattened. Sizes and strides are deliberately not part of it. The hash is computed once. */
#ifndef JITSCOPE_EXEC_ARGUMENT_SPEC_H
#define JITSCOPE_EXEC_ARGUMENT_SPEC_H

#include "ir/ir.h"
#include "runtime/value.h"

typedef enum {
  EXEC_ARG_TENSOR,   /* a (possibly undefined) tensor */
  EXEC_ARG_OPTIONAL, /* an Optional input: only `present` is recorded */
  EXEC_ARG_OTHER,    /* a scalar or list: its type is the graph's */
} ExecArgKind;

typedef struct {
  ExecArgKind kind;
  bool defined;
  bool requires_grad;
  int rank;
  int device;
  IrDtype dtype;
  bool present;
  RtTag tag; /* EXEC_ARG_OTHER: the runtime kind, for printing only (not part of the key) */
} ExecArgInfo;

typedef struct {
  guint n_args; /* flattened */
  ExecArgInfo *args;
  bool grad_enabled;
  guint hash;
} ExecArgumentSpec;

ExecArgumentSpec *exec_argument_spec_new(const RtValue *inputs, guint n_inputs, bool grad_enabled);
void exec_argument_spec_free(ExecArgumentSpec *spec);
/* Whether exec_argument_spec_new(inputs, n_inputs, grad_enabled) would equal spec (as
 * exec_argument_spec_equal says), without making it: the executor's check of its last plan. */
bool exec_argument_spec_matches(const ExecArgumentSpec *spec, const RtValue *inputs, guint n_inputs,
                                bool grad_enabled);
guint exec_argument_spec_hash(gconstpointer spec);
gboolean exec_argument_spec_equal(gconstpointer a, gconstpointer b);
/* "Float(*, *, requires_grad=1, device=cpu), Tensor[Undefined], int[], None" (one entry per
 * flattened argument; non-tensors by their runtime kind: int, float, bool, str, Device,
 * int[] (any list), None). */
char *exec_argument_spec_to_string(const ExecArgumentSpec *spec);
/* Does any defined tensor argument require grad (and grad mode is on)? */
bool exec_argument_spec_needs_gradient(const ExecArgumentSpec *spec);

/* Specializes `graph`'s input types to the spec: defined tensors become dimensioned types
 * with requires_grad; undefined ones Tensor[Undefined]; a None Optional input has its uses
 * replaced by a None constant; a present Optional input gets its element type. Inputs that
 * are tuples must already be flattened (the executor does that). Returns false with an
 * error when the spec does not fit the graph (arity, tensor vs scalar). */
bool exec_argument_spec_apply(const ExecArgumentSpec *spec, IrGraph *graph, GError **error);

#endif
