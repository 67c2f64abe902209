/* differentiate: the seed expectations (#8641's GradOf / AutogradAdd structure, #18697's
 * index lists) and f-then-df numerics against finite differences. */
#include "ad_test_util.h"

#include "ir/text.h"
#include "ir/verify.h"

static const char *const mul_mul_add = "graph(%a : Float(2, 3, 4, requires_grad=1),\n"
                                       "      %b : Float(2, 3, 4, requires_grad=1)):\n"
                                       "  %one : int = prim::Constant[value=1]()\n"
                                       "  %2 : Tensor = aten::mul(%a, %b)\n"
                                       "  %3 : Tensor = aten::mul(%2, %a)\n"
                                       "  %c : Tensor = aten::add(%3, %b, %one)\n"
                                       "  return (%c)\n";

static void assert_indices(GArray *got, const guint *want, guint n, const char *what) {
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < got->len; i++)
    g_string_append_printf(s, " %u", g_array_index(got, guint, i));
  if (got->len != n)
    g_error("%s: got [%s ], expected %u entries", what, s->str, n);
  for (guint i = 0; i < n; i++)
    if (g_array_index(got, guint, i) != want[i])
      g_error("%s: got [%s ], entry %u should be %u", what, s->str, i, want[i]);
  g_string_free(s, TRUE);
}

/* c = a * b * a + b (seed 001, testDifferentiate in seed 000). */
static void test_seed_structure(void) {
  AdGradient *gr = ad_differentiate(ad_test_parse(mul_mul_add));
  ir_graph_assert_valid(gr->f, "differentiate (f)");
  ir_graph_assert_valid(gr->df, "differentiate (df)");
  char *df = ir_graph_to_string(gr->df);
  g_assert_cmpuint(ad_test_count(df, "prim::GradOf[name=\"aten::add\"]"), ==, 1);
  g_assert_cmpuint(ad_test_count(df, "prim::GradOf[name=\"aten::mul\"]"), ==, 2);
  g_assert_cmpuint(ad_test_count(df, "prim::GradOf"), ==, 3);
  g_assert_cmpuint(ad_test_count(df, "prim::AutogradAdd"), ==, 3);
  char *f = ir_graph_to_string(gr->f);
  g_assert_cmpuint(ad_test_count(f, "aten::mul("), ==, 2);
  g_assert_cmpuint(ad_test_count(f, "aten::_size_if_not_equal("), ==, 6);
  g_assert_cmpuint(ad_test_count(f, "aten::size("), ==, 5); /* CSE shared the sizes */

  g_assert_cmpuint(gr->f_real_outputs, ==, 1);
  assert_indices(gr->df_input_captured_inputs, (guint[]){0, 1}, 2, "captured inputs");
  assert_indices(gr->df_input_captured_outputs, (guint[]){1, 2, 3, 4, 5, 6, 7}, 7,
                 "captured outputs");
  assert_indices(gr->df_input_vjps, (guint[]){0, 1}, 2, "input vjps");
  assert_indices(gr->df_output_vjps, (guint[]){0, 1}, 2, "output vjps");

  /* All vjps defined: every GradOf and AutogradAdd specializes away. */
  g_assert_true(pass_specialize_autograd_zero(gr->df));
  pass_lower_grad_of(gr->df);
  ir_graph_assert_valid(gr->df, "specialize + lower");
  char *after = ir_graph_to_string(gr->df);
  g_assert_cmpuint(ad_test_count(after, "prim::GradOf"), ==, 0);
  g_assert_cmpuint(ad_test_count(after, "prim::AutogradAdd"), ==, 0);
  g_assert_cmpuint(ad_test_count(after, "prim::If"), ==, 0);
  g_free(after);
  g_free(f);
  g_free(df);
  ad_gradient_free(gr);
}

/* The same program in float64: f then df against central finite differences. */
static void test_seed_numerics(void) {
  const char *dtext = "graph(%a : Double(2, 3, 4, requires_grad=1),\n"
                      "      %b : Double(2, 3, 4, requires_grad=1)):\n"
                      "  %one : int = prim::Constant[value=1]()\n"
                      "  %2 : Tensor = aten::mul(%a, %b)\n"
                      "  %3 : Tensor = aten::mul(%2, %a)\n"
                      "  %c : Tensor = aten::add(%3, %b, %one)\n"
                      "  return (%c)\n";
  ad_test_gradcheck(dtext, -2, 2, AD_RUN_SPECIALIZED, 1e-7);
  ad_test_gradcheck(dtext, -2, 2, AD_RUN_RAW, 1e-7);
}

