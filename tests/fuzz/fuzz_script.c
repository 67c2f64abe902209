/* libFuzzer target for the script frontend (engine/script: lexer, parser, emitter). For every
 * input: compile; an error must be a JITSCOPE_PARSE_ERROR "fuzz.py:LINE:COL: error: ..."
 * message followed by the quoted line and a caret; a graph must verify and print. Any
 * violation aborts (a crash for libFuzzer). Built as the fuzzer only with -Dfuzz=true and
 * clang; replay.c runs the same function over the seed corpus (script_corpus/) in every
 * build. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "ir/verify.h"
#include "script/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const GError *error) {
  if (error == NULL || error->domain != JITSCOPE_PARSE_ERROR)
    g_error("fuzz invariant: a failed compile must set a parse error");
  int line = 0, col = 0;
  if (sscanf(error->message, "fuzz.py:%d:%d: error: ", &line, &col) != 2 || line < 1 || col < 1 ||
      strstr(error->message, ": error: ") == NULL)
    g_error("fuzz invariant: malformed error message: %s", error->message);
  const char *caret = strrchr(error->message, '\n');
  if (caret == NULL || caret[strlen(caret) - 1] != '^')
    g_error("fuzz invariant: no caret line: %s", error->message);
}

/* GLib ends a fatal log with a breakpoint trap, which libFuzzer does not catch: print and
 * abort first, so every invariant failure (ours or the engine's) is a reported crash. */
static void abort_on_fatal(const gchar *domain, GLogLevelFlags level, const gchar *message,
                           gpointer data) {
  (void)data;
  fprintf(stderr, "%s: %s\n", domain ? domain : "jitscope", message);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL))
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gsize installed = 0;
  if (g_once_init_enter(&installed)) {
    g_log_set_default_handler(abort_on_fatal, NULL);
    g_once_init_leave(&installed, 1);
  }
  GError *error = NULL;
  IrGraph *graph = script_compile((const char *)data, size, "fuzz.py", NULL, &error);
  if (graph == NULL) {
    check_error(error);
    g_error_free(error);
    return 0;
  }
  if (!ir_graph_verify(graph, &error))
    g_error("fuzz invariant: compiled graph does not verify: %s", error->message);
  g_free(ir_graph_to_string(graph));
  ir_graph_free(graph);
  return 0;
}
