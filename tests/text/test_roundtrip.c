/* Round trips: every graph text of the corpus parses and prints back byte-identical; printing is
 * a fixed point (print(parse(print(parse(x)))) == print(parse(x))) for texts that are not in
 * canonical form; hand-checked details of the structure the parser builds. */
#include <string.h>

#include "ir/text.h"
#include "ir/verify.h"
#include "text_test_util.h"

static char *reprint(const char *text, const char *label) {
  IrGraph *g = text_test_parse_ok(text, label);
  GError *error = NULL;
  if (!ir_graph_verify(g, &error))
    g_error("%s: parsed graph does not verify: %s", label, error->message);
  char *out = ir_graph_to_string(g);
  ir_graph_free(g);
  return out;
}

static void test_corpus_byte_identical(void) {
  GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
  text_test_corpus_graphs(labels, texts);
  /* 10 graph.ir, 17 forward graphs, 14 backward plans at the time of writing. */
  g_assert_cmpuint(texts->len, >=, 41);
  for (guint i = 0; i < texts->len; i++) {
    const char *label = g_ptr_array_index(labels, i);
    const char *text = g_ptr_array_index(texts, i);
    char *out = reprint(text, label);
    if (strcmp(out, text) != 0)
      g_error("%s: printed text differs from the input.\n--- input\n%s--- printed\n%s", label, text,
              out);
    g_free(out);
  }
  g_ptr_array_free(labels, TRUE);
  g_ptr_array_free(texts, TRUE);
}

static void assert_fixed_point(const char *text) {
  char *once = reprint(text, "once");
  char *twice = reprint(once, "twice");
  g_assert_cmpstr(once, ==, twice);
  g_free(once);
  g_free(twice);
}

static void test_fixed_point_noncanonical(void) {
  /* Untyped outputs, odd spacing, comments on their own lines, early format. */
  assert_fixed_point("graph(%a, %b : Tensor):\n"
                     "  # a comment line\n"
                     "  %c = aten::mul(%a,%b)\n"
                     "  %d : int = prim::Constant[value=3]()\n"
                     "  return (%c)\n");
  assert_fixed_point("graph(%x : Tensor): # header\n  %y : Tensor = aten::neg(%x) # a.py:1:2\n"
                     "  return (%y) # trailing\n# end\n");
  assert_fixed_point("\xef\xbb\xbfgraph(%x : Tensor):\n  return (%x)\n");
  /* a file's header comments before the graph (the input specs of spec_header.h) */
  assert_fixed_point("# An example.\n\n# jitscope: --spec 'Float(2)'\ngraph(%x : Tensor):\n"
                     "  return (%x)\n");
  assert_fixed_point(
      "graph(%0 : Float(2, 3, 4)\n      %1 : Dynamic) {\n"
      "  %2 : Float(2, 3, 4), %3 : Float(2, 3, 4) = prim::GradOf[name=aten::add](%0)\n"
      "  block0() {\n    -> (%0, %1)\n  }\n"
      "  return (%2, %3);\n}\n");
}

