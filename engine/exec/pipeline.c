/* compileSpec as a stage table (reference section 2):
 *   0 specialize: input types from the spec, specializeAutogradZero, LowerSimpleTuples,
 *     ConstantPooling;
 *   1 required: LowerGradOf, RemoveExpands, CanonicalizeOps, DCE;
 *   2 propagate: ConstantPropagation, PropagateInputShapes, PropagateRequiresGrad;
 *   3 optimize (runOptimization): DCE, CSE, ConstantPooling, Peephole, ConstantPropagation,
 *     UnrollLoops, CSE, CheckInplace;
 *   4 autodiff when a gradient is needed: CreateAutodiffSubgraphs, differentiate each group
 *     and optimize its f, InlineAutodiffSubgraphs;
 *   5 nondiff otherwise (runNondiffOptimization): DecomposeOps, LowerSimpleTuples, FuseGraph;
 *   6 final DCE. */
#include "exec/pipeline.h"

#include <string.h>

#include "fuser/fuser.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/code.h"
#include "script/symbolic_script.h"

struct ExecCompile {
  ExecPlan *plan;
  ExecSession *session;
  const ExecArgumentSpec *spec;
  GError **error;
  char *previous_ir;            /* a GRefString: the latest stage's text */
  guint64 previous_fingerprint; /* of previous_ir's graph (taken with a hook or verifying) */
  gint64 recorded_us;           /* the recorded stages' times so far, summed */
};

/* When a stage began, and how much recorded stage time there was then: a stage that runs
 * and records stages of its own (differentiate) counts only the time outside them. */
typedef struct {
  gint64 started_us, recorded_before_us;
} StageClock;

static StageClock stage_clock_start(const ExecCompile *c) {
  return (StageClock){g_get_monotonic_time(), c->recorded_us};
}

static ExecStageResult stage_result(bool changed) {
  return changed ? EXEC_STAGE_CHANGED : EXEC_STAGE_UNCHANGED;
}

static ExecStageResult stage_specialize_input_types(ExecCompile *c, IrGraph *graph) {
  return exec_argument_spec_apply(c->spec, graph, c->error) ? EXEC_STAGE_CHANGED
                                                            : EXEC_STAGE_FAILED;
}

static ExecStageResult stage_create_autodiff_subgraphs(ExecCompile *c, IrGraph *graph) {
  return stage_result(pass_create_autodiff_subgraphs(graph, 2));
}

static ExecStageResult stage_inline_autodiff_subgraphs(ExecCompile *c, IrGraph *graph) {
  return stage_result(pass_inline_autodiff_subgraphs(graph, 5));
}

static ExecStageResult stage_differentiate(ExecCompile *c, IrGraph *graph);

static const ExecStageDef optimization_stages[] = {
    {"eliminate_dead_code", "optimize", EXEC_WHEN_OPTIMIZING, pass_eliminate_dead_code, NULL},
    {"eliminate_common_subexpression", "optimize", EXEC_WHEN_OPTIMIZING,
     pass_eliminate_common_subexpression, NULL},
    {"constant_pooling", "optimize", EXEC_WHEN_OPTIMIZING, pass_constant_pooling, NULL},
    {"peephole", "optimize", EXEC_WHEN_OPTIMIZING, pass_peephole, NULL},
    {"constant_propagation", "optimize", EXEC_WHEN_OPTIMIZING, pass_constant_propagation, NULL},
    {"unroll_loops", "optimize", EXEC_WHEN_OPTIMIZING, pass_unroll_loops, NULL},
    {"eliminate_common_subexpression", "optimize", EXEC_WHEN_OPTIMIZING,
     pass_eliminate_common_subexpression, NULL},
    {"check_inplace", "optimize", EXEC_WHEN_OPTIMIZING, pass_check_inplace, NULL},
};

/* FuseGraph, gated by the session's fuser switch. */
static ExecStageResult stage_fuse_graph(ExecCompile *c, IrGraph *graph) {
  return stage_result(c->session->fuse && pass_fuse_graph(graph));
}

static const ExecStageDef nondiff_stages[] = {
    {"decompose_ops", "nondiff", EXEC_WHEN_NO_GRAD, pass_decompose_ops, NULL},
    {"lower_simple_tuples", "nondiff", EXEC_WHEN_NO_GRAD, pass_lower_simple_tuples, NULL},
    {"fuse_graph", "nondiff", EXEC_WHEN_NO_GRAD, NULL, stage_fuse_graph},
};

