/* The script frontend against PyTorch's own prints: every NAME.py of a cases folder compiles
 * to the graph PyTorch 1.13 printed in NAME.ir (scripts/gen_script_cases.py), and every
 * corpus program's source.py to its graph.ir.
 *
 * Compared: every line of the text, node kinds, order, types, constants and attributes
 * included, with value names replaced by their order of first appearance (PyTorch's SSA
 * suffixes differ from ours) and source comments compared as positions: the corpus was
 * printed from another file (gen_corpus.py, the def indented and further down), so the first
 * comment fixes a line and column offset that every other comment must keep.
 *
 * Usage: test-script-graphs CASES_DIR [CORPUS_DIR [KNOWN_DIFFERENCES]]; exit 1 on a mismatch,
 * 77 when the corpus folder is given but missing and there are no cases. KNOWN_DIFFERENCES
 * lists corpus programs (one name per line, `#` comments) whose print is known to differ
 * from PyTorch's: those may differ, and one that matches fails the test until it is taken
 * off the list, so the list stays true. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text.h"
#include "script/script.h"

typedef struct {
  char *code;    /* the line without its comment, value names canonical */
  int line, col; /* of the source comment; line 0: none */
} CanonLine;

static void canon_line_clear(gpointer p) {
  g_free(((CanonLine *)p)->code);
}

/* Splits `text` into canonical lines. */
static GArray *canonicalize(const char *text) {
  GArray *lines = g_array_new(FALSE, TRUE, sizeof(CanonLine));
  g_array_set_clear_func(lines, canon_line_clear);
  g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) raw = g_strsplit(text, "\n", -1);
  for (char **l = raw; *l; l++) {
    if (**l == '\0')
      continue;
    if (g_str_has_prefix(*l, "with ")) /* a subgraph: its own value names */
      g_hash_table_remove_all(names);
    CanonLine cl = {0};
    char *comment = strstr(*l, " # ");
    if (comment) {
      *comment = '\0';
      const char *pos = strrchr(comment + 3, ':');
      const char *line_start = pos;
      while (line_start > comment + 3 && line_start[-1] != ':')
        line_start--;
      if (pos && line_start > comment + 3) {
        cl.line = atoi(line_start);
        cl.col = atoi(pos + 1);
      }
    }
    GString *code = g_string_new(NULL);
    for (const char *p = *l; *p;) {
      if (*p != '%') {
        g_string_append_c(code, *p++);
        continue;
      }
      const char *start = ++p;
      while (g_ascii_isalnum(*p) || *p == '_' || *p == '.')
        p++;
      char *name = g_strndup(start, p - start);
      gpointer id = g_hash_table_lookup(names, name);
      if (id == NULL) {
        id = GUINT_TO_POINTER(g_hash_table_size(names) + 1);
        g_hash_table_insert(names, name, id);
      } else {
        g_free(name);
      }
      g_string_append_printf(code, "%%v%u", GPOINTER_TO_UINT(id));
    }
    cl.code = g_string_free(code, FALSE);
    g_array_append_val(lines, cl);
  }
  return lines;
}

/* NULL when the graphs agree, else what differs. */
static char *compare(const char *expected, const char *ours) {
  g_autoptr(GArray) want = canonicalize(expected);
  g_autoptr(GArray) got = canonicalize(ours);
  bool have_offset = false;
  int dline = 0, dcol = 0;
  for (guint i = 0; i < MAX(want->len, got->len); i++) {
    if (i >= want->len || i >= got->len)
      return g_strdup_printf("%u lines, PyTorch printed %u", got->len, want->len);
    CanonLine *w = &g_array_index(want, CanonLine, i), *g = &g_array_index(got, CanonLine, i);
    if (strcmp(w->code, g->code) != 0)
      return g_strdup_printf("line %u differs:\n  pytorch: %s\n  ours:    %s", i + 1, w->code,
                             g->code);
    if ((w->line == 0) != (g->line == 0))
      return g_strdup_printf("line %u: source comment %s by PyTorch, %s by us: %s", i + 1,
                             w->line ? "printed" : "not printed", g->line ? "printed" : "not",
                             w->code);
    if (w->line == 0)
      continue;
    if (!have_offset) {
      dline = w->line - g->line;
      dcol = w->col - g->col;
      have_offset = true;
    } else if (w->line - g->line != dline || w->col - g->col != dcol) {
      return g_strdup_printf("line %u: source position %d:%d, PyTorch's %d:%d is off by "
                             "another amount than the first comment's (%+d:%+d): %s",
                             i + 1, g->line, g->col, w->line, w->col, dline, dcol, w->code);
    }
  }
  return NULL;
}

