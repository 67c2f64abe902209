/* Malformed scripts: each must fail with exactly this first line ("FILE:LINE:COL: error:
 * MESSAGE"), then the source line and a caret under the column; never crash. The file name
 * of each case is NAME.py. Messages and locations were checked by hand against the sources. */
#include <stdio.h>
#include <string.h>

#include "ir/text.h"
#include "script/script.h"

typedef struct {
  const char *name;
  const char *source;
  gsize length; /* sources may hold NUL bytes */
  const char *function;
  const char *first_line;
} ErrorCase;

#define CASE(name, source, function, first_line) \
  { name, source, sizeof source - 1, function, first_line }

static const ErrorCase cases[] = {
    CASE("emit_assert_msg", "def f(x, c: bool):\n    assert c, 3\n    return x\n", NULL,
         "emit_assert_msg.py:2:15: error: an assert message must be a string literal"),
    CASE("emit_attribute", "def f(x):\n    return x.strides\n", NULL,
         "emit_attribute.py:2:12: error: attribute 'strides' is not supported here (only tensor "
         "properties, method calls, torch dtypes and math constants)"),
    CASE("emit_attribute_of_int", "def f(x, n: int):\n    return n.shape\n", NULL,
         "emit_attribute_of_int.py:2:12: error: a value of type int has no attribute 'shape'"),
    CASE("emit_math_attribute", "def f(x):\n    return x * math.golden\n", NULL,
         "emit_math_attribute.py:2:16: error: attribute 'golden' is not supported here (only "
         "tensor properties, method calls, torch dtypes and math constants)"),
    CASE("emit_branch_types",
         "def f(x, c: bool):\n    if c:\n        y = x\n    else:\n        y = 1\n    return y\n",
         NULL,
         "emit_branch_types.py:2:5: error: 'y' is Tensor in the true branch but int in the false "
         "branch"),
    CASE("emit_break_outside", "def f(x, c: bool):\n    if c:\n        break\n    return x\n", NULL,
         "emit_break_outside.py:3:9: error: 'break' outside a loop"),
    CASE("emit_break_type",
         "def f(x, n: int):\n    y = x\n    for i in range(n):\n        if i == 2:\n"
         "            y = 1\n            break\n        y = y + 1\n    return y\n",
         NULL,
         "emit_break_type.py:6:13: error: 'y' is int here but Tensor where the loop carries it"),
    CASE("emit_break_types_differ",
         "def f(x, n: int):\n    y = None\n    for i in range(n):\n        if i == 1:\n"
         "            y = 1\n            break\n        if i == 2:\n            y = 2.5\n"
         "            break\n    return y\n",
         NULL,
         "emit_break_types_differ.py:9:13: error: 'y' is float here but int where the loop "
         "carries it"),
    CASE("emit_continue_closure",
         "def f(x):\n    for i in range(2):\n        def g(y):\n            continue\n"
         "        x = x + 1\n    return x\n",
         NULL, "emit_continue_closure.py:4:13: error: 'continue' outside a loop"),
    CASE("emit_continue_tuple",
         "def f(t: Tuple[Tensor, Tensor]):\n    y = t[0]\n    for x in t:\n        continue\n"
         "    return y\n",
         NULL,
         "emit_continue_tuple.py:4:9: error: 'continue' in a loop over a tuple is not supported: "
         "its body is copied once per element (PyTorch's rule)"),
    CASE("emit_call_args", "def f(x):\n    return g(x, 2)\n\ndef g(x, s: float):\n    return x\n",
         NULL,
         "emit_call_args.py:2:12: error: 'g' does not accept (Tensor, int); its parameters: (x: "
         "Tensor, s: float)"),
    /* torch.norm is a function with four overloads: the message lists them */
    CASE("emit_torch_norm_args", "def f(x):\n    return torch.norm(x, p=[1])\n", NULL,
         "emit_torch_norm_args.py:2:12: error: torch.norm does not accept (Tensor, p=int[]); its "
         "signatures: torch::norm(Tensor input, str p=\"fro\", int[]? dim=None, bool "
         "keepdim=False, Tensor? out=None, int? dtype=None) -> Tensor; torch::norm(Tensor input, "
         "Scalar? p=\"fro\", int[]? dim=None, bool keepdim=False, Tensor? out=None, int? "
         "dtype=None) -> Tensor; torch::norm(Tensor input, Scalar? p=\"fro\", int? dim=None, bool "
         "keepdim=False, Tensor? out=None, int? dtype=None) -> Tensor; torch::norm(Tensor input, "
         "str p=\"fro\", int? dim=None, bool keepdim=False, Tensor? out=None, int? dtype=None) -> "
         "Tensor"),
    CASE("emit_empty_list_named", "def f(x):\n    s = []\n    return torch.max_pool2d(x, 2, s)\n",
         NULL,
         "emit_empty_list_named.py:3:12: error: no overload of aten::max_pool2d accepts (Tensor, "
         "int, Tensor[]); candidates: aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] "
         "stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor"),
    CASE("emit_set_item_tuple",
         "def f(x, y):\n    d: Dict[str, Tensor] = {\"a\": x}\n    d[\"c\"] = x * y, x\n"
         "    return x\n",
         NULL,
         "emit_set_item_tuple.py:3:5: error: cannot store a value of type (Tensor, Tensor) into "
         "Dict(str, Tensor)"),
    CASE("emit_call_default",
         "def f(x):\n    return g(x)\n\ndef g(x, s: float = 1.0 / 3):\n"
         "    return x * s\n",
         NULL, "emit_call_default.py:4:21: error: the default of 's' must be a literal"),
    CASE("emit_call_recursive",
         "def f(x, n: int):\n    return g(x, n)\n\ndef g(x, n: int):\n    if n > 0:\n"
         "        return f(x, n - 1)\n    return x\n",
         NULL,
         "emit_call_recursive.py:6:16: error: 'f' is called while it is being compiled: "
         "recursion is not supported (TorchScript refuses it too)"),
    CASE("emit_call_error_inside", "def f(x):\n    return g(x)\n\ndef g(x):\n    return y\n", NULL,
         "emit_call_error_inside.py:5:12: error: name 'y' is not defined"),
    CASE("emit_call_value", "def f(x):\n    return x(1)\n", NULL,
         "emit_call_value.py:2:12: error: 'x' is a value and cannot be called"),
    CASE("emit_function_name", "def f(x):\n    return x\n", "nope",
         "emit_function_name.py: error: no function named 'nope'"),
    CASE("emit_index_float", "def f(x, i):\n    return x[i, 1.5]\n", NULL,
         "emit_index_float.py:2:17: error: a Tensor index (ints, slices, None, ... and tensors) "
         "must be an int or a Tensor, got float"),
    CASE("emit_index_str", "def f(x):\n    return x['a', 1:2]\n", NULL,
         "emit_index_str.py:2:14: error: a Tensor index (ints, slices, None, ... and tensors) "
         "must be an int or a Tensor, got str"),
    CASE("emit_index_two_ellipses", "def f(x):\n    return x[..., 0, ...]\n", NULL,
         "emit_index_two_ellipses.py:2:22: error: an index can only have a single ellipsis "
         "('...')"),
    CASE("emit_index_tensor_after_ellipsis", "def f(x, i):\n    return x[..., i]\n", NULL,
         "emit_index_tensor_after_ellipsis.py:2:19: error: a tensor index after '...' is not "
         "supported"),
    CASE("emit_bare_ellipsis", "def f(x):\n    return ...\n", NULL,
         "emit_bare_ellipsis.py:2:12: error: '...' is only supported in a tensor subscript"),
    CASE("emit_index_int", "def f(n: int):\n    return n[0]\n", NULL,
         "emit_index_int.py:2:12: error: indexing a value of type int is not supported (only "
         "tensors, tuples, lists and dicts)"),
    CASE("emit_tensor_slice_float", "def f(x):\n    return x[0, 1:2:0.5]\n", NULL,
         "emit_tensor_slice_float.py:2:21: error: a slice step must be an int, got float"),
    CASE("emit_tensor_slice_bound", "def f(x):\n    return x[0.5:]\n", NULL,
         "emit_tensor_slice_bound.py:2:14: error: a slice bound must be an int, got float"),
    CASE("emit_list_index_float", "def f(x):\n    xs = [x, x]\n    return xs[1.5]\n", NULL,
         "emit_list_index_float.py:3:15: error: a list index must be an int, got float"),
    CASE("emit_list_store_type", "def f(x):\n    xs = [x, x]\n    xs[0] = 1\n    return x\n", NULL,
         "emit_list_store_type.py:3:5: error: cannot store a value of type int into Tensor[]"),
    CASE("emit_list_slice_assign", "def f(x):\n    xs = [x, x]\n    xs[0:1] = xs\n    return x\n",
         NULL,
         "emit_list_slice_assign.py:3:5: error: assigning to a slice of a value of type Tensor[] "
         "is not supported (only list items and dict entries)"),
    CASE("emit_tensor_item_assign", "def f(x):\n    x[0] = 1\n    return x\n", NULL,
         "emit_tensor_item_assign.py:2:5: error: assigning to an item of a value of type Tensor is "
         "not supported (only list items and dict entries)"),
    CASE("emit_inplace_tensor", "def f(x):\n    x += 1\n    return x\n", NULL,
         "emit_inplace_tensor.py:2:5: error: in-place '+=' on a Tensor is not supported (PyTorch "
         "emits an in-place op); write 'x = x + ...'"),
    CASE("emit_iterate_tensor", "def f(x):\n    for v in x:\n        x = x + v\n    return x\n",
         NULL,
         "emit_iterate_tensor.py:2:14: error: for loops run over range(n), a tuple, a list or a "
         "dict; "
         "iterating over Tensor is not supported"),
    CASE("emit_dict_key_type", "def f(x):\n    d = {\"a\": x}\n    return d[0]\n", NULL,
         "emit_dict_key_type.py:3:14: error: a key of this dict must be a str, got int"),
    CASE("emit_dict_float_key", "def f(x):\n    return {1.5: x}\n", NULL,
         "emit_dict_float_key.py:2:13: error: dict keys must be str or int"),
    CASE("emit_dict_mixed_keys", "def f(x):\n    return {1: x, \"b\": x}\n", NULL,
         "emit_dict_mixed_keys.py:2:19: error: dict keys must all have one type"),
    CASE("emit_dict_slice", "def f(x):\n    d = {1: x}\n    return d[0:1]\n", NULL,
         "emit_dict_slice.py:3:14: error: slices of a dict are not supported"),
    CASE("emit_in_tensor", "def f(x):\n    return 1 in x\n", NULL,
         "emit_in_tensor.py:2:12: error: 'in' needs a list or a dict on its right, got Tensor"),
    CASE("emit_annotation_mismatch",
         "def f(x):\n    d: Dict[str, int] = {\"a\": x}\n    return x\n", NULL,
         "emit_annotation_mismatch.py:2:25: error: a value of type Dict(str, Tensor) cannot be "
         "assigned to 'd' annotated Dict(str, int)"),
    CASE("emit_list_types", "def f(x, n: int):\n    return [x, n]\n", NULL,
         "emit_list_types.py:2:16: error: list elements must all have one type"),
    CASE("emit_loop_type",
         "def f(x, n: int):\n    y = 1\n    for i in range(n):\n        y = x\n    return y\n",
         NULL,
         "emit_loop_type.py:3:5: error: 'y' is int before the loop but Tensor after an iteration"),
    CASE("emit_method_on_int", "def f(x, n: int):\n    return n.exp()\n", NULL,
         "emit_method_on_int.py:2:12: error: a value of type int has no method 'exp'"),
    CASE("emit_module_value", "def f(x):\n    return torch\n", NULL,
         "emit_module_value.py:2:12: error: module 'torch' used as a value"),
    CASE("emit_no_overload", "def f(x):\n    return torch.mm(x, 2)\n", NULL,
         "emit_no_overload.py:2:12: error: no overload of aten::mm accepts (Tensor, int); "
         "candidates: "
         "aten::mm(Tensor self, Tensor mat2) -> Tensor"),
    CASE("emit_one_branch", "def f(x, c: bool):\n    if c:\n        y = x\n    return y\n", NULL,
         "emit_one_branch.py:4:12: error: 'y' is not defined in the false branch of the if at 2:5"),
    CASE("emit_operator", "def f(a: float, b: float):\n    return a // b\n", NULL,
         "emit_operator.py:2:12: error: no overload of aten::floordiv accepts (float, float); "
         "candidates: aten::floordiv.int(int a, int b) -> int"),
    CASE("emit_optional_args", "def f(x: Optional[int, int]):\n    return x\n", NULL,
         "emit_optional_args.py:1:10: error: Optional[...] takes exactly one type"),
    CASE("emit_raise_form", "def f(x):\n    raise\n", NULL,
         "emit_raise_form.py:2:5: error: raise needs an exception built from a message: raise "
         "E(\"...\")"),
    CASE("emit_range_args",
         "def f(x):\n    for i in range(1, 3, 1, 2):\n        x = x + 1\n    return x\n", NULL,
         "emit_range_args.py:2:14: error: range() takes 1 to 3 int arguments, got 4"),
    CASE("emit_range_float",
         "def f(x):\n    for i in range(0, 2.5):\n        x = x + 1\n    return x\n", NULL,
         "emit_range_float.py:2:23: error: range() needs ints, got float"),
    CASE("emit_range_value", "def f(x):\n    r = range(3)\n    return x\n", NULL,
         "emit_range_value.py:2:9: error: range() is supported only as the iterable of a for loop"),
    CASE("emit_return_types", "def f(x, c: bool):\n    if c:\n        return 1\n    return x\n",
         NULL,
         "emit_return_types.py:4:5: error: this return gives Tensor, but the return at 3:9 "
         "gives int"),
    CASE("emit_loop_local",
         "def f(x, n: int):\n    for i in range(n):\n        y = x * i\n"
         "    return y\n",
         NULL,
         "emit_loop_local.py:4:12: error: 'y' is bound only inside the loop at 2:5, which may "
         "not run"),
    CASE("emit_slice", "def f(t: Tuple[Tensor, Tensor]):\n    return t[0:1]\n", NULL,
         "emit_slice.py:2:14: error: slices are not supported"),
    CASE("emit_tuple_index", "def f(t: Tuple[Tensor, Tensor]):\n    return t[2]\n", NULL,
         "emit_tuple_index.py:2:14: error: tuple index 2 out of range for a tuple of 2 elements"),
    CASE("emit_undefined", "def f(x):\n    return y\n", NULL,
         "emit_undefined.py:2:12: error: name 'y' is not defined"),
    CASE("emit_unknown_module", "def f(x):\n    return np.exp(x)\n", NULL,
         "emit_unknown_module.py:2:12: error: unknown module 'np' (use torch, torch.linalg, F "
         "or math)"),
    CASE("emit_unknown_op", "def f(x):\n    return torch.frobnicate(x)\n", NULL,
         "emit_unknown_op.py:2:12: error: unknown operator 'aten::frobnicate'"),
    CASE("emit_unknown_type", "def f(x: Foo):\n    return x\n", NULL,
         "emit_unknown_type.py:1:10: error: unknown type 'Foo'"),
    CASE("emit_unpack_count", "def f(x):\n    a, b = (x, x, x)\n    return a\n", NULL,
         "emit_unpack_count.py:2:5: error: cannot unpack a tuple of 3 values into 2 names"),
    CASE("emit_unpack_tensor", "def f(x):\n    a, b = x\n    return a\n", NULL,
         "emit_unpack_tensor.py:2:5: error: cannot unpack a value of type Tensor into 2 names"),
    CASE("lex_bad_char", "def f(x):\n    return x $ 1\n", NULL,
         "lex_bad_char.py:2:14: error: unexpected character '$'"),
    CASE("lex_bad_escape", "def f(x):\n    raise ValueError(\"a\\qb\")\n", NULL,
         "lex_bad_escape.py:2:24: error: unsupported escape sequence in a string"),
    CASE("lex_bad_number", "def f(x):\n    return x + 3abc\n", NULL,
         "lex_bad_number.py:2:17: error: invalid number literal"),
    CASE("lex_continuation", "def f(x):\n    return x \\ 1\n", NULL,
         "lex_continuation.py:2:14: error: unexpected character after line continuation"),
    CASE("lex_dedent", "def f(x):\n        y = x\n    return y\n", NULL,
         "lex_dedent.py:3:5: error: unindent does not match any outer indentation level"),
    CASE("lex_eof_in_brackets", "def f(x):\n    return (x +\n", NULL,
         "lex_eof_in_brackets.py:3:1: error: unexpected end of file inside brackets"),
    CASE("lex_int_range", "def f(x):\n    return x + 99999999999999999999\n", NULL,
         "lex_int_range.py:2:16: error: integer literal out of range"),
    CASE("lex_leading_zero", "def f(x):\n    return x + 012\n", NULL,
         "lex_leading_zero.py:2:16: error: leading zeros in an integer literal are not allowed"),
    CASE("lex_nul", "def f(x):\n    return x\000\n", NULL,
         "lex_nul.py:2:13: error: unexpected byte 0x00"),
    CASE("lex_unterminated_docstring", "def f(x):\n    \"\"\"doc\n    return x\n", NULL,
         "lex_unterminated_docstring.py:2:5: error: unterminated string literal"),
    CASE("lex_docstring_escape", "def f(x):\n    '''a\n    \\q'''\n    return x\n", NULL,
         "lex_docstring_escape.py:3:5: error: unsupported escape sequence in a string"),
    CASE("lex_unmatched_close", "def f(x):\n    return x)\n", NULL,
         "lex_unmatched_close.py:2:13: error: unmatched ')'"),
    CASE("lex_unterminated", "def f(x):\n    s = \"abc\n    return x\n", NULL,
         "lex_unterminated.py:2:9: error: unterminated string literal"),
    CASE("lex_utf8", "def f(x):\n    # ok \303\251\n    return x \377\n", NULL,
         "lex_utf8.py:3:14: error: invalid UTF-8 byte 0xff"),
    CASE("parse_assign_target", "def f(x):\n    x + 1 = x\n    return x\n", NULL,
         "parse_assign_target.py:2:5: error: cannot assign to this expression (only names, tuples "
         "of names and subscripts)"),
    CASE("parse_attr_keyword", "def f(x):\n    return x.if()\n", NULL,
         "parse_attr_keyword.py:2:14: error: expected an attribute name, found keyword 'if'"),
    CASE("parse_aug_target", "def f(x):\n    (x, x) += 1\n    return x\n", NULL,
         "parse_aug_target.py:2:5: error: augmented assignment needs a single name on the left"),
    CASE("parse_bad_expr", "def f(x):\n    return x + * 2\n", NULL,
         "parse_bad_expr.py:2:16: error: expected an expression, found '*'"),
    CASE("parse_bad_param", "def f(1):\n    return 1\n", NULL,
         "parse_bad_param.py:1:7: error: expected a parameter name, found number '1'"),
    CASE("parse_bad_type", "def f(x: 3):\n    return x\n", NULL,
         "parse_bad_type.py:1:10: error: expected a type, found number '3'"),
    CASE("parse_chained", "def f(x):\n    a = b = x\n    return a\n", NULL,
         "parse_chained.py:2:11: error: chained assignment is not supported"),
    CASE("parse_default_order", "def f(x, n: int = 1, m: int):\n    return x\n", NULL,
         "parse_default_order.py:1:22: error: parameter without a default follows one with a "
         "default"),
    CASE("parse_dup_param", "def f(x, x):\n    return x\n", NULL,
         "parse_dup_param.py:1:10: error: duplicate parameter 'x'"),
    CASE("parse_else_alone", "def f(x):\n    else:\n        return x\n", NULL,
         "parse_else_alone.py:2:5: error: 'else' without a matching 'if'"),
    CASE("parse_empty", "\n# only a comment\n", NULL,
         "parse_empty.py:1:1: error: no function definition (def) in the file"),
    CASE("parse_for_else",
         "def f(x):\n    for i in range(2):\n        x = x + 1\n    else:\n        pass\n    "
         "return x\n",
         NULL, "parse_for_else.py:4:5: error: 'else' after a loop is not supported"),
    CASE("parse_kw_repeat", "def f(x):\n    return torch.sub(x, x, alpha=1, alpha=2)\n", NULL,
         "parse_kw_repeat.py:2:37: error: keyword argument 'alpha' repeated"),
    CASE("parse_missing_colon", "def f(x)\n    return x\n", NULL,
         "parse_missing_colon.py:1:9: error: expected ':', found end of line"),
    CASE("parse_missing_paren", "def f x:\n    return x\n", NULL,
         "parse_missing_paren.py:1:7: error: expected '(', found name 'x'"),
    CASE("parse_no_body", "def f(x):\nreturn x\n", NULL,
         "parse_no_body.py:2:1: error: expected an indented block, found keyword 'return'"),
    CASE("parse_no_def", "x = 1\n", NULL,
         "parse_no_def.py:1:1: error: expected 'def' at the top level, found name 'x'"),
    CASE("parse_positional_after_kw", "def f(x):\n    return torch.sub(x, alpha=1, x)\n", NULL,
         "parse_positional_after_kw.py:2:34: error: positional argument follows keyword argument"),
    CASE("parse_ternary_else", "def f(x, c: bool):\n    return x if c\n", NULL,
         "parse_ternary_else.py:2:18: error: expected 'else', found end of line"),
    CASE("parse_two_exprs", "def f(x):\n    return x x\n", NULL,
         "parse_two_exprs.py:2:14: error: expected end of line, found name 'x'"),
    CASE("parse_unexpected_indent", "def f(x):\n    y = x\n        return y\n", NULL,
         "parse_unexpected_indent.py:3:9: error: unexpected indent"),
    CASE("parse_unsupported_stmt", "def f(x):\n    del x\n    return x\n", NULL,
         "parse_unsupported_stmt.py:2:5: error: 'del' statements are not supported"),
};

