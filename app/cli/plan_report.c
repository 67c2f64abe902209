/* Plans as JSON and text, and the summary `plans` prints side by side. */
#include "plan_report.h"

#include "exec/memory_plan.h"
#include "json_out.h"

/* {"peak_bytes", "unshared_bytes", "buffers", "values", "unsized_values"} (memory_plan.h). */
static JsonNode *memory_plan_to_json(const ExecMemoryPlan *memory) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_int(b, "peak_bytes", (gint64)memory->peak_bytes);
  json_out_member_int(b, "unshared_bytes", (gint64)memory->unshared_bytes);
  json_out_member_int(b, "buffers", memory->buffer_bytes->len);
  json_out_member_int(b, "values", memory->n_values);
  json_out_member_int(b, "unsized_values", memory->n_unsized);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}

JsonNode *app_plan_to_json(const ExecPlan *plan) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_string(b, "kind", plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward");
  json_out_member_string(b, "graph", plan->graph_name);
  json_out_member_string(b, "spec", plan->spec_text);
  const ExecMemoryPlan *memory = exec_plan_memory(plan);
  if (memory)
    json_out_member_value(b, "memory", memory_plan_to_json(memory));
  json_builder_set_member_name(b, "stages");
  json_builder_begin_array(b);
  for (guint i = 0; i < plan->stages->len; i++) {
    const ExecStage *stage = g_ptr_array_index(plan->stages, i);
    json_builder_begin_object(b);
    json_out_member_string(b, "name", stage->name);
    json_out_member_string(b, "group", stage->group);
    json_out_member_bool(b, "changed", stage->changed);
    json_builder_set_member_name(b, "ms");
    json_builder_add_double_value(b, stage->ms);
    json_out_member_string(b, "ir", stage->ir);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}

void app_plan_print_text(const ExecPlan *plan, FILE *out) {
  fprintf(out, "=== plan %u: %s %s\n    spec: %s\n", plan->index,
          plan->kind == EXEC_PLAN_FORWARD ? "forward" : "backward", plan->graph_name,
          plan->spec_text);
  for (guint i = 0; i < plan->stages->len; i++) {
    const ExecStage *stage = g_ptr_array_index(plan->stages, i);
    if (!stage->changed) {
      fprintf(out, "--- %2u %-10s %-40s unchanged %8.3f ms\n", i, stage->group, stage->name,
              stage->ms);
      continue;
    }
    fprintf(out, "--- %2u %-10s %-40s CHANGED   %8.3f ms\n%s", i, stage->group, stage->name,
            stage->ms, stage->ir);
  }
  fputc('\n', out);
}

static void count_block(const IrBlock *block, AppPlanSummary *s);

static void count_graph(const IrGraph *graph, AppPlanSummary *s) {
  count_block(graph->block, s);
}

static void count_block(const IrBlock *block, AppPlanSummary *s) {
  IR_FOR_EACH_NODE(node, block) {
    const char *kind = ir_kind_name(node->kind);
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(s->kind_counts, kind));
    g_hash_table_insert(s->kind_counts, (gpointer)kind, GUINT_TO_POINTER(n + 1));
    s->nodes++;
    s->grad_sum_to_size += node->kind == IR_ATEN_GRAD_SUM_TO_SIZE;
    for (guint b = 0; b < ir_n_blocks(node); b++)
      count_block(ir_block(node, b), s);
    const IrAttr *sub = ir_node_attr(node, IR_ATTR_SUBGRAPH);
    if (sub && sub->kind == IR_ATTR_G)
      count_graph(sub->v.g, s);
  }
}

void app_plan_summarize(const ExecPlan *plan, AppPlanSummary *summary) {
  *summary = (AppPlanSummary){0};
  summary->kind_counts = g_hash_table_new(g_str_hash, g_str_equal);
  count_graph(plan->graph, summary);
  GPtrArray *inputs = ir_graph_inputs(plan->graph);
  for (guint i = 0; i < inputs->len; i++) {
    const IrType *t = ((IrValue *)g_ptr_array_index(inputs, i))->type;
    if (t->kind == IR_TYPE_LIST && t->elem->kind == IR_TYPE_INT)
      summary->sizes_int_list++;
    else if (t->kind == IR_TYPE_OPTIONAL && t->elem->kind == IR_TYPE_LIST)
      summary->sizes_none++;
  }
}

void app_plan_summary_clear(AppPlanSummary *summary) {
  if (summary->kind_counts)
    g_hash_table_destroy(summary->kind_counts);
  summary->kind_counts = NULL;
}

JsonNode *app_plan_summary_to_json(const AppPlanSummary *s) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_out_member_int(b, "nodes", s->nodes);
  json_out_member_int(b, "grad_sum_to_size", s->grad_sum_to_size);
  json_out_member_int(b, "size_inputs_int_list", s->sizes_int_list);
  json_out_member_int(b, "size_inputs_none", s->sizes_none);
  json_builder_set_member_name(b, "kinds");
  json_builder_begin_object(b);
  GList *keys = g_list_sort(g_hash_table_get_keys(s->kind_counts), (GCompareFunc)g_strcmp0);
  for (GList *k = keys; k; k = k->next) {
    json_out_member_int(b, k->data, GPOINTER_TO_UINT(g_hash_table_lookup(s->kind_counts, k->data)));
  }
  g_list_free(keys);
  json_builder_end_object(b);
  json_builder_end_object(b);
  return json_out_builder_finish(b);
}
