/* The run loop over compiled code (code_internal.h). One frame per run: registers, constants
 * copied in as borrowed values, and scratch space for kernel arguments. Every instruction
 * releases its registers after it ran, so at the end of a successful run every slot is free;
 * on an error all slots are released at once. */
#include <string.h>

#include "runtime/code_internal.h"
#include "runtime/device.h"
#include "runtime/run_control.h"

/* Frames up to this many values live on the stack (no allocation for small graphs). */
#define STACK_FRAME 256

static inline void release(RtValue *regs, const guint32 *list, guint32 n) {
  for (guint32 i = 0; i < n; i++) {
    RtValue *v = &regs[list[i]];
    if (v->tag == RT_TENSOR) /* most registers: one call less */
      rt_tensor_unref(v->u.tensor);
    else
      rt_value_unref(*v);
    v->tag = RT_NONE;
  }
}

/* Condition values: bool, int, or a one-element tensor (as aten::Bool would read it). */
static bool truth(RtValue v, const IrNode *node, bool *out, GError **error) {
  switch (v.tag) {
  case RT_BOOL: *out = v.u.b; return true;
  case RT_INT: *out = v.u.i != 0; return true;
  default: {
    double d;
    if (v.tag == RT_TENSOR && v.u.tensor && rt_value_to_double(v, &d)) {
      *out = d != 0;
      return true;
    }
    g_autoptr(GString) s = g_string_new(NULL);
    rt_value_print(s, v);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0, "condition must be a bool, got %s", s->str);
    rt_prefix_node_error(error, node);
    return false;
  }
  }
}

/* A FusionGroup's "sum_to_size_inputs" (engine/fuser/fuser.h): per output, the input
 * holding the size its kernel result is summed to (-1: none; a None size: none). */
static bool apply_group_sum_to(const RtInstr *ins, const RtValue *in, RtValue *out,
                               GError **error) {
  const IrAttr *a = ins->node->kind == IR_PRIM_FUSION_GROUP
                        ? ir_node_attr(ins->node, g_intern_static_string("sum_to_size_inputs"))
                        : NULL;
  if (!a || a->kind != IR_ATTR_IS)
    return true;
  for (guint i = 0; i < ins->n_out && i < a->v.is->len; i++) {
    gint64 k = g_array_index(a->v.is, gint64, i);
    gint64 sizes[RT_MAX_DIMS];
    guint n = 0;
    if (k < 0 || (guint32)k >= ins->n_in || in[k].tag == RT_NONE || out[i].tag != RT_TENSOR ||
        !out[i].u.tensor || !rt_value_to_int_list(in[k], sizes, RT_MAX_DIMS, &n))
      continue;
    int64_t s64[RT_MAX_DIMS];
    for (guint d = 0; d < n; d++)
      s64[d] = sizes[d];
    RtTensor *summed = rt_tensor_sum_to_any(out[i].u.tensor, (int)n, s64, error);
    if (!summed)
      return false;
    rt_value_unref(out[i]);
    out[i] = rt_tensor(summed);
  }
  return true;
}

static bool run_special(const RtInstr *ins, const guint32 *ops, RtValue *regs, RtValue *scratch,
                        const RtInterpreterHooks *hooks, GError **error) {
  for (guint32 i = 0; i < ins->n_in; i++)
    scratch[i] = regs[ops[ins->in + i]];
  if (hooks && hooks->run_special)
    return hooks->run_special(hooks->ctx, ins->node, scratch, ins->n_in, regs + ins->out,
                              ins->n_out, error);
  if (!ins->sub) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0, "cannot run its Subgraph: %s",
                ins->sub_error ? ins->sub_error->message : "not compiled");
    return false;
  }
  /* No hook: interpret the Subgraph. A DifferentiableGraph's forward may return saved
   * temporaries after its real outputs; those are dropped. */
  guint n_sub = rt_code_n_outputs(ins->sub);
  RtValue *outs = n_sub <= 64 ? g_newa(RtValue, 64) : g_new(RtValue, n_sub);
  bool ok = rt_code_run(ins->sub, hooks, scratch, ins->n_in, outs, error);
  if (ok) {
    for (guint i = 0; i < ins->n_out; i++)
      regs[ins->out + i] = outs[i];
    for (guint i = ins->n_out; i < n_sub; i++)
      rt_value_unref(outs[i]);
    ok = apply_group_sum_to(ins, scratch, regs + ins->out, error);
  }
  if (n_sub > 64)
    g_free(outs);
  return ok;
}