/* Line `line` (1-based) of `text`, without its newline. */
static char *source_line(const char *text, gsize length, int line) {
  const char *p = text, *end = text + length;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n')
      l++;
  const char *eol = p;
  while (eol < end && *eol != '\n' && *eol != '\0')
    eol++;
  return g_strndup(p, eol - p);
}

static bool check(const ErrorCase *c) {
  g_autofree char *file = g_strdup_printf("%s.py", c->name);
  g_autoptr(GError) error = NULL;
  IrGraph *graph = script_compile(c->source, c->length, file, c->function, &error);
  if (graph != NULL) {
    ir_graph_free(graph);
    printf("FAIL %s: compiled, expected an error\n", c->name);
    return false;
  }
  if (error->domain != JITSCOPE_PARSE_ERROR) {
    printf("FAIL %s: error in the wrong domain: %s\n", c->name, error->message);
    return false;
  }
  g_auto(GStrv) lines = g_strsplit(error->message, "\n", -1);
  if (strcmp(lines[0], c->first_line) != 0) {
    printf("FAIL %s:\n  expected %s\n  got      %s\n", c->name, c->first_line, lines[0]);
    return false;
  }
  int line = 0, col = 0;
  if (sscanf(c->first_line + strlen(file), ":%d:%d:", &line, &col) == 2) {
    g_autofree char *quoted = source_line(c->source, c->length, line);
    bool printable = g_utf8_validate(quoted, -1, NULL);
    for (const char *q = quoted; printable && *q; q++)
      printable = (unsigned char)*q >= 0x20 && *q != '\t';
    GString *caret = g_string_new(NULL);
    for (int i = 1; i < col; i++)
      g_string_append_c(caret, ' ');
    g_string_append_c(caret, '^');
    bool ok = g_strv_length(lines) >= 3 && (!printable || strcmp(lines[1], quoted) == 0) &&
              strcmp(lines[2], caret->str) == 0;
    g_string_free(caret, TRUE);
    if (!ok) {
      printf("FAIL %s: the source line and caret are wrong:\n%s\n", c->name, error->message);
      return false;
    }
  }
  return true;
}