/* The expected text is written by hand from PyTorch's printing rules. */
static void test_canonical_forms(void) {
  const char *in = "graph(%x : Tensor):\n"
                   "  %f = prim::Constant[value=1.0]()\n"
                   "  %g = prim::Constant[value=1e-05]()\n"
                   "  %h = prim::Constant[value=-0.0]()\n"
                   "  %s = prim::Constant[value='it\\'s']()\n"
                   "  %l = prim::Constant[value=[1, 2]]()\n"
                   "  %e : int[] = prim::Constant[value=annotate(List[int], [])]()\n"
                   "  %n = prim::Constant()\n"
                   "  %t = prim::Constant[value={2}]()\n"
                   "  %y = aten::mul(%x, %f)\n"
                   "  return (%y)\n";
  const char *want = "graph(%x : Tensor):\n"
                     "  %f : float = prim::Constant[value=1.]()\n"
                     "  %g : float = prim::Constant[value=1.0000000000000001e-05]()\n"
                     "  %h : float = prim::Constant[value=-0.]()\n"
                     "  %s : str = prim::Constant[value=\"it\\'s\"]()\n"
                     "  %l : int[] = prim::Constant[value=[1, 2]]()\n"
                     "  %e : int[] = prim::Constant[value=[]]()\n"
                     "  %n : NoneType = prim::Constant()\n"
                     "  %t : Tensor = prim::Constant[value={2}]()\n"
                     "  %y : Tensor = aten::mul(%x, %f)\n"
                     "  return (%y)\n";
  char *out = reprint(in, "canonical");
  g_assert_cmpstr(out, ==, want);
  g_free(out);
  /* PyTorch writes the double 1e10 as 10000000000: read back as a double for a float. */
  IrGraph *g = text_test_parse_ok("graph():\n  %f : float = prim::Constant[value=10000000000]()\n"
                                  "  return (%f)\n",
                                  "big-double");
  g_assert_cmpfloat(ir_node_attr_f(g->block->param->next, "value"), ==, 1e10);
  out = ir_graph_to_string(g);
  g_assert_cmpstr(out, ==,
                  "graph():\n  %f : float = prim::Constant[value=10000000000]()\n"
                  "  return (%f)\n");
  g_free(out);
  ir_graph_free(g);
  /* So a float list holding one reads as a float list, not as one that mixes kinds (the
   * parser fuzzer's printed text that did not parse). */
  const char *list =
      "graph():\n"
      "  %l : float[] = prim::Constant[value=[0., 66666666666666, inf, -inf, 2.5]]()\n"
      "  return (%l)\n";
  out = reprint(list, "big-double-list");
  g_assert_cmpstr(out, ==, list);
  g = text_test_parse_ok(list, "big-double-list");
  const IrAttr *a = ir_node_attr(g->block->param->next, "value");
  g_assert_cmpint(a->kind, ==, IR_ATTR_FS);
  g_assert_cmpfloat(g_array_index(a->v.fs, double, 1), ==, 66666666666666.0);
  g_free(out);
  ir_graph_free(g);
}

/* PyTorch 2018 printed number constants as one-element tensors and some bools as words, and
 * named Scalar "Number": read as the numbers and types they stand for. */
static void test_2018_numbers(void) {
  const char *in = "graph(%x : Tensor) {\n"
                   "  %i : int = prim::Constant[value={1}]()\n"
                   "  %f : float = prim::Constant[value={0.5}]()\n"
                   "  %b : bool = prim::Constant[value=false]()\n"
                   "  %t : bool = prim::Constant[value=true]()\n"
                   "  %n : Number = prim::Constant[value=2]()\n"
                   "  return (%x);\n"
                   "}\n";
  const char *want = "graph(%x : Tensor):\n"
                     "  %i : int = prim::Constant[value=1]()\n"
                     "  %f : float = prim::Constant[value=0.5]()\n"
                     "  %b : bool = prim::Constant[value=0]()\n"
                     "  %t : bool = prim::Constant[value=1]()\n"
                     "  %n : Scalar = prim::Constant[value=2]()\n"
                     "  return (%x)\n";
  char *out = reprint(in, "numbers-2018");
  g_assert_cmpstr(out, ==, want);
  g_free(out);
  /* 2018 op names: tensor-to-number conversions by the number made, None as a constant. */
  out = reprint("graph(%x : Tensor) {\n"
                "  %1 : int = prim::TensorToNum(%x)\n"
                "  %2 : float = prim::TensorToNum(%x)\n"
                "  %3 : bool = prim::TensorToBool(%x)\n"
                "  %4 : float = prim::Float(%x)\n"
                "  %5 : int = prim::Int(%x)\n"
                "  %6 : NoneType = prim::None()\n"
                "  return (%1, %2, %3, %4, %5, %6);\n"
                "}\n",
                "ops-2018");
  g_assert_cmpstr(out, ==,
                  "graph(%x : Tensor):\n"
                  "  %1 : int = aten::Int(%x)\n"
                  "  %2 : float = aten::Float(%x)\n"
                  "  %3 : bool = aten::Bool(%x)\n"
                  "  %4 : float = aten::Float(%x)\n"
                  "  %5 : int = aten::Int(%x)\n"
                  "  %6 : NoneType = prim::Constant()\n"
                  "  return (%1, %2, %3, %4, %5, %6)\n");
  g_free(out);
  /* 2018's flags as ints: where a bool goes and no overload takes the int, a bool constant. */
  out = reprint("graph(%x : Tensor) {\n"
                "  %d : int[] = prim::Constant[value=[0]]()\n"
                "  %k : int = prim::Constant[value=1]()\n"
                "  %s : Tensor = aten::sum(%x, %d, %k)\n"
                "  return (%s);\n"
                "}\n",
                "flag-2018");
  g_assert_cmpstr(out, ==,
                  "graph(%x : Tensor):\n"
                  "  %d : int[] = prim::Constant[value=[0]]()\n"
                  "  %k : int = prim::Constant[value=1]()\n"
                  "  %4 : bool = prim::Constant[value=1]()\n"
                  "  %s : Tensor = aten::sum(%x, %d, %4)\n"
                  "  return (%s)\n");
  g_free(out);
  /* A fraction is no int. */
  g_autofree char *message = text_test_parse_error(
      "graph():\n  %i : int = prim::Constant[value={1.5}]()\n  return (%i)\n");
  g_assert_cmpstr(
      message, ==,
      "t.ir:2:14: error: bad attribute: the value does not suit a constant of type int");
  /* Nor is a number past int64's range, nor a bool one other than 0 and 1. */
  g_autofree char *huge = text_test_parse_error(
      "graph():\n  %i : int = prim::Constant[value={1e300}]()\n  return (%i)\n");
  g_assert_cmpstr(
      huge, ==, "t.ir:2:14: error: bad attribute: the value does not suit a constant of type int");
  g_autofree char *two =
      text_test_parse_error("graph():\n  %b : bool = prim::Constant[value={2}]()\n  return (%b)\n");
  g_assert_cmpstr(two, ==,
                  "t.ir:2:15: error: bad attribute: the value does not suit a constant of type "
                  "bool");
}

