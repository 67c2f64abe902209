/* Node inspection and plan differences for the workbench (contracts in workspace.h). */
#include "workspace.h"

#include <string.h>

#include "cuda/cuda_compile.h"
#include "cuda/cuda_loader.h"
#include "fuser/fuser.h"
#include "ir/text.h"
#include "runtime/interpreter.h"
#include "value_text.h"

/* ---- origins through the stages ---- */

static const IrNode *find_in_block(const IrBlock *block, guint64 origin) {
  IR_FOR_EACH_NODE(n, block) {
    if (n->origin == origin)
      return n;
    for (guint b = 0; b < ir_n_blocks(n); b++) {
      const IrNode *found = find_in_block(ir_block(n, b), origin);
      if (found)
        return found;
    }
    const IrAttr *sub = ir_node_attr(n, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G && sub->v.g) {
      const IrNode *found = find_in_block(sub->v.g->block, origin);
      if (found)
        return found;
    }
  }
  return NULL;
}

const IrNode *app_workspace_find_origin(const IrGraph *graph, guint64 origin) {
  return graph ? find_in_block(graph->block, origin) : NULL;
}

int app_workspace_first_stage_with(const AppWorkspacePlan *plan, guint64 origin) {
  for (guint s = 0; s < plan->stages->len; s++) {
    const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, s);
    if (app_workspace_find_origin(stage->graph, origin))
      return (int)s;
  }
  return -1;
}

/* The node's own line without value names' effect on comparison is not needed here: the
 * history compares a node's printed line between consecutive stages. */
static char *node_line(const IrNode *node) {
  GString *line = g_string_new(NULL);
  ir_node_print_line(line, node);
  return g_string_free(line, FALSE);
}

char *app_workspace_origin_history(const AppWorkspacePlan *plan, guint64 origin) {
  GString *out = g_string_new(NULL);
  g_autofree char *previous = NULL;
  bool present = false;
  guint changes = 0;
  for (guint s = 0; s < plan->stages->len; s++) {
    const AppWorkspaceStage *stage = g_ptr_array_index(plan->stages, s);
    const IrNode *node = app_workspace_find_origin(stage->graph, origin);
    if (node && !present) {
      g_string_append_printf(out, "  created by stage %02u %s [%s]%s\n", s + 1, stage->name,
                             stage->group, s == 0 ? " (in the program)" : "");
      present = true;
      g_free(previous);
      previous = node_line(node);
    } else if (node) {
      char *line = node_line(node);
      if (g_strcmp0(line, previous) != 0) {
        g_string_append_printf(out, "  changed by stage %02u %s: %s\n", s + 1, stage->name, line);
        changes++;
      }
      g_free(previous);
      previous = line;
    } else if (present) {
      g_string_append_printf(out, "  removed by stage %02u %s [%s]\n", s + 1, stage->name,
                             stage->group);
      present = false;
    }
  }
  if (out->len == 0)
    g_string_append(out, "  not in any stage of this plan\n");
  else if (present)
    g_string_append_printf(out, "  in the final graph%s\n", changes ? "" : " (never changed)");
  return g_string_free(out, FALSE);
}

const AppWorkspaceFuserRecord *app_workspace_fuser_record(const AppWorkspacePlan *plan,
                                                          guint64 origin) {
  for (guint i = 0; plan->fuser_records && i < plan->fuser_records->len; i++) {
    const AppWorkspaceFuserRecord *r = g_ptr_array_index(plan->fuser_records, i);
    if (r->origin == origin)
      return r;
  }
  return NULL;
}

/* ---- the plan summary ---- */

