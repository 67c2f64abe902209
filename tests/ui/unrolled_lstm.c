/* The unrolled LSTM generator (contract in unrolled_lstm.h). */
#include "unrolled_lstm.h"

char *unrolled_lstm_ir(guint steps) {
  GString *s = g_string_new("graph(%x : Float(3, 10), %h0 : Float(3, 20), %c0 : Float(3, 20),\n"
                            "      %w_ih : Float(80, 10), %w_hh : Float(80, 20), %b_ih : Float(80),"
                            " %b_hh : Float(80)):\n"
                            "  %four : int = prim::Constant[value=4]()\n"
                            "  %one : int = prim::Constant[value=1]()\n");
  for (guint t = 0; t < steps; t++) {
    char h[32], c[32];
    if (t == 0) {
      g_strlcpy(h, "h0", sizeof h);
      g_strlcpy(c, "c0", sizeof c);
    } else {
      g_snprintf(h, sizeof h, "hy_%u", t - 1);
      g_snprintf(c, sizeof c, "cy_%u", t - 1);
    }
    g_string_append_printf(
        s,
        "  %%a_%1$u : Tensor = aten::t(%%w_ih)\n"
        "  %%b_%1$u : Tensor = aten::mm(%%x, %%a_%1$u)\n"
        "  %%d_%1$u : Tensor = aten::t(%%w_hh)\n"
        "  %%e_%1$u : Tensor = aten::mm(%%%2$s, %%d_%1$u)\n"
        "  %%f_%1$u : Tensor = aten::add(%%b_%1$u, %%e_%1$u, %%one)\n"
        "  %%g_%1$u : Tensor = aten::add(%%f_%1$u, %%b_ih, %%one)\n"
        "  %%k_%1$u : Tensor = aten::add(%%g_%1$u, %%b_hh, %%one)\n"
        "  %%l_%1$u : Tensor[] = aten::chunk(%%k_%1$u, %%four, %%one)\n"
        "  %%i_%1$u : Tensor, %%j_%1$u : Tensor, %%m_%1$u : Tensor, %%o_%1$u : Tensor = "
        "prim::ListUnpack(%%l_%1$u)\n"
        "  %%i2_%1$u : Tensor = aten::sigmoid(%%i_%1$u)\n"
        "  %%j2_%1$u : Tensor = aten::sigmoid(%%j_%1$u)\n"
        "  %%m2_%1$u : Tensor = aten::tanh(%%m_%1$u)\n"
        "  %%o2_%1$u : Tensor = aten::sigmoid(%%o_%1$u)\n"
        "  %%p_%1$u : Tensor = aten::mul(%%j2_%1$u, %%%3$s)\n"
        "  %%q_%1$u : Tensor = aten::mul(%%i2_%1$u, %%m2_%1$u)\n"
        "  %%cy_%1$u : Tensor = aten::add(%%p_%1$u, %%q_%1$u, %%one)\n"
        "  %%r_%1$u : Tensor = aten::tanh(%%cy_%1$u)\n"
        "  %%hy_%1$u : Tensor = aten::mul(%%o2_%1$u, %%r_%1$u)\n",
        t, h, c);
  }
  g_string_append_printf(s,
                         "  %%out : (Tensor, Tensor) = prim::TupleConstruct(%%hy_%u, %%cy_%u)\n"
                         "  return (%%out)\n",
                         steps - 1, steps - 1);
  return g_string_free(s, FALSE);
}
