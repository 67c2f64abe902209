/* Running a FusionGroup: backend registry, per-plan records and caches, sum-to-size at the
 * outputs, and the interpreter fallback (reference section 5, fact 7.10). */
#include "fuser/fuser.h"

#include <stdarg.h>
#include <string.h>

#include "fuser/cpu_codegen.h"
#include "runtime/device.h"
#include "runtime/interpreter.h"

static GMutex registry_lock;
static GPtrArray *registry; /* of const FuserBackend*, registration order */

void fuser_register_backend(const FuserBackend *backend) {
  g_mutex_lock(&registry_lock);
  if (!registry)
    registry = g_ptr_array_new();
  if (!g_ptr_array_find(registry, backend, NULL))
    g_ptr_array_add(registry, (gpointer)backend);
  g_mutex_unlock(&registry_lock);
}

/* A record plus the backends' cached objects for one group of one plan. */
typedef struct {
  FuserGroupRecord record;
  GHashTable *cache;      /* const FuserBackend* -> object */
  GHashTable *cache_free; /* const FuserBackend* -> GDestroyNotify */
} GroupState;

static GMutex state_lock;

static void group_state_free(gpointer p) {
  GroupState *s = p;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init(&it, s->cache);
  while (g_hash_table_iter_next(&it, &key, &value)) {
    GDestroyNotify destroy = (GDestroyNotify)g_hash_table_lookup(s->cache_free, key);
    if (destroy)
      destroy(value);
  }
  g_hash_table_destroy(s->cache);
  g_hash_table_destroy(s->cache_free);
  g_free(s->record.group_name);
  g_free(s->record.backend);
  g_free(s->record.fallback_reason);
  g_free(s);
}

/* The group's name in print order: the index among FusionGroup nodes of its graph. */
static char *group_name(const IrNode *group) {
  guint index = 0;
  const IrBlock *block = group->owning_block;
  if (block)
    IR_FOR_EACH_NODE(n, block) {
      if (n == group)
        break;
      if (n->kind == IR_PRIM_FUSION_GROUP)
        index++;
    }
  return g_strdup_printf("FusionGroup_%u", index);
}

struct FuserPlanState {
  GHashTable *groups; /* const IrNode* -> GroupState*; NULL until a group runs */
  /* The group of the latest lookup and its state: a run looks its group up twice or more
   * (the backend's cache, the record), most plans have one group. */
  const IrNode *recent_group;
  GroupState *recent_state;
};

FuserPlanState *fuser_plan_state_new(void) {
  return g_new0(FuserPlanState, 1);
}

void fuser_plan_state_free(FuserPlanState *state) {
  if (!state)
    return;
  if (state->groups)
    g_hash_table_destroy(state->groups);
  g_free(state);
}

/* Call with state_lock held. */
static GroupState *state_for(FuserPlanState *state, const IrNode *group) {
  if (state->recent_group == group)
    return state->recent_state;
  if (!state->groups)
    state->groups = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, group_state_free);
  GroupState *s = g_hash_table_lookup(state->groups, group);
  if (!s) {
    s = g_new0(GroupState, 1);
    s->record.group_name = group_name(group);
    s->cache = g_hash_table_new(g_direct_hash, g_direct_equal);
    s->cache_free = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_hash_table_insert(state->groups, (gpointer)group, s);
  }
  state->recent_group = group;
  state->recent_state = s;
  return s;
}

GHashTable *fuser_plan_records(const FuserPlanState *state) {
  return state ? state->groups : NULL;
}