char *app_workspace_plan_summary(const AppWorkspaceRun *run, const AppWorkspacePlan *plan) {
  GString *text = g_string_new(NULL);
  g_string_append_printf(text, "%s\n%u stages\n", plan->title, plan->stages->len);
  for (guint i = 0; run && i < run->specs->len; i++) {
    const AppWorkspaceSpecResult *r = g_ptr_array_index(run->specs, i);
    gboolean mine = r->forward == plan;
    for (guint b = 0; b < r->backward->len && !mine; b++)
      mine = g_ptr_array_index(r->backward, b) == plan;
    if (!mine)
      continue;
    g_string_append_printf(text, "\nspec %u: %s (%.1f ms)\n", i + 1, r->line, r->ms);
    if (r->device_note)
      g_string_append_printf(text, "note: %s\n", r->device_note);
    if (r->outputs_text)
      g_string_append(text, r->outputs_text);
    if (r->grads_text)
      g_string_append(text, r->grads_text);
    break;
  }
  if (plan->has_memory_plan) {
    g_autofree char *peak = g_format_size(plan->memory_peak_bytes);
    g_autofree char *unshared = g_format_size(plan->memory_unshared_bytes);
    g_string_append_printf(text, "\npeak memory: %s in %u buffers (%s without reuse)\n", peak,
                           plan->memory_buffers, unshared);
  }
  if (plan->fusion_groups->len) {
    g_string_append_printf(text, "\nfusion groups: %u\n", plan->fusion_groups->len);
    g_string_append(text, *plan->fuser_summary ? plan->fuser_summary : "(none ran)\n");
  }
  g_string_append(text, "\nClick a node for its schema, types, origin history and values.");
  return g_string_free(text, FALSE);
}

/* ---- values ---- */

GArray *app_workspace_values_copy(const GArray *values) {
  if (!values)
    return NULL;
  GArray *copy = g_array_sized_new(FALSE, FALSE, sizeof(RtValue), values->len);
  for (guint i = 0; i < values->len; i++) {
    RtValue v = rt_value_ref(g_array_index(values, RtValue, i));
    g_array_append_val(copy, v);
  }
  return copy;
}

void app_workspace_values_free(GArray *values) {
  if (!values)
    return;
  for (guint i = 0; i < values->len; i++)
    rt_value_unref(g_array_index(values, RtValue, i));
  g_array_free(values, TRUE);
}

typedef struct {
  const IrNode *target;
  bool inputs;       /* catch the target's inputs instead of its outputs */
  GPtrArray *values; /* of RtValue* (g_new, referenced) once the target ran */
  RtInterpreterHooks hooks;
} Catch;

static void keep_outputs(Catch *c, const RtValue *outputs, guint n) {
  if (c->values)
    return; /* the first execution (a loop body may run the node again) */
  c->values = g_ptr_array_new();
  for (guint i = 0; i < n; i++) {
    RtValue *v = g_new(RtValue, 1);
    *v = rt_value_ref(outputs[i]);
    g_ptr_array_add(c->values, v);
  }
}

static bool catch_after(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                        RtValue *outputs, guint n_outputs, GError **error) {
  Catch *c = ctx;
  if (node == c->target)
    keep_outputs(c, c->inputs ? inputs : outputs, c->inputs ? n_inputs : n_outputs);
  return true;
}

/* DifferentiableGraph and FusionGroup nodes: their Subgraph interpreted with these hooks (so
 * nodes inside are caught too), extra outputs (a forward's saved temporaries) dropped, a
 * group's sum-to-size applied. */
static bool catch_special(void *ctx, const IrNode *node, RtValue *inputs, guint n_inputs,
                          RtValue *outputs, guint n_outputs, GError **error) {
  Catch *c = ctx;
  if (node == c->target && c->inputs)
    keep_outputs(c, inputs, n_inputs);
  const IrAttr *attr = ir_node_attr(node, IR_ATTR_SUBGRAPH);
  if (!attr || attr->kind != IR_ATTR_G || !attr->v.g) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN, "%s has no Subgraph",
                ir_kind_name(node->kind));
    return false;
  }
  RtValue *outs = NULL;
  guint n_outs = 0;
  if (!rt_interpret(attr->v.g, &c->hooks, inputs, n_inputs, &outs, &n_outs, error))
    return false;
  if (n_outs < n_outputs) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN,
                "%s returned %u values, %u expected", ir_kind_name(node->kind), n_outs, n_outputs);
    for (guint i = 0; i < n_outs; i++)
      rt_value_unref(outs[i]);
    g_free(outs);
    return false;
  }
  for (guint i = 0; i < n_outs; i++) {
    if (i < n_outputs)
      outputs[i] = outs[i];
    else
      rt_value_unref(outs[i]);
  }
  g_free(outs);
  if (node->kind == IR_PRIM_FUSION_GROUP &&
      !fuser_apply_sum_to(node, inputs, n_inputs, outputs, n_outputs, error))
    return false;
  if (node == c->target && !c->inputs)
    keep_outputs(c, outputs, n_outputs);
  return true;
}