/* Programs too long to write out: 257 early returns (each would nest the rest one If
 * deeper), and an if with 1001 elif branches (each nests in the one before). */
static bool check_generated(void) {
  GString *returns = g_string_new("def f(x, n: int):\n");
  for (int i = 0; i < 257; i++)
    g_string_append_printf(returns, "    if n > %d:\n        return x\n", i);
  g_string_append(returns, "    return x\n");
  GString *elifs = g_string_new("def f(x, n: int):\n    if n == 0:\n        x = x + 1\n");
  for (int i = 1; i <= 1001; i++)
    g_string_append_printf(elifs, "    elif n == %d:\n        x = x + 1\n", i);
  g_string_append(elifs, "    return x\n");
  const ErrorCase generated[] = {
      {"emit_too_many_exits", returns->str, returns->len, NULL,
       "emit_too_many_exits.py:515:9: error: more than 256 return, break and continue "
       "statements in one function: its lowered control flow would nest too deep"},
      {"parse_too_many_elifs", elifs->str, elifs->len, NULL,
       "parse_too_many_elifs.py:2004:5: error: more than 1000 elif branches in one if "
       "statement"},
  };
  bool ok = true;
  for (guint i = 0; i < G_N_ELEMENTS(generated); i++)
    ok &= check(&generated[i]);
  g_string_free(returns, TRUE);
  g_string_free(elifs, TRUE);
  return ok;
}

int main(void) {
  guint failed = 0;
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    failed += !check(&cases[i]);
  failed += !check_generated();
  printf("%u malformed scripts, %u failed\n", (guint)G_N_ELEMENTS(cases) + 2, failed);
  return failed ? 1 : 0;
}
