/* Schemas and the op table: the schema parser on every ops.def entry and on the syntax
 * PyTorch uses, matching rules, and overload resolution for every kind on representative
 * inputs (every overload of the table must be reached by some case). */
#include "ir_test_util.h"
#include "runtime/kernels.h"

#include <string.h>

static IrSchema *parse_ok(const char *text) {
  GError *error = NULL;
  IrSchema *s = ir_schema_parse(text, &error);
  g_assert_no_error(error);
  g_assert_nonnull(s);
  return s;
}

static void test_parse_details(void) {
  IrSchema *s = parse_ok("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
                         "int? dtype=None) -> Tensor");
  g_assert_cmpstr(s->name, ==, "aten::sum");
  g_assert_cmpstr(s->overload, ==, "dim_IntList");
  g_assert_cmpint(s->kind, ==, IR_ATEN_SUM);
  g_assert_cmpuint(s->n_args, ==, 4);
  g_assert_cmpstr(s->args[1].name, ==, "dim");
  g_assert_true(s->args[0].type == ir_type_tensor());
  g_assert_true(s->args[1].type == ir_type_optional(ir_type_list(ir_type_int())));
  g_assert_cmpint(s->args[1].def.kind, ==, IR_DEFAULT_NONE_GIVEN);
  g_assert_true(s->args[2].type == ir_type_bool());
  g_assert_cmpint(s->args[2].def.kind, ==, IR_DEFAULT_INT);
  g_assert_cmpint(s->args[2].def.i, ==, 0);
  g_assert_false(s->args[2].kwarg_only);
  g_assert_true(s->args[3].kwarg_only);
  g_assert_cmpint(s->args[3].def.kind, ==, IR_DEFAULT_NONE);
  g_assert_cmpuint(s->n_returns, ==, 1);
  g_assert_true(s->returns[0] == ir_type_tensor());
  g_assert_false(s->returns_list_of_tensors);
  g_assert_cmpuint(ir_schema_required_args(s), ==, 2);
  GString *out = g_string_new(NULL);
  ir_schema_print(out, s);
  g_assert_cmpstr(out->str, ==, s->text);
  g_string_free(out, TRUE);
  ir_schema_free(s);

  s = parse_ok("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  g_assert_true(s->args[2].type == ir_type_number());
  g_assert_cmpint(s->args[2].def.kind, ==, IR_DEFAULT_INT);
  g_assert_cmpint(s->args[2].def.i, ==, 1);
  ir_schema_free(s);

  s = parse_ok("aten::chunk(Tensor self, int chunks, int dim=0) -> Tensor[]");
  g_assert_cmpstr(s->overload, ==, "");
  g_assert_true(s->returns_list_of_tensors);
  g_assert_true(s->returns[0] == ir_type_list(ir_type_tensor()));
  ir_schema_free(s);

  /* Dict types with alias annotations, tuple types, and no returns. */
  s = parse_ok("aten::items.str(Dict(str, t) self) -> ((str, t)[])");
  g_assert_true(s->args[0].type == ir_type_dict(ir_type_str(), ir_type_any()));
  g_assert_cmpuint(s->n_returns, ==, 1);
  const IrType *pair[] = {ir_type_str(), ir_type_any()};
  g_assert_true(s->returns[0] == ir_type_list(ir_type_tuple(pair, 2)));
  ir_schema_free(s);
  s = parse_ok("aten::_set_item.str(Dict(str, t)(a!) l, str(b -> *) idx, t(c -> *) v) -> ()");
  g_assert_cmpuint(s->n_args, ==, 3);
  g_assert_true(s->args[1].type == ir_type_str());
  g_assert_cmpuint(s->n_returns, ==, 0);
  ir_schema_free(s);

  s = parse_ok("aten::ones_like(Tensor self, *, int? dtype=None, int? layout=None, Device? "
               "device=None, bool? pin_memory=None, int? memory_format=None) -> Tensor");
  g_assert_true(s->args[3].type == ir_type_optional(ir_type_device()));
  g_assert_cmpuint(ir_schema_required_args(s), ==, 1);
  ir_schema_free(s);

  /* Syntax beyond ops.def that PyTorch schemas use. */
  s = parse_ok("aten::fake.x(Tensor(a!) self, float eps=1e-05, float m=-0.5, int[2] stride=1, "
               "int[] pad=[0, -1], str reduction=\"mean\", ScalarType? dtype=None, t x=3, "
               "bool flag=True) -> (Tensor out, int[], Any)");
  g_assert_cmpint(s->kind, ==, -1);
  g_assert_cmpint(s->args[1].def.kind, ==, IR_DEFAULT_FLOAT);
  g_assert_cmpfloat(s->args[1].def.f, ==, 1e-05);
  g_assert_cmpfloat(s->args[2].def.f, ==, -0.5);
  g_assert_cmpint(s->args[3].def.kind, ==, IR_DEFAULT_INT_LIST);
  g_assert_cmpuint(s->args[3].def.n_ints, ==, 2);
  g_assert_cmpint(s->args[3].def.ints[1], ==, 1);
  g_assert_cmpuint(s->args[4].def.n_ints, ==, 2);
  g_assert_cmpint(s->args[4].def.ints[1], ==, -1);
  g_assert_cmpint(s->args[5].def.kind, ==, IR_DEFAULT_STR);
  g_assert_cmpstr(s->args[5].def.s, ==, "mean");
  g_assert_true(s->args[6].type == ir_type_optional(ir_type_int()));
  g_assert_true(s->args[7].type == ir_type_any());
  g_assert_cmpint(s->args[8].def.i, ==, 1);
  g_assert_cmpuint(s->n_returns, ==, 3);
  g_assert_true(s->returns[1] == ir_type_list(ir_type_int()));
  g_assert_true(s->returns[2] == ir_type_any());
  ir_schema_free(s);

  s = parse_ok("prim::nothing() -> ()");
  g_assert_cmpuint(s->n_args, ==, 0);
  g_assert_cmpuint(s->n_returns, ==, 0);
  ir_schema_free(s);
  s = parse_ok("aten::empty_list(int[] x=[]) -> int");
  g_assert_cmpint(s->args[0].def.kind, ==, IR_DEFAULT_INT_LIST);
  g_assert_cmpuint(s->args[0].def.n_ints, ==, 0);
  ir_schema_free(s);
}

static void test_parse_errors(void) {
  const char *bad[] = {
      "aten::add(Tensor self",
      "aten::add(Foo self) -> Tensor",
      "add(Tensor self) -> Tensor",
      "aten::add(Tensor self) -> Tensor junk",
      "aten::add(Tensor self) Tensor",
      "aten::add(Tensor) -> Tensor",
      "aten::add(Tensor self=) -> Tensor",
      "aten::add(int[] x=[1, 2) -> Tensor",
      "aten::add(str x=\"open) -> Tensor",
      "aten::add(Tensor self, *, *, int a) -> Tensor",
      "aten::add(int[x] a) -> Tensor",
      "aten::keys(Dict(str) self) -> str[]",
      "aten::keys(Dict(str, t self) -> str[]",
      "aten::items(Dict(str, t) self) -> ((str, t)[]",
      "",
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    GError *error = NULL;
    IrSchema *s = ir_schema_parse(bad[i], &error);
    g_assert_null(s);
    g_assert_error(error, JITSCOPE_SCHEMA_ERROR, 0);
    g_assert_nonnull(strstr(error->message, "column"));
    g_error_free(error);
  }
}

static void test_table(void) {
  guint n = ir_ops_count();
  g_assert_cmpuint(n, >, 100);
  guint total = 0;
  for (guint i = 0; i < n; i++) {
    const IrSchema *s = ir_ops_schema(i);
    g_assert_cmpuint(s->index, ==, i);
    g_assert_cmpstr(ir_kind_name((IrOpKind)s->kind), ==, s->name);
    g_assert_true(g_str_has_prefix(s->text, s->name));
    /* Re-parsing the text gives the same signature. */
    IrSchema *again = parse_ok(s->text);
    g_assert_cmpuint(again->n_args, ==, s->n_args);
    for (guint a = 0; a < s->n_args; a++) {
      g_assert_true(again->args[a].type == s->args[a].type);
      g_assert_cmpint(again->args[a].def.kind, ==, s->args[a].def.kind);
    }
    ir_schema_free(again);
  }
  for (int k = 0; k < IR_KIND_COUNT; k++) {
    guint m = 0;
    const IrSchema *const *ov = ir_ops_overloads((IrOpKind)k, &m);
    for (guint i = 0; i < m; i++) {
      g_assert_cmpint(ov[i]->kind, ==, k);
      if (i > 0)
        g_assert_cmpuint(ov[i]->index, >, ov[i - 1]->index);
    }
    total += m;
  }
  g_assert_cmpuint(total, ==, n);
  guint m = 99;
  g_assert_null(ir_ops_overloads(IR_PRIM_IF, &m));
  g_assert_cmpuint(m, ==, 0);
  g_assert_cmpuint((ir_ops_overloads(IR_ATEN_ADD, &m), m), ==, 8);
}

/* Type letters: T Tensor, F Float(*, *, requires_grad=1), U Tensor[Undefined], i int, f float,
 * b bool, n NoneType, l int[], o int[]?, L Tensor[], s str, d Device, S str[], G float[],
 * D Dict(str, Tensor), I Dict(int, Tensor), P Dict(str, int). */
static const IrType *letter_type(char c) {
  IrType p;
  switch (c) {
  case 'T': return ir_type_tensor();
  case 'F':
    memset(&p, 0, sizeof p);
    p.kind = IR_TYPE_TENSOR;
    p.has_dtype = true;
    p.dtype = IR_DTYPE_FLOAT32;
    p.rank = 2;
    p.requires_grad = IR_YES;
    p.device = IR_DEVICE_CPU;
    return ir_type_tensor_from(&p);
  case 'U': return ir_type_undefined_tensor();
  case 'i': return ir_type_int();
  case 'f': return ir_type_float();
  case 'b': return ir_type_bool();
  case 'n': return ir_type_none();
  case 'l': return ir_type_list(ir_type_int());
  case 'o': return ir_type_optional(ir_type_list(ir_type_int()));
  case 'L': return ir_type_list(ir_type_tensor());
  case 'Q': return ir_type_list(ir_type_optional(ir_type_tensor()));
  case 'B': return ir_type_list(ir_type_bool());
  case 's': return ir_type_str();
  case 'd': return ir_type_device();
  case 'S': return ir_type_list(ir_type_str());
  case 'G': return ir_type_list(ir_type_float());
  case 'D': return ir_type_dict(ir_type_str(), ir_type_tensor());
  case 'I': return ir_type_dict(ir_type_int(), ir_type_tensor());
  case 'P': return ir_type_dict(ir_type_str(), ir_type_int());
  default: g_error("test table: unknown type letter '%c'", c);
  }
}

typedef struct {
  const char *kind;
  const char *inputs;   /* type letters */
  const char *overload; /* expected overload name; NULL: no overload matches */
} Case;

static const Case cases[] = {
    {"aten::add", "TTi", "Tensor"},
    {"aten::add", "FF", "Tensor"},
    {"aten::add", "Tii", "Scalar"},
    {"aten::add", "Tf", "Scalar"},
    {"aten::add", "Tb", "Scalar"},
    {"aten::add", "ii", "int"},
    {"aten::add", "ff", "float"},
    {"aten::add", "if", "int_float"},
    {"aten::add", "fi", "float_int"},
    {"aten::add", "is", NULL},
    {"aten::add", "iT", NULL},
    {"aten::add", "T", NULL},
    {"aten::add", "TTii", NULL},
    {"aten::add", "UT", "Tensor"},
    {"aten::sub", "TTi", "Tensor"},
    {"aten::sub", "Tfi", "Scalar"},
    {"aten::sub", "ii", "int"},
    {"aten::sub", "ff", "float"},
    {"aten::sub", "if", "int_float"},
    {"aten::sub", "fi", "float_int"},
    {"aten::mul", "TF", "Tensor"},
    {"aten::mul", "Tf", "Scalar"},
    {"aten::mul", "ii", "int"},
    {"aten::mul", "ff", "float"},
    {"aten::mul", "if", "int_float"},
    {"aten::mul", "fi", "float_int"},
    {"aten::mul", "TTi", NULL},
    {"aten::div", "TT", "Tensor"},
    {"aten::div", "Ti", "Scalar"},
    {"aten::div", "ii", "int"},
    {"aten::div", "ff", "float"},
    {"aten::div", "fi", ""},
    {"aten::div", "if", ""},
    {"aten::rsub", "TTi", "Tensor"},
    {"aten::rsub", "Tfi", "Scalar"},
    {"aten::neg", "T", ""},
    {"aten::neg", "i", "int"},
    {"aten::neg", "f", "float"},
    {"aten::threshold", "Tff", ""},
    {"aten::threshold", "TTf", NULL},
    {"aten::atan2", "TT", ""},
    {"aten::pow", "Tf", "Tensor_Scalar"},
    {"aten::pow", "TT", "Tensor_Tensor"},
    {"aten::pow", "ii", "int"},
    {"aten::pow", "ff", "float"},
    {"aten::pow", "if", "int_float"},
    {"aten::pow", "fi", "float_int"},
    {"aten::fmod", "Ti", "Scalar"},
    {"aten::fmod", "TT", "Tensor"},
    {"aten::remainder", "Tf", "Scalar"},
    {"aten::remainder", "TT", "Tensor"},
    {"aten::remainder", "ii", "int"},
    {"aten::remainder", "ff", "float"},
    {"aten::remainder", "if", "int_float"},
    {"aten::remainder", "fi", "float_int"},
    {"aten::clamp", "T", ""},
    {"aten::clamp", "Tfn", ""},
    {"aten::clamp", "Tni", ""},
    {"aten::clamp", "TT", NULL},
    {"aten::max", "TT", "other"},
    {"aten::min", "FF", "other"},
    {"aten::max", "T", ""},
    {"aten::max", "Tib", "dim"},
    {"aten::min", "Ti", "dim"},
    {"aten::min", "F", ""},
    {"aten::max", "Tf", NULL},
    {"aten::argmin", "Tnb", ""},
    {"aten::relu6", "T", ""},
    {"aten::hardswish", "F", ""},
    {"aten::tril", "Ti", ""},
    {"aten::clone", "Tn", ""},
    {"aten::flip", "Tl", ""},
    {"aten::roll", "Tll", ""},
    {"aten::roll", "Tl", ""},
    {"aten::repeat", "Tl", ""},
    {"aten::narrow", "Tiii", ""},
    {"aten::narrow", "Tii", NULL},
    {"aten::constant_pad_nd", "Tlf", ""},
    {"aten::constant_pad_nd", "Tl", ""},
    {"aten::pad", "Tlsn", ""},
    {"aten::pad", "Tlsf", ""},
    {"aten::reflection_pad1d_backward", "TTl", ""},
    {"aten::reflection_pad2d_backward", "TTl", ""},
    {"aten::reflection_pad3d_backward", "TTl", ""},
    {"aten::replication_pad1d_backward", "TTl", ""},
    {"aten::replication_pad2d_backward", "TTl", ""},
    {"aten::replication_pad3d_backward", "TTl", ""},
    {"aten::full_like", "Tf", ""},
    {"aten::triu", "T", ""},
    {"aten::lerp", "TTf", "Scalar"},
    {"aten::lerp", "TTT", "Tensor"},
    {"aten::addcmul", "TTT", ""},
    {"aten::addcmul", "TTTf", ""},
    {"aten::where", "TTT", "self"},
    {"aten::gt", "TT", "Tensor"},
    {"aten::gt", "Ti", "Scalar"},
    {"aten::gt", "ii", "int"},
    {"aten::gt", "ff", "float"},
    {"aten::gt", "if", "int_float"},
    {"aten::gt", "fi", "float_int"},
    {"aten::lt", "TT", "Tensor"},
    {"aten::lt", "Tf", "Scalar"},
    {"aten::lt", "ii", "int"},
    {"aten::lt", "ff", "float"},
    {"aten::lt", "if", "int_float"},
    {"aten::lt", "fi", "float_int"},
    {"aten::ge", "TT", "Tensor"},
    {"aten::ge", "Tf", "Scalar"},
    {"aten::ge", "ii", "int"},
    {"aten::ge", "ff", "float"},
    {"aten::ge", "if", "int_float"},
    {"aten::ge", "fi", "float_int"},
    {"aten::le", "TT", "Tensor"},
    {"aten::le", "Tb", "Scalar"},
    {"aten::le", "ii", "int"},
    {"aten::le", "ff", "float"},
    {"aten::le", "if", "int_float"},
    {"aten::le", "fi", "float_int"},
    {"aten::eq", "TT", "Tensor"},
    {"aten::eq", "Ti", "Scalar"},
    {"aten::eq", "ii", "int"},
    {"aten::eq", "ff", "float"},
    {"aten::eq", "if", "int_float"},
    {"aten::eq", "fi", "float_int"},
    {"aten::ne", "TT", "Tensor"},
    {"aten::ne", "Ti", "Scalar"},
    {"aten::ne", "ii", "int"},
    {"aten::ne", "ff", "float"},
    {"aten::ne", "if", "int_float"},
    {"aten::ne", "fi", "float_int"},
    {"aten::ne", "ss", "str"},
    {"aten::eq", "ll", "int_list"},
    {"aten::ne", "ll", "int_list"},
    {"aten::eq", "lS", NULL},
    {"aten::add", "ss", "str"},
    {"aten::sqrt", "i", "int"},
    {"aten::sqrt", "f", "float"},
    {"aten::exp", "i", "int"},
    {"aten::exp", "f", "float"},
    {"aten::log", "i", "int"},
    {"aten::log", "f", "float"},
    {"aten::floordiv", "ii", "int"},
    {"aten::floordiv", "ff", NULL},
    {"aten::len", "s", "str"},
    {"aten::format", "s", ""},
    {"aten::format", "sifsdn", ""},
    {"aten::format", "i", NULL},
    {"aten::str", "d", ""},
    {"aten::find", "ssii", ""},
    {"aten::find", "ss", ""},
    {"prim::unchecked_cast", "o", ""},
    {"aten::is_floating_point", "T", ""},
    {"prim::requires_grad", "F", ""},
    {"prim::is_cuda", "T", ""},
    {"prim::device", "T", ""},
    {"prim::device", "i", NULL},
    {"prim::is_nested", "T", ""},
    {"aten::is_grad_enabled", "", ""},
    {"aten::warn", "s", ""},
    {"aten::warn", "si", ""},
    {"aten::logical_or", "TT", ""},
    {"aten::logical_or", "Ti", NULL},
    {"aten::any", "B", "bool"},
    {"aten::all", "B", "bool"},
    {"aten::all", "l", NULL},
    {"aten::__round_to_zero_floordiv", "ii", ""},
    {"aten::__round_to_zero_floordiv", "if", NULL},
    {"aten::__range_length", "iii", ""},
    {"aten::__range_length", "ii", NULL},
    {"aten::__derive_index", "iii", ""},
    {"aten::type_as", "TF", ""},
    {"aten::mm", "TT", ""},
    {"aten::mm", "Ti", NULL},
    {"aten::t", "T", ""},
    {"aten::addmm", "TTT", ""},
    {"aten::addmm", "TTTii", ""},
    {"aten::matmul", "TT", ""},
    {"aten::chunk", "Tii", ""},
    {"aten::chunk", "Ti", ""},
    {"aten::chunk", "T", NULL},
    {"aten::cat", "Li", ""},
    {"aten::cat", "L", ""},
    {"aten::cat", "Ti", NULL},
    {"aten::split", "Tii", "Tensor"},
    {"aten::split", "Ti", "Tensor"},
    {"aten::split", "Tli", "sizes"},
    {"aten::split", "Tl", "sizes"},
    {"aten::split_with_sizes", "Tli", ""},
    {"aten::unsqueeze", "Ti", ""},
    {"aten::squeeze", "T", ""},
    {"aten::squeeze", "Ti", "dim"},
    {"aten::expand", "Tl", ""},
    {"aten::expand", "Tlb", ""},
    {"aten::expand", "To", NULL},
    {"aten::expand_as", "TT", ""},
    {"aten::view", "Tl", ""},
    {"aten::reshape", "Tl", ""},
    {"aten::transpose", "Tii", "int"},
    {"aten::sum", "T", ""},
    {"aten::sum", "Tn", ""},
    {"aten::sum", "Ti", ""},
    {"aten::sum", "Tl", "dim_IntList"},
    {"aten::sum", "Tlb", "dim_IntList"},
    {"aten::sum", "Tlbn", "dim_IntList"},
    {"aten::sum", "Tnb", "dim_IntList"},
    {"aten::sum", "To", "dim_IntList"},
    {"aten::sum", "Tf", NULL},
    {"aten::size", "T", ""},
    {"aten::size", "Ti", "int"},
    {"aten::size", "i", NULL},
    {"aten::_grad_sum_to_size", "Tl", ""},
    {"aten::_grad_sum_to_size", "Tn", ""},
    {"aten::_grad_sum_to_size", "To", ""},
    {"aten::_grad_sum_to_size", "T", NULL},
    {"aten::_size_if_not_equal", "ll", ""},
    {"aten::_size_if_not_equal", "lo", NULL},
    {"aten::ones_like", "T", ""},
    {"aten::ones_like", "Tnnnnn", ""},
    {"aten::ones_like", "Tinnnn", ""},
    {"aten::zeros_like", "F", ""},
    {"aten::zeros_like", "Tnndnn", ""},
    {"aten::Bool", "T", "Tensor"},
    {"aten::Bool", "i", "int"},
    {"aten::Bool", "f", "float"},
    {"aten::Bool", "s", NULL},
    {"aten::Int", "T", "Tensor"},
    {"aten::Int", "b", "bool"},
    {"aten::Int", "f", "float"},
    {"aten::Float", "T", "Tensor"},
    {"aten::Float", "b", "bool"},
    {"aten::Float", "i", "int"},
    {"aten::Float", "s", "str"},
    {"aten::__is__", "Tn", ""},
    {"aten::__is__", "ol", ""},
    {"aten::__isnot__", "nn", ""},
    {"aten::__not__", "b", ""},
    {"aten::__not__", "i", NULL},
    {"aten::__and__", "bb", "bool"},
    {"aten::__and__", "bi", NULL},
    {"aten::__and__", "ii", "int"},
    {"aten::__and__", "TT", "Tensor"},
    {"aten::__and__", "Ti", "Scalar"},
    {"aten::__or__", "bb", "bool"},
    {"aten::__or__", "ii", "int"},
    {"aten::__or__", "TT", "Tensor"},
    {"aten::__or__", "Tf", "Scalar"},
    {"aten::__xor__", "bb", "bool"},
    {"aten::__xor__", "ii", "int"},
    {"aten::__xor__", "TT", "Tensor"},
    {"aten::__xor__", "Ti", "Scalar"},
    {"aten::bitwise_and", "TT", "Tensor"},
    {"aten::bitwise_and", "Ti", "Scalar"},
    {"aten::bitwise_or", "TT", "Tensor"},
    {"aten::bitwise_or", "Ti", "Scalar"},
    {"aten::bitwise_xor", "TT", "Tensor"},
    {"aten::bitwise_xor", "Ti", "Scalar"},
    {"aten::bitwise_not", "T", ""},
    {"aten::bitwise_not", "i", NULL},
    {"aten::logical_and", "TT", ""},
    {"aten::logical_xor", "TT", ""},
    {"aten::logical_not", "T", ""},
    {"aten::isnan", "T", ""},
    {"aten::maximum", "TT", ""},
    {"aten::minimum", "TT", ""},
    {"aten::minimum", "Ti", NULL},
    {"aten::isinf", "T", ""},
    {"aten::isfinite", "T", ""},
    {"aten::isfinite", "f", NULL},
    {"aten::hardtanh", "T", ""},
    {"aten::hardtanh", "Tff", ""},
    {"aten::hardtanh", "Tfs", NULL},
    {"aten::hardshrink", "Tf", ""},
    {"aten::hardshrink", "T", ""},
    {"aten::softshrink", "Tf", ""},
    {"aten::fmax", "TT", ""},
    {"aten::fmin", "TT", ""},
    {"aten::leaky_relu", "Tf", ""},
    {"aten::leaky_relu", "T", ""},
    {"aten::softplus", "Tff", ""},
    {"aten::elu", "Tfff", ""},
    {"aten::elu", "Ti", ""},
    {"aten::elu", "ff", NULL},
    {"aten::bmm", "TT", ""},
    {"aten::bmm", "T", NULL},
    {"aten::linear", "TTT", ""},
    {"aten::linear", "TTn", ""},
    {"aten::linear", "TT", ""},
    {"aten::linear", "Ti", NULL},
    {"aten::softmax", "Tin", "int"},
    {"aten::softmax", "Ti", "int"},
    {"aten::softmax", "TT", NULL},
    {"aten::log_softmax", "Tii", "int"},
    {"aten::_softmax_backward_data", "TTii", ""},
    {"aten::_log_softmax_backward_data", "TTii", ""},
    {"prim::dtype", "T", ""},
    {"prim::dtype", "i", NULL},
    {"aten::numel", "T", ""},
    {"aten::mean", "T", ""},
    {"aten::mean", "Tn", ""},
    {"aten::mean", "Tlbn", "dim"},
    {"aten::mean", "Tnb", "dim"},
    {"aten::permute", "Tl", ""},
    {"aten::permute", "Ti", NULL},
    {"aten::contiguous", "Ti", ""},
    {"aten::contiguous", "T", ""},
    {"aten::flatten", "Tii", "using_ints"},
    {"aten::flatten", "T", "using_ints"},
    {"aten::slice", "Tinni", "Tensor"},
    {"aten::slice", "Tiiii", "Tensor"},
    {"aten::select", "Tii", "int"},
    {"aten::slice_backward", "Tliiii", ""},
    {"aten::select_backward", "Tlii", ""},
    {"aten::var", "Tb", ""},
    {"aten::var", "Tlbb", "dim"},
    {"aten::var", "Tnbb", "dim"},
    {"aten::std", "T", ""},
    {"aten::std", "Tlbb", "dim"},
    {"aten::std", "Tlf", NULL},
    {"aten::layer_norm", "TlTTfb", ""},
    {"aten::layer_norm", "Tlnnfb", ""},
    {"aten::layer_norm", "Tl", ""},
    {"aten::native_layer_norm", "TlTTf", ""},
    {"aten::native_layer_norm", "Tlnnf", ""},
    {"aten::native_layer_norm_backward", "TTlTTTTB", ""},
    {"aten::native_layer_norm_backward", "TTlTTnnB", ""},
    {"aten::gelu", "Ts", ""},
    {"aten::gelu", "T", ""},
    {"aten::gelu", "Ti", NULL},
    {"aten::gelu_backward", "TTs", ""},
    {"aten::dropout", "Tfb", ""},
    {"aten::dropout", "Tf", NULL},
    {"aten::native_dropout", "Tfb", ""},
    {"aten::native_dropout", "Tfn", ""},
    {"aten::native_dropout_backward", "TTf", ""},
    {"aten::rand", "lnnnn", ""},
    {"aten::randn", "linnn", ""},
    {"aten::rand", "T", NULL},
    {"aten::rand_like", "Tnnnnn", ""},
    {"aten::randn_like", "T", ""},
    {"aten::bernoulli", "T", ""},
    {"aten::bernoulli", "Tn", ""},
    {"aten::bernoulli", "Tfn", "p"},
    {"aten::bernoulli", "TT", "Tensor"},
    {"aten::bernoulli", "Ti", NULL},
    {"aten::stack", "Li", ""},
    {"aten::stack", "L", ""},
    {"aten::stack", "Ti", NULL},
    {"aten::unbind", "Ti", "int"},
    {"aten::unbind", "T", "int"},
    {"aten::amax", "Tlb", ""},
    {"aten::amax", "T", ""},
    {"aten::amin", "Tl", ""},
    {"aten::argmax", "Tib", ""},
    {"aten::argmax", "Tnb", ""},
    {"aten::argmax", "T", ""},
    {"aten::logsumexp", "Tlb", ""},
    {"aten::logsumexp", "T", NULL},
    {"aten::index_select", "TiT", ""},
    {"aten::index_select", "TTi", NULL},
    {"aten::index_select_backward", "TliT", ""},
    {"aten::embedding", "TTibb", ""},
    {"aten::embedding", "TT", ""},
    {"aten::embedding_backward", "TTiibb", ""},
    {"aten::cumsum", "Tin", ""},
    {"aten::cumsum", "Ti", ""},
    {"aten::cumsum", "T", NULL},
    {"aten::cumprod", "Tin", ""},
    {"aten::cumprod", "Ti", ""},
    {"aten::cumprod", "T", NULL},
    {"aten::norm", "T", "Scalar"},
    {"aten::norm", "Ti", "Scalar"},
    {"aten::norm", "Tnl", "ScalarOpt_dim"},
    {"aten::norm", "Tflb", "ScalarOpt_dim"},
    {"aten::norm", "Tilbi", "ScalarOpt_dim_dtype"},
    {"aten::norm", "Tnlbi", "ScalarOpt_dim_dtype"},
    {"aten::frobenius_norm", "T", ""},
    {"aten::frobenius_norm", "Tl", "dim"},
    {"aten::frobenius_norm", "Tlb", "dim"},
    {"aten::linalg_vector_norm", "T", ""},
    {"aten::linalg_vector_norm", "Tfnbn", ""},
    {"aten::prod", "T", ""},
    {"aten::prod", "Tn", ""},
    {"aten::prod", "Ti", ""}, /* as PyTorch prints prod(x, dtype=torch.float64) */
    {"aten::prod", "Tib", "dim_int"},
    {"aten::prod", "Tibn", "dim_int"},
    {"aten::prod", "Tl", NULL},
    {"aten::smooth_l1_loss", "TTif", ""},
    {"aten::smooth_l1_loss", "TT", ""},
    {"aten::huber_loss", "TTif", ""},
    {"aten::soft_margin_loss", "TTi", ""},
    {"aten::binary_cross_entropy", "TTTi", ""},
    {"aten::binary_cross_entropy", "TTni", ""},
    {"aten::kl_div", "TTib", ""},
    {"aten::kl_div", "TTi", ""},
    {"aten::mse_loss", "TTi", ""},
    {"aten::mse_loss", "TT", ""},
    {"aten::mse_loss", "Ti", NULL},
    {"aten::len", "L", "t"},
    {"aten::len", "l", "t"},
    {"aten::len", "T", "Tensor"},
    {"aten::len", "i", NULL},
    {"aten::__getitem__", "Li", "t"},
    {"aten::__getitem__", "lf", NULL},
    {"aten::append", "LT", "t"},
    {"aten::append", "li", "t"},
    {"aten::append", "TT", NULL},
    {"aten::_set_item", "LiT", "t"},
    {"aten::_set_item", "Li", NULL},
    {"aten::len", "D", "Dict_str"},
    {"aten::len", "I", "Dict_int"},
    {"aten::__getitem__", "Ds", "Dict_str"},
    {"aten::__getitem__", "Ps", "Dict_str"},
    {"aten::__getitem__", "Ii", "Dict_int"},
    {"aten::__getitem__", "Di", NULL},
    {"aten::_set_item", "DsT", "str"},
    {"aten::_set_item", "IiT", "int"},
    {"aten::_set_item", "IsT", NULL},
    {"aten::list", "L", "t"},
    {"aten::list", "D", NULL},
    {"aten::extend", "LL", "t"},
    {"aten::insert", "LiT", "t"},
    {"aten::pop", "L", "t"},
    {"aten::pop", "Li", "t"},
    {"aten::pop", "Ds", "Dict_str"},
    {"aten::pop", "DsT", "Dict_default_str"},
    {"aten::pop", "Ii", "Dict_int"},
    {"aten::pop", "IiT", "Dict_default_int"},
    {"aten::reverse", "L", "t"},
    {"aten::clear", "L", "t"},
    {"aten::clear", "D", "str"},
    {"aten::clear", "I", "int"},
    {"aten::__contains__", "li", "int_list"},
    {"aten::__contains__", "Gf", "float_list"},
    {"aten::__contains__", "Ss", "str_list"},
    {"aten::__contains__", "Ds", "str"},
    {"aten::__contains__", "Ii", "int"},
    {"aten::__contains__", "LT", NULL},
    {"aten::index", "li", "list_int"},
    {"aten::index", "Gf", "list_float"},
    {"aten::index", "Ss", "list_str"},
    {"aten::index", "TQ", "Tensor"},
    {"aten::index", "TL", "Tensor"}, /* a Tensor[] where Tensor?[] is asked, as PyTorch's */
    {"aten::index", "Tl", NULL},
    {"aten::index_put", "TQTb", ""},
    {"aten::index_put", "TLT", ""},
    {"aten::index_put", "TTT", NULL},
    {"aten::sort", "Tib", ""},
    {"aten::sort", "T", ""},
    {"aten::sort", "Tbib", "stable"},
    {"aten::argsort", "Tib", ""},
    {"aten::argsort", "Tbib", "stable"},
    {"aten::topk", "Tiibb", ""},
    {"aten::topk", "Ti", ""},
    {"aten::topk", "T", NULL},
    {"aten::dict", "", ""},
    {"aten::keys", "D", "str"},
    {"aten::keys", "I", "int"},
    {"aten::values", "D", "str"},
    {"aten::values", "I", "int"},
    {"aten::items", "D", "str"},
    {"aten::items", "I", "int"},
    {"aten::items", "L", NULL},
    {"aten::get", "Ds", "str"},
    {"aten::get", "DsT", "default_str"},
    {"aten::get", "Ii", "int"},
    {"aten::get", "IiT", "default_int"},
    {"aten::update", "DD", "str"},
    {"aten::update", "II", "int"},
    {"aten::update", "DI", NULL},
    {"aten::slice", "Lnni", "t"},
    {"aten::slice", "Li", "t"},
    {"aten::slice", "Ti", "Tensor"},
    {"aten::add", "LL", "t"},
    {"aten::mul", "Li", "left_t"},
    {"aten::mul", "iL", "right_"},
    {"aten::eq", "ss", "str"},
    {"aten::eq", "si", NULL},
    {"aten::l1_loss", "TTi", ""},
    {"aten::l1_loss", "TT", ""},
    {"aten::nll_loss", "TTnii", ""},
    {"aten::nll_loss", "TT", ""},
    {"aten::nll_loss_nd", "TTTii", ""},
    {"aten::nll_loss_nd", "Ti", NULL},
    {"aten::cross_entropy_loss", "TTniif", ""},
    {"aten::cross_entropy_loss", "TT", ""},
    {"aten::nll_loss_forward", "TTnii", ""},
    {"aten::nll_loss_forward", "TTn", NULL},
    {"aten::nll_loss_backward", "TTTniiT", ""},
    {"aten::nll_loss_backward", "TTTTii", NULL},
    {"aten::binary_cross_entropy_with_logits", "TTnni", ""},
    {"aten::binary_cross_entropy_with_logits", "TTTT", ""},
    {"aten::masked_fill", "TTf", "Scalar"},
    {"aten::masked_fill", "TTT", "Tensor"},
    {"aten::masked_fill", "TT", NULL},
    {"aten::gather", "TiT", ""},
    {"aten::gather", "TiTb", ""},
    {"aten::gather", "TTi", NULL},
    {"aten::scatter_add", "TiTT", ""},
    {"aten::scatter_add", "TiT", NULL},
    {"aten::baddbmm", "TTTff", ""},
    {"aten::baddbmm", "TTT", ""},
    {"aten::baddbmm", "TT", NULL},
    {"aten::clamp_min", "Tf", ""},
    {"aten::clamp_min", "T", NULL},
    {"aten::clamp_max", "Ti", ""},
    {"aten::clamp_max", "TT", NULL},
    {"aten::zeros", "lnnnn", ""},
    {"aten::ones", "linnn", ""},
    {"aten::zeros", "T", NULL},
    {"aten::full", "lfnnnn", ""},
    {"aten::full", "l", NULL},
    {"aten::arange", "innnn", ""},
    {"aten::arange", "finnnn", "start"},
    {"aten::arange", "iiinnnn", "start_step"},
    {"aten::to", "Tibbn", "dtype"},
    {"aten::to", "Tdibbn", "device"},
    {"aten::to", "TTbbn", "other"},
    {"aten::to", "Tdnbb", "prim_Device"},
    {"aten::to", "Tnbb", "prim_dtype"},
    {"aten::to", "s", NULL},
    {"prim::NumToTensor", "i", "Scalar"},
    {"prim::NumToTensor", "T", NULL},
    {"aten::detach", "T", ""},
    {"aten::detach", "i", NULL},
    {"aten::broadcast_tensors", "L", ""},
    {"aten::broadcast_tensors", "T", NULL},
    {"aten::dim", "T", ""},
    {"aten::dim", "i", NULL},
    {"aten::conv2d", "TTTllli", ""},
    {"aten::conv2d", "TTn", ""},
    {"aten::conv2d", "TT", ""},
    {"aten::conv2d", "T", NULL},
    {"aten::conv2d", "TTnlsli", "padding"},
    {"aten::conv2d", "TTTls", "padding"},
    {"aten::conv2d", "TTnlsl", "padding"},
    {"aten::conv1d", "TTnllli", ""},
    {"aten::conv1d", "Ti", NULL},
    {"aten::conv1d", "TTnlsli", "padding"},
    {"aten::conv1d", "TTnls", "padding"},
    {"aten::conv_transpose2d", "TTnlllil", "input"},
    {"aten::conv_transpose2d", "TT", "input"},
    {"aten::conv_transpose1d", "TTTlllil", ""},
    {"aten::conv_transpose1d", "TT", ""},
    {"aten::convolution_backward", "TTTllllbliB", ""},
    {"aten::convolution_backward", "TTTnlllbliB", ""},
    {"aten::_convolution", "TTTlllblibbbb", ""},
    {"aten::_convolution", "TTnlllblibbb", "deprecated"},
    {"aten::_convolution", "TTnlllbli", NULL},
    {"aten::max_pool2d", "Tllllb", ""},
    {"aten::max_pool2d", "Tl", ""},
    {"aten::max_pool2d", "T", NULL},
    {"aten::max_pool2d_with_indices", "Tllllb", ""},
    {"aten::max_pool2d_with_indices_backward", "TTllllbT", ""},
    {"aten::avg_pool2d", "Tlllbbn", ""},
    {"aten::avg_pool2d", "Tlllbbi", ""},
    {"aten::avg_pool2d_backward", "TTlllbbn", ""},
    {"aten::adaptive_avg_pool2d", "Tl", ""},
    {"aten::adaptive_avg_pool2d", "T", NULL},
    {"aten::_adaptive_avg_pool2d_backward", "TT", ""},
    {"aten::adaptive_max_pool2d", "Tl", ""},
    {"aten::adaptive_max_pool2d", "T", NULL},
    {"aten::adaptive_max_pool2d_backward", "TTT", ""},
    {"aten::max_pool1d", "Tllllb", ""},
    {"aten::max_pool1d", "Tl", ""},
    {"aten::max_pool1d", "T", NULL},
    {"aten::max_pool1d_with_indices", "Tllllb", ""},
    {"aten::avg_pool1d", "Tlllbb", ""},
    {"aten::avg_pool1d", "Tllllb", NULL},
    {"aten::adaptive_avg_pool1d", "Tl", ""},
    {"aten::adaptive_max_pool1d", "Tl", ""},
    {"aten::adaptive_max_pool1d", "Ti", NULL},
    {"aten::instance_norm", "Tnnnnbffb", ""},
    {"aten::instance_norm", "TTTTTbffb", ""},
    {"aten::square", "T", ""},
    {"aten::asinh", "T", ""},
    {"aten::acosh", "T", ""},
    {"aten::atanh", "T", ""},
    {"aten::log_sigmoid", "T", ""},
    {"aten::hypot", "TT", ""},
    {"aten::xlogy", "TT", "Tensor"},
    {"aten::xlogy", "Tf", "Scalar_Other"},
    {"aten::xlogy", "Ti", "Scalar_Other"},
    {"aten::xlogy", "fT", "Scalar_Self"},
    {"aten::xlogy", "ff", NULL},
    {"aten::floor_divide", "TT", ""},
    {"aten::floor_divide", "Ti", "Scalar"},
    {"aten::floor_divide", "Tf", "Scalar"},
    {"aten::floor_divide", "iT", NULL},
    {"aten::nan_to_num", "T", ""},
    {"aten::nan_to_num", "Tnnn", ""},
    {"aten::nan_to_num", "Tfff", ""},
    {"aten::nan_to_num", "f", NULL},
    {"aten::logit", "T", ""},
    {"aten::logit", "Tf", ""},
    {"aten::logit", "Tn", ""},
    {"aten::logit", "TT", NULL},
    {"aten::logit_backward", "TTn", ""},
    {"aten::logit_backward", "TTf", ""},
    {"aten::cosine_similarity", "TTif", ""},
    {"aten::cosine_similarity", "TT", ""},
    {"aten::cosine_similarity", "T", NULL},
    {"aten::pairwise_distance", "TTffb", ""},
    {"aten::pairwise_distance", "TT", ""},
    {"aten::addcdiv", "TTT", ""},
    {"aten::addcdiv", "TTTf", ""},
    {"aten::pixel_shuffle", "Ti", ""},
    {"aten::pixel_unshuffle", "Ti", ""},
    {"aten::prelu", "TT", ""},
    {"aten::prelu_backward", "TTT", ""},
    {"aten::glu", "T", ""},
    {"aten::glu", "Ti", ""},
    {"aten::glu_backward", "TTi", ""},
    {"aten::upsample_nearest2d", "TnG", "vec"},
    {"aten::upsample_nearest2d", "Tln", "vec"},
    {"aten::upsample_nearest2d", "Tl", ""},
    {"aten::upsample_nearest2d", "Tlff", ""},
    {"aten::upsample_nearest2d", "TlG", "vec"},
    {"aten::upsample_bilinear2d", "TnbG", "vec"},
    {"aten::upsample_bilinear2d", "Tlb", ""},
    {"aten::upsample_bilinear2d", "Tlbnf", ""},
    {"aten::upsample_bilinear2d", "Tl", NULL},
    {"aten::upsample_nearest2d_backward", "TnlG", "vec"},
    {"aten::upsample_nearest2d_backward", "Tll", ""},
    {"aten::upsample_nearest2d_backward", "Tllff", ""},
    {"aten::upsample_bilinear2d_backward", "TnlbG", "vec"},
    {"aten::upsample_bilinear2d_backward", "Tllb", ""},
    {"aten::batch_norm", "TTTTTbffb", ""},
    {"aten::batch_norm", "TnnnnbffB", NULL},
    {"aten::native_batch_norm_backward", "TTTTTnnbfB", ""},
    {"aten::group_norm", "TiTTfb", ""},
    {"aten::group_norm", "Ti", ""},
    {"aten::group_norm", "TT", NULL},
    {"aten::native_group_norm", "TnniiiifF", NULL},
    {"aten::native_group_norm", "TTTiiiif", ""},
    {"aten::native_group_norm_backward", "TTTTniiiiB", ""},
};

static const char *unary_kinds[] = {
    "aten::abs",     "aten::sign",  "aten::sigmoid", "aten::tanh",        "aten::relu",
    "aten::exp",     "aten::expm1", "aten::log",     "aten::log10",       "aten::log1p",
    "aten::log2",    "aten::sqrt",  "aten::rsqrt",   "aten::reciprocal",  "aten::erf",
    "aten::erfc",    "aten::sin",   "aten::cos",     "aten::tan",         "aten::asin",
    "aten::acos",    "aten::atan",  "aten::sinh",    "aten::cosh",        "aten::ceil",
    "aten::floor",   "aten::round", "aten::trunc",   "aten::frac",        "aten::lgamma",
    "aten::digamma", "aten::silu",  "aten::mish",    "aten::hardsigmoid",
};

/* Builds a node of `kind` reading fresh graph inputs of the given types and resolves it. */
static const IrSchema *resolve(IrGraph *g, const char *kind_name, const char *letters) {
  IrOpKind kind;
  if (!ir_kind_from_name(kind_name, &kind))
    g_error("test table: unknown kind %s", kind_name);
  IrNode *n = ir_node_create(g, kind, 1);
  for (const char *c = letters; *c; c++)
    ir_node_add_input(n, ir_graph_add_input(g, letter_type(*c), NULL));
  ir_graph_insert(g, n);
  const IrSchema *s = ir_node_resolve_schema(n);
  g_assert_true(n->schema == s);
  return s;
}

static void test_resolution(void) {
  IrGraph *g = ir_graph_new();
  bool *reached = g_new0(bool, ir_ops_count());
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    const Case *c = &cases[i];
    const IrSchema *s = resolve(g, c->kind, c->inputs);
    if (!c->overload) {
      if (s)
        g_error("%s(%s) resolved to %s, expected no match", c->kind, c->inputs, s->text);
      continue;
    }
    if (!s)
      g_error("%s(%s) matched no overload, expected .%s", c->kind, c->inputs, c->overload);
    g_assert_cmpstr(s->name, ==, c->kind);
    if (strcmp(s->overload, c->overload) != 0)
      g_error("%s(%s) resolved to %s, expected .%s", c->kind, c->inputs, s->text, c->overload);
    reached[s->index] = true;
  }
  for (gsize i = 0; i < G_N_ELEMENTS(unary_kinds); i++) {
    const IrSchema *s = resolve(g, unary_kinds[i], "F");
    g_assert_nonnull(s);
    reached[s->index] = true;
    bool has_number_form = /* math.sqrt/exp/log: sqrt.int, exp.int, log.int above */
        strcmp(unary_kinds[i], "aten::sqrt") == 0 || strcmp(unary_kinds[i], "aten::exp") == 0 ||
        strcmp(unary_kinds[i], "aten::log") == 0;
    if (!has_number_form)
      g_assert_null(resolve(g, unary_kinds[i], "i"));
    g_assert_null(resolve(g, unary_kinds[i], "TT"));
  }
  for (guint i = 0; i < ir_ops_count(); i++)
    if (!reached[i])
      g_error("no resolution case reaches %s", ir_ops_schema(i)->text);
  /* A kind without schemas resolves to nothing. */
  g_assert_null(resolve(g, "prim::ListConstruct", "TT"));
  ir_test_check_graph(g);
  g_free(reached);
  ir_graph_free(g);
}