static gint compare_lines(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char *fuser_plan_records_describe(const FuserPlanState *state) {
  g_autoptr(GString) out = g_string_new(NULL);
  if (!fuser_plan_records(state))
    return g_string_free(g_steal_pointer(&out), FALSE);
  GList *values = g_hash_table_get_values(state->groups);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
  for (GList *l = values; l; l = l->next) {
    FuserGroupRecord *r = l->data;
    g_ptr_array_add(lines,
                    g_strdup_printf("%s: %s (%u run%s, %.3f ms)%s%s\n", r->group_name,
                                    r->backend ? r->backend : "-", r->runs, r->runs == 1 ? "" : "s",
                                    r->last_ms, r->fallback_reason ? ": " : "",
                                    r->fallback_reason ? r->fallback_reason : ""));
  }
  g_list_free(values);
  g_ptr_array_sort(lines, compare_lines);
  for (guint i = 0; i < lines->len; i++)
    g_string_append(out, g_ptr_array_index(lines, i));
  return g_string_free(g_steal_pointer(&out), FALSE);
}

void *fuser_group_cache(FuserPlanState *state, const IrNode *group, const FuserBackend *backend,
                        FuserCacheCreate create, GDestroyNotify destroy, bool *owned,
                        GError **error) {
  *owned = false;
  if (!state) {
    *owned = true;
    return create(group, error);
  }
  g_mutex_lock(&state_lock);
  GroupState *s = state_for(state, group);
  void *obj = g_hash_table_lookup(s->cache, backend);
  if (!obj) {
    obj = create(group, error);
    if (obj) {
      g_hash_table_insert(s->cache, (gpointer)backend, obj);
      g_hash_table_insert(s->cache_free, (gpointer)backend, (gpointer)destroy);
    }
  }
  g_mutex_unlock(&state_lock);
  return obj;
}

bool fuser_sum_to_targets(const IrNode *group, const RtValue *inputs, guint n_inputs,
                          FuserSumTo *targets, guint n_outputs, GError **error) {
  /* Interned once: g_intern_static_string takes a global lock and a hash lookup. */
  static const char *name;
  static gsize once = 0;
  if (g_once_init_enter(&once)) {
    name = g_intern_static_string(FUSER_ATTR_SUM_TO_SIZE);
    g_once_init_leave(&once, 1);
  }
  for (guint i = 0; i < n_outputs; i++)
    targets[i].ndim = -1;
  const IrAttr *a = ir_node_attr(group, name);
  if (!a)
    return true;
  if (a->kind != IR_ATTR_IS || a->v.is->len != n_outputs) {
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                "FusionGroup: %s must list one input index per output", FUSER_ATTR_SUM_TO_SIZE);
    return false;
  }
  for (guint i = 0; i < n_outputs; i++) {
    gint64 index = g_array_index(a->v.is, gint64, i);
    if (index < 0)
      continue;
    if ((guint64)index >= n_inputs) {
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                  "FusionGroup: sum-to-size input %" G_GINT64_FORMAT " out of range", index);
      return false;
    }
    RtValue size = inputs[index];
    if (size.tag == RT_NONE)
      continue;
    gint64 sizes[RT_MAX_DIMS];
    guint n = 0;
    if (!rt_value_to_int_list(size, sizes, RT_MAX_DIMS, &n)) {
      g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                  "FusionGroup: sum-to-size input %" G_GINT64_FORMAT " is not an int list", index);
      return false;
    }
    targets[i].ndim = (int)n;
    for (guint k = 0; k < n; k++)
      targets[i].sizes[k] = sizes[k];
  }
  return true;
}

bool fuser_sum_outputs(const FuserSumTo *targets, RtValue *outputs, guint n_outputs,
                       GError **error) {
  for (guint i = 0; i < n_outputs; i++) {
    if (targets[i].ndim < 0 || outputs[i].tag != RT_TENSOR || !outputs[i].u.tensor)
      continue;
    RtTensor *summed =
        rt_tensor_sum_to_any(outputs[i].u.tensor, targets[i].ndim, targets[i].sizes, error);
    if (!summed)
      return false;
    rt_value_unref(outputs[i]);
    outputs[i] = rt_tensor(summed);
  }
  return true;
}

bool fuser_apply_sum_to(const IrNode *group, const RtValue *inputs, guint n_inputs,
                        RtValue *outputs, guint n_outputs, GError **error) {
  FuserSumTo on_stack[8];
  FuserSumTo *targets =
      n_outputs <= G_N_ELEMENTS(on_stack) ? on_stack : g_new(FuserSumTo, n_outputs);
  bool ok = fuser_sum_to_targets(group, inputs, n_inputs, targets, n_outputs, error) &&
            fuser_sum_outputs(targets, outputs, n_outputs, error);
  if (targets != on_stack)
    g_free(targets);
  return ok;
}

static bool interpret_group(const IrNode *group, RtValue *inputs, guint n, RtValue *outputs,
                            guint n_out, GError **error) {
  IrGraph *body = ir_node_attr_g(group, IR_ATTR_SUBGRAPH);
  g_autofree RtValue *results = NULL;
  guint n_results = 0;
  if (!rt_interpret(body, NULL, inputs, n, &results, &n_results, error))
    return false;
  if (n_results != n_out) {
    for (guint i = 0; i < n_results; i++)
      rt_value_unref(results[i]);
    g_set_error(error, JITSCOPE_RUNTIME_ERROR, RT_ERROR_VALUE,
                "FusionGroup: the Subgraph returns %u values for %u outputs", n_results, n_out);
    return false;
  }
  memcpy(outputs, results, sizeof(RtValue) * n_out);
  if (!fuser_apply_sum_to(group, inputs, n, outputs, n_out, error)) {
    for (guint i = 0; i < n_out; i++) {
      rt_value_unref(outputs[i]);
      outputs[i] = rt_none();
    }
    return false;
  }
  return true;
}

