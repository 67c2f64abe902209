/* Every graph text under tests/realgraphs (what PyTorch 1.13 printed for everyday functions
 * and modules: .graph, .inlined_graph, frozen, graph_for; and hand-written dumps in the
 * 2018-19 formats under old/) parses, verifies, and prints back: PyTorch 1.13 prints
 * exactly as they were written, and every print is a fixed point of parse + print. */
#include <string.h>

#include "ir/text.h"
#include "ir/verify.h"

static char *print_all(const IrParsedFile *file) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < file->graphs->len; i++)
    ir_graph_print(s, g_ptr_array_index(file->graphs, i), NULL);
  return g_string_free(s, FALSE);
}

static IrParsedFile *parse_ok(const char *text, const char *label) {
  GError *error = NULL;
  IrParsedFile *file = ir_file_parse(text, strlen(text), label, &error);
  if (file == NULL)
    g_error("%s: %s", label, error->message);
  for (guint i = 0; i < file->graphs->len; i++) {
    if (!ir_graph_verify(g_ptr_array_index(file->graphs, i), &error))
      g_error("%s: graph %u does not verify: %s", label, i, error->message);
  }
  return file;
}

/* Files PyTorch 1.13 printed come back byte for byte; hand-written old-format files come
 * back in today's format, and that print is a fixed point. */
static void check_file(const char *path, bool exact) {
  char *text = NULL;
  GError *error = NULL;
  if (!g_file_get_contents(path, &text, NULL, &error))
    g_error("%s", error->message);
  IrParsedFile *file = parse_ok(text, path);
  char *printed = print_all(file);
  if (exact && strcmp(printed, text) != 0) {
    g_printerr("--- %s\n%s\n--- printed\n%s\n", path, text, printed);
    g_error("%s does not print back as PyTorch printed it", path);
  }
  IrParsedFile *again = parse_ok(printed, path);
  char *printed_again = print_all(again);
  g_assert_cmpstr(printed_again, ==, printed);
  g_assert_cmpuint(again->graphs->len, ==, file->graphs->len);
  g_free(printed_again);
  ir_parsed_file_free(again);
  g_free(printed);
  ir_parsed_file_free(file);
  g_free(text);
}

static guint check_dir(const char *dir, bool exact) {
  GError *error = NULL;
  GDir *d = g_dir_open(dir, 0, &error);
  if (d == NULL)
    g_error("%s", error->message);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    if (g_str_has_suffix(name, ".ir"))
      g_ptr_array_add(names, g_build_filename(dir, name, NULL));
  g_dir_close(d);
  for (guint i = 0; i < names->len; i++)
    check_file(g_ptr_array_index(names, i), exact);
  guint n = names->len;
  g_ptr_array_free(names, TRUE);
  return n;
}

static void test_pytorch_1_13_prints(void) {
  char *dir = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "tests", "realgraphs", NULL);
  g_assert_cmpuint(check_dir(dir, true), >=, 38);
  g_free(dir);
}

static void test_old_formats(void) {
  char *dir = g_build_filename(g_getenv("JITSCOPE_SOURCE_DIR"), "tests", "realgraphs", "old", NULL);
  g_assert_cmpuint(check_dir(dir, false), >=, 4);
  g_free(dir);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/text/realgraphs/pytorch-1.13", test_pytorch_1_13_prints);
  g_test_add_func("/text/realgraphs/old-formats", test_old_formats);
  return g_test_run();
}
