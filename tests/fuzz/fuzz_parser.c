/* libFuzzer target for the graph text format. For every input:
 *   parse; an error must be a JITSCOPE_PARSE_ERROR "FILE:LINE:COL: error: ..." message;
 *   a graph must verify, print, re-parse, verify again and print the same text (fixed point).
 * Any violation aborts (a crash for libFuzzer). Built as the fuzzer only with -Dfuzz=true and
 * clang; replay.c runs the same function over the seed corpus in every build. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "ir/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const GError *error) {
  if (error == NULL || error->domain != JITSCOPE_PARSE_ERROR)
    g_error("fuzz invariant: a failed parse must set a parse error");
  if (!g_str_has_prefix(error->message, "fuzz.ir:") || strstr(error->message, ": error: ") == NULL)
    g_error("fuzz invariant: malformed error message: %s", error->message);
}

static IrGraph *parse_verified(const char *text, size_t size, const char *what) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, size, "fuzz.ir", &error);
  if (g == NULL) {
    check_error(error);
    g_error_free(error);
    return NULL;
  }
  if (!ir_graph_verify(g, &error))
    g_error("fuzz invariant: %s graph does not verify: %s", what, error->message);
  return g;
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
  IrGraph *g = parse_verified((const char *)data, size, "parsed");
  if (g == NULL)
    return 0;
  char *once = ir_graph_to_string(g);
  ir_graph_free(g);
  GError *error = NULL;
  IrGraph *g2 = ir_graph_parse(once, strlen(once), "fuzz.ir", &error);
  if (g2 == NULL)
    g_error("fuzz invariant: printed text does not parse: %s\n%s", error->message, once);
  if (!ir_graph_verify(g2, &error))
    g_error("fuzz invariant: re-parsed graph does not verify: %s", error->message);
  char *twice = ir_graph_to_string(g2);
  ir_graph_free(g2);
  if (strcmp(once, twice) != 0)
    g_error("fuzz invariant: print is not a fixed point:\n--- once\n%s--- twice\n%s", once, twice);
  g_free(once);
  g_free(twice);
  return 0;
}
