/* `jitscope replay DIR [--json]`: runs a bug-report bundle again and says what still matches
 * (app/bundle/bundle_replay.h). Exit 0 when everything matches, 1 when something differs, 2 when the
 * bundle is malformed (a missing or corrupted file, named). */
#include <math.h>
#include <stdio.h>

#include "bundle_replay.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_program.h"
#include "json_out.h"

static void add_values(JsonBuilder *b, const char *name, GPtrArray *values) {
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  for (guint i = 0; i < values->len; i++) {
    const AppReplayValue *v = g_ptr_array_index(values, i);
    json_builder_begin_object(b);
    json_out_member_string(b, "label", v->label);
    json_out_member_string(b, "file", v->file);
    json_out_member_bool(b, "match", v->match);
    json_builder_set_member_name(b, "relative_error");
    json_builder_add_value(b, json_out_double(v->rel_error));
    json_out_member_string(b, "why", v->why);
    json_out_member_string(b, "diff", v->diff);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}

static JsonNode *replay_to_json(const AppBundleReplay *r) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_bool(b, "ok", r->ok);
  json_out_member_int(b, "differences", r->differences);
  json_out_member_string(b, "program", r->program_name);
  json_out_member_string(b, "exported_by", r->bundle_version);
  json_out_member_int(b, "files_verified", r->files_verified);
  json_out_member_string(b, "run_error", r->run_error);
  json_builder_set_member_name(b, "plans");
  json_builder_begin_array(b);
  for (guint p = 0; p < r->plans->len; p++) {
    const AppReplayPlan *plan = g_ptr_array_index(r->plans, p);
    json_builder_begin_object(b);
    json_out_member_int(b, "index", plan->index);
    json_out_member_string(b, "dir", plan->dir);
    json_out_member_string(b, "plan", plan->label);
    json_out_member_bool(b, "match", plan->match);
    json_out_member_string(b, "why", plan->why);
    json_builder_set_member_name(b, "stages");
    json_builder_begin_array(b);
    for (guint s = 0; s < plan->stages->len; s++) {
      const AppReplayStage *st = g_ptr_array_index(plan->stages, s);
      json_builder_begin_object(b);
      json_out_member_int(b, "index", st->index);
      json_out_member_string(b, "name", st->name);
      json_out_member_string(b, "file", st->file);
      json_out_member_bool(b, "match", st->match);
      json_out_member_string(b, "why", st->why);
      json_out_member_string(b, "diff", st->diff);
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  add_values(b, "values", r->values);
  add_values(b, "kernels", r->kernels);
  json_out_member_strings(b, "notes", r->notes);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}

static void print_values(GPtrArray *values) {
  for (guint i = 0; i < values->len; i++) {
    const AppReplayValue *v = g_ptr_array_index(values, i);
    if (v->match) {
      printf("  %s: matches", v->label);
      if (v->rel_error > 0.0 && isfinite(v->rel_error))
        printf(" (relative error %.3g)", v->rel_error);
      printf("\n");
    } else {
      printf("  %s: DIFFERS%s%s: %s\n", v->label, v->file ? " from " : "", v->file ? v->file : "",
             v->why);
      if (v->diff)
        fputs(v->diff, stdout);
    }
  }
}

static void replay_print_text(const AppBundleReplay *r) {
  printf("bundle of %s, exported by jitscope %s: %u files verified\n", r->program_name,
         r->bundle_version, r->files_verified);
  if (r->run_error)
    printf("RUN FAILED: %s\n", r->run_error);
  for (guint p = 0; p < r->plans->len; p++) {
    const AppReplayPlan *plan = g_ptr_array_index(r->plans, p);
    printf("plan %u (%s): ", plan->index, plan->label);
    if (plan->match) {
      printf("all %u stages match\n", plan->stages->len);
      continue;
    }
    printf("DIFFERS");
    if (plan->why)
      printf(": %s", plan->why);
    printf(" (%u of %u stages match)\n", plan->stages_matching, plan->stages->len);
    for (guint s = 0; s < plan->stages->len; s++) {
      const AppReplayStage *st = g_ptr_array_index(plan->stages, s);
      if (st->match)
        continue;
      printf("  stage %u %s: DIFFERS%s%s\n", st->index, st->name ? st->name : "?",
             st->why ? ": " : "", st->why ? st->why : "");
      if (st->diff)
        fputs(st->diff, stdout);
    }
  }
  printf("values:\n");
  print_values(r->values);
  if (r->kernels->len) {
    printf("kernels:\n");
    print_values(r->kernels);
  }
  if (r->ok)
    printf("replay: everything matches\n");
  else
    printf("replay: %u difference%s\n", r->differences, r->differences == 1 ? "" : "s");
}

int cmd_replay_main(int argc, char **argv) {
  bool json = false;
  const CliOption options[] = {
      {"json", 0, CLI_OPTION_FLAG, &json, NULL, "Print one JSON document on stdout"},
  };
  const CliCommand command = {
      .name = "replay",
      .usage = "DIR [--json]",
      .description =
          "Reads the bundle's manifest.json, verifies every file's SHA-256, runs the program\n"
          "again on the saved inputs (every call, in order, through one executor) and compares:\n"
          "plans and stages by position and name, each stage's IR text exactly (a unified diff\n"
          "of those that differ), outputs and gradients within the corpus tolerances (float32\n"
          "1e-4, float64 1e-10 relative per tensor: max|a-b| / max(1, max|bundle|)), generated\n"
          "CUDA sources exactly.\n"
          "The saved inputs keep their device flags.\n" CLI_PROGRAM_DEVICE_HELP
          "Exit status 0 when everything matches, 1 when something differs, 2 when the bundle is\n"
          "malformed: a missing file, a file whose hash is not the manifest's (corruption or an\n"
          "edit), or a manifest that cannot be read; the message names the file.\n"
          "\n"
          "With --json: {\"ok\", \"differences\", \"files_verified\", \"run_error\", \"plans\": "
          "[{\"index\",\n"
          "\"dir\", \"plan\", \"match\", \"why\", \"stages\": [{\"index\", \"name\", \"file\", "
          "\"match\", \"why\",\n"
          "\"diff\"}]}], \"values\": [{\"label\", \"file\", \"match\", \"relative_error\", "
          "\"why\", \"diff\"}],\n"
          "\"kernels\": [...], \"notes\"}.",
      .options = options,
      .n_options = G_N_ELEMENTS(options),
      .min_positional = 1,
      .max_positional = 1,
      .run_limits = true,
  };
  const char *dir = NULL;
  GError *error = NULL;
  int status = CLI_EXIT_OK;
  AppBundleReplay *replay = NULL;

  if (cli_args_parse_one(&command, argc, argv, &dir, &error) != CLI_PARSE_OK)
    goto out;
  if (!(replay = app_bundle_replay(dir, &error))) {
    GError *named =
        g_error_new(error->domain, error->code, "bundle %s is malformed: %s", dir, error->message);
    g_error_free(error);
    error = named;
    goto out;
  }
  for (guint i = 0; i < replay->notes->len; i++)
    cli_note("%s", (const char *)g_ptr_array_index(replay->notes, i));
  if (json)
    json_out_print(replay_to_json(replay));
  else
    replay_print_text(replay);
  status = replay->ok ? CLI_EXIT_OK : CLI_EXIT_FAILED;

out:
  app_bundle_replay_free(replay);
  return cli_finish(status, error);
}
