/* The instruction format shared by the code compiler (code_compile.c), the run loop
 * (code_run.c) and the prim op implementations (prim_ops.c). Private to engine/runtime.
 *
 * A frame is an array of registers: [0, n_slots) hold values computed by the run (each one
 * reference, RT_NONE when free), [n_slots, n_slots + n_consts) hold the code's constants
 * (borrowed from the code, never released). Operands are register indices. */
#ifndef JITSCOPE_RUNTIME_CODE_INTERNAL_H
#define JITSCOPE_RUNTIME_CODE_INTERNAL_H

#include "runtime/code.h"
#include "runtime/kernels.h"

typedef enum {
  RT_OP_KERNEL,        /* schema op: args = in[] (schema order, defaults filled); kernel writes
                          out..out+n_out */
  RT_OP_PRIM,          /* data prim op by `kind` (prim_ops.c) */
  RT_OP_SPECIAL,       /* DifferentiableGraph / FusionGroup: hook, else `sub` */
  RT_OP_JUMP,          /* pc = target */
  RT_OP_JUMP_IF_FALSE, /* in[0] is the condition; releases, then jumps when false */
  RT_OP_COPY,          /* regs[out + k] = ref(regs[in[k]]), then releases */
  RT_OP_LOOP_ENTER,    /* in = max trip count, condition, initial carried values: sets the hidden
                          registers a (trip), a+1 (condition), a+2 (counter) and b+1.. */
  RT_OP_LOOP_TEST,     /* counter < trip && condition: regs[b] = counter, releases; else jump to
                          target (the exit) */
  RT_OP_LOOP_BACK,     /* in = body outputs (condition, carried...): reference them, release,
                          store them as the next iteration's condition and b+1..; counter += 1;
                          jump to target (the test) */
  RT_OP_LOOP_EXIT,     /* moves b+1+k to out+k; clears the hidden registers; releases */
  RT_OP_RELEASE,       /* releases only */
  RT_OP_UNKNOWN,       /* an opaque node (an op jitscope does not know): reaching it is the error;
                          a branch that never runs it does not stop the program */
  RT_OP_RETURN,        /* run outputs[k] = ref(regs[in[k]]), then releases; ends the run */
} RtOpcode;

typedef struct {
  RtOpcode op;
  IrOpKind kind;      /* the node's kind (for prim dispatch and messages) */
  const IrNode *node; /* source node; NULL for synthetic instructions */
  const IrSchema *schema;
  RtKernelFn kernel;  /* KERNEL; also AutogradAdd (aten::add.Tensor) and FusedConcat
                            (aten::cat) */
  guint32 in, n_in;   /* operands[in .. in + n_in) */
  guint32 out, n_out; /* output registers out .. out + n_out (contiguous) */
  guint32 rel, n_rel; /* operands[rel .. rel + n_rel): registers released afterwards */
  gint32 target;      /* jump target (instruction index) */
  guint32 a, b;       /* loops: hidden register base, body input register base */
  gint64 i0, i1;      /* prim attributes: chunks and dim; tuple index (i0, i1 = has it) */
  RtCode *sub;        /* SPECIAL: the compiled Subgraph, or NULL */
  GError *sub_error;  /* SPECIAL: why the Subgraph did not compile (reported if needed) */
} RtInstr;

struct RtCode {
  RtInstr *instrs;
  guint n_instrs;
  guint32 *operands;
  guint n_operands;
  RtValue *consts; /* owned references */
  guint n_consts;
  guint n_slots;
  guint max_args; /* scratch size a run needs */
  guint n_inputs;
  guint32 *input_regs;
  guint n_outputs;
};

/* Runs one RT_OP_PRIM instruction: reads its operands from regs, writes new references to
 * regs[out..]. scratch has room for code->max_args values. */
bool rt_prim_run(const RtInstr *ins, const guint32 *operands, RtValue *regs, RtValue *scratch,
                 GError **error);
/* Validates a prim node's arity and attributes at compile time and fills ins->i0/i1 (and the
 * kernel/schema for AutogradAdd and FusedConcat). False with *error for malformed nodes. */
bool rt_prim_prepare(const IrNode *node, RtInstr *ins, GError **error);
/* Converts a prim::Constant node to its value (new reference). */
bool rt_constant_value(const IrNode *node, RtValue *out, GError **error);
/* Whether the interpreter runs this kind with rt_prim_run. */
bool rt_prim_is_data_op(IrOpKind kind);

/* Message prefix naming a node: "gen_corpus.py:49:16: aten::mm: " or "aten::mm: ". */
void rt_prefix_node_error(GError **error, const IrNode *node);

#endif
