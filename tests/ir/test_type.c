/* Types: PyTorch 1.13 printing, hash-consing (equal types are one pointer, also across
 * threads), and subtyping. Expected strings are PyTorch's own prints (corpus graphs). */
#include "ir/type.h"

#include <string.h>

static IrType tensor_proto(void) {
  IrType t;
  memset(&t, 0, sizeof t);
  t.kind = IR_TYPE_TENSOR;
  t.rank = -1;
  t.requires_grad = IR_UNKNOWN;
  t.device = -1;
  return t;
}

static void assert_prints(const IrType *t, const char *expected) {
  char *s = ir_type_to_string(t);
  g_assert_cmpstr(s, ==, expected);
  g_free(s);
}

static const IrType *float_tensor(int rank, const int64_t *sizes, const int64_t *strides,
                                  IrTristate rg, int device) {
  IrType p = tensor_proto();
  p.has_dtype = true;
  p.dtype = IR_DTYPE_FLOAT32;
  p.rank = rank;
  p.sizes = sizes;
  p.strides = strides;
  p.requires_grad = rg;
  p.device = device;
  return ir_type_tensor_from(&p);
}

static void test_print_tensors(void) {
  assert_prints(ir_type_tensor(), "Tensor");
  assert_prints(ir_type_undefined_tensor(), "Tensor[Undefined]");
  assert_prints(float_tensor(2, NULL, NULL, IR_NO, IR_DEVICE_CPU),
                "Float(*, *, requires_grad=0, device=cpu)");
  assert_prints(float_tensor(0, NULL, NULL, IR_NO, IR_DEVICE_CPU),
                "Float(requires_grad=0, device=cpu)");
  int64_t sizes[] = {5, 1}, strides[] = {1, 1};
  assert_prints(float_tensor(2, sizes, strides, IR_YES, IR_DEVICE_CPU),
                "Float(5, 1, strides=[1, 1], requires_grad=1, device=cpu)");
  assert_prints(float_tensor(2, NULL, NULL, IR_UNKNOWN, IR_DEVICE_CPU), "Float(*, *, device=cpu)");
  assert_prints(float_tensor(1, NULL, NULL, IR_YES, IR_DEVICE_CPU),
                "Float(*, requires_grad=1, device=cpu)");
  assert_prints(float_tensor(2, NULL, NULL, IR_UNKNOWN, -1), "Float(*, *)");
  assert_prints(float_tensor(3, (int64_t[]){2, 3, 4}, NULL, IR_UNKNOWN, -1), "Float(2, 3, 4)");
  assert_prints(float_tensor(2, (int64_t[]){8, IR_SIZE_UNKNOWN}, NULL, IR_UNKNOWN, IR_DEVICE_CUDA),
                "Float(8, *, device=cuda)");

  IrType p = tensor_proto();
  p.has_dtype = true;
  p.dtype = IR_DTYPE_FLOAT64;
  p.rank = 2;
  p.requires_grad = IR_NO;
  p.device = IR_DEVICE_CPU;
  assert_prints(ir_type_tensor_from(&p), "Double(*, *, requires_grad=0, device=cpu)");
  p.dtype = IR_DTYPE_BOOL;
  p.rank = 0;
  assert_prints(ir_type_tensor_from(&p), "Bool(requires_grad=0, device=cpu)");
  p.dtype = IR_DTYPE_INT64;
  p.rank = 1;
  p.requires_grad = IR_UNKNOWN;
  p.device = -1;
  assert_prints(ir_type_tensor_from(&p), "Long(*)");
  p.dtype = IR_DTYPE_FLOAT16;
  assert_prints(ir_type_tensor_from(&p), "Half(*)");
  /* dtype known, rank unknown: PyTorch prints the dtype name followed by "Tensor". */
  p.rank = -1;
  p.dtype = IR_DTYPE_FLOAT32;
  assert_prints(ir_type_tensor_from(&p), "FloatTensor");
  /* No dtype, rank known. */
  IrType q = tensor_proto();
  q.rank = 2;
  assert_prints(ir_type_tensor_from(&q), "Tensor(*, *)");
  q.rank = -1;
  q.requires_grad = IR_YES;
  assert_prints(ir_type_tensor_from(&q), "Tensor(requires_grad=1)");
}

static void test_print_others(void) {
  assert_prints(ir_type_int(), "int");
  assert_prints(ir_type_float(), "float");
  assert_prints(ir_type_bool(), "bool");
  assert_prints(ir_type_str(), "str");
  assert_prints(ir_type_none(), "NoneType");
  assert_prints(ir_type_number(), "Scalar");
  assert_prints(ir_type_device(), "Device");
  assert_prints(ir_type_any(), "Any");
  assert_prints(ir_type_list(ir_type_int()), "int[]");
  assert_prints(ir_type_optional(ir_type_list(ir_type_int())), "int[]?");
  assert_prints(ir_type_list(ir_type_tensor()), "Tensor[]");
  assert_prints(ir_type_optional(ir_type_tensor()), "Tensor?");
  const IrType *pair[] = {ir_type_tensor(), ir_type_tensor()};
  assert_prints(ir_type_tuple(pair, 2), "(Tensor, Tensor)");
  const IrType *mixed[] = {ir_type_tensor(), ir_type_int(), ir_type_list(ir_type_float())};
  assert_prints(ir_type_tuple(mixed, 3), "(Tensor, int, float[])");

  GString *s = g_string_new("x : ");
  ir_type_print(s, ir_type_optional(ir_type_int()));
  g_assert_cmpstr(s->str, ==, "x : int?");
  g_string_free(s, TRUE);
}