static void test_structure(void) {
  const char *text = "graph(%x.1 : Tensor,\n      %y.1 : float):\n"
                     "  %24 : bool = prim::Constant[value=1]()\n"
                     "  %21 : int = prim::Constant[value=3]()\n"
                     "  %z : Tensor = prim::Loop(%21, %24, %x.1) # f.py:1:2\n"
                     "    block0(%i : int, %z.23 : Tensor):\n"
                     "      %z.15 : Tensor = aten::mul(%z.23, %y.1)\n"
                     "      -> (%24, %z.15)\n"
                     "  return (%z)\n";
  IrGraph *g = text_test_parse_ok(text, "structure");
  g_assert_cmpuint(ir_graph_inputs(g)->len, ==, 2);
  IrNode *c = g->block->param->next;
  g_assert_cmpint(c->kind, ==, IR_PRIM_CONSTANT);
  g_assert_cmpuint(ir_output(c, 0)->id, ==, 24);
  g_assert_null(ir_output(c, 0)->name);
  g_assert_cmpint(ir_node_attr_i(c, "value"), ==, 1);
  IrNode *loop = c->next->next;
  g_assert_cmpint(loop->kind, ==, IR_PRIM_LOOP);
  g_assert_cmpstr(loop->source, ==, "f.py:1:2");
  g_assert_cmpuint(ir_n_blocks(loop), ==, 1);
  IrBlock *body = ir_block(loop, 0);
  g_assert_cmpuint(ir_block_inputs(body)->len, ==, 2);
  IrNode *mul = body->param->next;
  g_assert_nonnull(mul->schema);
  g_assert_cmpstr(mul->schema->overload, ==, "Scalar");
  g_assert_true(ir_input(mul, 0) == g_ptr_array_index(ir_block_inputs(body), 1));
  g_assert_cmpuint(ir_output(c, 0)->uses->len, ==, 2);
  /* Named values get ids above every numeric one, all distinct. */
  GHashTable *ids = g_hash_table_new(g_int64_hash, g_int64_equal);
  IrValue *vals[] = {ir_input(loop, 2), g_ptr_array_index(ir_graph_inputs(g), 1),
                     ir_output(loop, 0), ir_output(mul, 0), ir_input(mul, 0)};
  for (gsize i = 0; i < G_N_ELEMENTS(vals); i++) {
    g_assert_cmpuint(vals[i]->id, >, 24);
    g_assert_false(g_hash_table_contains(ids, &vals[i]->id));
    g_hash_table_add(ids, &vals[i]->id);
  }
  g_hash_table_destroy(ids);
  ir_graph_free(g);
}

