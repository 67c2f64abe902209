/* A plan's static memory plan: which intermediate tensors may share one buffer, computed at
 * compile time from every value's lifetime (XLA's buffer assignment; PyTorch static
 * runtime's MemoryPlanner), and the plan's peak memory that follows.
 *
 * Contracts:
 * - Sizes come from the spec's concrete inputs: a copy of the plan's graph gets the inputs'
 *   complete types and pass_propagate_input_shapes; a tensor whose size that cannot tell is
 *   counted in n_unsized and planned with 0 bytes.
 * - Storage groups: a view or container (aten::t, view, chunk, every prim op but FusionGroup
 *   and DifferentiableGraph, ...) shares its input's storage, so its output joins the input's
 *   group. Groups holding a graph input or a constant are the caller's or the code's memory
 *   and are not planned.
 * - Lifetimes are positions of the top-level block's nodes: a group lives from its first
 *   definition to its last use (a use inside a nested block counts at its top-level owner).
 *   A group that escapes the run (a graph output, or an input or output of a
 *   DifferentiableGraph, which the autograd graph keeps) lives to the end and never shares.
 * - A DifferentiableGraph's forward subgraph is planned on its own; its peak is one more
 *   group, live only at that node.
 * - Buffers: groups sorted by size (largest first) each take the first buffer whose groups'
 *   lifetimes are all disjoint from theirs, else a new one ("greedy by size", Pisarchyk and
 *   Lee 2020, as TFLite's arena planner). No two groups live at once share a buffer.
 * - peak_bytes is the sum of the buffers' sizes (each the largest group in it): the memory the
 *   plan's intermediates need; unshared_bytes the sum of the groups' sizes (no reuse). */
#ifndef JITSCOPE_EXEC_MEMORY_PLAN_H
#define JITSCOPE_EXEC_MEMORY_PLAN_H

#include "ir/ir.h"
#include "runtime/value.h"

typedef struct {
  guint64 value_id;  /* id (in the plan's graph) of the group's first value; 0 for a nested plan */
  guint first, last; /* live from node position first to last, inclusive */
  size_t bytes;
  guint buffer; /* index into ExecMemoryPlan.buffer_bytes */
  bool escapes;
} ExecPlannedGroup;

typedef struct ExecMemoryPlan {
  GArray *groups;       /* of ExecPlannedGroup, in definition order */
  GArray *buffer_bytes; /* of size_t: each buffer's size */
  size_t peak_bytes;
  size_t unshared_bytes;
  guint n_values;  /* tensor values that own fresh storage */
  guint n_unsized; /* of those, how many the shapes could not size */
} ExecMemoryPlan;

/* What a memory plan reads of a run's inputs (flattened as the plan's graph takes them), kept
 * without holding any value: each tensor's type (dtype, sizes, strides), the int lists and
 * Nones that size inputs take. */
typedef struct ExecMemoryInputs ExecMemoryInputs;
ExecMemoryInputs *exec_memory_inputs_new(const RtValue *inputs, guint n_inputs);
void exec_memory_inputs_free(ExecMemoryInputs *inputs);

/* The memory plan of `graph` run on such inputs. */
ExecMemoryPlan *exec_memory_plan_for(const IrGraph *graph, const ExecMemoryInputs *inputs);
/* The same from the inputs themselves (borrowed). */
ExecMemoryPlan *exec_memory_plan_new(const IrGraph *graph, const RtValue *inputs, guint n_inputs);
/* The memory plan of a graph whose values already carry the types to size them with. */
ExecMemoryPlan *exec_memory_plan_of_typed_graph(const IrGraph *graph);
void exec_memory_plan_free(ExecMemoryPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExecMemoryPlan, exec_memory_plan_free)

#endif