/* Compiles and compares one program; a difference is printed under `fail_label`. */
static bool check_pair(const char *source_path, const char *expected_path, const char *name,
                       const char *fail_label) {
  g_autofree char *source = NULL, *expected = NULL;
  gsize length = 0;
  g_autoptr(GError) error = NULL;
  if (!g_file_get_contents(source_path, &source, &length, &error) ||
      !g_file_get_contents(expected_path, &expected, NULL, &error)) {
    printf("%s %s: %s\n", fail_label, name, error->message);
    return false;
  }
  IrGraph *graph = script_compile(source, length, source_path, NULL, &error);
  if (graph == NULL) {
    printf("%s %s: %s\n", fail_label, name, error->message);
    return false;
  }
  g_autofree char *printed = ir_graph_to_string(graph);
  ir_graph_free(graph);
  g_autofree char *why = compare(expected, printed);
  if (why) {
    printf("%s %s: %s\n--- ours:\n%s", fail_label, name, why, printed);
    return false;
  }
  printf("ok   %s\n", name);
  return true;
}

static gint compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of a KNOWN_DIFFERENCES file (see the header), as a set. */
static GHashTable *read_known(const char *path) {
  GHashTable *known = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL))
    g_error("cannot read %s", path);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (guint i = 0; lines[i]; i++) {
    char *hash = strchr(lines[i], '#');
    if (hash)
      *hash = '\0';
    char *name = g_strstrip(lines[i]);
    if (*name)
      g_hash_table_add(known, g_strdup(name));
  }
  return known;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: %s CASES_DIR [CORPUS_DIR [KNOWN_DIFFERENCES]]\n", argv[0]);
    return 2;
  }
  g_autoptr(GHashTable) known = argc == 4 ? read_known(argv[3]) : NULL;
  guint checked = 0, failed = 0, known_differ = 0;
  for (int a = 1; a < argc && a < 3; a++) {
    g_autoptr(GDir) dir = g_dir_open(argv[a], 0, NULL);
    if (dir == NULL)
      continue;
    g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func(g_free);
    for (const char *e; (e = g_dir_read_name(dir));)
      g_ptr_array_add(entries, g_strdup(e));
    g_ptr_array_sort(entries, compare_names);
    for (guint i = 0; i < entries->len; i++) {
      const char *e = g_ptr_array_index(entries, i);
      g_autofree char *source = NULL, *expected = NULL;
      if (a == 1) {
        if (!g_str_has_suffix(e, ".py"))
          continue;
        source = g_build_filename(argv[a], e, NULL);
        expected = g_strndup(source, strlen(source) - 3);
        char *ir = g_strconcat(expected, ".ir", NULL);
        g_free(expected);
        expected = ir;
      } else {
        source = g_build_filename(argv[a], e, "source.py", NULL);
        expected = g_build_filename(argv[a], e, "graph.ir", NULL);
        if (!g_file_test(source, G_FILE_TEST_EXISTS))
          continue;
      }
      checked++;
      bool listed = a == 2 && known && g_hash_table_contains(known, e);
      bool same = check_pair(source, expected, e, listed ? "known difference" : "FAIL");
      if (listed && same) {
        printf("FAIL %s: matches PyTorch's print now; take it off %s\n", e, argv[3]);
        failed++;
      } else if (listed) {
        known_differ++;
      } else {
        failed += !same;
      }
    }
  }
  if (known)
    printf("%u known differences (%s)\n", known_differ, argv[3]);
  printf("%u programs, %u failed\n", checked, failed);
  if (checked == 0)
    return 77;
  return failed ? 1 : 0;
}