static const ExecStageDef stages[] = {
    {"specialize_input_types", "specialize", EXEC_WHEN_ALWAYS, NULL, stage_specialize_input_types},
    {"specialize_autograd_zero", "specialize", EXEC_WHEN_ALWAYS, pass_specialize_autograd_zero,
     NULL},
    {"lower_simple_tuples", "specialize", EXEC_WHEN_ALWAYS, pass_lower_simple_tuples, NULL},
    {"constant_pooling", "specialize", EXEC_WHEN_ALWAYS, pass_constant_pooling, NULL},
    {"lower_grad_of", "required", EXEC_WHEN_ALWAYS, pass_lower_grad_of, NULL},
    {"remove_expands", "required", EXEC_WHEN_ALWAYS, pass_remove_expands, NULL},
    {"canonicalize_ops", "required", EXEC_WHEN_ALWAYS, pass_canonicalize_ops, NULL},
    {"eliminate_dead_code", "required", EXEC_WHEN_ALWAYS, pass_eliminate_dead_code, NULL},
    {"constant_propagation", "propagate", EXEC_WHEN_OPTIMIZING, pass_constant_propagation, NULL},
    {"propagate_input_shapes", "propagate", EXEC_WHEN_OPTIMIZING, pass_propagate_input_shapes,
     NULL},
    {"propagate_requires_grad", "propagate", EXEC_WHEN_OPTIMIZING, pass_propagate_requires_grad,
     NULL},
    /* runOptimization is spliced in here: see exec_pipeline_compile. */
    /* Groups the program came with carry no gradient (neither autodiff nor the eager tape reads
     * into them): their nodes are what gradients come from. Without gradients they run as
     * given. */
    {"inline_given_subgraphs", "autodiff", EXEC_WHEN_RECORDING, pass_inline_given_subgraphs, NULL},
    {"create_autodiff_subgraphs", "autodiff", EXEC_WHEN_GRAD, NULL,
     stage_create_autodiff_subgraphs},
    {"differentiate", "autodiff", EXEC_WHEN_GRAD, NULL, stage_differentiate},
    {"inline_autodiff_subgraphs", "autodiff", EXEC_WHEN_GRAD, NULL,
     stage_inline_autodiff_subgraphs},
    /* runNondiffOptimization is spliced in here. */
    {"final_dead_code", "optimize", EXEC_WHEN_ALWAYS, pass_eliminate_dead_code, NULL},
};

/* Where runOptimization and runNondiffOptimization go in `stages`. */
#define OPTIMIZATION_AFTER 10 /* after propagate_requires_grad */
#define NONDIFF_AFTER 14      /* after inline_autodiff_subgraphs */

const ExecStageDef *exec_pipeline_stages(guint *n) {
  *n = G_N_ELEMENTS(stages);
  return stages;
}

const ExecStageDef *exec_pipeline_optimization_stages(guint *n) {
  *n = G_N_ELEMENTS(optimization_stages);
  return optimization_stages;
}

const ExecStageDef *exec_pipeline_nondiff_stages(guint *n) {
  *n = G_N_ELEMENTS(nondiff_stages);
  return nondiff_stages;
}

static bool stage_applies(const ExecCompile *c, ExecStageWhen when) {
  switch (when) {
  case EXEC_WHEN_ALWAYS: return true;
  case EXEC_WHEN_OPTIMIZING: return c->session->optimize;
  case EXEC_WHEN_GRAD: return c->session->optimize && exec_argument_spec_needs_gradient(c->spec);
  case EXEC_WHEN_NO_GRAD:
    return c->session->optimize && !exec_argument_spec_needs_gradient(c->spec);
  case EXEC_WHEN_RECORDING: return exec_argument_spec_needs_gradient(c->spec);
  }
  return false;
}

/* Records the state of `whole` (the plan's graph) after a stage named `name`;
 * `claimed_unchanged` when the stage said it changed nothing. */