static void test_matches_directly(void) {
  const IrSchema *sum_dim = NULL;
  guint n;
  const IrSchema *const *ov = ir_ops_overloads(IR_ATEN_SUM, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp(ov[i]->overload, "dim_IntList") == 0)
      sum_dim = ov[i];
  g_assert_nonnull(sum_dim);
  const IrType *args[] = {ir_type_tensor(), ir_type_list(ir_type_int()), ir_type_bool(),
                          ir_type_none(), ir_type_none()};
  g_assert_false(ir_schema_matches(sum_dim, args, 1));
  g_assert_true(ir_schema_matches(sum_dim, args, 2));
  g_assert_true(ir_schema_matches(sum_dim, args, 3));
  g_assert_true(ir_schema_matches(sum_dim, args, 4));
  g_assert_false(ir_schema_matches(sum_dim, args, 5));
  const IrType *wrong[] = {ir_type_tensor(), ir_type_list(ir_type_float())};
  g_assert_false(ir_schema_matches(sum_dim, wrong, 2));
}

static void test_defs(void) {
  for (guint i = 0; i < ir_ops_count(); i++) {
    const IrOpDef *d = ir_ops_def(i);
    const IrSchema *s = ir_ops_schema(i);
    g_assert_cmpstr(d->schema_text, ==, s->text);
    g_assert_nonnull(rt_op_kernel(s));
    /* OVERLOAD rows share their OP row's kind: overloads of a kind are consecutive. */
    if (i > 0 && ir_ops_schema(i - 1)->kind != s->kind) {
      guint n_kind;
      g_assert_true(ir_ops_overloads((IrOpKind)s->kind, &n_kind)[0] == s);
    }
    /* A DERIV gradient only for rows with an expression; a pointwise dtype rule likewise. */
    if (d->grad == IR_GRAD_DERIV)
      g_assert_nonnull(d->pointwise);
    g_assert_true((ir_op_def_dtype_rule(d) != IR_DTYPE_RULE_NONE) == (d->pointwise != NULL));
    /* Elementwise expressions exist only for ops returning one Tensor. */
    if (d->pointwise)
      g_assert_true(s->n_returns == 1 && s->returns[0] == ir_type_tensor());
  }
  guint n;
  const IrSchema *const *add = ir_ops_overloads(IR_ATEN_ADD, &n);
  g_assert_cmpstr(ir_ops_def(add[0]->index)->pointwise, ==,
                  "(A2 == 1 ? A0 + A1 : fma(A2, A1, A0))");
  g_assert_null(ir_ops_def(add[2]->index)->pointwise);
  const IrSchema *const *mm = ir_ops_overloads(IR_ATEN_MM, &n);
  g_assert_null(ir_ops_def(mm[0]->index)->pointwise);
  /* Kind names come from the OP rows' schemas. */
  g_assert_cmpstr(ir_kind_name(IR_ATEN_GRAD_SUM_TO_SIZE), ==, "aten::_grad_sum_to_size");
  g_assert_cmpstr(ir_kind_name(IR_ATEN_BOOL), ==, "aten::Bool");
  g_assert_cmpstr(ir_kind_name(IR_PRIM_IF), ==, "prim::If");
  IrOpKind k;
  g_assert_true(ir_kind_from_name("aten::__isnot__", &k) && k == IR_ATEN___ISNOT__);
  const IrSchema *const *gt = ir_ops_overloads(IR_ATEN_GT, &n);
  g_assert_cmpint(ir_op_def_dtype_rule(ir_ops_def(gt[0]->index)), ==, IR_DTYPE_RULE_BOOL);
  const IrSchema *const *div = ir_ops_overloads(IR_ATEN_DIV, &n);
  g_assert_cmpint(ir_op_def_dtype_rule(ir_ops_def(div[0]->index)), ==, IR_DTYPE_RULE_FLOAT);
  g_assert_cmpint(ir_op_def_dtype_rule(ir_ops_def(add[0]->index)), ==, IR_DTYPE_RULE_PROMOTE);
  const IrSchema *const *square = ir_ops_overloads(IR_ATEN_SQUARE, &n);
  g_assert_cmpint(ir_op_def_dtype_rule(ir_ops_def(square[0]->index)), ==, IR_DTYPE_RULE_LONG);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ir/schema/parse-details", test_parse_details);
  g_test_add_func("/ir/schema/parse-errors", test_parse_errors);
  g_test_add_func("/ir/schema/table", test_table);
  g_test_add_func("/ir/schema/resolution", test_resolution);
  g_test_add_func("/ir/schema/matches", test_matches_directly);
  g_test_add_func("/ir/schema/defs", test_defs);
  return g_test_run();
}