bool rt_code_run(const RtCode *code, const RtInterpreterHooks *hooks, const RtValue *inputs,
                 guint n_inputs, RtValue *outputs, GError **error) {
  if (n_inputs != code->n_inputs) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, 0, "the graph takes %u inputs, %u given",
                code->n_inputs, n_inputs);
    return false;
  }
  guint n_frame = code->n_slots + code->n_consts + code->max_args;
  RtValue stack_frame[STACK_FRAME];
  RtValue *regs = n_frame <= STACK_FRAME ? stack_frame : g_new(RtValue, n_frame);
  memset(regs, 0, sizeof(RtValue) * code->n_slots);
  if (code->n_consts > 0)
    memcpy(regs + code->n_slots, code->consts, sizeof(RtValue) * code->n_consts);
  RtValue *scratch = regs + code->n_slots + code->n_consts;
  for (guint i = 0; i < n_inputs; i++)
    regs[code->input_regs[i]] = rt_value_ref(inputs[i]);

  const RtInstr *instrs = code->instrs;
  const guint32 *ops = code->operands;
  GError *local = NULL;
  const RtInstr *failed = NULL;
  gint32 pc = 0;
  const guint64 max_steps = rt_run_max_steps();
  for (;;) {
    const RtInstr *ins = &instrs[pc++];
    if (G_UNLIKELY(rt_run_cancelled())) {
      g_set_error(&local, JITSCOPE_RUNTIME_ERROR, RT_ERROR_CANCELLED,
                  "the run was cancelled before this node");
      failed = ins->node ? ins : NULL;
      goto fail;
    }
    switch (ins->op) {
    case RT_OP_KERNEL: {
      for (guint32 i = 0; i < ins->n_in; i++)
        scratch[i] = regs[ops[ins->in + i]];
      if (!rt_kernel_call(ins->kernel, ins->schema, ins->node, scratch, ins->n_in, regs + ins->out,
                          ins->n_out, &local)) {
        failed = ins;
        goto fail;
      }
      /* The hook sees the node's own inputs (a prefix of the arguments; filled-in defaults
       * follow them in scratch but are not the node's). */
      if (hooks && hooks->after_node &&
          !hooks->after_node(hooks->ctx, ins->node, scratch, ir_n_inputs(ins->node),
                             regs + ins->out, ins->n_out, &local)) {
        failed = ins;
        goto fail;
      }
      break;
    }
    case RT_OP_PRIM:
      if (hooks && hooks->after_node && ins->node->kind == IR_PRIM_CONSTANT_CHUNK) {
        /* The one differentiable prim op: the eager tape records it like a kernel. Its input
         * is taken before the run, which may release it. */
        RtValue chunked = rt_value_ref(regs[ops[ins->in]]);
        bool ran = rt_prim_run(ins, ops, regs, scratch, &local) &&
                   hooks->after_node(hooks->ctx, ins->node, &chunked, 1, regs + ins->out,
                                     ins->n_out, &local);
        rt_value_unref(chunked);
        if (!ran) {
          failed = ins;
          goto fail;
        }
        break;
      }
      if (!rt_prim_run(ins, ops, regs, scratch, &local)) {
        failed = ins;
        goto fail;
      }
      break;
    case RT_OP_SPECIAL:
      if (!run_special(ins, ops, regs, scratch, hooks, &local)) {
        failed = ins;
        goto fail;
      }
      break;
    case RT_OP_UNKNOWN:
      g_set_error(&local, JITSCOPE_RUNTIME_ERROR, 0,
                  "cannot run op '%s': jitscope does not know it (it was read as an opaque node "
                  "at %s)",
                  ir_node_kind_name(ins->node),
                  ins->node->opaque_at ? ins->node->opaque_at : "<graph>");
      failed = ins;
      goto fail;
    case RT_OP_JUMP: pc = ins->target; continue; /* no releases */
    case RT_OP_JUMP_IF_FALSE: {
      bool c;
      if (!truth(regs[ops[ins->in]], ins->node, &c, &local))
        goto fail;
      release(regs, ops + ins->rel, ins->n_rel);
      if (!c)
        pc = ins->target;
      continue;
    }
    case RT_OP_COPY:
      for (guint32 i = 0; i < ins->n_in; i++)
        regs[ins->out + i] = rt_value_ref(regs[ops[ins->in + i]]);
      break;
    case RT_OP_LOOP_ENTER: {
      RtValue trip = regs[ops[ins->in]];
      gint64 max_trip;
      if (trip.tag == RT_INT) {
        max_trip = trip.u.i;
      } else if (trip.tag == RT_NONE) {
        max_trip = G_MAXINT64;
      } else {
        g_set_error(&local, JITSCOPE_RUNTIME_ERROR, 0, "max trip count must be an int");
        rt_prefix_node_error(&local, ins->node);
        goto fail;
      }
      bool c;
      if (!truth(regs[ops[ins->in + 1]], ins->node, &c, &local))
        goto fail;
      regs[ins->a] = rt_int(max_trip);
      regs[ins->a + 1] = rt_bool(c);
      regs[ins->a + 2] = rt_int(0);
      for (guint32 i = 2; i < ins->n_in; i++)
        regs[ins->b + i - 1] = rt_value_ref(regs[ops[ins->in + i]]);
      break;
    }
    case RT_OP_LOOP_TEST: {
      gint64 counter = regs[ins->a + 2].u.i;
      if (!(counter < regs[ins->a].u.i && regs[ins->a + 1].u.b)) {
        pc = ins->target;
        continue;
      }
      if ((guint64)counter >= max_steps) {
        g_set_error(&local, JITSCOPE_RUNTIME_ERROR, RT_ERROR_CANCELLED,
                    "stopped after %" G_GUINT64_FORMAT " iterations, the step budget of a loop "
                    "(--max-steps)",
                    max_steps);
        failed = ins;
        goto fail;
      }
      regs[ins->b] = rt_int(counter);
      break;
    }
    case RT_OP_LOOP_BACK: {
      for (guint32 i = 0; i < ins->n_in; i++)
        scratch[i] = rt_value_ref(regs[ops[ins->in + i]]);
      release(regs, ops + ins->rel, ins->n_rel);
      bool c;
      bool ok = truth(scratch[0], ins->node, &c, &local);
      rt_value_unref(scratch[0]);
      if (!ok) {
        for (guint32 i = 1; i < ins->n_in; i++)
          rt_value_unref(scratch[i]);
        goto fail;
      }
      regs[ins->a + 1] = rt_bool(c);
      for (guint32 i = 1; i < ins->n_in; i++)
        regs[ins->b + i] = scratch[i];
      regs[ins->a + 2].u.i++;
      pc = ins->target;
      continue;
    }
    case RT_OP_LOOP_EXIT:
      for (guint32 i = 0; i < ins->n_out; i++) {
        regs[ins->out + i] = regs[ins->b + 1 + i];
        regs[ins->b + 1 + i].tag = RT_NONE;
      }
      for (guint k = 0; k < 3; k++)
        regs[ins->a + k].tag = RT_NONE;
      break;
    case RT_OP_RELEASE: break;
    case RT_OP_RETURN:
      for (guint32 i = 0; i < ins->n_in; i++)
        outputs[i] = rt_value_ref(regs[ops[ins->in + i]]);
      release(regs, ops + ins->rel, ins->n_rel);
      if (regs != stack_frame)
        g_free(regs);
      return true;
    }
    release(regs, ops + ins->rel, ins->n_rel);
  }

fail:
  if (failed) {
    if (!local)
      g_set_error(&local, JITSCOPE_RUNTIME_ERROR, 0, "failed without a message");
    rt_prefix_node_error(&local, failed->node);
  }
  g_propagate_error(error, local);
  for (guint i = 0; i < code->n_slots; i++)
    rt_value_unref(regs[i]);
  if (regs != stack_frame)
    g_free(regs);
  return false;
}
