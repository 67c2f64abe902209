/* Table-driven option parser for the subcommands (contract in cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <string.h>

#include "cli.h"
#include "run_limits.h"
#include "runtime/print_op.h"

static const CliOption *find_in(const CliOption *options, guint n, const char *name, gsize len) {
  for (guint i = 0; i < n; i++) {
    const CliOption *o = &options[i];
    if (strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0)
      return o;
  }
  return NULL;
}

static const CliOption *find_long(const CliCommand *command, const char *name, gsize len) {
  const CliOption *o = find_in(command->options, command->n_options, name, len);
  if (o == NULL && command->run_limits) {
    guint n = 0;
    const CliOption *limits = cli_run_limit_options(&n);
    o = find_in(limits, n, name, len);
  }
  return o;
}

static const CliOption *find_short(const CliCommand *command, char c) {
  for (guint i = 0; i < command->n_options; i++)
    if (command->options[i].short_name == c)
      return &command->options[i];
  return NULL;
}

static bool store_value(const CliOption *o, const char *value, GError **error) {
  switch (o->kind) {
  case CLI_OPTION_STRING: {
    char **target = o->target;
    g_free(*target);
    *target = g_strdup(value);
    return true;
  }
  case CLI_OPTION_UINT64: {
    char *end = NULL;
    errno = 0;
    guint64 v = g_ascii_strtoull(value, &end, 10);
    if (value[0] == '\0' || value[0] == '-' || value[0] == '+' || *end != '\0' || errno != 0) {
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                  "--%s expects a non-negative integer, got '%s'", o->long_name, value);
      return false;
    }
    *(guint64 *)o->target = v;
    return true;
  }
  case CLI_OPTION_STRINGS: {
    GPtrArray **target = o->target;
    if (*target == NULL)
      *target = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(*target, g_strdup(value));
    return true;
  }
  case CLI_OPTION_FLAG: break;
  }
  g_assert_not_reached();
}

/* "-o" when the command declares -o: ends a CLI_OPTION_STRINGS list as "--x" does. */
static bool is_declared_short(const CliCommand *command, const char *arg) {
  return arg[0] == '-' && arg[1] != '\0' && arg[2] == '\0' && find_short(command, arg[1]);
}

static bool is_help(const char *arg) {
  return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

CliParseResult cli_args_parse(const CliCommand *command, int argc, char **argv,
                              GPtrArray *positional, GError **error) {
  /* --help wins wherever it stands (before "--"), so that a broken command line can still
   * ask for help. */
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (is_help(argv[i])) {
      cli_args_print_help(command, stdout);
      return CLI_PARSE_HELP;
    }
  }

  bool options_done = false;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || arg[1] == '\0' || g_ascii_isdigit(arg[1]) ||
        arg[1] == '.') {
      g_ptr_array_add(positional, argv[i]);
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = true;
      continue;
    }
    const CliOption *o;
    const char *inline_value = NULL;
    if (arg[1] == '-') {
      const char *name = arg + 2;
      const char *eq = strchr(name, '=');
      o = find_long(command, name, eq ? (gsize)(eq - name) : strlen(name));
      if (eq)
        inline_value = eq + 1;
    } else {
      o = arg[2] == '\0' ? find_short(command, arg[1]) : NULL;
    }
    if (o == NULL) {
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                  "unknown option '%s' for '%s' (see 'jitscope %s --help')", arg, command->name,
                  command->name);
      return CLI_PARSE_ERROR;
    }
    if (o->kind == CLI_OPTION_FLAG) {
      if (inline_value) {
        g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE, "--%s takes no value",
                    o->long_name);
        return CLI_PARSE_ERROR;
      }
      *(bool *)o->target = true;
      continue;
    }
    if (inline_value) {
      if (!store_value(o, inline_value, error))
        return CLI_PARSE_ERROR;
      continue;
    }
    if (i + 1 >= argc || g_str_has_prefix(argv[i + 1], "--")) {
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE, "--%s needs a value (%s)",
                  o->long_name, o->arg_name ? o->arg_name : "VALUE");
      return CLI_PARSE_ERROR;
    }
    if (!store_value(o, argv[++i], error))
      return CLI_PARSE_ERROR;
    if (o->kind == CLI_OPTION_STRINGS) {
      /* Further values up to the next "--option" or declared short option. */
      while (i + 1 < argc && !g_str_has_prefix(argv[i + 1], "--") &&
             !is_declared_short(command, argv[i + 1]))
        if (!store_value(o, argv[++i], error))
          return CLI_PARSE_ERROR;
    }
  }

  if (positional->len < command->min_positional || positional->len > command->max_positional) {
    if (positional->len < command->min_positional)
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                  "'%s' needs %s (usage: jitscope %s %s)", command->name,
                  command->min_positional == 1 ? "an argument" : "more arguments", command->name,
                  command->usage);
    else
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                  "unexpected argument '%s' (usage: jitscope %s %s)",
                  (const char *)g_ptr_array_index(positional, command->max_positional),
                  command->name, command->usage);
    return CLI_PARSE_ERROR;
  }
  if (command->run_limits && !cli_run_limits_apply(error))
    return CLI_PARSE_ERROR;
  /* --json keeps stdout for the one JSON document: a program's prim::Print goes to stderr. */
  const CliOption *json = find_long(command, "json", 4);
  if (json && json->kind == CLI_OPTION_FLAG && *(bool *)json->target)
    rt_print_set_stream(stderr);
  return CLI_PARSE_OK;
}

