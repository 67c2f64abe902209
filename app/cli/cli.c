/* Top-level dispatch (contract in cli.h): `jitscope COMMAND ...`, `jitscope --help`,
 * `jitscope --version`, and `jitscope [FILE]` for the workbench window. */
#include "cli.h"

#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_loader.h"
#include "ir/text.h"
#include "jitscope-config.h"
#include "run_limits.h"

typedef struct {
  const char *name;
  int (*handler)(int argc, char **argv);
  const char *summary;
} CliEntry;

static const CliEntry commands[] = {
#define CLI_COMMAND(name, handler, summary) {name, handler, summary},
#include "commands.def"
#undef CLI_COMMAND
};

void cli_report_error(const GError *error) {
  bool located = error->domain == JITSCOPE_PARSE_ERROR ||
                 (error->domain == JITSCOPE_APP_ERROR && error->code == APP_ERROR_LOCATED);
  fprintf(stderr, located ? "jitscope: %s\n" : "jitscope: error: %s\n", error->message);
}

int cli_finish(int status, GError *error) {
  if (!error)
    return status;
  cli_report_error(error);
  g_error_free(error);
  return CLI_EXIT_ERROR;
}

void cli_error(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *message = g_strdup_vprintf(format, ap);
  va_end(ap);
  fprintf(stderr, "jitscope: error: %s\n", message);
}

void cli_note(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  g_autofree char *message = g_strdup_vprintf(format, ap);
  va_end(ap);
  fprintf(stderr, "jitscope: note: %s\n", message);
}

static CliWindowFn window_handler;

void cli_set_window_handler(CliWindowFn handler) {
  window_handler = handler;
}

static void print_help(FILE *out) {
  fprintf(out,
          "Usage: jitscope [FILE]\n"
          "       jitscope COMMAND [ARGS...]\n"
          "\n"
          "A workbench for graph-compiler developers with a TorchScript-2019 JIT engine "
          "inside.\n"
          "Without a command it opens the workbench window on FILE (or on the bundled LSTM\n"
          "example)%s.\n"
          "\n"
          "Commands:\n",
          window_handler ? "" : "; this build has no window");
  for (guint i = 0; i < G_N_ELEMENTS(commands); i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n"
               "Options:\n"
               "  -h, --help  Show this help and exit\n"
               "  --version   Show the version and build options and exit\n"
               "\n"
               "Run 'jitscope COMMAND --help' for the options of one command.\n"
               "Errors go to stderr as 'jitscope: error: ...' (or 'jitscope: FILE:LINE:COL: "
               "error: ...');\n"
               "the exit status is 0 on success and 2 on any error.\n");
}

static void print_version(void) {
  printf("jitscope %s\n", JITSCOPE_VERSION);
  printf("build: %s\n", JITSCOPE_BUILD_OPTIONS);
  /* CUDA is loaded at run time: say what loaded and what did not, and why. */
  g_autoptr(GString) cuda = g_string_new(NULL);
  cuda_status_describe(cuda, cuda_loader_get());
  fputs(cuda->str, stdout);
  /* Which execution backends this process can use. */
  g_autofree char *why = cuda_status_unavailable_reason(cuda_loader_get());
  printf("backends: interpreter, cpu fused loop, cpu-c%s\n",
         why ? "" : ", cuda fusion (generated kernels), cuda runtime (device tensors, cuBLAS)");
  if (why)
    printf("cuda backends: not loaded (%s)\n", why);
}

/* The window is not part of this build: say so and point at the commands that work. */
static int no_window(const char *file) {
  if (window_handler)
    return window_handler(file);
  fprintf(stderr,
          "jitscope: the workbench window is not built in this build.\n"
          "Use a command instead, for example:\n"
          "  jitscope run %s --input SPEC...\n"
          "  jitscope print %s\n"
          "See 'jitscope --help'.\n",
          file ? file : "FILE", file ? file : "FILE");
  return CLI_EXIT_ERROR;
}

int cli_main(int argc, char **argv) {
  /* Numbers are parsed and printed in the C locale whatever the environment says. */
  setlocale(LC_ALL, "C");
  if (argc < 2)
    return no_window(NULL);
  const char *first = argv[1];
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0) {
    print_help(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0) {
    print_version();
    return CLI_EXIT_OK;
  }
  for (guint i = 0; i < G_N_ELEMENTS(commands); i++) {
    if (strcmp(first, commands[i].name) != 0)
      continue;
    cli_run_limits_install_signal_handlers();
    int status = commands[i].handler(argc - 1, argv + 1);
    int signalled = cli_run_limits_signal_status();
    if (signalled) {
      cli_error("interrupted by signal %d; the run was stopped", signalled - 128);
      return signalled;
    }
    return status;
  }
  if (first[0] == '-') {
    cli_error("unknown option '%s' (see 'jitscope --help')", first);
    return CLI_EXIT_ERROR;
  }
  if (argc == 2 &&
      (strchr(first, '/') || strchr(first, '.') || g_file_test(first, G_FILE_TEST_EXISTS)))
    return no_window(first);
  cli_error("unknown command '%s' (see 'jitscope --help')", first);
  return CLI_EXIT_ERROR;
}
