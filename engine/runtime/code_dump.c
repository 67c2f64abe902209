/* A readable listing of compiled code: one instruction per line with its operands, outputs,
 * releases and jump targets ("r3" = register 3, "c0" = constant 0). */
#include "runtime/code_internal.h"

static const char *opcode_name(RtOpcode op) {
  switch (op) {
  case RT_OP_KERNEL: return "KERNEL";
  case RT_OP_PRIM: return "PRIM";
  case RT_OP_SPECIAL: return "SPECIAL";
  case RT_OP_JUMP: return "JUMP";
  case RT_OP_JUMP_IF_FALSE: return "JUMP_IF_FALSE";
  case RT_OP_COPY: return "COPY";
  case RT_OP_LOOP_ENTER: return "LOOP_ENTER";
  case RT_OP_LOOP_TEST: return "LOOP_TEST";
  case RT_OP_LOOP_BACK: return "LOOP_BACK";
  case RT_OP_LOOP_EXIT: return "LOOP_EXIT";
  case RT_OP_RELEASE: return "RELEASE";
  case RT_OP_UNKNOWN: return "UNKNOWN";
  case RT_OP_RETURN: return "RETURN";
  }
  return "?";
}

static void print_reg(GString *out, const RtCode *code, guint32 r) {
  if (r >= code->n_slots)
    g_string_append_printf(out, "c%u", r - code->n_slots);
  else
    g_string_append_printf(out, "r%u", r);
}

void rt_code_dump(GString *out, const RtCode *code) {
  g_string_append_printf(out, "code: %u instructions, %u registers, %u constants, inputs",
                         code->n_instrs, code->n_slots, code->n_consts);
  for (guint i = 0; i < code->n_inputs; i++) {
    g_string_append_c(out, ' ');
    print_reg(out, code, code->input_regs[i]);
  }
  g_string_append_c(out, '\n');
  for (guint pc = 0; pc < code->n_instrs; pc++) {
    const RtInstr *ins = &code->instrs[pc];
    g_string_append_printf(out, "%4u  %-13s", pc, opcode_name(ins->op));
    if (ins->op == RT_OP_KERNEL || ins->op == RT_OP_PRIM || ins->op == RT_OP_SPECIAL)
      g_string_append_printf(out, " %s", ir_kind_name(ins->kind));
    g_string_append(out, " (");
    for (guint32 i = 0; i < ins->n_in; i++) {
      if (i)
        g_string_append(out, ", ");
      print_reg(out, code, code->operands[ins->in + i]);
    }
    g_string_append_c(out, ')');
    if (ins->n_out > 0 && ins->op != RT_OP_RETURN)
      g_string_append_printf(out, " -> r%u..r%u", ins->out, ins->out + ins->n_out - 1);
    if (ins->op == RT_OP_JUMP || ins->op == RT_OP_JUMP_IF_FALSE || ins->op == RT_OP_LOOP_TEST ||
        ins->op == RT_OP_LOOP_BACK)
      g_string_append_printf(out, " @%d", ins->target);
    if (ins->n_rel > 0) {
      g_string_append(out, " release");
      for (guint32 i = 0; i < ins->n_rel; i++) {
        g_string_append_c(out, ' ');
        print_reg(out, code, code->operands[ins->rel + i]);
      }
    }
    if (ins->node && ins->node->source)
      g_string_append_printf(out, "  # %s", ins->node->source);
    g_string_append_c(out, '\n');
  }
}
