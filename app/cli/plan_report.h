/* Plans in the command line's two forms. JSON (DESIGN.md): {"kind": "forward"|"backward",
 * "graph": NAME, "spec": TEXT, "memory": {"peak_bytes", "unshared_bytes", "buffers", "values",
 * "unsized_values"} (the static memory plan, exec/memory_plan.h), "stages": [{"name", "group",
 * "changed", "ms", "ir"}...]}.
 * Text: a header per plan, then per stage a header line and the graph, or a short
 * "unchanged" line instead of repeating a graph. */
#ifndef JITSCOPE_APP_PLAN_REPORT_H
#define JITSCOPE_APP_PLAN_REPORT_H

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "exec/executor.h"

JsonNode *app_plan_to_json(const ExecPlan *plan);
void app_plan_print_text(const ExecPlan *plan, FILE *out);

/* What `plans` compares across specs, from a plan's final graph (subgraphs included). */
typedef struct {
  GHashTable *kind_counts; /* node kind name -> count (GUINT_TO_POINTER) */
  guint nodes;             /* all nodes */
  guint grad_sum_to_size;  /* aten::_grad_sum_to_size nodes */
  guint sizes_int_list;    /* int[]? size inputs the spec found present: now int[] */
  guint sizes_none;        /* int[]? size inputs the spec found None: their uses became a
                                  None constant (the input keeps its declared type) */
} AppPlanSummary;

void app_plan_summarize(const ExecPlan *plan, AppPlanSummary *summary);
void app_plan_summary_clear(AppPlanSummary *summary);
JsonNode *app_plan_summary_to_json(const AppPlanSummary *summary);

#endif