CliParseResult cli_args_parse_one(const CliCommand *command, int argc, char **argv,
                                  const char **arg, GError **error) {
  g_assert(command->min_positional == 1 && command->max_positional == 1);
  g_autoptr(GPtrArray) positional = g_ptr_array_new();
  CliParseResult parsed = cli_args_parse(command, argc, argv, positional, error);
  if (parsed == CLI_PARSE_OK)
    *arg = g_ptr_array_index(positional, 0);
  return parsed;
}

void cli_args_print_help(const CliCommand *command, FILE *out) {
  fprintf(out, "Usage: jitscope %s %s\n\n%s\n", command->name, command->usage,
          command->description);
  fprintf(out, "\nOptions:\n");
  /* The command's own options, then the run limits when it takes them. */
  g_autoptr(GPtrArray) listed = g_ptr_array_new();
  for (guint i = 0; i < command->n_options; i++)
    g_ptr_array_add(listed, (gpointer)&command->options[i]);
  guint n_limits = 0;
  const CliOption *limits = command->run_limits ? cli_run_limit_options(&n_limits) : NULL;
  for (guint i = 0; i < n_limits; i++)
    g_ptr_array_add(listed, (gpointer)&limits[i]);
  g_autoptr(GPtrArray) left = g_ptr_array_new_with_free_func(g_free);
  gsize width = strlen("-h, --help");
  for (guint i = 0; i < listed->len; i++) {
    const CliOption *o = g_ptr_array_index(listed, i);
    GString *l = g_string_new(NULL);
    if (o->short_name)
      g_string_append_printf(l, "-%c, ", o->short_name);
    g_string_append_printf(l, "--%s", o->long_name);
    if (o->kind != CLI_OPTION_FLAG)
      g_string_append_printf(l, " %s%s", o->arg_name ? o->arg_name : "VALUE",
                             o->kind == CLI_OPTION_STRINGS ? "..." : "");
    width = MAX(width, l->len);
    g_ptr_array_add(left, g_string_free(l, FALSE));
  }
  for (guint i = 0; i < listed->len; i++)
    fprintf(out, "  %-*s  %s\n", (int)width, (const char *)g_ptr_array_index(left, i),
            ((const CliOption *)g_ptr_array_index(listed, i))->help);
  fprintf(out, "  %-*s  %s\n", (int)width, "-h, --help", "Show this help and exit");
}
