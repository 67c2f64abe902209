/* The corpus LSTM cell (shared/corpus/lstm_cell/graph.ir) as pass tests use it. */
#ifndef JITSCOPE_TESTS_LSTM_CELL_H
#define JITSCOPE_TESTS_LSTM_CELL_H

/* The corpus LSTM cell (lstm_cell/graph.ir without source comments), inputs as an
 * ArgumentSpec types them: dtype and rank known, sizes and device not. */
#define LSTM_HEADER                           \
  "graph(%x.1 : Float(*, *),\n"               \
  "      %hx.1 : Float(*, *),\n"              \
  "      %cx.1 : Float(*, *),\n"              \
  "      %w_ih.1 : Float(*, *),\n"            \
  "      %w_hh.1 : Float(*, *),\n"            \
  "      %b_ih.1 : Float(*),\n"               \
  "      %b_hh.1 : Float(*)):\n"              \
  "  %24 : int = prim::Constant[value=4]()\n" \
  "  %25 : int = prim::Constant[value=1]()\n"

static const char lstm_in[] G_GNUC_UNUSED = LSTM_HEADER
    "  %9 : Tensor = aten::t(%w_ih.1)\n"
    "  %10 : Tensor = aten::mm(%x.1, %9)\n"
    "  %13 : Tensor = aten::t(%w_hh.1)\n"
    "  %14 : Tensor = aten::mm(%hx.1, %13)\n"
    "  %16 : Tensor = aten::add(%10, %14, %25)\n"
    "  %19 : Tensor = aten::add(%16, %b_ih.1, %25)\n"
    "  %gates.1 : Tensor = aten::add(%19, %b_hh.1, %25)\n"
    "  %26 : Tensor[] = aten::chunk(%gates.1, %24, %25)\n"
    "  %ingate.1 : Tensor, %forgetgate.1 : Tensor, %cellgate.1 : Tensor, %outgate.1 : Tensor = "
    "prim::ListUnpack(%26)\n"
    "  %ingate.5 : Tensor = aten::sigmoid(%ingate.1)\n"
    "  %forgetgate.5 : Tensor = aten::sigmoid(%forgetgate.1)\n"
    "  %cellgate.5 : Tensor = aten::tanh(%cellgate.1)\n"
    "  %outgate.5 : Tensor = aten::sigmoid(%outgate.1)\n"
    "  %41 : Tensor = aten::mul(%forgetgate.5, %cx.1)\n"
    "  %44 : Tensor = aten::mul(%ingate.5, %cellgate.5)\n"
    "  %cy.1 : Tensor = aten::add(%41, %44, %25)\n"
    "  %49 : Tensor = aten::tanh(%cy.1)\n"
    "  %hy.1 : Tensor = aten::mul(%outgate.5, %49)\n"
    "  %53 : (Tensor, Tensor) = prim::TupleConstruct(%hy.1, %cy.1)\n"
    "  return (%53)\n";

#endif
