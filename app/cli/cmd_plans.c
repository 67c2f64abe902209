/* `jitscope plans FILE --spec 'SPEC; SPEC; ...' [--spec ...] [--json]`: one forward and
 * backward run per spec through ONE executor, as a user calling the same function with other
 * shapes; per spec its forward plan and the backward plans its run added. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_program.h"
#include "json_out.h"
#include "plan_report.h"
#include "program_run.h"
#include "spec_header.h"

typedef struct {
  char *text;
  ExecPlan *forward;
  GPtrArray *backward; /* ExecPlan* added by this spec's run */
} SpecRun;

static void spec_run_free(gpointer p) {
  SpecRun *r = p;
  g_free(r->text);
  g_ptr_array_free(r->backward, TRUE);
  g_free(r);
}

/* Runs one `--spec` group; appends a SpecRun. */
static bool run_spec(ExecExecutor *executor, CliProgram *program, const char *group,
                     guint group_index, guint64 seed, GPtrArray *runs, GError **error) {
  g_autoptr(GPtrArray) texts = app_spec_group_split(group);
  g_autoptr(GError) local = NULL;
  AppInputs *inputs =
      app_inputs_bind(program->graph, (char *const *)texts->pdata, texts->len, seed, &local);
  bool ok = inputs != NULL;
  AppProgramRun *run = NULL;
  if (ok) {
    cli_program_place_inputs(program, inputs);
    ExecSession *session = exec_executor_session(executor);
    run = app_program_run(executor, inputs, NULL, 0, &local);
    ok = run != NULL;
    if (ok) {
      SpecRun *r = g_new0(SpecRun, 1);
      GString *joined = g_string_new(NULL);
      for (guint t = 0; t < texts->len; t++)
        g_string_append_printf(joined, "%s%s", t ? "; " : "", (char *)g_ptr_array_index(texts, t));
      r->text = g_string_free(joined, FALSE);
      r->forward = exec_executor_last_plan(executor);
      r->backward = g_ptr_array_new();
      for (guint p = run->first_plan; p < run->end_plan; p++) {
        ExecPlan *plan = g_ptr_array_index(session->plans, p);
        if (plan->kind == EXEC_PLAN_BACKWARD)
          g_ptr_array_add(r->backward, plan);
      }
      g_ptr_array_add(runs, r);
    }
  }
  if (!ok)
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "--spec %u: %s", group_index + 1,
                local->message);
  app_program_run_free(run);
  app_inputs_free(inputs);
  return ok;
}

/* The text form: one column per spec, one row per fact, so that what differs between specs
 * reads across. */
typedef struct {
  char *label;
  GPtrArray *cells; /* char*, one per spec ("" where the spec has nothing) */
} TableRow;

static void table_row_free(gpointer p) {
  TableRow *row = p;
  g_free(row->label);
  g_ptr_array_free(row->cells, TRUE);
  g_free(row);
}

static TableRow *table_row(GPtrArray *rows, const char *label, guint n_specs) {
  for (guint r = 0; r < rows->len; r++) {
    TableRow *row = g_ptr_array_index(rows, r);
    if (g_str_equal(row->label, label))
      return row;
  }
  TableRow *row = g_new0(TableRow, 1);
  row->label = g_strdup(label);
  row->cells = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < n_specs; i++)
    g_ptr_array_add(row->cells, g_strdup(""));
  g_ptr_array_add(rows, row);
  return row;
}

static void table_set(GPtrArray *rows, guint n_specs, guint spec, const char *label,
                      char *cell /* taken */) {
  TableRow *row = table_row(rows, label, n_specs);
  g_free(row->cells->pdata[spec]);
  row->cells->pdata[spec] = cell;
}

/* Indexes of the plan's inputs of one type, as "#2 #5", or "-". */
static char *inputs_of_kind(const ExecPlan *plan, bool optional) {
  GString *out = g_string_new(NULL);
  GPtrArray *inputs = ir_graph_inputs(plan->graph);
  for (guint i = 0; i < inputs->len; i++) {
    const IrType *t = ((IrValue *)g_ptr_array_index(inputs, i))->type;
    bool is_list = t->kind == IR_TYPE_LIST && t->elem->kind == IR_TYPE_INT;
    bool is_optional = t->kind == IR_TYPE_OPTIONAL && t->elem->kind == IR_TYPE_LIST;
    if (optional ? is_optional : is_list)
      g_string_append_printf(out, "%s#%u", out->len ? " " : "", i);
  }
  if (!out->len)
    g_string_append(out, "-");
  return g_string_free(out, FALSE);
}

