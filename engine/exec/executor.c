/* Executors, plan caches and sessions (reference section 2). */
#include "exec/executor.h"

#include "exec/diff_graph_op.h"
#include "exec/eager_tape.h"
#include "exec/memory_plan.h"
#include "exec/pipeline.h"
#include "fuser/fuser.h"
#include "runtime/autograd.h"
#include "runtime/code.h"
#include "runtime/device.h"
#include "runtime/run_control.h"

struct ExecExecutor {
  ExecSession *session;
  ExecPlanKind kind;
  char *name;
  IrGraph *graph;
  GHashTable *plans; /* ExecArgumentSpec* (owned) -> ExecPlan* (owned) */
  guint hits, misses;
  ExecPlan *last_plan;
  /* The spec (a key of plans) and plan of the latest lookup: a call with inputs of the same
   * spec, the common case, takes it without making a spec and hashing it. */
  const ExecArgumentSpec *recent_spec;
  ExecPlan *recent_plan;
};

static void clear_last_inputs(ExecPlan *plan) {
  if (!plan->last_inputs)
    return;
  for (guint i = 0; i < plan->last_inputs->len; i++)
    rt_value_unref(g_array_index(plan->last_inputs, RtValue, i));
  g_array_free(plan->last_inputs, TRUE);
  plan->last_inputs = NULL;
  g_clear_pointer(&plan->last_generator, g_free);
}

static void plan_free(gpointer p) {
  ExecPlan *plan = p;
  clear_last_inputs(plan);
  rt_code_free(plan->code);
  exec_memory_inputs_free(plan->memory_inputs);
  exec_memory_plan_free(plan->memory);
  g_hash_table_destroy(plan->diff_states);
  if (plan->tape_formulas)
    g_hash_table_destroy(plan->tape_formulas);
  fuser_plan_state_free(plan->fuser);
  g_ptr_array_free(plan->stages, TRUE);
  ir_graph_free(plan->graph);
  g_free(plan->graph_name);
  g_free(plan->spec_text);
  g_free(plan);
}

void exec_stage_free(ExecStage *stage) {
  g_free(stage->name);
  if (stage->ir)
    g_ref_string_release(stage->ir);
  g_free(stage);
}

ExecSession *exec_session_new(void) {
  ExecSession *session = g_new0(ExecSession, 1);
  session->optimize = true;
  session->fuse = true;
  session->grad_enabled = true;
  /* resources/symbolic_script.py's formulas where one exists (reference section 6), the C
   * builders elsewhere; tests/script checks both give the same numbers bit for bit. */
  session->script_formulas = true;
#ifndef NDEBUG
  /* Debug builds (meson's default b_ndebug=false) verify the graph after every stage. */
  session->verify = true;
#endif
  session->plans = g_ptr_array_new();
  session->executors = g_ptr_array_new();
  return session;
}

static void executor_free(ExecExecutor *executor) {
  g_hash_table_destroy(executor->plans);
  ir_graph_free(executor->graph);
  g_free(executor->name);
  g_free(executor);
}

void exec_session_free(ExecSession *session) {
  if (!session)
    return;
  for (guint i = session->executors->len; i > 0; i--)
    executor_free(g_ptr_array_index(session->executors, i - 1));
  g_ptr_array_free(session->executors, TRUE);
  g_ptr_array_free(session->plans, TRUE);
  g_free(session);
}

ExecExecutor *exec_executor_new(ExecSession *session, const IrGraph *graph, const char *name,
                                ExecPlanKind kind) {
  return exec_executor_new_take(session, ir_graph_copy(graph), name, kind);
}

ExecExecutor *exec_executor_new_take(ExecSession *session, IrGraph *graph, const char *name,
                                     ExecPlanKind kind) {
  ExecExecutor *executor = g_new0(ExecExecutor, 1);
  executor->session = session;
  executor->kind = kind;
  executor->name = g_strdup(name);
  executor->graph = graph;
  executor->plans = g_hash_table_new_full(exec_argument_spec_hash, exec_argument_spec_equal,
                                          (GDestroyNotify)exec_argument_spec_free, plan_free);
  g_ptr_array_add(session->executors, executor);
  return executor;
}

