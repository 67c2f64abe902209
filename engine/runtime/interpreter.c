/* rt_interpret / rt_interpret_block: compile once, run once. Callers that run a graph many
 * times (the executor) keep the RtCode instead (runtime/code.h). */
#include "runtime/interpreter.h"
#include "runtime/code.h"

bool rt_interpret(const IrGraph *graph, const RtInterpreterHooks *hooks, RtValue *inputs,
                  guint n_inputs, RtValue **outputs, guint *n_outputs, GError **error) {
  *outputs = NULL;
  *n_outputs = 0;
  RtCode *code = rt_code_compile(graph, error);
  if (!code)
    return false;
  guint n = rt_code_n_outputs(code);
  RtValue *outs = g_new0(RtValue, n + 1);
  bool ok = rt_code_run(code, hooks, inputs, n_inputs, outs, error);
  rt_code_free(code);
  if (!ok) {
    g_free(outs);
    return false;
  }
  *outputs = outs;
  *n_outputs = n;
  return true;
}

bool rt_interpret_block(const IrBlock *block, const RtInterpreterHooks *hooks, RtValue *inputs,
                        guint n_inputs, RtValue *outputs, GError **error) {
  RtCode *code = rt_code_compile_block(block, error);
  if (!code)
    return false;
  bool ok = rt_code_run(code, hooks, inputs, n_inputs, outputs, error);
  rt_code_free(code);
  return ok;
}
