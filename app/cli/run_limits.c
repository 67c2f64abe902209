/* --max-memory, --max-steps and the cancelling signals (contract in run_limits.h). */
#include "run_limits.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "runtime/run_control.h"
#include "tensor/memory_budget.h"

static char *max_memory_text;
static guint64 max_steps_value;

static const CliOption run_limit_options[] = {
    {"max-memory", 0, CLI_OPTION_STRING, &max_memory_text, "SIZE",
     "Host memory the run's tensors may hold, e.g. 512M or 8G (default: half the physical "
     "memory); running out is an error naming the input or node"},
    {"max-steps", 0, CLI_OPTION_UINT64, &max_steps_value, "N",
     "Iterations one prim::Loop may run before the run stops with an error naming it "
     "(default 10000000)"},
};

const CliOption *cli_run_limit_options(guint *n_options) {
  *n_options = G_N_ELEMENTS(run_limit_options);
  return run_limit_options;
}

bool cli_run_limits_parse_size(const char *text, guint64 *bytes) {
  char *end = NULL;
  errno = 0;
  if (!g_ascii_isdigit(text[0]))
    return false;
  guint64 value = g_ascii_strtoull(text, &end, 10);
  if (errno != 0)
    return false;
  static const char suffixes[] = "KMGT";
  int shift = 0;
  if (*end != '\0') {
    const char *s = strchr(suffixes, g_ascii_toupper(*end));
    if (s == NULL || end[1] != '\0')
      return false;
    shift = 10 * (int)(s - suffixes + 1);
  }
  if (value == 0 || value > (G_MAXUINT64 >> shift))
    return false;
  *bytes = value << shift;
  return true;
}

bool cli_run_limits_apply(GError **error) {
  guint64 budget = 0;
  if (max_memory_text && !cli_run_limits_parse_size(max_memory_text, &budget)) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                "--max-memory expects a size such as 512M or 8G, got '%s'", max_memory_text);
    return false;
  }
  rt_memory_budget_set(budget); /* 0: the defaults */
  rt_run_set_max_steps(max_steps_value);
  g_clear_pointer(&max_memory_text, g_free);
  return true;
}

static volatile sig_atomic_t cancelling_signal;

static void on_cancel_signal(int signo) {
  cancelling_signal = signo;
  rt_run_cancel();
  signal(signo, SIG_DFL); /* a second one ends the process */
}

void cli_run_limits_install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_cancel_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGINT);
  sigaddset(&both, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &both, NULL);
}

int cli_run_limits_signal_status(void) {
  return cancelling_signal ? 128 + cancelling_signal : 0;
}
