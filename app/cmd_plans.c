/* `jitscope plans FILE --spec 'SPEC; SPEC; ...' [--spec ...] [--json]`: one forward and
 * backward run per spec through ONE executor, as a user calling the same function with other
 * shapes; per spec its forward plan and the backward plans its run added. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_args.h"
#include "graph_file.h"
#include "json_out.h"
#include "plan_report.h"
#include "program_run.h"

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
static bool run_spec(ExecExecutor *executor, const IrGraph *graph, const char *group,
                     guint group_index, guint64 seed, GPtrArray *runs, GError **error) {
  gchar **parts = g_strsplit(group, ";", -1);
  GPtrArray *texts = g_ptr_array_new();
  for (gchar **p = parts; *p; p++) {
    g_strstrip(*p);
    if (**p)
      g_ptr_array_add(texts, *p);
  }
  GError *local = NULL;
  AppInputs *inputs =
      app_inputs_bind(graph, (char *const *)texts->pdata, texts->len, seed, &local);
  bool ok = inputs != NULL;
  AppProgramRun *run = NULL;
  if (ok) {
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
    g_set_error(error, JITSCOPE_CLI_ERROR, CLI_ERROR_INPUT, "--spec %u: %s", group_index + 1,
                local->message);
  g_clear_error(&local);
  app_program_run_free(run);
  app_inputs_free(inputs);
  g_ptr_array_free(texts, TRUE);
  g_strfreev(parts);
  return ok;
}

static void print_summary_row(const char *label, const ExecPlan *plan) {
  AppPlanSummary s;
  app_plan_summarize(plan, &s);
  printf("    %-9s plan %-3u %4u nodes  %u _grad_sum_to_size  size inputs: %u int[], %u None"
         "   %s\n",
         label, plan->index, s.nodes, s.grad_sum_to_size, s.sizes_int_list, s.sizes_none,
         plan->graph_name);
  GList *keys = g_list_sort(g_hash_table_get_keys(s.kind_counts), (GCompareFunc)g_strcmp0);
  GString *kinds = g_string_new(NULL);
  for (GList *k = keys; k; k = k->next)
    g_string_append_printf(kinds, "%s%s x%u", kinds->len ? ", " : "", (const char *)k->data,
                           GPOINTER_TO_UINT(g_hash_table_lookup(s.kind_counts, k->data)));
  printf("              %s\n", kinds->str);
  g_string_free(kinds, TRUE);
  g_list_free(keys);
  app_plan_summary_clear(&s);
}

static JsonNode *spec_run_to_json(const SpecRun *r) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "spec");
  json_builder_add_string_value(b, r->text);
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
  JsonNode *root = json_builder_get_root(b);
  g_object_unref(b);
  return root;
}

int cmd_plans_main(int argc, char **argv) {
  GPtrArray *spec_groups = NULL;
  guint64 seed = 0;
  bool json = false, no_fuse = false;
  const CliOption options[] = {
      {"spec", 's', CLI_OPTION_STRINGS, &spec_groups, "'SPEC; SPEC; ...'",
       "One call's inputs, separated by ';' (repeat --spec for each call)"},
      {"seed", 0, CLI_OPTION_UINT64, &seed, "N", "Seed for drawn inputs (default 0)"},
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
          "Text: per spec its forward plan and the backward plans it added, with node counts\n"
          "by kind, the number of aten::_grad_sum_to_size, and how many optional size inputs\n"
          "the backward spec found present (int[]) or None.\n"
          "\n"
          "With --json: {\"specs\": [{\"spec\": TEXT, \"forward\": PLAN, \"backward\": [PLAN...],\n"
          "\"summary\": [forward's, then each backward's]}]}, PLAN as `stages --json` prints.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
  };
  GPtrArray *positional = g_ptr_array_new();
  GError *error = NULL;
  int status = CLI_EXIT_ERROR;
  IrGraph *graph = NULL;
  ExecSession *session = NULL;
  GPtrArray *runs = g_ptr_array_new_with_free_func(spec_run_free);

  switch (cli_args_parse(&command, argc, argv, positional, &error)) {
  case CLI_PARSE_HELP:
    status = CLI_EXIT_OK;
    goto out;
  case CLI_PARSE_ERROR:
    goto fail;
  case CLI_PARSE_OK:
    break;
  }
  if (!spec_groups || spec_groups->len == 0) {
    error = g_error_new(JITSCOPE_CLI_ERROR, CLI_ERROR_USAGE, "plans needs at least one --spec");
    goto fail;
  }
  const char *path = g_ptr_array_index(positional, 0);
  if (!(graph = app_graph_file_load(path, &error)))
    goto fail;
  session = exec_session_new();
  session->fuse = !no_fuse;
  ExecExecutor *executor = exec_executor_new(session, graph, "main", EXEC_PLAN_FORWARD);
  for (guint g = 0; g < spec_groups->len; g++)
    if (!run_spec(executor, graph, g_ptr_array_index(spec_groups, g), g, seed, runs, &error))
      goto fail;

  if (json) {
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "specs");
    json_builder_begin_array(b);
    for (guint i = 0; i < runs->len; i++)
      json_builder_add_value(b, spec_run_to_json(g_ptr_array_index(runs, i)));
    json_builder_end_array(b);
    json_builder_end_object(b);
    json_out_print(json_builder_get_root(b));
    g_object_unref(b);
  } else {
    for (guint i = 0; i < runs->len; i++) {
      const SpecRun *r = g_ptr_array_index(runs, i);
      printf("spec %u: %s\n", i + 1, r->text);
      print_summary_row("forward", r->forward);
      if (r->backward->len == 0)
        printf("    backward  (no new backward plan: %s)\n",
               i > 0 ? "this backward spec was compiled before" : "nothing requires grad");
      for (guint k = 0; k < r->backward->len; k++)
        print_summary_row("backward", g_ptr_array_index(r->backward, k));
    }
    printf("executor: %u forward plan(s), %u cache hit(s)\n", exec_executor_cache_misses(executor),
           exec_executor_cache_hits(executor));
  }
  status = CLI_EXIT_OK;
  goto out;

fail:
  cli_report_error(error);
  g_error_free(error);
out:
  g_ptr_array_free(runs, TRUE);
  exec_session_free(session);
  if (graph)
    ir_graph_free(graph);
  if (spec_groups)
    g_ptr_array_unref(spec_groups);
  g_ptr_array_unref(positional);
  return status;
}