/* table_set on the row labelled "<prefix> <what>". */
static void table_set_prefixed(GPtrArray *rows, guint n_specs, guint spec, const char *prefix,
                               const char *what, char *cell /* taken */) {
  g_autofree char *label = g_strdup_printf("%s %s", prefix, what);
  table_set(rows, n_specs, spec, label, cell);
}

static void add_plan_rows(GPtrArray *rows, guint n_specs, guint spec, const char *prefix,
                          const ExecPlan *plan) {
  AppPlanSummary s;
  app_plan_summarize(plan, &s);
  table_set_prefixed(rows, n_specs, spec, prefix, "plan", g_strdup_printf("%u", plan->index));
  table_set_prefixed(rows, n_specs, spec, prefix, "nodes", g_strdup_printf("%u", s.nodes));
  table_set_prefixed(rows, n_specs, spec, prefix, "_grad_sum_to_size",
                     g_strdup_printf("%u", s.grad_sum_to_size));
  if (plan->kind == EXEC_PLAN_BACKWARD) {
    table_set_prefixed(rows, n_specs, spec, prefix, "sizes int[] (inputs)",
                       inputs_of_kind(plan, false));
    table_set_prefixed(rows, n_specs, spec, prefix, "sizes None (inputs)",
                       inputs_of_kind(plan, true));
  }
  GList *keys = g_list_sort(g_hash_table_get_keys(s.kind_counts), (GCompareFunc)g_strcmp0);
  for (GList *k = keys; k; k = k->next) {
    g_autofree char *label = g_strdup_printf("%s   %s", prefix, (const char *)k->data);
    table_set(rows, n_specs, spec, label,
              g_strdup_printf("%u", GPOINTER_TO_UINT(g_hash_table_lookup(s.kind_counts, k->data))));
  }
  g_list_free(keys);
  app_plan_summary_clear(&s);
}

static void print_table(GPtrArray *runs) {
  guint n = runs->len;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(table_row_free);
  guint most_backward = 0;
  for (guint i = 0; i < n; i++)
    most_backward = MAX(most_backward, ((SpecRun *)g_ptr_array_index(runs, i))->backward->len);
  for (guint i = 0; i < n; i++) {
    const SpecRun *r = g_ptr_array_index(runs, i);
    table_set(rows, n, i, "backward plans added", g_strdup_printf("%u", r->backward->len));
    add_plan_rows(rows, n, i, "forward", r->forward);
    for (guint k = 0; k < r->backward->len; k++) {
      g_autofree char *prefix =
          most_backward > 1 ? g_strdup_printf("backward %u", k + 1) : g_strdup("backward");
      add_plan_rows(rows, n, i, prefix, g_ptr_array_index(r->backward, k));
    }
  }
  guint label_width = 4, cell_width = 8;
  for (guint r = 0; r < rows->len; r++) {
    TableRow *row = g_ptr_array_index(rows, r);
    label_width = MAX(label_width, (guint)strlen(row->label));
    for (guint i = 0; i < n; i++)
      cell_width = MAX(cell_width, (guint)strlen(row->cells->pdata[i]));
  }
  for (guint i = 0; i < n; i++)
    printf("spec %u: %s\n", i + 1, ((SpecRun *)g_ptr_array_index(runs, i))->text);
  printf("\n%-*s", label_width, "");
  for (guint i = 0; i < n; i++) {
    g_autofree char *head = g_strdup_printf("spec %u", i + 1);
    printf("  %*s", cell_width, head);
  }
  printf("\n");
  for (guint r = 0; r < rows->len; r++) {
    TableRow *row = g_ptr_array_index(rows, r);
    bool differs = false;
    for (guint i = 1; i < n; i++)
      differs |= !g_str_equal(row->cells->pdata[i], row->cells->pdata[0]);
    printf("%-*s", label_width, row->label);
    for (guint i = 0; i < n; i++)
      printf("  %*s", cell_width, (char *)row->cells->pdata[i]);
    printf("%s\n", differs ? "  <" : "");
  }
  printf("\n'<' marks the rows that differ between specs.\n");
}

