/* Shared parsing, loading and binding of the program-running subcommands. */
#include "cli_program.h"

#include "cli.h"
#include "graph_file.h"
#include "passes/module_lowering.h"
#include "spec_header.h"

CliParseResult cli_program_parse(CliProgram *program, const CliCommand *command, int argc,
                                 char **argv, GError **error) {
  *program = (CliProgram){0};
  return cli_args_parse_one(command, argc, argv, &program->path, error);
}

/* The first call left without a definition (no plan can run it), or NULL. */
static const IrNode *first_unrunnable(const IrBlock *block) {
  IR_FOR_EACH_NODE(node, block) {
    if (node->kind == IR_PRIM_CALL_FUNCTION || node->kind == IR_PRIM_CALL_METHOD ||
        node->kind == IR_PRIM_GET_ATTR)
      return node;
    for (guint b = 0; b < ir_n_blocks(node); b++) {
      const IrNode *inner = first_unrunnable(ir_block(node, b));
      if (inner)
        return inner;
    }
  }
  return NULL;
}

/* Module graphs become functions of their attributes; calls that cannot run are refused here,
 * with their place, rather than deep in a plan. An op we do not know (an opaque node) is an
 * error only where a run reaches it: module graphs keep such ops in branches that raise or
 * warn. */
static bool lower_for_running(CliProgram *program, GError **error) {
  guint inlined = 0;
  pass_inline_calls(program->graph, &inlined);
  g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GError) local = NULL;
  if (!pass_lower_module_attributes(program->graph, added, &local)) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED, "%s: error: %s", program->path,
                local->message);
    return false;
  }
  if (inlined > 0 || added->len > 0) {
    g_ptr_array_add(added, NULL);
    g_autofree char *names = g_strjoinv(", ", (char **)added->pdata);
    cli_note("%s: inlined %u call%s; %u module attribute%s became input%s%s%s", program->path,
             inlined, inlined == 1 ? "" : "s", added->len - 1, added->len == 2 ? "" : "s",
             added->len == 2 ? "" : "s", added->len > 1 ? ": " : "", names);
  }
  const IrNode *bad = first_unrunnable(program->graph->block);
  if (bad == NULL)
    return true;
  const IrAttr *name = ir_node_attr(bad, IR_ATTR_NAME);
  const char *callee = name && name->kind == IR_ATTR_S ? name->v.s : "?";
  if (bad->kind == IR_PRIM_CALL_FUNCTION && ir_n_inputs(bad) > 0) {
    const IrAttr *fn = ir_node_attr(ir_input(bad, 0)->node, IR_ATTR_NAME);
    callee = fn && fn->kind == IR_ATTR_S ? fn->v.s : "?";
  }
  g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED,
              "%s: error: cannot run %s of '%s'%s%s: jitscope has no definition for it",
              program->path, ir_node_kind_name(bad), callee, bad->source ? " at " : "",
              bad->source ? bad->source : "");
  return false;
}

bool cli_program_load(CliProgram *program, GPtrArray *const *specs, const guint64 *seed,
                      GError **error) {
  g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
  program->choice.function = program->function;
  program->graph = app_graph_file_load(program->path, program->choice, warnings, error);
  for (guint i = 0; i < warnings->len; i++)
    g_printerr("jitscope: %s\n", (const char *)g_ptr_array_index(warnings, i));
  if (!program->graph)
    return false;
  if (!program->as_written && !lower_for_running(program, error))
    return false;
  if (!specs)
    return true;
  GPtrArray *given = *specs;
  g_autoptr(GPtrArray) from_header = NULL;
  if (!given || given->len == 0) {
    g_autoptr(GPtrArray) lines = app_spec_header_read_file(program->path, error);
    if (!lines)
      return false;
    if (lines->len > 0)
      given = from_header = app_spec_group_split(g_ptr_array_index(lines, 0));
  }
  program->inputs = app_inputs_bind(program->graph, given ? (char *const *)given->pdata : NULL,
                                    given ? given->len : 0, seed ? *seed : 0, error);
  if (program->inputs && !program->inputs_stay_on_host)
    cli_program_place_inputs(program, program->inputs);
  return program->inputs != NULL;
}

bool cli_program_place_inputs(CliProgram *program, AppInputs *inputs) {
  if (!program->notes)
    program->notes = g_ptr_array_new_with_free_func(g_free);
  guint said = program->notes->len;
  g_autofree char *why = NULL;
  bool on_device = app_inputs_place(inputs, program->notes, &why);
  for (guint i = said; i < program->notes->len; i++)
    cli_note("%s", (const char *)g_ptr_array_index(program->notes, i));
  if (why && !program->why_cpu)
    program->why_cpu = g_steal_pointer(&why);
  return on_device;
}

CliParseResult cli_program_open(CliProgram *program, const CliCommand *command, int argc,
                                char **argv, GPtrArray *const *specs, const guint64 *seed,
                                GError **error) {
  CliParseResult parsed = cli_program_parse(program, command, argc, argv, error);
  if (parsed != CLI_PARSE_OK)
    return parsed;
  return cli_program_load(program, specs, seed, error) ? CLI_PARSE_OK : CLI_PARSE_ERROR;
}

void cli_program_clear(CliProgram *program) {
  app_inputs_free(program->inputs);
  g_free(program->why_cpu);
  g_free(program->function);
  if (program->notes)
    g_ptr_array_unref(program->notes);
  if (program->graph)
    ir_graph_free(program->graph);
  *program = (CliProgram){0};
}

void cli_program_locate_run_error(const CliProgram *program, GError **error) {
  if (!*error || (*error)->domain == JITSCOPE_APP_ERROR)
    return;
  GError *located =
      g_error_new(JITSCOPE_APP_ERROR, APP_ERROR_LOCATED, "%s: error: running the graph failed: %s",
                  program->path, (*error)->message);
  g_error_free(*error);
  *error = located;
}
