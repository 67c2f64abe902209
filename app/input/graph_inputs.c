/* Binding --input values to graph inputs (contract in graph_inputs.h). */
#include "graph_inputs.h"

#include "input_names.h"

#include <string.h>

#include "app_error.h"
#include "cuda/cuda_ops.h"
#include "runtime/device.h"

static char *input_name(const IrGraph *graph, guint index) {
  char buf[32];
  return g_strdup_printf(
      "%%%s", ir_value_display_name(g_ptr_array_index(ir_graph_inputs(graph), index), buf));
}

static bool tensor_fits(const InputSpec *spec, const RtTensor *t, const IrType *declared) {
  if (declared->undefined)
    return false;
  if (declared->has_dtype && declared->dtype != t->dtype)
    return false;
  if (declared->rank >= 0) {
    if (declared->rank != t->ndim)
      return false;
    if (declared->sizes)
      for (int d = 0; d < t->ndim; d++)
        if (declared->sizes[d] != IR_SIZE_UNKNOWN && declared->sizes[d] != t->sizes[d])
          return false;
  }
  if (declared->device >= 0 && declared->device != spec->device)
    return false;
  return true;
}

/* Checks `*value` against `declared`; may convert an int to a float in place. */
static bool value_fits(const InputSpec *spec, RtValue *value, const IrType *declared) {
  switch (declared->kind) {
  case IR_TYPE_ANY: return true;
  case IR_TYPE_OPTIONAL: return value->tag == RT_NONE || value_fits(spec, value, declared->elem);
  case IR_TYPE_NONE: return value->tag == RT_NONE;
  case IR_TYPE_TENSOR:
    return value->tag == RT_TENSOR && value->u.tensor &&
           tensor_fits(spec, value->u.tensor, declared);
  case IR_TYPE_INT: return value->tag == RT_INT;
  case IR_TYPE_FLOAT:
    if (value->tag == RT_INT)
      *value = rt_double((double)value->u.i);
    return value->tag == RT_DOUBLE;
  case IR_TYPE_BOOL: return value->tag == RT_BOOL;
  case IR_TYPE_NUMBER:
    return value->tag == RT_INT || value->tag == RT_DOUBLE || value->tag == RT_BOOL;
  case IR_TYPE_STR:
  case IR_TYPE_DEVICE:
  case IR_TYPE_LIST:
  case IR_TYPE_TUPLE:
  case IR_TYPE_CLASS:
  case IR_TYPE_DICT: return false;
  }
  return false;
}

void app_inputs_free(AppInputs *inputs) {
  if (inputs == NULL)
    return;
  g_ptr_array_unref(inputs->specs);
  for (guint i = 0; i < inputs->values->len; i++)
    rt_value_unref(g_array_index(inputs->values, RtValue, i));
  g_array_unref(inputs->values);
  g_free(inputs);
}

GPtrArray *app_spec_group_split(const char *group) {
  g_auto(GStrv) parts = g_strsplit(group, ";", -1);
  GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
  for (gchar **p = parts; *p; p++) {
    g_strstrip(*p);
    if (**p)
      g_ptr_array_add(texts, g_strdup(*p));
  }
  return texts;
}

