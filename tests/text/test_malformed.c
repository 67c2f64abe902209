/* Malformed inputs: each asserts the exact "FILE:LINE:COL: error: message". Line and column of
 * every case were counted by hand from the input text (columns are 1-based characters). */
#include <string.h>

#include "ir/text.h"
#include "text_test_util.h"

typedef struct {
  const char *name;
  const char *text;
  const char *message;
} Case;

#define G "graph(%x : Tensor):\n"

static const Case cases[] = {
    {"empty", "", "t.ir:1:1: error: empty input: expected 'graph('"},
    {"blank", "  \n \t\n", "t.ir:1:1: error: empty input: expected 'graph('"},
    {"garbage-char", G "  $y\n", "t.ir:2:3: error: unexpected character '$'"},
    {"non-ascii-char", G "  \xc3\xa9\n", "t.ir:2:3: error: unexpected character U+00E9"},
    {"not-graph", "grph(%x):\n", "t.ir:1:1: error: expected 'graph(', found 'grph'"},
    {"kind-without-namespace", G "  %y : Tensor = foo(%x)\n  return (%y)\n",
     "t.ir:2:17: error: expected an operator 'namespace::name', found 'foo'"},
    {"python-op-unclosed", G "  %y : Tensor = ^f(1(%x)\n  return (%y)\n",
     "t.ir:2:17: error: unterminated Python op arguments"},
    {"bad-scope", G "  %y : Tensor = aten::neg(%x), sc: A\n  return (%y)\n",
     "t.ir:2:30: error: expected ', scope: NAME' after the inputs"},
    {"graph-attribute", G "  %y : Tensor = aten::neg[g=<Graph>](%x)\n  return (%y)\n",
     "t.ir:2:29: error: bad attribute: a value printed as <Graph> cannot be read back"},
    {"undefined-value", G "  %y : Tensor = aten::neg(%q)\n  return (%y)\n",
     "t.ir:2:27: error: undefined value %q"},
    {"redefinition", G "  %x : Tensor = aten::neg(%x)\n  return (%x)\n",
     "t.ir:2:3: error: redefinition of value %x (first defined at 1:7)"},
    {"use-before-def",
     G "  %y : Tensor = aten::mul(%x, %z)\n  %z : Tensor = aten::neg(%x)\n  return (%y)\n",
     "t.ir:2:31: error: value %z is used before its definition (line 3)"},
    {"self-use", G "  %y : Tensor = aten::neg(%y)\n  return (%y)\n",
     "t.ir:2:27: error: value %y is used by the node that defines it"},
    {"out-of-scope",
     "graph(%c : bool, %x : Tensor):\n  %y : Tensor = prim::If(%c)\n    block0():\n"
     "      %z : Tensor = aten::neg(%x)\n      -> (%z)\n    block1():\n      -> (%x)\n"
     "  %w : Tensor = aten::neg(%z)\n  return (%w)\n",
     "t.ir:8:27: error: value %z is not visible here: it is defined inside a block at 4:7"},
    {"bad-type", "graph(%x : Tensr):\n", "t.ir:1:12: error: bad type: unknown type 'Tensr'"},
    {"bad-dtype", "graph(%x : IntTensor):\n",
     "t.ir:1:12: error: bad type: unknown type 'IntTensor'"},
    {"size-absurd", "graph(%x : Float(1099511627777)):\n",
     "t.ir:1:18: error: bad type: size 1099511627777 is out of range (0 to 2^40)"},
    {"size-int64-overflow", "graph(%x : Float(99999999999999999999)):\n",
     "t.ir:1:18: error: bad type: size 99999999999999999999 does not fit in 64 bits"},
    {"rank-above-16", "graph(%x : Float(*, *, *, *, *, *, *, *, *, *, *, *, *, *, *, *, *)):\n",
     "t.ir:1:66: error: bad type: rank above 16"},
    {"strides-count", "graph(%x : Float(2, 3, strides=[1])):\n",
     "t.ir:1:35: error: bad type: 1 strides for rank 2"},
    {"requires-grad-2", "graph(%x : Float(*, requires_grad=2)):\n",
     "t.ir:1:35: error: bad type: requires_grad must be 0 or 1"},
    {"unknown-device", "graph(%x : Float(*, device=tpu)):\n",
     "t.ir:1:28: error: bad type: unknown device (expected cpu or cuda)"},
    {"unknown-property", "graph(%x : Float(*, foo=1)):\n",
     "t.ir:1:21: error: bad type: unknown tensor property 'foo'"},
    {"tuple-unclosed", "graph(%x : (Tensor, int]):\n",
     "t.ir:1:24: error: expected ')' to close the tuple type, found ']'"},
    {"attr-twice", G "  %c : int = prim::Constant[value=1, value=2]()\n  return (%x)\n",
     "t.ir:2:38: error: bad attribute: 'value' given twice"},
    {"attr-tensor-placeholder", G "  %c : int = prim::Constant[value=<Tensor>]()\n  return (%x)\n",
     "t.ir:2:14: error: bad attribute: the value does not suit a constant of type int"},
    {"attr-tensor-in-list", G "  %c : int = prim::Constant[value=[<Tensor>]]()\n  return (%x)\n",
     "t.ir:2:36: error: bad attribute: a value printed as <...> (tensor or graph) cannot be read "
     "back"},
    {"attr-mixed-list", G "  %c : int = prim::Constant[value=[1, \"a\"]]()\n  return (%x)\n",
     "t.ir:2:39: error: bad attribute: list 'value' mixes element kinds"},
    {"attr-int-overflow",
     G "  %c : int = prim::Constant[value=9223372036854775808]()\n  return (%x)\n",
     "t.ir:2:35: error: bad attribute: integer 9223372036854775808 does not fit in 64 bits"},
    {"attr-float-overflow", G "  %c : float = prim::Constant[value=1e999]()\n  return (%x)\n",
     "t.ir:2:37: error: bad attribute: float 1e999 is out of range"},
    {"attr-subgraph", G "  %y : Tensor = prim::FusionGroup[Subgraph=1](%x)\n  return (%y)\n",
     "t.ir:2:17: error: bad attribute: a Subgraph comes from a 'with' trailer, not from [...]"},
    {"gradof-without-name", G "  %y : Tensor = prim::GradOf(%x)\n  return (%y)\n",
     "t.ir:2:17: error: bad attribute: prim::GradOf needs a string 'name'"},
    {"unterminated-string", G "  %s : str = prim::Constant[value=\"abc]()\n  return (%x)\n",
     "t.ir:2:35: error: unterminated string"},
    {"bad-escape", G "  %s : str = prim::Constant[value=\"a\\qb\"]()\n  return (%x)\n",
     "t.ir:2:37: error: bad escape sequence in string"},
    {"number-exponent", G "  %c : float = prim::Constant[value=1e]()\n  return (%x)\n",
     "t.ir:2:37: error: malformed number: exponent has no digits"},
    {"percent-alone", G "  % = aten::neg(%x)\n",
     "t.ir:2:3: error: '%' must be followed by a value name"},
    {"unbalanced-inputs", G "  %y : Tensor = aten::neg(%x\n  return (%y)\n",
     "t.ir:3:3: error: expected ',' or ')' in the inputs, found 'return'"},
    {"unbalanced-header", "graph(%x : Tensor:\n",
     "t.ir:1:18: error: expected ',' or ')' after a parameter, found ':'"},
    {"missing-return", G "  %y : Tensor = aten::neg(%x)\n",
     "t.ir:3:1: error: expected 'return (...)' ending the graph, found end of input"},
    {"missing-block-end", "graph(%c : bool):\n  %y : Tensor = prim::If(%c)\n    block0():\n",
     "t.ir:4:1: error: expected '-> (...)' ending the block, found end of input"},
    {"if-one-block",
     "graph(%c : bool, %x : Tensor):\n  %y : Tensor = prim::If(%c)\n    block0():\n      -> (%x)\n"
     "  return (%y)\n",
     "t.ir:2:17: error: wrong block arity: prim::If needs 2 blocks, found 1"},
    {"if-output-count",
     "graph(%c : bool, %x : Tensor):\n  %y : Tensor = prim::If(%c)\n    block0():\n      -> (%x)\n"
     "    block1():\n      -> (%x, %x)\n  return (%y)\n",
     "t.ir:2:17: error: wrong block arity: prim::If block1 returns 2 values but the node has 1 "
     "outputs"},
    {"if-two-inputs", "graph(%c : bool):\n  %y : Tensor = prim::If(%c, %c)\n",
     "t.ir:2:17: error: prim::If takes 1 input (the condition), found 2"},
    {"loop-arity",
     "graph(%n : int, %c : bool, %x : Tensor):\n  %y : Tensor = prim::Loop(%n, %c, %x)\n"
     "    block0(%i : int):\n      -> (%c, %x)\n  return (%y)\n",
     "t.ir:2:17: error: wrong block arity: prim::Loop with 3 inputs needs 2 block inputs, 2 block "
     "outputs and 1 node outputs, found 1, 2 and 1"},
    {"block-on-plain-node", G "  %y : Tensor = aten::neg(%x)\n    block0():\n      -> ()\n",
     "t.ir:3:5: error: wrong block arity: aten::neg takes no blocks"},
    {"block-number",
     "graph(%c : bool, %x : Tensor):\n  %y : Tensor = prim::If(%c)\n    block0():\n      -> (%x)\n"
     "    block2():\n      -> (%x)\n  return (%y)\n",
     "t.ir:5:5: error: expected 'block1', found 'block2'"},
    {"return-in-block",
     "graph(%c : bool, %x : Tensor):\n  %y : Tensor = prim::If(%c)\n    block0():\n      return "
     "(%x)\n",
     "t.ir:4:7: error: 'return' inside a block (blocks end with '-> (...)')"},
    {"arrow-outside-block", G "  -> (%x)\n",
     "t.ir:2:3: error: '->' outside a block (the graph ends with 'return')"},
    {"trailer-missing",
     "graph(%a : Tensor):\n  %1 : Tensor = prim::DifferentiableGraph_0(%a)\n  return (%1)\n",
     "t.ir:4:1: error: missing trailer 'with prim::DifferentiableGraph_0 = graph(...)'"},
    {"trailer-wrong-name",
     "graph(%a : Tensor):\n  %1 : Tensor = prim::DifferentiableGraph_0(%a)\n  return (%1)\n"
     "with prim::FusionGroup_0 = graph(%b : Tensor):\n  return (%b)\n",
     "t.ir:4:6: error: missing trailer 'with prim::DifferentiableGraph_0 = graph(...)'"},
    {"group-out-of-order", "graph(%a : Tensor):\n  %1 : Tensor = prim::FusionGroup_1(%a)\n",
     "t.ir:2:17: error: subgraph node prim::FusionGroup_1 is out of order: expected "
     "prim::FusionGroup_0"},
    {"subgraph-inputs",
     "graph(%a : Tensor):\n  %1 : Tensor = prim::DifferentiableGraph_0(%a)\n  return (%1)\n"
     "with prim::DifferentiableGraph_0 = graph(%b : Tensor,\n      %c : Tensor):\n  return (%b)\n",
     "t.ir:4:6: error: subgraph prim::DifferentiableGraph_0 has 2 inputs but its node has 1"},
    {"list-of-another-type",
     "graph(%x : Tensor):\n  %l : int[] = prim::ListConstruct(%x)\n  return (%l)\n",
     "t.ir:2:16: error: bad type: input 0 is Tensor, the element it makes is int"},
    {"if-branch-of-another-type",
     "graph(%c : bool, %s : str):\n  %y : bool = prim::If(%c)\n    block0():\n      -> (%s)\n"
     "    block1():\n      -> (%c)\n  return (%y)\n",
     "t.ir:2:15: error: bad type: block0 output 0 is str for an output of type bool"},
    {"loop-carrying-another-type",
     "graph(%n : int, %c : bool, %x : Tensor):\n  %y : int = prim::Loop(%n, %c, %x)\n"
     "    block0(%i : int, %v : int):\n      -> (%c, %v)\n  return (%y)\n",
     "t.ir:2:14: error: bad type: initial value 0 is Tensor for an output of type int"},
    {"tuple-unpack-arity",
     "graph(%t : (Tensor, int)):\n  %y : Tensor, %n : int, %m : int = prim::TupleUnpack(%t)\n"
     "  return (%y)\n",
     "t.ir:2:37: error: bad type: unpacks a tuple of 2 elements into 3 outputs"},
    {"subgraph-outputs",
     "graph(%a : Tensor):\n  %1 : Tensor, %2 : Tensor = prim::DifferentiableGraph_0(%a)\n"
     "  return (%1, %2)\nwith prim::DifferentiableGraph_0 = graph(%b : Tensor):\n  return (%b)\n",
     "t.ir:4:6: error: subgraph prim::DifferentiableGraph_0 returns 1 values but its node has 2 "
     "outputs"},
    {"trailing-garbage", G "  return (%x)\nfoo\n",
     "t.ir:3:1: error: expected end of input or another 'graph(' after the graph, found 'foo'"},
    {"constant-with-input", G "  %c : int = prim::Constant(%x)\n",
     "t.ir:2:14: error: prim::Constant takes no inputs and has one output"},
    {"value-id-absurd", "graph(%99999999999999 : Tensor):\n",
     "t.ir:1:7: error: value id %99999999999999 is out of range (at most 2^40)"},
    {"output-type-mismatch", G "  %y : int = aten::neg(%x)\n",
     "t.ir:2:14: error: bad type: output 0 is annotated int but aten::neg returns Tensor"},
    {"output-count", G "  %y : Tensor, %z : Tensor = aten::neg(%x)\n",
     "t.ir:2:30: error: aten::neg(Tensor self) -> Tensor returns 1 value but the node has 2 "
     "outputs"},
    {"constant-type", G "  %c : int = prim::Constant[value=1.5]()\n",
     "t.ir:2:14: error: bad attribute: the value does not suit a constant of type int"},
    {"constant-none-type", G "  %c : NoneType = prim::Constant[value=1]()\n",
     "t.ir:2:19: error: bad attribute: the value does not suit a constant of type NoneType"},
    {"sentinel-as-node", G "  %y : Tensor = prim::Param()\n",
     "t.ir:2:17: error: prim::Param is a block sentinel, not a node"},
};

