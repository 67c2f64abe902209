/* Command lines of the benchmark programs (contract in bench_args.h). */
#include "bench_args.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_args_fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  g_autofree char *message = g_strdup_vprintf(format, args);
  va_end(args);
  const char *prgname = g_get_prgname();
  fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", prgname, message, prgname);
  exit(2);
}

void bench_args_parse(int *argc, char ***argv, const char *parameter_string, const char *summary,
                      const GOptionEntry *entries, int max_positional) {
  /* The help goes out in the locale's charset ("[OPTION…]" rather than "[OPTION?]" under
   * C.UTF-8); LC_CTYPE alone, so that LC_NUMERIC stays "C" and the figures the scripts read
   * keep their decimal point. */
  setlocale(LC_CTYPE, "");
  g_autoptr(GOptionContext) context = g_option_context_new(parameter_string);
  g_option_context_set_summary(context, summary);
  g_option_context_add_main_entries(context, entries, NULL);
  /* --help is handled inside: GOptionContext prints the help and exits 0. */
  g_autoptr(GError) error = NULL;
  if (!g_option_context_parse(context, argc, argv, &error))
    bench_args_fail("%s", error->message);
  /* GOptionContext keeps the "--" that ends the options when an argument after it starts
   * with '-'; here what follows it is positional all the same ("-- -odd-name.ir"). */
  for (int i = 1; i < *argc; i++)
    if (g_str_equal((*argv)[i], "--")) {
      memmove(*argv + i, *argv + i + 1, (size_t)(*argc - i) * sizeof **argv);
      (*argc)--;
      break;
    }
  /* What is left is not an option; past max_positional it is a mistake (a value given to an
   * option that takes none, a second file). */
  if (*argc - 1 > max_positional)
    bench_args_fail("unexpected argument '%s'", (*argv)[1 + max_positional]);
}