ExecSession *exec_executor_session(const ExecExecutor *executor) {
  return executor->session;
}
const char *exec_executor_name(const ExecExecutor *executor) {
  return executor->name;
}
guint exec_executor_cache_hits(const ExecExecutor *executor) {
  return executor->hits;
}
ExecPlan *exec_executor_last_plan(const ExecExecutor *executor) {
  return executor->last_plan;
}
guint exec_executor_cache_misses(const ExecExecutor *executor) {
  return executor->misses;
}

static bool grad_mode(const ExecExecutor *executor) {
  /* Backward graphs run with grad mode off, as PyTorch's engine runs them. */
  return executor->kind == EXEC_PLAN_FORWARD && executor->session->grad_enabled;
}

/* Tuples among the inputs are flattened, as the spec and the specialized graph expect. */
static void flatten_inputs(GArray *out, const RtValue *inputs, guint n) {
  for (guint i = 0; i < n; i++) {
    if (inputs[i].tag == RT_TUPLE)
      flatten_inputs(out, inputs[i].u.seq->items, inputs[i].u.seq->len);
    else
      g_array_append_val(out, inputs[i]);
  }
}

ExecPlan *exec_executor_plan_for(ExecExecutor *executor, const RtValue *inputs, guint n_inputs,
                                 GError **error) {
  bool grad = grad_mode(executor);
  if (executor->recent_spec &&
      exec_argument_spec_matches(executor->recent_spec, inputs, n_inputs, grad)) {
    executor->hits++;
    return executor->recent_plan;
  }
  ExecArgumentSpec *spec = exec_argument_spec_new(inputs, n_inputs, grad);
  gpointer key = NULL, found = NULL;
  if (g_hash_table_lookup_extended(executor->plans, spec, &key, &found)) {
    executor->hits++;
    exec_argument_spec_free(spec);
    executor->recent_spec = key;
    executor->recent_plan = found;
    return found;
  }
  executor->misses++;
  gint64 started = g_get_monotonic_time();
  ExecPlan *plan = exec_pipeline_compile(executor, executor->graph, spec, error);
  if (!plan) {
    exec_argument_spec_free(spec);
    return NULL;
  }
  plan->kind = executor->kind;
  plan->code = rt_code_compile(plan->graph, error);
  if (!plan->code) {
    g_ptr_array_remove(executor->session->plans, plan);
    plan_free(plan);
    exec_argument_spec_free(spec);
    return NULL;
  }
  g_autoptr(GArray) flat = g_array_new(FALSE, FALSE, sizeof(RtValue));
  flatten_inputs(flat, inputs, n_inputs);
  plan->memory_inputs = exec_memory_inputs_new((const RtValue *)flat->data, flat->len);
  plan->compile_ms = (double)(g_get_monotonic_time() - started) / 1000.0;
  g_hash_table_insert(executor->plans, spec, plan);
  executor->recent_spec = spec;
  executor->recent_plan = plan;
  return plan;
}

const ExecMemoryPlan *exec_plan_memory(const ExecPlan *plan) {
  static GMutex lock;
  g_mutex_lock(&lock);
  ExecPlan *cache = (ExecPlan *)plan;
  if (!cache->memory && cache->memory_inputs)
    cache->memory = exec_memory_plan_for(plan->graph, plan->memory_inputs);
  g_mutex_unlock(&lock);
  return plan->memory;
}

static bool run_given_diff_graph(ExecPlan *plan, const IrNode *node, RtValue *inputs,
                                 guint n_inputs, RtValue *outputs, guint n_outputs,
                                 GError **error) {
  RtInterpreterHooks hooks = {.run_special = exec_plan_run_special, .ctx = plan};
  g_autofree RtValue *results = NULL;
  guint n_results = 0;
  if (!rt_interpret(ir_node_attr_g(node, IR_ATTR_SUBGRAPH), &hooks, inputs, n_inputs, &results,
                    &n_results, error))
    return false;
  for (guint i = 0; i < n_results; i++) {
    if (i < n_outputs)
      outputs[i] = results[i];
    else
      rt_value_unref(results[i]);
  }
  return true;
}