AppInputs *app_inputs_bind(const IrGraph *graph, char *const *spec_texts, guint n_specs,
                           guint64 seed, GError **error) {
  g_auto(GStrv) ordered = app_inputs_order_by_name(graph, spec_texts, n_specs, &n_specs, error);
  if (ordered == NULL)
    return NULL;
  spec_texts = ordered;
  g_autoptr(AppInputs) inputs = g_new0(AppInputs, 1);
  inputs->specs = g_ptr_array_new_with_free_func((GDestroyNotify)input_spec_free);
  inputs->values = g_array_new(FALSE, FALSE, sizeof(RtValue));
  inputs->seed = seed;

  for (guint i = 0; i < n_specs; i++) {
    g_autoptr(GError) local = NULL;
    InputSpec *spec = input_spec_parse(spec_texts[i], &local);
    if (spec == NULL) {
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "--input %u ('%s'): %s", i + 1,
                  spec_texts[i], local->message);
      return NULL;
    }
    g_ptr_array_add(inputs->specs, spec);
  }

  guint n_graph = ir_graph_inputs(graph)->len;
  if (n_specs != n_graph) {
    g_autoptr(GString) names = g_string_new(NULL);
    for (guint i = 0; i < n_graph; i++) {
      g_autofree char *name = input_name(graph, i);
      g_string_append_printf(names, "%s%s", i ? ", " : "", name);
    }
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT,
                "the graph has %u input%s%s%s%s but %u --input value%s given", n_graph,
                n_graph == 1 ? "" : "s", n_graph ? " (" : "", names->str, n_graph ? ")" : "",
                n_specs, n_specs == 1 ? " was" : "s were");
    return NULL;
  }

  for (guint i = 0; i < n_specs; i++) {
    const InputSpec *spec = g_ptr_array_index(inputs->specs, i);
    g_autoptr(GError) local = NULL;
    RtValue value;
    if (!input_spec_make_value(spec, seed, i, &value, &local)) {
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "--input %u: %s", i + 1,
                  local->message);
      return NULL;
    }
    const IrValue *graph_input = g_ptr_array_index(ir_graph_inputs(graph), i);
    if (!value_fits(spec, &value, graph_input->type)) {
      g_autofree char *given = input_spec_describe(spec, value);
      g_autofree char *declared = ir_type_to_string(graph_input->type);
      g_autofree char *name = input_name(graph, i);
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT,
                  "--input %u is %s, which does not fit the graph's input %s : %s", i + 1, given,
                  name, declared);
      rt_value_unref(value);
      return NULL;
    }
    g_array_append_val(inputs->values, value);
  }
  return g_steal_pointer(&inputs);
}

bool app_inputs_want_cuda(const AppInputs *inputs) {
  for (guint i = 0; i < inputs->specs->len; i++) {
    const InputSpec *spec = g_ptr_array_index(inputs->specs, i);
    if (spec->device == IR_DEVICE_CUDA)
      return true;
  }
  return false;
}

bool app_inputs_to_devices(AppInputs *inputs, char **why) {
  *why = NULL;
  if (!app_inputs_want_cuda(inputs))
    return true;
  g_autoptr(GError) error = NULL;
  if (!cuda_runtime_enable(&error)) {
    *why = g_strdup(error->message);
    return false;
  }
  guint n = inputs->values->len;
  RtValue *moved = g_new0(RtValue, n + 1);
  bool ok = true;
  for (guint i = 0; ok && i < n; i++) {
    const InputSpec *spec = g_ptr_array_index(inputs->specs, i);
    RtValue v = g_array_index(inputs->values, RtValue, i);
    if (spec->device != IR_DEVICE_CUDA || v.tag != RT_TENSOR || v.u.tensor == NULL) {
      moved[i] = rt_value_ref(v);
      continue;
    }
    RtTensor *d = rt_tensor_to_device(v.u.tensor, IR_DEVICE_CUDA, &error);
    if (d == NULL) {
      *why =
          g_strdup_printf("--input %u could not be copied to the GPU: %s", i + 1, error->message);
      ok = false;
      break;
    }
    moved[i] = rt_tensor(d);
  }
  for (guint i = 0; i < n; i++) {
    RtValue *slot = &g_array_index(inputs->values, RtValue, i);
    if (ok) {
      rt_value_unref(*slot);
      *slot = moved[i];
    } else if (moved[i].tag != RT_NONE) {
      rt_value_unref(moved[i]);
    }
  }
  g_free(moved);
  return ok;
}

bool app_inputs_place(AppInputs *inputs, GPtrArray *notes, char **why) {
  g_autofree char *reason = NULL;
  bool on_device = app_inputs_to_devices(inputs, &reason);
  if (reason) {
    g_autofree char *note = g_strdup_printf("inputs with device=cuda are kept in CPU memory and "
                                            "computed on the CPU: %s",
                                            reason);
    bool said = false;
    for (guint i = 0; !said && i < notes->len; i++)
      said = g_str_equal(g_ptr_array_index(notes, i), note);
    if (!said)
      g_ptr_array_add(notes, g_steal_pointer(&note));
  }
  if (why)
    *why = g_steal_pointer(&reason);
  return on_device;
}