static void test_nested_trailers(void) {
  /* Group numbers count per graph in print order; a body's trailers follow its return. */
  const char *text = "graph(%a : Tensor):\n"
                     "  %1 : Tensor = prim::DifferentiableGraph_0(%a)\n"
                     "  %2 : Tensor = prim::FusionGroup_1(%1)\n"
                     "  return (%2)\n"
                     "with prim::DifferentiableGraph_0 = graph(%b : Tensor):\n"
                     "  %3 : Tensor = prim::FusionGroup_0(%b)\n"
                     "  return (%3)\n"
                     "with prim::FusionGroup_0 = graph(%c : Tensor):\n"
                     "  %4 : Tensor = aten::neg(%c)\n"
                     "  return (%4)\n"
                     "with prim::FusionGroup_1 = graph(%d : Tensor):\n"
                     "  %5 : Tensor = aten::relu(%d)\n"
                     "  return (%5)\n";
  IrGraph *g = text_test_parse_ok(text, "nested");
  IrNode *dg = g->block->param->next;
  IrNode *fg = dg->next;
  g_assert_cmpint(dg->kind, ==, IR_PRIM_DIFFERENTIABLE_GRAPH);
  g_assert_cmpint(fg->kind, ==, IR_PRIM_FUSION_GROUP);
  IrGraph *dg_body = ir_node_attr_g(dg, "Subgraph");
  IrNode *inner = dg_body->block->param->next;
  g_assert_cmpint(inner->kind, ==, IR_PRIM_FUSION_GROUP);
  g_assert_cmpint(ir_node_attr_g(inner, "Subgraph")->block->param->next->kind, ==, IR_ATEN_NEG);
  g_assert_cmpint(ir_node_attr_g(fg, "Subgraph")->block->param->next->kind, ==, IR_ATEN_RELU);
  char *out = ir_graph_to_string(g);
  g_assert_cmpstr(out, ==, text);
  g_free(out);
  ir_graph_free(g);
}

static void test_type_parse(void) {
  static const char *types[] = {
      "Tensor",
      "Float(*, *)",
      "Float(5, 1, strides=[1, 1], requires_grad=1, device=cpu)",
      "Float(*, requires_grad=0, device=cpu)",
      "Float(requires_grad=0, device=cpu)",
      "Tensor[Undefined]",
      "int[]?",
      "(Tensor, int)",
      "NoneType",
      "Double(2, 3)",
      "Bool(*, *, requires_grad=0, device=cpu)",
      "Tensor[]",
      "float",
      "str",
      "Device",
  };
  for (gsize i = 0; i < G_N_ELEMENTS(types); i++) {
    GError *error = NULL;
    const IrType *t = ir_type_parse(types[i], strlen(types[i]), &error);
    g_assert_no_error(error);
    char *s = ir_type_to_string(t);
    g_assert_cmpstr(s, ==, types[i]);
    g_free(s);
  }
  GError *error = NULL;
  const IrType *t = ir_type_parse("Float(2, 3, 4!)", 15, &error);
  g_assert_no_error(error);
  g_assert_cmpint(t->rank, ==, 3);
  g_assert_cmpint(t->sizes[2], ==, 4);
  g_assert_true(ir_type_parse("UndefinedTensor", 15, NULL)->undefined);
  g_assert_true(ir_type_parse("Dynamic", 7, NULL) == ir_type_tensor());
  g_assert_null(ir_type_parse("Float(2) x", 10, &error));
  g_assert_cmpstr(error->message, ==,
                  "<type>:1:10: error: bad type: unexpected 'x' after the type");
  g_error_free(error);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/text/roundtrip/corpus", test_corpus_byte_identical);
  g_test_add_func("/text/roundtrip/fixed-point", test_fixed_point_noncanonical);
  g_test_add_func("/text/roundtrip/canonical-forms", test_canonical_forms);
  g_test_add_func("/text/roundtrip/numbers-2018", test_2018_numbers);
  g_test_add_func("/text/roundtrip/structure", test_structure);
  g_test_add_func("/text/roundtrip/nested-trailers", test_nested_trailers);
  g_test_add_func("/text/roundtrip/types", test_type_parse);
  return g_test_run();
}
