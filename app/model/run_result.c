/* Run results (contract in run_result.h). */
#include "run_result.h"

#include "json_out.h"
#include "value_text.h"

static void flatten(RtValue v, GArray *out) {
  if (v.tag == RT_TUPLE) {
    for (guint k = 0; k < v.u.seq->len; k++)
      flatten(v.u.seq->items[k], out);
    return;
  }
  RtValue ref = rt_value_ref(v);
  g_array_append_val(out, ref);
}

static void unref_tensor(gpointer t) {
  if (t)
    rt_tensor_unref(t);
}

AppRunResult *app_run_result_new(const RtValue *outputs, guint n_outputs, guint n_inputs) {
  AppRunResult *result = g_new0(AppRunResult, 1);
  result->outputs = g_array_new(FALSE, FALSE, sizeof(RtValue));
  for (guint i = 0; i < n_outputs; i++)
    flatten(outputs[i], result->outputs);
  result->grads = g_ptr_array_new_with_free_func(unref_tensor);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add(result->grads, NULL);
  return result;
}

void app_run_result_free(AppRunResult *result) {
  if (result == NULL)
    return;
  for (guint i = 0; i < result->outputs->len; i++)
    rt_value_unref(g_array_index(result->outputs, RtValue, i));
  g_array_unref(result->outputs);
  g_ptr_array_unref(result->grads);
  g_free(result);
}

void app_run_result_set_grad(AppRunResult *result, guint input_index, RtTensor *grad) {
  g_return_if_fail(input_index < result->grads->len);
  RtTensor *old = g_ptr_array_index(result->grads, input_index);
  if (old)
    rt_tensor_unref(old);
  g_ptr_array_index(result->grads, input_index) = grad;
}

JsonNode *app_run_result_to_json(const AppRunResult *result, const AppInputs *inputs) {
  JsonObject *obj = json_object_new();
  JsonArray *outputs = json_array_new();
  for (guint i = 0; i < result->outputs->len; i++)
    json_array_add_element(outputs, json_out_value(g_array_index(result->outputs, RtValue, i)));
  json_object_set_array_member(obj, "outputs", outputs);
  JsonArray *grads = json_array_new();
  for (guint i = 0; i < result->grads->len; i++)
    json_array_add_element(grads, json_out_tensor(g_ptr_array_index(result->grads, i)));
  json_object_set_array_member(obj, "grads", grads);
  JsonArray *specs = json_array_new();
  for (guint i = 0; i < inputs->specs->len; i++)
    json_array_add_string_element(specs,
                                  ((const InputSpec *)g_ptr_array_index(inputs->specs, i))->text);
  json_object_set_array_member(obj, "inputs", specs);
  json_object_set_int_member(obj, "seed", (gint64)inputs->seed);
  JsonNode *root = json_node_alloc();
  json_node_init_object(root, obj);
  json_object_unref(obj);
  return root;
}

void app_run_result_print_text(const AppRunResult *result, const AppInputs *inputs, FILE *out) {
  g_autoptr(GString) text = g_string_new(NULL);
  g_string_append_printf(text, "inputs (seed %" G_GUINT64_FORMAT "):\n", inputs->seed);
  for (guint i = 0; i < inputs->specs->len; i++) {
    const InputSpec *spec = g_ptr_array_index(inputs->specs, i);
    g_autofree char *what = input_spec_describe(spec, g_array_index(inputs->values, RtValue, i));
    g_string_append_printf(text, "  %u: %s", i, spec->text);
    if (g_strcmp0(what, spec->text) != 0)
      g_string_append_printf(text, "  (%s)", what);
    g_string_append_c(text, '\n');
  }
  g_string_append(text, "outputs:\n");
  for (guint i = 0; i < result->outputs->len; i++) {
    g_string_append_printf(text, "  %u: ", i);
    value_text_append(text, g_array_index(result->outputs, RtValue, i), 5);
    g_string_append_c(text, '\n');
  }
  bool any_grad = false;
  for (guint i = 0; i < result->grads->len; i++)
    any_grad = any_grad || g_ptr_array_index(result->grads, i) != NULL;
  if (any_grad) {
    g_string_append(text, "grads:\n");
    for (guint i = 0; i < result->grads->len; i++) {
      RtTensor *g = g_ptr_array_index(result->grads, i);
      g_string_append_printf(text, "  %u: ", i);
      if (g)
        value_text_append(text, rt_tensor(g), 5); /* borrowed: not unref'd */
      else
        g_string_append(text, "none");
      g_string_append_c(text, '\n');
    }
  }
  fputs(text->str, out);
}