/* Re-runs `graph` on `inputs` catching the outputs (or inputs) of `node`: a new array of
 * RtValue* (free with free_caught), or NULL with *error. */
static GPtrArray *catch_values(const IrGraph *graph, const IrNode *node, bool node_inputs,
                               GArray *inputs, GError **error) {
  if (!inputs) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN,
                "this plan did not run (its inputs were not recorded)");
    return NULL;
  }
  Catch c = {.target = node, .inputs = node_inputs};
  c.hooks.after_node = catch_after;
  c.hooks.run_special = catch_special;
  c.hooks.ctx = &c;
  RtValue *outs = NULL;
  guint n_outs = 0;
  GError *local = NULL;
  bool ok =
      rt_interpret(graph, &c.hooks, (RtValue *)inputs->data, inputs->len, &outs, &n_outs, &local);
  for (guint i = 0; ok && i < n_outs; i++)
    rt_value_unref(outs[i]);
  g_free(outs);
  if (!c.values) {
    if (local)
      g_propagate_prefixed_error(error, local,
                                 "re-running this stage on the plan's inputs "
                                 "failed: ");
    else
      g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN,
                  "the node did not run (a branch not taken, or a prim node whose values the "
                  "interpreter does not report)");
    return NULL;
  }
  g_clear_error(&local); /* the node ran before the failure: its values stand */
  return c.values;
}

static void free_caught(GPtrArray *values) {
  for (guint i = 0; i < values->len; i++) {
    RtValue *v = g_ptr_array_index(values, i);
    rt_value_unref(*v);
    g_free(v);
  }
  g_ptr_array_unref(values);
}

char *app_workspace_node_values(const IrGraph *graph, const IrNode *node, GArray *inputs,
                                GError **error) {
  GPtrArray *values = catch_values(graph, node, false, inputs, error);
  if (!values)
    return NULL;
  GString *text = g_string_new(NULL);
  for (guint i = 0; i < values->len; i++) {
    char buf[32];
    const char *name =
        i < node->outputs->len ? ir_value_display_name(ir_output(node, i), buf) : "?";
    g_string_append_printf(text, "%%%s: ", name);
    value_text_append(text, *(RtValue *)g_ptr_array_index(values, i), 4);
    g_string_append_c(text, '\n');
  }
  free_caught(values);
  return g_string_free(text, FALSE);
}

/* The node whose Subgraph's top block is `block`, or NULL. */
static const IrNode *subgraph_owner(const IrBlock *in, const IrBlock *block) {
  IR_FOR_EACH_NODE(n, in) {
    const IrAttr *sub = ir_node_attr(n, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G && sub->v.g) {
      if (sub->v.g->block == block)
        return n;
      const IrNode *found = subgraph_owner(sub->v.g->block, block);
      if (found)
        return found;
    }
    for (guint b = 0; b < ir_n_blocks(n); b++) {
      const IrNode *found = subgraph_owner(ir_block(n, b), block);
      if (found)
        return found;
    }
  }
  return NULL;
}

