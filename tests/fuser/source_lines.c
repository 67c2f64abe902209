/* Shared helpers of the code generators' tests (contract in source_lines.h). */
#include "source_lines.h"

#include <string.h>

#include "ir/text.h"

IrGraph *source_lines_parse(const char *text) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, strlen(text), "<test>", &error);
  g_assert_no_error(error);
  return g;
}

void source_lines_expect(const char *source, const char *const *lines) {
  char **have = g_strsplit(source, "\n", -1);
  guint at = 0;
  for (guint i = 0; lines[i]; i++) {
    while (have[at] && strcmp(have[at], lines[i]) != 0)
      at++;
    if (have[at] == NULL) {
      g_printerr("missing (or out of order) line:\n%s\nin source:\n%s\n", lines[i], source);
      g_assert_not_reached();
    }
    at++;
  }
  g_strfreev(have);
}
