/* What every libFuzzer target here shares: GLib's fatal log messages end in a breakpoint trap,
 * which libFuzzer does not catch, so the targets install a handler that prints and aborts
 * (a reported crash) on g_error and g_critical, and they run under small limits so that a
 * hostile size ends as an error quickly instead of allocating the machine's memory. */
#ifndef JITSCOPE_TESTS_FUZZ_COMMON_H
#define JITSCOPE_TESTS_FUZZ_COMMON_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/run_control.h"
#include "tensor/memory_budget.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The memory budget and loop step budget the targets run under: small enough that the
 * largest allowed draw takes well under libFuzzer's timeout even with sanitizers. */
#define FUZZ_MEMORY_BUDGET (G_GUINT64_CONSTANT(8) << 20)
#define FUZZ_MAX_STEPS 1000

static void fuzz_abort_on_fatal(const gchar *domain, GLogLevelFlags level, const gchar *message,
                                gpointer data) {
  (void)data;
  fprintf(stderr, "%s: %s\n", domain ? domain : "jitscope", message);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL))
    abort();
}

/* Once per process: the log handler and the limits. */
static inline void fuzz_setup_once(void) {
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    g_log_set_default_handler(fuzz_abort_on_fatal, NULL);
    rt_memory_budget_set(FUZZ_MEMORY_BUDGET);
    rt_run_set_max_steps(FUZZ_MAX_STEPS);
    g_once_init_leave(&done, 1);
  }
}

#endif