char *app_workspace_value_values(const IrGraph *graph, const IrValue *value, GArray *inputs,
                                 GError **error) {
  const IrNode *producer = value->node, *target = producer;
  bool node_inputs = false;
  const IrBlock *block = producer->owning_block;
  if (producer->kind == IR_PRIM_PARAM && block && block->owning_node) {
    g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN,
                "an input of a %s block: it takes a value per entry or iteration, which the "
                "re-run does not report; click the values flowing into the %s node",
                ir_kind_name(block->owning_node->kind), ir_kind_name(block->owning_node->kind));
    return NULL;
  }
  if (producer->kind == IR_PRIM_PARAM && block != graph->block) {
    /* an input of a Subgraph body: the owner node's input at the same position */
    target = subgraph_owner(graph->block, block);
    node_inputs = true;
    if (!target) {
      g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN,
                  "the value's graph is not part of this stage");
      return NULL;
    }
  }
  g_autoptr(GString) text = g_string_new(NULL);
  char buf[32];
  g_string_append_printf(text, "%%%s: ", ir_value_display_name(value, buf));
  if (producer->kind == IR_PRIM_PARAM && !node_inputs) {
    if (!inputs || value->offset >= inputs->len) {
      g_set_error(error, APP_WORKSPACE_ERROR, APP_WORKSPACE_ERROR_RUN,
                  "this plan did not run (its inputs were not recorded)");
      return NULL;
    }
    value_text_append(text, g_array_index(inputs, RtValue, value->offset), 4);
  } else {
    GPtrArray *values = catch_values(graph, target, node_inputs, inputs, error);
    if (!values)
      return NULL;
    if (value->offset < values->len)
      value_text_append(text, *(RtValue *)g_ptr_array_index(values, value->offset), 4);
    else
      g_string_append(text, "(not reported by the interpreter)");
    free_caught(values);
  }
  g_string_append_c(text, '\n');
  return g_string_free(g_steal_pointer(&text), FALSE);
}

/* ---- CUDA kernels of a group ---- */

CudaKernelReport *app_workspace_group_kernel(const IrNode *group, bool compile) {
  const CudaStatus *status = cuda_loader_get();
  g_autoptr(GError) error = NULL;
  g_autofree char *arch = NULL;
  g_autofree char *why_not = NULL;
  if (!compile)
    why_not = g_strdup("not compiled (compilation was not asked for)");
  else if (!status->nvrtc.loaded)
    why_not = g_strdup_printf("not compiled: nvrtc did not load: %s",
                              status->nvrtc.error ? status->nvrtc.error : "unknown reason");
  else if (!(arch = cuda_compile_resolve_arch(NULL, &error)))
    why_not = g_strdup_printf("not compiled: %s", error->message);
  CudaKernelReport *k = cuda_report_group(group, arch);
  if (!k->attempted) {
    char *log = why_not   ? g_steal_pointer(&why_not)
                : *k->log ? g_strdup_printf("not compiled: %s", k->log)
                          : g_strdup("");
    g_free(k->log);
    k->log = log;
  }
  return k;
}

/* ---- signatures ---- */

GHashTable *app_workspace_signature_memo_new(void) {
  return g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
}

static guint64 mix(guint64 h, guint64 v) {
  /* FNV-1a over the 8 bytes of v, then a final avalanche (splitmix64's). */
  for (int i = 0; i < 8; i++) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 27);
}

