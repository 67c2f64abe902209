/* Graph text benchmark: parse and print a chain of N nodes (aten::mul with source ranges, as
 * PyTorch prints them) at N = 1,000, 10,000, 100,000 (and 1,000,000 without --quick). Per
 * size: ms to parse, ms to print, ns per node, and the text's MB/s beside a memcpy of the
 * same text (the hardware limit for touching every byte once). Linear cost shows as a flat
 * ns/node column; this is what the unit test text-seeds-large used to time.
 * Usage: text_bench [--quick] */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_args.h"
#include "ir/ir.h"
#include "ir/text.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static GString *chain_text(int n) {
  GString *s = g_string_new("graph(%x : Float(*, *),\n      %y : Float(*, *)):\n");
  g_string_append(s, "  %one : int = prim::Constant[value=1]()\n");
  g_string_append(s, "  %v0 : Tensor = aten::add(%x, %y, %one) # big.py:1:1\n");
  for (int i = 1; i < n - 1; i++)
    g_string_append_printf(s, "  %%v%d : Tensor = aten::mul(%%v%d, %%%s) # big.py:%d:5\n", i, i - 1,
                           i % 2 ? "x" : "y", i + 1);
  g_string_append_printf(s, "  return (%%v%d)\n", n - 2);
  return s;
}

int main(int argc, char **argv) {
  g_set_prgname("text_bench");
  gboolean quick = FALSE;
  const GOptionEntry options[] = {{"quick", 0, 0, G_OPTION_ARG_NONE, &quick,
                                   "Stop at 100,000 nodes (no 1,000,000-node chain)", NULL},
                                  G_OPTION_ENTRY_NULL};
  bench_args_parse(&argc, &argv, NULL,
                   "Graph text: parse and print chains of 1,000 to 1,000,000 nodes. Prints per\n"
                   "size ms to parse and to print, ns per node (flat: linear cost) and MB/s\n"
                   "beside a memcpy of the same text.",
                   options, 0);
  const int sizes[] = {1000, 10000, 100000, 1000000};
  guint n_sizes = quick ? 3 : 4;
  printf("%10s %10s %10s %12s %10s %12s\n", "nodes", "parse ms", "print ms", "ns/node", "MB/s",
         "memcpy MB/s");
  for (guint k = 0; k < n_sizes; k++) {
    GString *s = chain_text(sizes[k]);
    GError *error = NULL;
    double t0 = now_ms();
    IrGraph *g = ir_graph_parse(s->str, s->len, "big.py", &error);
    double t1 = now_ms();
    if (g == NULL) {
      fprintf(stderr, "text_bench: %s\n", error->message);
      return 1;
    }
    char *out = ir_graph_to_string(g);
    double t2 = now_ms();
    if (strcmp(out, s->str) != 0) {
      fprintf(stderr, "text_bench: the printed text differs from the parsed text\n");
      return 1;
    }
    char *copy = g_malloc(s->len);
    double t3 = now_ms();
    memcpy(copy, s->str, s->len);
    double t4 = now_ms();
    volatile char sink = copy[s->len / 2];
    (void)sink;
    double mb = (double)s->len / 1e6;
    printf("%10d %10.1f %10.1f %12.0f %10.0f %12.0f\n", sizes[k], t1 - t0, t2 - t1,
           (t2 - t0) * 1e6 / sizes[k], 2 * mb / ((t2 - t0) / 1e3),
           mb / ((t4 - t3 > 1e-6 ? t4 - t3 : 1e-6) / 1e3));
    g_free(copy);
    g_free(out);
    ir_graph_free(g);
    g_string_free(s, TRUE);
  }
  return 0;
}
