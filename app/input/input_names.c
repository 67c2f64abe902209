/* Named command-line inputs (contract in input_names.h). */
#include "input_names.h"

#include <string.h>

#include "app_error.h"

/* The NAME of `NAME=SPEC` (newly allocated), or NULL when the text is a plain SPEC. */
static char *spec_name(const char *text) {
  const char *eq = strchr(text, '=');
  if (eq == NULL || eq == text || !(g_ascii_isalpha(text[0]) || text[0] == '_'))
    return NULL;
  for (const char *p = text; p < eq; p++)
    if (!(g_ascii_isalnum(*p) || *p == '_' || *p == '.'))
      return NULL;
  return g_strndup(text, (gsize)(eq - text));
}

/* PyTorch names the first definition of `x` `x.1`: is `name` value's name without such a
 * suffix? */
static bool matches_without_suffix(const char *value_name, const char *name) {
  gsize n = strlen(name);
  if (strncmp(value_name, name, n) != 0 || value_name[n] != '.' || value_name[n + 1] == '\0')
    return false;
  for (const char *p = value_name + n + 1; *p; p++)
    if (!g_ascii_isdigit(*p))
      return false;
  return true;
}

/* The index of the input called `name`, G_MAXUINT for none, G_MAXUINT - 1 for several. */
static guint find_input(const IrGraph *graph, const char *name) {
  const GPtrArray *inputs = ir_graph_inputs(graph);
  char buf[32];
  for (guint i = 0; i < inputs->len; i++)
    if (strcmp(ir_value_display_name(g_ptr_array_index(inputs, i), buf), name) == 0)
      return i;
  guint found = G_MAXUINT;
  for (guint i = 0; i < inputs->len; i++) {
    if (matches_without_suffix(ir_value_display_name(g_ptr_array_index(inputs, i), buf), name))
      found = found == G_MAXUINT ? i : G_MAXUINT - 1;
  }
  return found;
}

static char *input_list(const IrGraph *graph) {
  const GPtrArray *inputs = ir_graph_inputs(graph);
  GString *s = g_string_new(NULL);
  char buf[32];
  for (guint i = 0; i < inputs->len; i++)
    g_string_append_printf(s, "%s%s", i ? ", " : "",
                           ir_value_display_name(g_ptr_array_index(inputs, i), buf));
  return g_string_free(s, FALSE);
}

char **app_inputs_order_by_name(const IrGraph *graph, char *const *texts, guint n, guint *n_out,
                                GError **error) {
  guint n_graph = ir_graph_inputs(graph)->len;
  guint slots = MAX(n, n_graph);
  char **ordered = g_new0(char *, slots + 1);
  g_autoptr(GPtrArray) unnamed = g_ptr_array_new();
  for (guint i = 0; i < n; i++) {
    g_autofree char *name = spec_name(texts[i]);
    if (name == NULL) {
      g_ptr_array_add(unnamed, texts[i]);
      continue;
    }
    guint at = find_input(graph, name);
    if (at >= G_MAXUINT - 1 || ordered[at] != NULL) {
      g_autofree char *names = input_list(graph);
      g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT,
                  at == G_MAXUINT       ? "--input %u: the graph has no input named '%s' (its "
                                          "inputs: %s)"
                  : at == G_MAXUINT - 1 ? "--input %u: '%s' names several inputs (%s); use the "
                                          "full name"
                                        : "--input %u: input '%s' is given twice%s",
                  i + 1, name, at == G_MAXUINT - 1 || at == G_MAXUINT ? names : "");
      /* Named texts fill slots out of order: g_strfreev would stop at the first hole. */
      for (guint k = 0; k < slots; k++)
        g_free(ordered[k]);
      g_free(ordered);
      return NULL;
    }
    ordered[at] = g_strdup(strchr(texts[i], '=') + 1);
  }
  /* Unnamed texts fill the free slots in order; with a count mismatch they keep their order
   * after the named ones so that the caller's message counts them all. */
  guint next = 0;
  for (guint i = 0; i < unnamed->len; i++) {
    while (next < slots && ordered[next] != NULL)
      next++;
    if (next < slots)
      ordered[next] = g_strdup(g_ptr_array_index(unnamed, i));
  }
  /* Compact: a mismatch leaves holes; the count is what the caller checks. */
  guint k = 0;
  for (guint i = 0; i < slots; i++)
    if (ordered[i] != NULL)
      ordered[k++] = ordered[i];
  for (guint i = k; i < slots; i++)
    ordered[i] = NULL;
  if (n == n_graph && k != n)
    g_error("input names invariant: %u texts for %u inputs became %u", n, n_graph, k);
  *n_out = k;
  return ordered;
}