static guint64 hash_text(const char *text) {
  guint64 h = 0xcbf29ce484222325ULL;
  for (const char *p = text; *p; p++) {
    h ^= (guchar)*p;
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* The kind and attributes: the line's right-hand side up to the opening parenthesis of the
 * inputs (attributes in brackets may hold parentheses; they are skipped). */
static guint64 head_hash(const IrNode *node) {
  g_autoptr(GString) line = g_string_new(NULL);
  ir_node_print_line(line, node);
  const char *rhs = strstr(line->str, " = ");
  rhs = rhs ? rhs + 3 : line->str;
  const char *kind = ir_kind_name(node->kind);
  const char *start = strstr(rhs, kind);
  if (start)
    rhs = start;
  int depth = 0;
  const char *end = rhs;
  for (; *end; end++) {
    if (*end == '[')
      depth++;
    else if (*end == ']')
      depth--;
    else if (*end == '(' && depth == 0)
      break;
  }
  g_autofree char *head = g_strndup(rhs, (gsize)(end - rhs));
  return hash_text(head);
}

guint64 app_workspace_node_signature(const IrNode *node, GHashTable *memo) {
  guint64 *known = g_hash_table_lookup(memo, node);
  if (known)
    return *known;
  guint64 h = head_hash(node);
  for (guint i = 0; i < node->inputs->len; i++) {
    const IrValue *v = ir_input(node, i);
    if (v->node->kind == IR_PRIM_PARAM)
      h = mix(mix(h, 0x5041524dULL), v->offset); /* block input by position */
    else
      h = mix(mix(h, app_workspace_node_signature(v->node, memo)), v->offset);
  }
  guint64 *stored = g_new(guint64, 1);
  *stored = h;
  g_hash_table_insert(memo, (gpointer)node, stored);
  return h;
}

static void walk_nodes(const IrBlock *block, GPtrArray *out) {
  IR_FOR_EACH_NODE(n, block) {
    g_ptr_array_add(out, n);
    for (guint b = 0; b < ir_n_blocks(n); b++)
      walk_nodes(ir_block(n, b), out);
    const IrAttr *sub = ir_node_attr(n, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G && sub->v.g)
      walk_nodes(sub->v.g->block, out);
  }
  /* The return counts as a node: which values a plan returns is part of the plan. */
  g_ptr_array_add(out, block->ret);
}

const IrNode *app_workspace_same_node(const IrGraph *copy, const IrGraph *graph,
                                      const IrNode *node) {
  g_autoptr(GPtrArray) a = g_ptr_array_new();
  g_autoptr(GPtrArray) b = g_ptr_array_new();
  walk_nodes(graph->block, a);
  walk_nodes(copy->block, b);
  guint index = 0;
  if (a->len == b->len && g_ptr_array_find(a, node, &index))
    return g_ptr_array_index(b, index);
  return NULL;
}

/* signature -> count */
static GHashTable *count_signatures(const IrGraph *graph, GPtrArray **nodes_out, GHashTable *memo) {
  GHashTable *counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  GPtrArray *nodes = g_ptr_array_new();
  walk_nodes(graph->block, nodes);
  for (guint i = 0; i < nodes->len; i++) {
    guint64 sig = app_workspace_node_signature(g_ptr_array_index(nodes, i), memo);
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, &sig));
    gint64 *key = g_new(gint64, 1);
    *key = (gint64)sig;
    g_hash_table_replace(counts, key, GUINT_TO_POINTER(n + 1));
  }
  if (nodes_out)
    *nodes_out = nodes;
  else
    g_ptr_array_unref(nodes);
  return counts;
}

GHashTable *app_workspace_unshared_nodes(const IrGraph *const *graphs, guint n, guint index) {
  GHashTable *result = g_hash_table_new(g_direct_hash, g_direct_equal);
  if (index >= n || !graphs[index])
    return result;
  g_autoptr(GHashTable) memo = app_workspace_signature_memo_new();
  g_autoptr(GPtrArray) nodes = NULL;
  g_autoptr(GHashTable) mine = count_signatures(graphs[index], &nodes, memo);
  /* Per signature the smallest count among the other graphs. */
  g_autoptr(GHashTable) least = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint g = 0; g < n; g++) {
    if (g == index || !graphs[g])
      continue;
    g_autoptr(GHashTable) other_memo = app_workspace_signature_memo_new();
    g_autoptr(GHashTable) other = count_signatures(graphs[g], NULL, other_memo);
    GHashTableIter iter;
    gpointer key, value;
    g_hash_table_iter_init(&iter, mine);
    while (g_hash_table_iter_next(&iter, &key, &value)) {
      guint theirs = GPOINTER_TO_UINT(g_hash_table_lookup(other, key));
      gpointer current;
      if (!g_hash_table_lookup_extended(least, key, NULL, &current) ||
          theirs < GPOINTER_TO_UINT(current)) {
        gint64 *k = g_new(gint64, 1);
        *k = *(gint64 *)key;
        g_hash_table_replace(least, k, GUINT_TO_POINTER(theirs));
      }
    }
  }
  /* The first `least` occurrences of a signature are shared; later ones are not. */
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < nodes->len; i++) {
    const IrNode *node = g_ptr_array_index(nodes, i);
    gint64 sig = (gint64)app_workspace_node_signature(node, memo);
    gpointer allowed;
    if (!g_hash_table_lookup_extended(least, &sig, NULL, &allowed))
      continue; /* no other graph: nothing to compare with */
    guint count = GPOINTER_TO_UINT(g_hash_table_lookup(seen, &sig)) + 1;
    gint64 *k = g_new(gint64, 1);
    *k = sig;
    g_hash_table_replace(seen, k, GUINT_TO_POINTER(count));
    if (count > GPOINTER_TO_UINT(allowed))
      g_hash_table_add(result, (gpointer)node);
  }
  return result;
}