static void test_interning(void) {
  g_assert_true(ir_type_list(ir_type_int()) == ir_type_list(ir_type_int()));
  g_assert_true(ir_type_optional(ir_type_list(ir_type_int())) ==
                ir_type_optional(ir_type_list(ir_type_int())));
  int64_t a[] = {5, 1}, b[] = {5, 1}, c[] = {5, 2};
  g_assert_true(float_tensor(2, a, NULL, IR_YES, 0) == float_tensor(2, b, NULL, IR_YES, 0));
  g_assert_true(float_tensor(2, a, NULL, IR_YES, 0) != float_tensor(2, c, NULL, IR_YES, 0));
  g_assert_true(float_tensor(2, a, NULL, IR_YES, 0) != float_tensor(2, a, NULL, IR_NO, 0));
  /* All-unknown sizes are the same type as no sizes. */
  int64_t unknown[] = {IR_SIZE_UNKNOWN, IR_SIZE_UNKNOWN};
  g_assert_true(float_tensor(2, unknown, NULL, IR_NO, 0) == float_tensor(2, NULL, NULL, IR_NO, 0));
  /* The interned copy owns its arrays: changing the caller's buffer changes nothing. */
  int64_t buf[] = {3, 4};
  const IrType *t = float_tensor(2, buf, NULL, IR_UNKNOWN, -1);
  buf[0] = 9;
  assert_prints(t, "Float(3, 4)");
  g_assert_true(t == float_tensor(2, (int64_t[]){3, 4}, NULL, IR_UNKNOWN, -1));
  /* A tensor proto with a stray elem is still the plain tensor type. */
  IrType p = tensor_proto();
  p.elem = ir_type_int();
  g_assert_true(ir_type_tensor_from(&p) == ir_type_tensor());
  const IrType *e1[] = {ir_type_int(), ir_type_tensor()};
  const IrType *e2[] = {ir_type_int(), ir_type_tensor()};
  g_assert_true(ir_type_tuple(e1, 2) == ir_type_tuple(e2, 2));
  g_assert_true(ir_type_tuple(e1, 1) != ir_type_tuple(e1, 2));
  g_assert_true(ir_type_tuple(e1, 0) == ir_type_tuple(NULL, 0));
  g_assert_null(ir_type_tuple(e1, 0)->elems);
  assert_prints(ir_type_tuple(NULL, 0), "()");
}

static gpointer intern_many(gpointer data) {
  int seed = GPOINTER_TO_INT(data);
  GPtrArray *seen = g_ptr_array_new();
  for (int i = 0; i < 2000; i++) {
    int64_t sizes[] = {i % 50, seed % 3};
    g_ptr_array_add(seen, (gpointer)float_tensor(2, sizes, NULL, IR_YES, 0));
  }
  return seen;
}

static void test_interning_threads(void) {
  GThread *threads[4];
  for (int i = 0; i < 4; i++)
    threads[i] = g_thread_new("intern", intern_many, GINT_TO_POINTER(i * 3));
  GPtrArray *results[4];
  for (int i = 0; i < 4; i++)
    results[i] = g_thread_join(threads[i]);
  /* Seeds 0, 3, 6, 9 all give seed % 3 == 0: every thread must have got the same pointers. */
  for (int i = 1; i < 4; i++)
    for (guint k = 0; k < results[0]->len; k++)
      g_assert_true(results[0]->pdata[k] == results[i]->pdata[k]);
  for (int i = 0; i < 4; i++)
    g_ptr_array_free(results[i], TRUE);
}

static void test_derived(void) {
  int64_t sizes[] = {5, 1}, strides[] = {1, 1};
  const IrType *full = float_tensor(2, sizes, strides, IR_YES, IR_DEVICE_CPU);
  assert_prints(ir_type_dimensioned(full), "Float(*, *, requires_grad=1, device=cpu)");
  assert_prints(ir_type_with_requires_grad(full, IR_NO),
                "Float(5, 1, strides=[1, 1], requires_grad=0, device=cpu)");
  g_assert_true(ir_type_with_requires_grad(ir_type_with_requires_grad(full, IR_NO), IR_YES) ==
                full);
}