static JsonNode *spec_run_to_json(const SpecRun *r) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_string(b, "spec", r->text);
  json_builder_set_member_name(b, "forward");
  json_builder_add_value(b, app_plan_to_json(r->forward));
  json_builder_set_member_name(b, "backward");
  json_builder_begin_array(b);
  for (guint i = 0; i < r->backward->len; i++)
    json_builder_add_value(b, app_plan_to_json(g_ptr_array_index(r->backward, i)));
  json_builder_end_array(b);
  json_builder_set_member_name(b, "summary");
  json_builder_begin_array(b);
  AppPlanSummary s;
  app_plan_summarize(r->forward, &s);
  json_builder_add_value(b, app_plan_summary_to_json(&s));
  app_plan_summary_clear(&s);
  for (guint i = 0; i < r->backward->len; i++) {
    app_plan_summarize(g_ptr_array_index(r->backward, i), &s);
    json_builder_add_value(b, app_plan_summary_to_json(&s));
    app_plan_summary_clear(&s);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}

int cmd_plans_main(int argc, char **argv) {
  g_autoptr(GPtrArray) spec_groups = NULL;
  guint64 seed = 0;
  bool json = false, no_fuse = false;
  CliProgram program;
  const CliOption options[] = {
      CLI_PROGRAM_CHOICE_OPTIONS(program),
      {"spec", 's', CLI_OPTION_STRINGS, &spec_groups, "'SPEC; SPEC; ...'",
       "One call's inputs, separated by ';' (repeat --spec for each call)"},
      {"seed", 0, CLI_OPTION_UINT64, &seed, "N",
       "Seed for drawn inputs and random ops (default 0)"},
      {"no-fuse", 0, CLI_OPTION_FLAG, &no_fuse, NULL, "Turn the fuser off"},
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "plans",
      .usage = "FILE --spec 'SPEC; SPEC; ...' [--spec ...] [--seed N] [--no-fuse] [--json]",
      .description =
          "Calls the program once per --spec (forward, and backward when an input requires\n"
          "grad), all through ONE executor, as a user calling one function with inputs of\n"
          "other shapes. Specs that differ only in sizes share a forward plan; each run may\n"
          "add backward plans (the backward spec depends on which sizes broadcast).\n"
          "Text: a table with one column per spec: its forward plan and the backward plans\n"
          "its run added, each with node counts by kind, the number of _grad_sum_to_size,\n"
          "and which optional size inputs (#index) the backward spec found present (int[])\n"
          "or None; rows that differ between specs are marked.\n"
          "Without --spec: the `# jitscope: --spec 'SPEC; ...'` lines of FILE's header.\n"
          "SPEC as for run (jitscope run --help).\n" CLI_PROGRAM_DEVICE_HELP "\n"
          "With --json: {\"specs\": [{\"spec\": TEXT, \"forward\": PLAN, \"backward\": [PLAN...],\n"
          "\"summary\": [forward's, then each backward's]}]}, PLAN as `stages --json` prints.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };
  GError *error = NULL;
  ExecSession *session = NULL;
  GPtrArray *runs = g_ptr_array_new_with_free_func(spec_run_free);

  if (cli_program_parse(&program, &command, argc, argv, &error) != CLI_PARSE_OK)
    goto out;
  if (!spec_groups || spec_groups->len == 0) {
    g_clear_pointer(&spec_groups, g_ptr_array_unref);
    if (!(spec_groups = app_spec_header_read_file(program.path, &error)))
      goto out;
    if (spec_groups->len == 0) {
      error = g_error_new(JITSCOPE_APP_ERROR, APP_ERROR_USAGE,
                          "plans needs at least one --spec (or `# jitscope: --spec` lines in "
                          "the file's header)");
      goto out;
    }
  }
  if (!cli_program_load(&program, NULL, NULL, &error))
    goto out;
  session = exec_session_new();
  session->fuse = !no_fuse;
  ExecExecutor *executor = exec_executor_new(session, program.graph, "main", EXEC_PLAN_FORWARD);
  for (guint g = 0; g < spec_groups->len; g++)
    if (!run_spec(executor, &program, g_ptr_array_index(spec_groups, g), g, seed, runs, &error))
      goto out;

  if (json) {
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "specs");
    json_builder_begin_array(b);
    for (guint i = 0; i < runs->len; i++)
      json_builder_add_value(b, spec_run_to_json(g_ptr_array_index(runs, i)));
    json_builder_end_array(b);
    json_builder_end_object(b);
    json_out_print(json_out_builder_finish(b));
  } else {
    print_table(runs);
    printf("executor: %u forward plan(s), %u cache hit(s)\n", exec_executor_cache_misses(executor),
           exec_executor_cache_hits(executor));
  }

out:
  g_ptr_array_free(runs, TRUE);
  exec_session_free(session);
  cli_program_clear(&program);
  return cli_finish(CLI_EXIT_OK, error);
}
