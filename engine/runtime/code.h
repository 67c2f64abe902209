/* Compiled interpreter code: a graph turned once into a flat instruction array that runs many
 * times (what the executor caches per plan).
 *
 * Contracts:
 * - rt_code_compile reads the graph only while compiling; the code keeps pointers to its nodes
 *   (for kernels' attributes, hooks and error messages), so the graph must outlive the code
 *   and must not be mutated while the code exists.
 * - Values live in registers (indices into a per-run frame). Each register holds one
 *   reference; it is released right after the value's last use, so intermediate tensors are
 *   freed as early as the graph allows. prim::Constant values and omitted trailing schema
 *   defaults become constant registers owned by the code.
 * - Kernels come from the op table (rt_op_kernel of the node's schema, resolved at compile
 *   time when the node has none). Control flow (If, Loop, GradOf) compiles to jumps.
 * - An RtCode is immutable after compilation: several threads may run one code at once
 *   (each run has its own frame).
 * - Inputs are borrowed; outputs are new references. On error no output is written and every
 *   reference taken by the run is released. */
#ifndef JITSCOPE_RUNTIME_CODE_H
#define JITSCOPE_RUNTIME_CODE_H

#include "ir/ir.h"
#include "runtime/interpreter.h"
#include "runtime/value.h"

typedef struct RtCode RtCode;

/* Compiles a whole graph (inputs: graph inputs, outputs: graph outputs). Errors (GError,
 * domain JITSCOPE_RUNTIME_ERROR): a node kind the interpreter cannot run, a schema node with
 * no matching overload or no kernel, a missing required argument, a malformed constant or
 * control-flow node, a value used outside the block that defines it. */
RtCode *rt_code_compile(const IrGraph *graph, GError **error);
/* Compiles one block as if it were a graph (inputs: block inputs, outputs: block outputs).
 * A value the block uses but does not define (and that is not one of its inputs) is an
 * error. */
RtCode *rt_code_compile_block(const IrBlock *block, GError **error);
void rt_code_free(RtCode *code);

guint rt_code_n_inputs(const RtCode *code);
guint rt_code_n_outputs(const RtCode *code);
/* Number of instructions and of registers (for the workbench and the benchmarks). */
guint rt_code_n_instructions(const RtCode *code);
guint rt_code_n_registers(const RtCode *code);

/* Runs the code: `inputs` (n_inputs must equal rt_code_n_inputs) are borrowed; `outputs` must
 * have room for rt_code_n_outputs values and receives new references. `hooks` may be NULL:
 * then DifferentiableGraph and FusionGroup nodes run their Subgraph by interpretation
 * (a DifferentiableGraph forward only, without autograd, keeping the first outputs).
 * hooks->after_node runs after every schema node and every prim::ConstantChunk with the
 * node's own inputs (n_inputs = ir_n_inputs(node); omitted defaults are not among them) and its
 * output registers (the hook may replace a value there, owning the old reference). Runtime
 * errors name the node's kind and its source location when it has one. */
bool rt_code_run(const RtCode *code, const RtInterpreterHooks *hooks, const RtValue *inputs,
                 guint n_inputs, RtValue *outputs, GError **error);

/* Appends a readable listing of the instructions (one per line) for debugging and the UI. */
void rt_code_dump(GString *out, const RtCode *code);

#endif