static void test_subtyping(void) {
  const IrType *f = float_tensor(2, NULL, NULL, IR_YES, IR_DEVICE_CPU);
  const IrType *tensor = ir_type_tensor();
  g_assert_true(ir_type_is_subtype(f, tensor));
  g_assert_false(ir_type_is_subtype(tensor, f));
  g_assert_true(ir_type_is_subtype(ir_type_undefined_tensor(), tensor));
  g_assert_true(ir_type_is_subtype(f, ir_type_dimensioned(f)));
  g_assert_true(ir_type_is_subtype(float_tensor(2, (int64_t[]){2, 3}, NULL, IR_YES, 0),
                                   float_tensor(2, NULL, NULL, IR_YES, 0)));
  g_assert_false(ir_type_is_subtype(float_tensor(1, NULL, NULL, IR_YES, 0),
                                    float_tensor(2, NULL, NULL, IR_YES, 0)));
  g_assert_false(ir_type_is_subtype(float_tensor(2, NULL, NULL, IR_NO, 0),
                                    float_tensor(2, NULL, NULL, IR_YES, 0)));

  g_assert_true(ir_type_is_subtype(ir_type_int(), ir_type_number()));
  g_assert_true(ir_type_is_subtype(ir_type_float(), ir_type_number()));
  g_assert_true(ir_type_is_subtype(ir_type_bool(), ir_type_number()));
  g_assert_false(ir_type_is_subtype(tensor, ir_type_number()));
  g_assert_false(ir_type_is_subtype(ir_type_int(), ir_type_float()));
  g_assert_false(ir_type_is_subtype(ir_type_number(), ir_type_int()));

  const IrType *int_list = ir_type_list(ir_type_int());
  g_assert_true(ir_type_is_subtype(int_list, ir_type_optional(int_list)));
  g_assert_true(ir_type_is_subtype(ir_type_none(), ir_type_optional(int_list)));
  g_assert_true(ir_type_is_subtype(ir_type_optional(int_list), ir_type_optional(int_list)));
  g_assert_false(ir_type_is_subtype(ir_type_optional(int_list), int_list));
  g_assert_false(ir_type_is_subtype(ir_type_none(), int_list));
  g_assert_true(ir_type_is_subtype(f, ir_type_optional(tensor)));
  g_assert_false(ir_type_is_subtype(ir_type_list(ir_type_float()), int_list));
  g_assert_true(ir_type_is_subtype(ir_type_list(f), ir_type_list(tensor)));
  g_assert_true(ir_type_is_subtype(int_list, ir_type_list(ir_type_any())));

  const IrType *samples[] = {
      tensor,        ir_type_int(),  ir_type_float(),  ir_type_bool(), ir_type_number(),
      ir_type_str(), ir_type_none(), ir_type_device(), int_list,       ir_type_optional(int_list)};
  for (gsize i = 0; i < G_N_ELEMENTS(samples); i++) {
    g_assert_true(ir_type_is_subtype(samples[i], ir_type_any()));
    g_assert_true(ir_type_is_subtype(samples[i], samples[i]));
  }

  const IrType *e_sub[] = {f, ir_type_int()};
  const IrType *e_sup[] = {tensor, ir_type_number()};
  g_assert_true(ir_type_is_subtype(ir_type_tuple(e_sub, 2), ir_type_tuple(e_sup, 2)));
  g_assert_false(ir_type_is_subtype(ir_type_tuple(e_sup, 2), ir_type_tuple(e_sub, 2)));
  g_assert_false(ir_type_is_subtype(ir_type_tuple(e_sub, 1), ir_type_tuple(e_sup, 2)));
}

static void test_dtypes(void) {
  g_assert_cmpstr(ir_dtype_type_name(IR_DTYPE_FLOAT32), ==, "Float");
  g_assert_cmpstr(ir_dtype_type_name(IR_DTYPE_FLOAT64), ==, "Double");
  g_assert_cmpstr(ir_dtype_type_name(IR_DTYPE_FLOAT16), ==, "Half");
  g_assert_cmpstr(ir_dtype_type_name(IR_DTYPE_INT64), ==, "Long");
  g_assert_cmpstr(ir_dtype_type_name(IR_DTYPE_BOOL), ==, "Bool");
  g_assert_cmpstr(ir_dtype_name(IR_DTYPE_FLOAT32), ==, "float32");
  g_assert_cmpstr(ir_dtype_name(IR_DTYPE_INT64), ==, "int64");
  g_assert_cmpuint(ir_dtype_size(IR_DTYPE_FLOAT64), ==, 8);
  g_assert_cmpuint(ir_dtype_size(IR_DTYPE_FLOAT16), ==, 2);
  g_assert_cmpuint(ir_dtype_size(IR_DTYPE_BOOL), ==, 1);
  g_assert_true(ir_type_is_float_dtype(IR_DTYPE_FLOAT16));
  g_assert_false(ir_type_is_float_dtype(IR_DTYPE_INT64));
  g_assert_cmpstr(ir_device_name(IR_DEVICE_CUDA), ==, "cuda");
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/ir/type/print-tensors", test_print_tensors);
  g_test_add_func("/ir/type/print-others", test_print_others);
  g_test_add_func("/ir/type/interning", test_interning);
  g_test_add_func("/ir/type/interning-threads", test_interning_threads);
  g_test_add_func("/ir/type/derived", test_derived);
  g_test_add_func("/ir/type/subtyping", test_subtyping);
  g_test_add_func("/ir/type/dtypes", test_dtypes);
  return g_test_run();
}
