/* JSON output of tensors and values (contract in json_out.h). */
#include "json_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/device.h"

JsonNode *json_out_double(double v) {
  JsonNode *node = json_node_alloc();
  if (isnan(v))
    return json_node_init_string(node, "nan");
  if (isinf(v))
    return json_node_init_string(node, v > 0 ? "inf" : "-inf");
  /* json-glib writes doubles with "%.17g": exact round trip. */
  return json_node_init_double(node, v);
}

/* A node holding obj (the reference passes to the node). */
static JsonNode *object_node(JsonObject *obj) {
  JsonNode *node = json_node_alloc();
  json_node_init_object(node, obj);
  json_object_unref(obj);
  return node;
}

JsonNode *json_out_tensor(const RtTensor *t) {
  if (t == NULL)
    return json_node_init_null(json_node_alloc());
  JsonObject *obj = json_object_new();
  json_object_set_string_member(obj, "dtype", ir_dtype_name(t->dtype));
  JsonArray *shape = json_array_sized_new(t->ndim);
  for (int d = 0; d < t->ndim; d++)
    json_array_add_int_element(shape, t->sizes[d]);
  json_object_set_array_member(obj, "shape", shape);

  /* Read a contiguous host copy by dtype, so int64 values keep all 64 bits. */
  g_autoptr(GError) error = NULL;
  RtTensor *host = rt_tensor_to_host((RtTensor *)t, &error);
  if (host == NULL) {
    json_object_set_null_member(obj, "data");
    json_object_set_string_member(obj, "error", error->message);
    return object_node(obj);
  }
  RtTensor *c = rt_tensor_contiguous(host);
  rt_tensor_unref(host);
  int64_t n = rt_tensor_numel(c);
  JsonArray *data = json_array_sized_new((guint)n);
  const void *p = rt_tensor_data(c);
  for (int64_t k = 0; k < n; k++) {
    switch (c->dtype) {
    case IR_DTYPE_FLOAT32:
      json_array_add_element(data, json_out_double(((const float *)p)[k]));
      break;
    case IR_DTYPE_FLOAT64:
      json_array_add_element(data, json_out_double(((const double *)p)[k]));
      break;
    case IR_DTYPE_INT64: json_array_add_int_element(data, ((const int64_t *)p)[k]); break;
    case IR_DTYPE_BOOL: json_array_add_boolean_element(data, rt_tensor_get(c, k) != 0.0); break;
    case IR_DTYPE_FLOAT16:
    case IR_DTYPE_COUNT: json_array_add_element(data, json_out_double(rt_tensor_get(c, k))); break;
    }
  }
  rt_tensor_unref(c);
  json_object_set_array_member(obj, "data", data);
  return object_node(obj);
}

JsonNode *json_out_value(RtValue v) {
  JsonNode *node;
  switch (v.tag) {
  case RT_NONE: return json_node_init_null(json_node_alloc());
  case RT_TENSOR: return json_out_tensor(v.u.tensor);
  case RT_INT: return json_node_init_int(json_node_alloc(), v.u.i);
  case RT_DOUBLE: return json_out_double(v.u.d);
  case RT_BOOL: return json_node_init_boolean(json_node_alloc(), v.u.b);
  case RT_STR: return json_node_init_string(json_node_alloc(), v.u.s->text);
  case RT_DEVICE: return json_node_init_string(json_node_alloc(), ir_device_name(v.u.device));
  case RT_LIST:
  case RT_TUPLE: {
    JsonArray *items = json_array_sized_new(v.u.seq->len);
    for (guint k = 0; k < v.u.seq->len; k++)
      json_array_add_element(items, json_out_value(v.u.seq->items[k]));
    node = json_node_alloc();
    json_node_init_array(node, items);
    json_array_unref(items);
    return node;
  }
  case RT_DICT: {
    /* An object, as Python's json.dumps writes a dict: keys as strings (ints in decimal, a
     * tensor key by its description), a later equal text replacing an earlier one. */
    JsonObject *members = json_object_new();
    for (guint k = 0; k < v.u.dict->len; k++) {
      RtValue key = v.u.dict->keys[k];
      g_autoptr(GString) name = g_string_new(NULL);
      if (key.tag == RT_STR)
        g_string_append(name, key.u.s->text);
      else
        rt_value_print(name, key);
      json_object_set_member(members, name->str, json_out_value(v.u.dict->values[k]));
    }
    node = json_node_alloc();
    json_node_init_object(node, members);
    json_object_unref(members);
    return node;
  }
  }
  g_assert_not_reached();
}