static void record(FuserPlanState *state, const IrNode *group, const char *backend, const char *why,
                   double ms) {
  if (!state)
    return;
  g_mutex_lock(&state_lock);
  GroupState *s = state_for(state, group);
  /* A plan's group runs on the same backend for the same reason call after call: copy the
   * strings only when they change. */
  if (g_strcmp0(s->record.backend, backend) != 0) {
    g_free(s->record.backend);
    s->record.backend = g_strdup(backend);
  }
  const char *reason = why && *why ? why : NULL;
  if (g_strcmp0(s->record.fallback_reason, reason) != 0) {
    g_free(s->record.fallback_reason);
    s->record.fallback_reason = g_strdup(reason);
  }
  s->record.runs++;
  s->record.last_ms = ms;
  g_mutex_unlock(&state_lock);
}

/* Appends "; " and a reason to *why, made on the first reason (most runs have none). */
static void add_reason(GString **why, const char *format, ...) G_GNUC_PRINTF(2, 3);
static void add_reason(GString **why, const char *format, ...) {
  if (!*why)
    *why = g_string_new(NULL);
  else
    g_string_append(*why, "; ");
  va_list args;
  va_start(args, format);
  g_string_append_vprintf(*why, format, args);
  va_end(args);
}

/* 0 bool, 1 integral, 2 floating: the categories of PyTorch's type promotion. */
static int dtype_category(IrDtype d) {
  return d == IR_DTYPE_BOOL ? 0 : ir_type_is_float_dtype(d) ? 2 : 1;
}

/* Would a 0-dim tensor input widen a dimensioned one's dtype within its category? PyTorch's
 * result_type ranks 0-dim tensors below dimensioned ones of the same category (Float(3) +
 * Double() is float32); the generated kernels promote every tensor operand alike, so such a
 * group is interpreted instead. (A 0-dim tensor of a higher category leads in both.) */
static bool zero_dim_would_widen(const RtValue *inputs, guint n) {
  for (guint i = 0; i < n; i++) {
    const RtTensor *z = inputs[i].tag == RT_TENSOR ? inputs[i].u.tensor : NULL;
    if (!z || z->ndim != 0)
      continue;
    for (guint j = 0; j < n; j++) {
      const RtTensor *t = inputs[j].tag == RT_TENSOR ? inputs[j].u.tensor : NULL;
      if (t && t->ndim > 0 && dtype_category(z->dtype) <= dtype_category(t->dtype) &&
          rt_promote_types(t->dtype, z->dtype) != t->dtype)
        return true;
    }
  }
  return false;
}

bool fuser_run_group(FuserPlanState *state, const IrNode *group, RtValue *inputs, guint n,
                     RtValue *outputs, guint n_out, GError **error) {
  gint64 started = g_get_monotonic_time();
  if (zero_dim_would_widen(inputs, n)) {
    bool ok = interpret_group(group, inputs, n, outputs, n_out, error);
    if (ok)
      record(state, group, "interpreter",
             "a 0-dim input of a wider dtype than a dimensioned one (PyTorch ranks it lower "
             "in type promotion; the fused backends do not)",
             (double)(g_get_monotonic_time() - started) / 1000.0);
    return ok;
  }
  /* The registered backends (a handful, each registered once), then the two host ones. */
  g_mutex_lock(&registry_lock);
  guint n_backends = registry ? registry->len : 0;
  const FuserBackend **backends = g_newa(const FuserBackend *, n_backends + 2);
  for (guint b = 0; b < n_backends; b++)
    backends[b] = g_ptr_array_index(registry, b);
  g_mutex_unlock(&registry_lock);
  backends[n_backends++] = fuser_cpu_codegen_backend();
  backends[n_backends++] = fuser_cpu_backend();

  g_autoptr(GString) why = NULL;
  bool ok = false;
  for (guint b = 0; b < n_backends && !ok; b++) {
    const FuserBackend *backend = backends[b];
    g_autofree char *reason = NULL;
    if (!backend->can_run(backend, group, inputs, n, &reason)) {
      add_reason(&why, "%s", reason ? reason : backend->name);
      continue;
    }
    g_autoptr(GError) local = NULL;
    for (guint i = 0; i < n_out; i++)
      outputs[i] = rt_none();
    if (backend->run(backend, state, group, inputs, n, outputs, n_out, &local)) {
      ok = true;
      record(state, group, backend->name, why ? why->str : NULL,
             (double)(g_get_monotonic_time() - started) / 1000.0);
      break;
    }
    for (guint i = 0; i < n_out; i++) {
      rt_value_unref(outputs[i]);
      outputs[i] = rt_none();
    }
    add_reason(&why, "%s: %s", backend->name, local->message);
  }
  if (!ok) {
    ok = interpret_group(group, inputs, n, outputs, n_out, error);
    if (ok)
      record(state, group, "interpreter", why ? why->str : NULL,
             (double)(g_get_monotonic_time() - started) / 1000.0);
  }
  return ok;
}
