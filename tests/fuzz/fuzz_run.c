/* libFuzzer target for running graphs: what `jitscope run FILE` does with a graph file whose
 * header or declared input types give its inputs. For every input (graph text): parse and
 * verify; when the inputs can be made (a `# jitscope: --spec` header line, else the declared
 * types), bind them and run the program once through an optimizing, fusing executor, forward
 * and (when an input requires grad) backward, under the fuzz memory and step budgets. Every
 * failure must be a GError; a crash, a sanitizer report, g_error or g_critical aborts. The
 * fuser's C backend is off (JITSCOPE_CC=none): a compiler run per input would be too slow,
 * and the evaluator runs the same groups. */
#include <string.h>

#include "exec/executor.h"
#include "fuzz_common.h"
#include "graph_file.h"
#include "graph_inputs.h"
#include "ir/verify.h"
#include "program_run.h"
#include "spec_header.h"

/* The spec texts for the graph's inputs, or NULL when the file gives none. */
static GPtrArray *input_specs(const char *text, size_t size, const IrGraph *graph) {
  g_autoptr(GPtrArray) lines = app_spec_header_read(text, (gssize)size, "fuzz.ir", NULL);
  if (lines != NULL && lines->len > 0)
    return app_spec_group_split(g_ptr_array_index(lines, 0));
  g_autofree char *declared = app_spec_line_from_declared_types(graph);
  return declared ? app_spec_group_split(declared) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gsize compiler_off = 0;
  if (g_once_init_enter(&compiler_off)) {
    g_setenv("JITSCOPE_CC", "none", TRUE);
    g_once_init_leave(&compiler_off, 1);
  }
  fuzz_setup_once();
  g_autofree char *text = g_strndup((const char *)data, size);
  GError *error = NULL;
  IrGraph *graph = app_program_parse(text, strlen(text), "fuzz.ir", NULL, &error);
  if (graph == NULL) {
    if (error == NULL)
      g_error("fuzz invariant: a failed parse must set an error");
    g_error_free(error);
    return 0;
  }
  g_autoptr(GPtrArray) specs = NULL;
  if (ir_graph_verify(graph, &error))
    specs = input_specs(text, strlen(text), graph);
  g_clear_error(&error);
  AppInputs *inputs = NULL;
  if (specs != NULL)
    inputs = app_inputs_bind(graph, (char *const *)specs->pdata, specs->len, 0, &error);
  g_clear_error(&error);
  if (inputs != NULL) {
    ExecSession *session = exec_session_new();
    ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
    AppProgramRun *run = app_program_run(executor, inputs, NULL, 0, &error);
    if (run == NULL && error == NULL)
      g_error("fuzz invariant: a failed run must set an error");
    g_clear_error(&error);
    g_clear_pointer(&run, app_program_run_free);
    exec_session_free(session);
    app_inputs_free(inputs);
  }
  ir_graph_free(graph);
  return 0;
}