static void run_case(gconstpointer data) {
  const Case *c = data;
  char *msg = text_test_parse_error(c->text);
  g_assert_cmpstr(msg, ==, c->message);
  g_free(msg);
}

static void expect_bytes(const char *text, gsize len, const char *message) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(text, len, "t.ir", &error);
  g_assert_null(g);
  g_assert_error(error, JITSCOPE_PARSE_ERROR, 0);
  g_assert_cmpstr(error->message, ==, message);
  g_error_free(error);
}

static void test_nul_and_utf8(void) {
  expect_bytes("graph(\0%x", 9, "t.ir:1:7: error: NUL byte in input");
  expect_bytes(G "  # \xff\n", strlen(G "  # \xff\n"), "t.ir:2:5: error: invalid UTF-8 byte 0xff");
  /* Columns count characters: the bad byte after two 2-byte characters is column 3. */
  expect_bytes("\xc3\xa9\xc3\xa9\xfe", 5, "t.ir:1:3: error: invalid UTF-8 byte 0xfe");
}

/* 300 nested GradOf blocks, one statement per line without indentation: the 255th block
 * header (line 2 * 255 + 1) would be the 256th level counting the graph. */
static void test_deep_blocks(void) {
  GString *s = g_string_new("graph(%x : Tensor):\n");
  for (int i = 0; i < 300; i++)
    g_string_append_printf(s, "%%v%d : Tensor = prim::GradOf[name=\"n\"](%%x)\nblock0():\n", i);
  char *msg = text_test_parse_error(s->str);
  g_assert_cmpstr(msg, ==, "t.ir:511:1: error: nesting deeper than 256");
  g_free(msg);
  g_string_free(s, TRUE);
}

/* 300 nested tuple types: the 256th '(' (column 12 + 255) is one level too deep. */
static void test_deep_types(void) {
  GString *s = g_string_new("graph(%x : ");
  for (int i = 0; i < 300; i++)
    g_string_append_c(s, '(');
  g_string_append(s, "Tensor");
  for (int i = 0; i < 300; i++)
    g_string_append_c(s, ')');
  g_string_append(s, "):\n  return (%x)\n");
  char *msg = text_test_parse_error(s->str);
  g_assert_cmpstr(msg, ==, "t.ir:1:267: error: nesting deeper than 256");
  g_free(msg);
  g_string_free(s, TRUE);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *path = g_strdup_printf("/text/malformed/%s", cases[i].name);
    g_test_add_data_func(path, &cases[i], run_case);
    g_free(path);
  }
  g_test_add_func("/text/malformed/nul-and-utf8", test_nul_and_utf8);
  g_test_add_func("/text/malformed/deep-blocks", test_deep_blocks);
  g_test_add_func("/text/malformed/deep-types", test_deep_types);
  return g_test_run();
}
