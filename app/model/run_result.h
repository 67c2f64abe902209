/* What one `run` produced, and its two printed forms.
 *
 * JSON: {"outputs": [VALUE...], "grads": [TENSOR or null per input], "inputs": [SPEC text...],
 * "seed": N} with values as json_out.h writes them. Tuple outputs are flattened in order
 * (recursively); other values, lists included, stay as they are. */
#ifndef JITSCOPE_APP_RUN_RESULT_H
#define JITSCOPE_APP_RUN_RESULT_H

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "graph_inputs.h"

typedef struct {
  GArray *outputs;  /* of RtValue (owned), tuples flattened */
  GPtrArray *grads; /* of RtTensor* (owned, NULL = no gradient), one per graph input */
} AppRunResult;

/* Flattens the graph's outputs (borrowed) and gives every input a NULL gradient slot. */
AppRunResult *app_run_result_new(const RtValue *outputs, guint n_outputs, guint n_inputs);
void app_run_result_free(AppRunResult *result);

/* Takes the reference to `grad` (NULL allowed). */
void app_run_result_set_grad(AppRunResult *result, guint input_index, RtTensor *grad);

JsonNode *app_run_result_to_json(const AppRunResult *result, const AppInputs *inputs);
void app_run_result_print_text(const AppRunResult *result, const AppInputs *inputs, FILE *out);

#endif
