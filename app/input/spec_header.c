/* Spec lines in a graph file's header comments (contract in spec_header.h). */
#include "spec_header.h"

#include <string.h>

#include "app_error.h"
#include "input_spec.h"

#define DIRECTIVE "jitscope:"
#define OPTION "--spec"

typedef struct {
  const char *filename;
  int line;
  const char *start; /* of the line: columns count from here */
} Where;

static void fail(GError **error, const Where *at, const char *p, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static void fail(GError **error, const Where *at, const char *p, const char *format, ...) {
  va_list args;
  va_start(args, format);
  g_autofree char *message = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_LOCATED, "%s:%d:%d: error: %s", at->filename,
              at->line, (int)(p - at->start) + 1, message);
}

static const char *skip_blanks(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
    p++;
  return p;
}

/* Checks every SPEC of the quoted list [list, list_end); the error points at the bad one. */
static bool check_specs(const char *list, const char *list_end, const Where *at, GError **error) {
  const char *part = list;
  guint n = 0;
  while (part <= list_end) {
    const char *semicolon = memchr(part, ';', (size_t)(list_end - part));
    const char *part_end = semicolon ? semicolon : list_end;
    const char *first = skip_blanks(part, part_end);
    g_autofree char *text = g_strstrip(g_strndup(part, (gsize)(part_end - part)));
    if (*text) {
      g_autoptr(GError) local = NULL;
      InputSpec *spec = input_spec_parse(text, &local);
      if (!spec) {
        fail(error, at, first, "spec %u '%s': %s", n + 1, text, local->message);
        return false;
      }
      input_spec_free(spec);
      n++;
    }
    part = part_end + 1;
  }
  if (n == 0) {
    fail(error, at, list - 1, "empty spec list: write --spec 'SPEC; SPEC; ...'");
    return false;
  }
  return true;
}

/* One directive, `p` just past "jitscope:"; appends its spec line. */
static bool read_directive(const char *p, const char *end, const Where *at, GPtrArray *lines,
                           GError **error) {
  p = skip_blanks(p, end);
  if ((size_t)(end - p) < strlen(OPTION) || strncmp(p, OPTION, strlen(OPTION)) != 0 ||
      (p + strlen(OPTION) < end && !g_ascii_isspace(p[strlen(OPTION)]))) {
    const char *word_end = p;
    while (word_end < end && !g_ascii_isspace(*word_end))
      word_end++;
    fail(error, at, p, "expected --spec 'SPEC; SPEC; ...' after 'jitscope:', found '%.*s'",
         (int)(word_end - p), p);
    return false;
  }
  p = skip_blanks(p + strlen(OPTION), end);
  if (p == end || (*p != '\'' && *p != '"')) {
    fail(error, at, p, "expected a quoted spec list after --spec: --spec 'SPEC; SPEC; ...'");
    return false;
  }
  const char *quote = p;
  const char *close = memchr(quote + 1, *quote, (size_t)(end - quote - 1));
  if (!close) {
    fail(error, at, quote, "unterminated quote: the spec list ends at the end of the line");
    return false;
  }
  const char *rest = skip_blanks(close + 1, end);
  if (rest != end) {
    fail(error, at, rest, "unexpected text after the spec list (one --spec per line)");
    return false;
  }
  if (!check_specs(quote + 1, close, at, error))
    return false;
  g_ptr_array_add(lines, g_strstrip(g_strndup(quote + 1, (gsize)(close - quote - 1))));
  return true;
}

GPtrArray *app_spec_header_read(const char *text, gssize length, const char *filename,
                                GError **error) {
  const char *end = text + (length < 0 ? strlen(text) : (size_t)length);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
  Where at = {filename ? filename : "<program>", 0, text};
  for (const char *line = text; line < end;) {
    const char *newline = memchr(line, '\n', (size_t)(end - line));
    const char *line_end = newline ? newline : end;
    at.line++;
    at.start = line;
    const char *p = skip_blanks(line, line_end);
    if (p < line_end && *p != '#')
      break; /* the graph (or the Python source) begins: the header is over */
    if (p < line_end) {
      p = skip_blanks(p + 1, line_end);
      if ((size_t)(line_end - p) >= strlen(DIRECTIVE) &&
          strncmp(p, DIRECTIVE, strlen(DIRECTIVE)) == 0 &&
          !read_directive(p + strlen(DIRECTIVE), line_end, &at, lines, error))
        return NULL;
    }
    line = newline ? newline + 1 : end;
  }
  return g_steal_pointer(&lines);
}

GPtrArray *app_spec_header_read_file(const char *path, GError **error) {
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr(GError) local = NULL;
  if (!g_file_get_contents(path, &text, &length, &local)) {
    g_set_error(error, JITSCOPE_APP_ERROR, APP_ERROR_INPUT, "cannot read %s: %s", path,
                local->message);
    return NULL;
  }
  return app_spec_header_read(text, (gssize)length, path, error);
}

char *app_spec_line_from_declared_types(const IrGraph *graph) {
  const GPtrArray *inputs = ir_graph_inputs(graph);
  if (inputs->len == 0)
    return NULL;
  g_autoptr(GString) line = g_string_new(NULL);
  for (guint i = 0; i < inputs->len; i++) {
    const IrType *type = ((const IrValue *)g_ptr_array_index(inputs, i))->type;
    if (!ir_type_is_tensor(type))
      return NULL;
    g_autofree char *text = ir_type_to_string(type);
    InputSpec *spec = input_spec_parse(text, NULL);
    if (!spec)
      return NULL;
    input_spec_free(spec);
    g_string_append_printf(line, "%s%s", i ? "; " : "", text);
  }
  return g_string_free(g_steal_pointer(&line), FALSE);
}