static void record_stage(ExecCompile *c, const char *name, const char *group, IrGraph *whole,
                         StageClock clock, bool claimed_unchanged) {
  ExecStage *stage = g_new0(ExecStage, 1);
  stage->name = g_strdup(name);
  stage->group = group;
  gint64 nested_us = c->recorded_us - clock.recorded_before_us;
  gint64 own_us = g_get_monotonic_time() - clock.started_us - nested_us;
  c->recorded_us += own_us;
  stage->ms = (double)own_us / 1000.0;
  if (c->session->stage_hook)
    c->session->stage_hook(c->plan, name, whole, c->session->stage_hook_data);
  if (c->session->verify)
    ir_graph_assert_valid(whole, name);
  /* Most stages change nothing, say so, and their text is the previous one's. A hook may
   * change the graph after the stage, so with one the claim is not taken and the fingerprint
   * tells instead, without printing; a stage that says it changed is printed (the fingerprint
   * would cost a third of a print to save one now and then). Verifying sessions print anyway
   * and check both the claim and the fingerprint. */
  bool claimed_same = claimed_unchanged && c->previous_ir && !c->session->stage_hook;
  if (claimed_same && !c->session->verify) {
    stage->ir = g_ref_string_acquire(c->previous_ir);
    stage->changed = false;
    g_ptr_array_add(c->plan->stages, stage);
    return;
  }
  bool fingerprinting = c->session->stage_hook || c->session->verify;
  guint64 fingerprint = fingerprinting ? ir_graph_fingerprint(whole) : 0;
  bool same = fingerprinting && c->previous_ir && fingerprint == c->previous_fingerprint;
  if (same && !c->session->verify) {
    stage->ir = g_ref_string_acquire(c->previous_ir);
    stage->changed = false;
  } else {
    g_autofree char *text = ir_graph_to_string(whole);
    stage->changed = !c->previous_ir || strcmp(text, c->previous_ir) != 0;
    if (same && stage->changed)
      g_error("pipeline invariant: %s changed the printed graph but not its fingerprint", name);
    if (claimed_same && stage->changed)
      g_error("pipeline invariant: %s said it changed nothing but changed the printed graph", name);
    if (stage->changed) {
      if (c->previous_ir)
        g_ref_string_release(c->previous_ir);
      c->previous_ir = g_ref_string_new(text);
    }
    stage->ir = g_ref_string_acquire(c->previous_ir);
    c->previous_fingerprint = fingerprint;
  }
  g_ptr_array_add(c->plan->stages, stage);
}

/* Runs one stage on `graph`; `whole` is what gets recorded (differs for f sub-stages). */
static bool run_stage(ExecCompile *c, const ExecStageDef *def, const char *name, IrGraph *graph,
                      IrGraph *whole) {
  StageClock clock = stage_clock_start(c);
  bool unchanged;
  if (def->pass) {
    unchanged = !def->pass(graph);
  } else {
    ExecStageResult result = def->run(c, graph);
    if (result == EXEC_STAGE_FAILED)
      return false;
    unchanged = result == EXEC_STAGE_UNCHANGED;
  }
  record_stage(c, name, def->group, whole, clock, unchanged);
  return true;
}

static void run_stage_list(ExecCompile *c, const ExecStageDef *list, guint n, IrGraph *graph,
                           IrGraph *whole, const char *prefix, bool force) {
  for (guint i = 0; i < n; i++) {
    if (!force && !stage_applies(c, list[i].when))
      continue;
    g_autofree char *name =
        prefix ? g_strdup_printf("%s.%s", prefix, list[i].name) : g_strdup(list[i].name);
    run_stage(c, &list[i], name, graph, whole);
  }
}

/* The DifferentiableGraph nodes of a block and of the blocks nested in it (a loop body's
 * among them), in order. */
static void collect_diff_graphs(IrBlock *block, GPtrArray *into) {
  IR_FOR_EACH_NODE(node, block) {
    if (node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH)
      g_ptr_array_add(into, node);
    for (guint b = 0; b < ir_n_blocks(node); b++)
      collect_diff_graphs(ir_block(node, b), into);
  }
}

/* Differentiates every DifferentiableGraph of the plan's graph, nested ones included:
 * replaces its Subgraph by the optimized f, keeps the Gradient in the plan, and gives df its
 * own executor. */