void json_out_member_string(JsonBuilder *b, const char *name, const char *value) {
  json_builder_set_member_name(b, name);
  if (value)
    json_builder_add_string_value(b, value);
  else
    json_builder_add_null_value(b);
}

void json_out_member_int(JsonBuilder *b, const char *name, gint64 value) {
  json_builder_set_member_name(b, name);
  json_builder_add_int_value(b, value);
}

void json_out_member_bool(JsonBuilder *b, const char *name, bool value) {
  json_builder_set_member_name(b, name);
  json_builder_add_boolean_value(b, value);
}

void json_out_member_value(JsonBuilder *b, const char *name, JsonNode *value) {
  json_builder_set_member_name(b, name);
  json_builder_add_value(b, value);
}

void json_out_member_strings(JsonBuilder *b, const char *name, GPtrArray *strings) {
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  for (guint i = 0; i < strings->len; i++)
    json_builder_add_string_value(b, g_ptr_array_index(strings, i));
  json_builder_end_array(b);
}

JsonNode *json_out_builder_finish(JsonBuilder *b) {
  JsonNode *root = json_builder_get_root(b);
  g_object_unref(b);
  return root;
}

/* json-glib writes a double with "%.17g" and appends ".0" when the text has no '.', which
 * turns "2e+30" into "2e+30.0", not JSON: drop a ".0" that follows an exponent's digits
 * (outside strings). */
static void repair_exponents(char *text) {
  char *out = text;
  bool in_string = false;
  for (const char *p = text; *p; p++) {
    if (in_string) {
      if (*p == '\\' && p[1]) {
        *out++ = *p++;
      } else if (*p == '"') {
        in_string = false;
      }
      *out++ = *p;
      continue;
    }
    if (*p == '"')
      in_string = true;
    *out++ = *p;
    if ((*p == 'e' || *p == 'E') && out - 1 > text && g_ascii_isdigit(out[-2])) {
      const char *q = p + 1;
      if (*q == '+' || *q == '-')
        q++;
      const char *digits = q;
      while (g_ascii_isdigit(*q))
        q++;
      if (q > digits) {
        memmove(out, p + 1, (size_t)(q - (p + 1)));
        out += q - (p + 1);
        p = q - 1;
        if (q[0] == '.' && q[1] == '0' && !g_ascii_isdigit(q[2]))
          p += 2;
      }
    }
  }
  *out = '\0';
}

char *json_out_to_text(JsonNode *root) {
  g_autoptr(JsonGenerator) generator = json_generator_new();
  json_generator_set_root(generator, root);
  char *text = json_generator_to_data(generator, NULL);
  repair_exponents(text);
  return text;
}

void json_out_print(JsonNode *root) {
  g_autofree char *text = json_out_to_text(root);
  fputs(text, stdout);
  fputc('\n', stdout);
  json_node_unref(root);
}

bool json_out_read_double(JsonNode *node, double *out) {
  if (node == NULL || !JSON_NODE_HOLDS_VALUE(node))
    return false;
  GType type = json_node_get_value_type(node);
  if (type == G_TYPE_DOUBLE) {
    *out = json_node_get_double(node);
    return true;
  }
  if (type == G_TYPE_INT64) {
    *out = (double)json_node_get_int(node);
    return true;
  }
  if (type == G_TYPE_BOOLEAN) {
    *out = json_node_get_boolean(node) ? 1.0 : 0.0;
    return true;
  }
  if (type == G_TYPE_STRING) {
    const char *s = json_node_get_string(node);
    if (strcmp(s, "nan") == 0)
      *out = NAN;
    else if (strcmp(s, "inf") == 0)
      *out = INFINITY;
    else if (strcmp(s, "-inf") == 0)
      *out = -INFINITY;
    else
      return false;
    return true;
  }
  return false;
}