bool exec_plan_run_special(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                           RtValue *outputs, guint n_outputs, GError **error) {
  ExecPlan *plan = ctx;
  if (node->kind == IR_PRIM_DIFFERENTIABLE_GRAPH) {
    ExecDiffState *state = g_hash_table_lookup(plan->diff_states, node);
    if (state)
      return exec_diff_graph_run(plan, state, node, inputs, n_inputs, outputs, n_outputs, error);
    /* One the program came with, in a plan without gradients: its body is a plain call (the
     * values it returns besides the node's outputs, saved for a backward, are dropped). */
    return run_given_diff_graph(plan, node, inputs, n_inputs, outputs, n_outputs, error);
  }
  /* Fusion groups: a device backend, else the Subgraph interpreted (fuser.h). */
  return fuser_run_group(plan->fuser, node, inputs, n_inputs, outputs, n_outputs, error);
}

bool exec_executor_run(ExecExecutor *executor, const RtValue *inputs, guint n_inputs,
                       RtValue **outputs, guint *n_outputs, GError **error) {
  ExecPlan *plan = exec_executor_plan_for(executor, inputs, n_inputs, error);
  if (!plan)
    return false;
  executor->last_plan = plan;
  /* Inputs without tuples are their own flattening (most calls: no copy). */
  g_autoptr(GArray) flat = NULL;
  const RtValue *args = inputs;
  guint n_args = n_inputs;
  for (guint i = 0; i < n_inputs && !flat; i++) {
    if (inputs[i].tag == RT_TUPLE) {
      flat = g_array_new(FALSE, FALSE, sizeof(RtValue));
      flatten_inputs(flat, inputs, n_inputs);
      args = (const RtValue *)flat->data;
      n_args = flat->len;
    }
  }
  RtInterpreterHooks hooks = {.run_special = exec_plan_run_special, .ctx = plan};
  if (grad_mode(executor))
    hooks.after_node = exec_eager_tape_record;
  guint n = rt_code_n_outputs(plan->code);
  g_autofree RtValue *results = g_new0(RtValue, n);
  g_assert(n_args == rt_code_n_inputs(plan->code) && "the spec fixed the input count");
  if (executor->session->record_inputs) {
    clear_last_inputs(plan);
    plan->last_inputs = g_array_sized_new(FALSE, FALSE, sizeof(RtValue), n_args);
    plan->last_generator = g_new(RtGenerator, 1);
    rt_generator_get(plan->last_generator);
    for (guint i = 0; i < n_args; i++) {
      RtValue v = args[i];
      /* Detached: a kept input must not hold the autograd graph alive. */
      if (v.tag == RT_TENSOR && v.u.tensor)
        v = rt_tensor(rt_autograd_detach(v.u.tensor));
      else
        v = rt_value_ref(v);
      g_array_append_val(plan->last_inputs, v);
    }
  }
  bool previous_grad_mode = rt_run_set_grad_mode(grad_mode(executor));
  bool ok = rt_code_run(plan->code, &hooks, args, n_args, results, error);
  rt_run_set_grad_mode(previous_grad_mode);
  if (!ok)
    return false;
  *outputs = g_steal_pointer(&results);
  *n_outputs = n;
  return true;
}

bool exec_session_backward(ExecSession *session, RtTensor **outputs, RtTensor **seeds,
                           guint n_outputs, RtTensor **inputs, guint n_inputs, RtTensor **grads,
                           GError **error) {
  if (!rt_autograd_backward(outputs, seeds, n_outputs, inputs, n_inputs, grads, error))
    return false;
  for (guint i = 0; i < n_inputs; i++) {
    RtTensor *in = inputs[i];
    if (!grads[i] && in && in->requires_grad) {
      grads[i] = rt_tensor_full_like_device(in, in->dtype, in->ndim, in->sizes, 0.0, error);
      if (grads[i] == NULL) {
        for (guint k = 0; k < n_inputs; k++)
          g_clear_pointer(&grads[k], rt_tensor_unref);
        return false;
      }
    }
  }
  return true;
}