static ExecStageResult stage_differentiate(ExecCompile *c, IrGraph *graph) {
  guint index = 0;
  g_autoptr(GPtrArray) nodes = g_ptr_array_new();
  collect_diff_graphs(graph->block, nodes);
  for (guint i = 0; i < nodes->len; i++) {
    IrNode *node = g_ptr_array_index(nodes, i);
    char *group_name = g_strdup_printf("DifferentiableGraph_%u", index++);
    StageClock clock = stage_clock_start(c);
    /* The body is differentiated in place into f, which goes back into the node: neither is
     * copied (the node is this plan's own copy of the program). */
    IrGraph *body = ir_node_take_attr_g(node, IR_ATTR_SUBGRAPH);
    /* The script formulas where one exists: its nodes carry symbolic_script.py's source
     * ranges, so the plan shows which formula differentiated each node. */
    AdGradient *gradient = c->session->script_formulas
                               ? ad_differentiate_with(body, script_formulas_lookup,
                                                       (gpointer)script_formulas_builtin())
                               : ad_differentiate(body);
    IrGraph *f = g_steal_pointer(&gradient->f);
    ir_node_set_attr_g(node, IR_ATTR_SUBGRAPH, f);
    g_autofree char *differentiated = g_strdup_printf("%s.differentiate", group_name);
    record_stage(c, differentiated, "autodiff", graph, clock, false);

    static const ExecStageDef shapes = {"propagate_input_shapes", "autodiff", EXEC_WHEN_ALWAYS,
                                        pass_propagate_input_shapes, NULL};
    g_autofree char *shapes_name = g_strdup_printf("%s.propagate_input_shapes", group_name);
    run_stage(c, &shapes, shapes_name, f, graph);
    run_stage_list(c, optimization_stages, G_N_ELEMENTS(optimization_stages), f, graph, group_name,
                   true);
    run_stage_list(c, nondiff_stages, G_N_ELEMENTS(nondiff_stages), f, graph, group_name, true);

    ExecDiffState *state = g_new0(ExecDiffState, 1);
    state->gradient = gradient;
    state->name = group_name;
    g_autofree char *backward_name =
        g_strdup_printf("%s/%s/backward", c->plan->graph_name, group_name);
    state->backward = exec_executor_new_take(c->session, g_steal_pointer(&gradient->df),
                                             backward_name, EXEC_PLAN_BACKWARD);
    g_hash_table_insert(c->plan->diff_states, node, state);
  }
  /* What it did is recorded by the stages above; the graph is as the last of them left it. */
  return EXEC_STAGE_UNCHANGED;
}

static void diff_state_free(gpointer p) {
  ExecDiffState *state = p;
  rt_code_free(state->f_code);
  ad_gradient_free(state->gradient);
  g_free(state->name);
  g_free(state);
}

ExecPlan *exec_pipeline_compile(ExecExecutor *executor, const IrGraph *source,
                                const ExecArgumentSpec *spec, GError **error) {
  ExecSession *session = exec_executor_session(executor);
  ExecPlan *plan = g_new0(ExecPlan, 1);
  plan->executor = executor;
  plan->graph_name = g_strdup(exec_executor_name(executor));
  plan->spec_text = exec_argument_spec_to_string(spec);
  plan->stages = g_ptr_array_new_with_free_func((GDestroyNotify)exec_stage_free);
  plan->diff_states = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, diff_state_free);
  plan->fuser = fuser_plan_state_new();
  plan->graph = ir_graph_copy(source);

  ExecCompile c = {.plan = plan, .session = session, .spec = spec, .error = error};
  GError *local = NULL;
  if (!error)
    c.error = &local;
  bool ok = true;
  for (guint i = 0; i < G_N_ELEMENTS(stages) && ok; i++) {
    if (stage_applies(&c, stages[i].when))
      ok = run_stage(&c, &stages[i], stages[i].name, plan->graph, plan->graph);
    if (i == OPTIMIZATION_AFTER)
      run_stage_list(&c, optimization_stages, G_N_ELEMENTS(optimization_stages), plan->graph,
                     plan->graph, NULL, false);
    if (i == NONDIFF_AFTER)
      run_stage_list(&c, nondiff_stages, G_N_ELEMENTS(nondiff_stages), plan->graph, plan->graph,
                     NULL, false);
  }
  if (c.previous_ir)
    g_ref_string_release(c.previous_ir);
  g_clear_error(&local);
  if (!ok) {
    g_hash_table_destroy(plan->diff_states);
    g_ptr_array_free(plan->stages, TRUE);
    ir_graph_free(plan->graph);
    g_free(plan->graph_name);
    g_free(plan->spec_text);
    g_free(plan);
    return NULL;
  }
  plan->index = session->plans->len;
  g_ptr_array_add(session->plans, plan);
  return plan;
}