/* testDifferentiateWithRequiresGrad (seed 000): only a requires grad. */
static void test_seed_requires_grad(void) {
  const char *text = "graph(%a : Float(2, 2, requires_grad=1),\n"
                     "      %b : Float(2, 2, requires_grad=0)):\n"
                     "  %one : int = prim::Constant[value=1]()\n"
                     "  %m1 : Tensor = aten::mul(%b, %b)\n"
                     "  %d : Tensor = aten::add(%m1, %b, %one)\n"
                     "  %t : Tensor = aten::add(%d, %a, %one)\n"
                     "  %m2 : Tensor = aten::mul(%t, %a)\n"
                     "  %e : Tensor = aten::add(%m2, %b, %one)\n"
                     "  return (%d, %e)\n";
  AdGradient *gr = ad_differentiate(ad_test_parse(text));
  g_assert_cmpuint(gr->f_real_outputs, ==, 2);
  assert_indices(gr->df_input_captured_inputs, (guint[]){0}, 1, "captured inputs");
  assert_indices(gr->df_input_captured_outputs, (guint[]){2, 3, 4, 5, 6}, 5, "captured outputs");
  assert_indices(gr->df_input_vjps, (guint[]){1, 2}, 2, "input vjps");
  assert_indices(gr->df_output_vjps, (guint[]){0}, 1, "output vjps");
  char *df = ir_graph_to_string(gr->df);
  g_assert_cmpuint(ad_test_count(df, "prim::GradOf[name=\"aten::mul\"]"), ==, 1);
  g_free(df);
  char *f = ir_graph_to_string(gr->f);
  g_assert_cmpuint(ad_test_count(f, "aten::mul("), ==, 2);
  g_assert_nonnull(strstr(f, "%one : int = prim::Constant[value=1]()"));
  g_free(f);
  ad_gradient_free(gr);

  const char *dtext = "graph(%a : Double(2, 2, requires_grad=1),\n"
                      "      %b : Double(2, 2, requires_grad=0)):\n"
                      "  %one : int = prim::Constant[value=1]()\n"
                      "  %m1 : Tensor = aten::mul(%b, %b)\n"
                      "  %d : Tensor = aten::add(%m1, %b, %one)\n"
                      "  %t : Tensor = aten::add(%d, %a, %one)\n"
                      "  %m2 : Tensor = aten::mul(%t, %a)\n"
                      "  %e : Tensor = aten::add(%m2, %b, %one)\n"
                      "  return (%d, %e)\n";
  ad_test_gradcheck(dtext, -2, 2, AD_RUN_SPECIALIZED, 1e-7);
  ad_test_gradcheck(dtext, -2, 2, AD_RUN_RAW, 1e-7);
}

/* The LSTM cell of the corpus: the same backward node shapes as PyTorch's plan. */
static void test_lstm_cell(void) {
  const char *text =
      "graph(%x : Double(3, 4, requires_grad=1), %hx : Double(3, 5, requires_grad=1),\n"
      "      %cx : Double(3, 5, requires_grad=1), %w_ih : Double(20, 4, requires_grad=1),\n"
      "      %w_hh : Double(20, 5, requires_grad=1), %b_ih : Double(20, requires_grad=1),\n"
      "      %b_hh : Double(20, requires_grad=1)):\n"
      "  %one : int = prim::Constant[value=1]()\n"
      "  %9 : Tensor = aten::t(%w_ih)\n"
      "  %10 : Tensor = aten::mm(%x, %9)\n"
      "  %13 : Tensor = aten::t(%w_hh)\n"
      "  %14 : Tensor = aten::mm(%hx, %13)\n"
      "  %16 : Tensor = aten::add(%10, %14, %one)\n"
      "  %19 : Tensor = aten::add(%16, %b_ih, %one)\n"
      "  %gates : Tensor = aten::add(%19, %b_hh, %one)\n"
      "  %i : Tensor, %f : Tensor, %c : Tensor, %o : Tensor = prim::ConstantChunk[chunks=4, "
      "dim=1](%gates)\n"
      "  %i2 : Tensor = aten::sigmoid(%i)\n"
      "  %f2 : Tensor = aten::sigmoid(%f)\n"
      "  %c2 : Tensor = aten::tanh(%c)\n"
      "  %o2 : Tensor = aten::sigmoid(%o)\n"
      "  %41 : Tensor = aten::mul(%f2, %cx)\n"
      "  %44 : Tensor = aten::mul(%i2, %c2)\n"
      "  %cy : Tensor = aten::add(%41, %44, %one)\n"
      "  %49 : Tensor = aten::tanh(%cy)\n"
      "  %hy : Tensor = aten::mul(%o2, %49)\n"
      "  return (%hy, %cy)\n";
  AdGradient *gr = ad_differentiate(ad_test_parse(text));
  char *f = ir_graph_to_string(gr->f);
  /* 7 broadcasting nodes (4 add, 3 mul) record two optional sizes each, as in the corpus */
  g_assert_cmpuint(ad_test_count(f, "aten::_size_if_not_equal("), ==, 14);
  g_free(f);
  g_assert_cmpuint(gr->f_real_outputs, ==, 2);
  assert_indices(gr->df_output_vjps, (guint[]){0, 1, 2, 3, 4, 5, 6}, 7, "output vjps");
  pass_specialize_autograd_zero(gr->df);
  char *df = ir_graph_to_string(gr->df);
  g_assert_cmpuint(ad_test_count(df, "aten::cat("), ==, 1);
  g_assert_cmpuint(ad_test_count(df, "aten::mm("), ==, 4);
  g_assert_cmpuint(ad_test_count(df, "aten::t("), ==, 6);
  g_assert_cmpuint(ad_test_count(df, "aten::neg("), ==, 5); /* 3 sigmoid, 2 tanh */
  g_free(df);
  ad_gradient_free(gr);
  ad_test_gradcheck(text, -1, 1, AD_RUN_SPECIALIZED, 1e-6);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/autodiff/differentiate/seed-structure", test_seed_structure);
  g_test_add_func("/autodiff/differentiate/seed-numerics", test_seed_numerics);
  g_test_add_func("/autodiff/differentiate/seed-requires-grad", test_seed_requires_grad);
  g_test_add_func("/autodiff/differentiate/lstm-cell", test_lstm_cell);
  return g_test_run();
}
