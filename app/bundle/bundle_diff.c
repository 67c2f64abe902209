/* Line-based unified diff by LCS (contract in bundle_diff.h). */
#include "bundle_diff.h"

#include <string.h>

typedef enum { OP_SAME, OP_DEL, OP_ADD } DiffOp;

typedef struct {
  DiffOp op;
  guint a; /* line index in a (SAME, DEL) */
  guint b; /* line index in b (SAME, ADD) */
} DiffLine;

static GPtrArray *split_lines(const char *text) {
  GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    gsize n = nl ? (gsize)(nl - p) : strlen(p);
    g_ptr_array_add(lines, g_strndup(p, n));
    p += n + (nl ? 1 : 0);
  }
  return lines;
}

static bool line_eq(GPtrArray *a, guint i, GPtrArray *b, guint j) {
  return strcmp(g_ptr_array_index(a, i), g_ptr_array_index(b, j)) == 0;
}

static void push(GArray *ops, DiffOp op, guint a, guint b) {
  DiffLine l = {op, a, b};
  g_array_append_val(ops, l);
}

/* The edit script of a[a0, a1) against b[b0, b1). */
static void align_middle(GPtrArray *a, guint a0, guint a1, GPtrArray *b, guint b0, guint b1,
                         GArray *ops) {
  guint n = a1 - a0, m = b1 - b0;
  if ((guint64)(n + 1) * (m + 1) > APP_DIFF_MAX_CELLS) {
    for (guint i = a0; i < a1; i++)
      push(ops, OP_DEL, i, b0);
    for (guint j = b0; j < b1; j++)
      push(ops, OP_ADD, a1, j);
    return;
  }
  /* len[i][j]: LCS length of a[a0+i..a1) and b[b0+j..b1). */
  guint32 *len = g_new0(guint32, (gsize)(n + 1) * (m + 1));
#define LEN(i, j) len[(gsize)(i) * (m + 1) + (j)]
  for (guint i = n; i-- > 0;)
    for (guint j = m; j-- > 0;)
      LEN(i, j) =
          line_eq(a, a0 + i, b, b0 + j) ? LEN(i + 1, j + 1) + 1 : MAX(LEN(i + 1, j), LEN(i, j + 1));
  guint i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && line_eq(a, a0 + i, b, b0 + j)) {
      push(ops, OP_SAME, a0 + i, b0 + j);
      i++, j++;
    } else if (i < n && (j == m || LEN(i + 1, j) >= LEN(i, j + 1))) {
      push(ops, OP_DEL, a0 + i, b0 + j);
      i++;
    } else {
      push(ops, OP_ADD, a0 + i, b0 + j);
      j++;
    }
  }
#undef LEN
  g_free(len);
}

static void hunk_range(GString *out, guint start, guint count) {
  /* Unified format: a range of length 0 names the line before it. */
  if (count == 0)
    g_string_append_printf(out, "%u,0", start);
  else if (count == 1)
    g_string_append_printf(out, "%u", start + 1);
  else
    g_string_append_printf(out, "%u,%u", start + 1, count);
}

char *app_unified_diff(const char *a_text, const char *b_text, const char *a_label,
                       const char *b_label, guint context) {
  g_autoptr(GPtrArray) a = split_lines(a_text);
  g_autoptr(GPtrArray) b = split_lines(b_text);
  guint na = a->len, nb = b->len, pre = 0, suf = 0;
  while (pre < na && pre < nb && line_eq(a, pre, b, pre))
    pre++;
  while (suf < na - pre && suf < nb - pre && line_eq(a, na - 1 - suf, b, nb - 1 - suf))
    suf++;
  g_autoptr(GArray) ops = g_array_new(FALSE, FALSE, sizeof(DiffLine));
  for (guint i = 0; i < pre; i++)
    push(ops, OP_SAME, i, i);
  align_middle(a, pre, na - suf, b, pre, nb - suf, ops);
  for (guint k = 0; k < suf; k++)
    push(ops, OP_SAME, na - suf + k, nb - suf + k);

  GString *out = g_string_new(NULL);
  guint n_ops = ops->len, k = 0;
  while (k < n_ops) {
    /* Next change. */
    while (k < n_ops && g_array_index(ops, DiffLine, k).op == OP_SAME)
      k++;
    if (k == n_ops)
      break;
    guint start = k > context ? k - context : 0;
    /* Extend while another change follows within 2 * context same lines. */
    guint end = k;
    for (;;) {
      while (end < n_ops && g_array_index(ops, DiffLine, end).op != OP_SAME)
        end++;
      guint same = 0;
      while (end + same < n_ops && g_array_index(ops, DiffLine, end + same).op == OP_SAME &&
             same <= 2 * context)
        same++;
      if (end + same < n_ops && same <= 2 * context) {
        end += same;
        continue;
      }
      end = MIN(n_ops, end + context);
      break;
    }
    if (out->len == 0)
      g_string_append_printf(out, "--- %s\n+++ %s\n", a_label, b_label);
    guint a_start = 0, b_start = 0, a_count = 0, b_count = 0;
    const DiffLine *first = &g_array_index(ops, DiffLine, start);
    a_start = first->a;
    b_start = first->b;
    for (guint x = start; x < end; x++) {
      DiffOp op = g_array_index(ops, DiffLine, x).op;
      a_count += op != OP_ADD;
      b_count += op != OP_DEL;
    }
    g_string_append(out, "@@ -");
    hunk_range(out, a_start, a_count);
    g_string_append(out, " +");
    hunk_range(out, b_start, b_count);
    g_string_append(out, " @@\n");
    for (guint x = start; x < end; x++) {
      const DiffLine *l = &g_array_index(ops, DiffLine, x);
      if (l->op == OP_SAME)
        g_string_append_printf(out, " %s\n", (char *)g_ptr_array_index(a, l->a));
      else if (l->op == OP_DEL)
        g_string_append_printf(out, "-%s\n", (char *)g_ptr_array_index(a, l->a));
      else
        g_string_append_printf(out, "+%s\n", (char *)g_ptr_array_index(b, l->b));
    }
    k = end;
  }
  return g_string_free(out, FALSE);
}
