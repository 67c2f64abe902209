#include "text_test_util.h"

#include <string.h>

#include "ir/text.h"

/* Decodes the JSON string whose opening quote is at *p; advances past the closing quote. */
static char *json_decode_string(const char **p) {
  const char *s = *p;
  g_assert_cmpint(*s, ==, '"');
  s++;
  GString *out = g_string_new(NULL);
  while (*s && *s != '"') {
    if (*s != '\\') {
      g_string_append_c(out, *s++);
      continue;
    }
    s++;
    switch (*s) {
    case 'n': g_string_append_c(out, '\n'); break;
    case 't': g_string_append_c(out, '\t'); break;
    case 'r': g_string_append_c(out, '\r'); break;
    case 'b': g_string_append_c(out, '\b'); break;
    case 'f': g_string_append_c(out, '\f'); break;
    case '/': g_string_append_c(out, '/'); break;
    case '\\': g_string_append_c(out, '\\'); break;
    case '"': g_string_append_c(out, '"'); break;
    case 'u': {
      char hex[5] = {0};
      memcpy(hex, s + 1, 4);
      g_string_append_unichar(out, (gunichar)g_ascii_strtoull(hex, NULL, 16));
      s += 4;
      break;
    }
    default: g_error("test JSON reader: bad escape \\%c", *s);
    }
    s++;
  }
  g_assert_cmpint(*s, ==, '"');
  *p = s + 1;
  return g_string_free(out, FALSE);
}

static const char *json_after_key(const char *doc, const char *key) {
  char *needle = g_strdup_printf("\"%s\"", key);
  const char *at = strstr(doc, needle);
  gsize n = strlen(needle);
  g_free(needle);
  if (at == NULL)
    return NULL;
  at += n;
  while (g_ascii_isspace(*at))
    at++;
  if (*at != ':')
    return NULL;
  at++;
  while (g_ascii_isspace(*at))
    at++;
  return at;
}

char *text_test_json_string(const char *doc, const char *key) {
  const char *at = json_after_key(doc, key);
  if (at == NULL || *at != '"')
    return NULL;
  return json_decode_string(&at);
}

GPtrArray *text_test_json_string_array(const char *doc, const char *key) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  const char *at = json_after_key(doc, key);
  if (at == NULL || *at != '[')
    return out;
  at++;
  for (;;) {
    while (g_ascii_isspace(*at) || *at == ',')
      at++;
    if (*at != '"')
      break;
    g_ptr_array_add(out, json_decode_string(&at));
  }
  g_assert_cmpint(*at, ==, ']');
  return out;
}

static char *read_file(const char *path) {
  char *text = NULL;
  GError *error = NULL;
  if (!g_file_get_contents(path, &text, NULL, &error))
    g_error("cannot read %s: %s", path, error->message);
  return text;
}

static gint compare_strings(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void text_test_corpus_graphs(GPtrArray *labels, GPtrArray *texts) {
  const char *root = g_getenv("JITSCOPE_CORPUS_DIR");
  g_assert_nonnull(root);
  GError *error = NULL;
  GDir *dir = g_dir_open(root, 0, &error);
  g_assert_no_error(error);
  GPtrArray *programs = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(dir)) != NULL) {
    char *path = g_build_filename(root, name, "graph.ir", NULL);
    if (g_file_test(path, G_FILE_TEST_EXISTS))
      g_ptr_array_add(programs, g_strdup(name));
    g_free(path);
  }
  g_dir_close(dir);
  g_ptr_array_sort(programs, compare_strings);
  g_assert_cmpuint(programs->len, >=, 10);
  for (guint i = 0; i < programs->len; i++) {
    const char *prog = g_ptr_array_index(programs, i);
    char *path = g_build_filename(root, prog, "graph.ir", NULL);
    g_ptr_array_add(labels, g_strdup_printf("%s/graph.ir", prog));
    g_ptr_array_add(texts, read_file(path));
    g_free(path);
    for (int k = 0;; k++) {
      char *case_dir = g_strdup_printf("case-%d", k);
      char *json_path = g_build_filename(root, prog, case_dir, "case.json", NULL);
      g_free(case_dir);
      if (!g_file_test(json_path, G_FILE_TEST_EXISTS)) {
        g_free(json_path);
        break;
      }
      char *doc = read_file(json_path);
      char *fw = text_test_json_string(doc, "forward_graph");
      g_assert_nonnull(fw);
      g_ptr_array_add(labels, g_strdup_printf("%s/case-%d forward_graph", prog, k));
      g_ptr_array_add(texts, fw);
      GPtrArray *bw = text_test_json_string_array(doc, "backward_plans");
      for (guint j = 0; j < bw->len; j++) {
        g_ptr_array_add(labels, g_strdup_printf("%s/case-%d backward_plans[%u]", prog, k, j));
        g_ptr_array_add(texts, g_strdup(g_ptr_array_index(bw, j)));
      }
      g_ptr_array_free(bw, TRUE);
      g_free(doc);
      g_free(json_path);
    }
  }
  g_ptr_array_free(programs, TRUE);
}

IrGraph *text_test_parse_ok(const char *text, const char *label) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), label, &error);
  if (g == NULL)
    g_error("%s: unexpected parse error: %s", label, error->message);
  return g;
}

char *text_test_parse_error(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "t.ir", &error);
  if (g != NULL) {
    char *printed = ir_graph_to_string(g);
    g_error("expected a parse error, but it parsed to:\n%s", printed);
  }
  g_assert_error(error, JITSCOPE_PARSE_ERROR, 0);
  char *msg = g_strdup(error->message);
  g_error_free(error);
  return msg;
}
