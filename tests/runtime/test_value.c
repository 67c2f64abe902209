/* RtValue: constructors, sharing, conversions and printing; dicts in insertion order. */
#include "runtime/value.h"

static char *print(RtValue v) {
  GString *s = g_string_new(NULL);
  rt_value_print(s, v);
  return g_string_free(s, FALSE);
}

#define ASSERT_PRINTS(v, text)     \
  do {                             \
    char *p_ = print(v);           \
    g_assert_cmpstr(p_, ==, text); \
    g_free(p_);                    \
  } while (0)

static void test_scalars(void) {
  double d;
  ASSERT_PRINTS(rt_none(), "None");
  ASSERT_PRINTS(rt_int(-42), "-42");
  ASSERT_PRINTS(rt_double(2.5), "2.5");
  ASSERT_PRINTS(rt_double(3.0), "3.0");
  ASSERT_PRINTS(rt_double(0.1), "0.1");
  ASSERT_PRINTS(rt_bool(true), "True");
  ASSERT_PRINTS(rt_device(IR_DEVICE_CUDA), "cuda");
  g_assert_true(rt_value_to_double(rt_int(7), &d));
  g_assert_cmpfloat(d, ==, 7.0);
  g_assert_true(rt_value_to_double(rt_bool(true), &d));
  g_assert_cmpfloat(d, ==, 1.0);
  g_assert_false(rt_value_to_double(rt_none(), &d));
  RtValue s = rt_str("a\"b");
  ASSERT_PRINTS(s, "\"a\\\"b\"");
  g_assert_false(rt_value_to_double(s, &d));
  RtValue s2 = rt_value_ref(s);
  g_assert_cmpint(s.u.s->refcount, ==, 2);
  rt_value_unref(s2);
  rt_value_unref(s);
}

static void test_tensors(void) {
  double d;
  int64_t sizes[2] = {2, 3};
  RtTensor *t = rt_tensor_full(IR_DTYPE_FLOAT32, 2, sizes, 1.5);
  RtValue v = rt_tensor(t);
  g_assert_true(rt_value_is_tensor(v));
  ASSERT_PRINTS(v, "Float(2, 3)");
  g_assert_false(rt_value_to_double(v, &d));
  RtValue u = rt_tensor(NULL);
  g_assert_true(rt_value_is_tensor(u));
  ASSERT_PRINTS(u, "Tensor[Undefined]");
  g_assert_false(rt_value_to_double(u, &d));
  rt_value_unref(rt_value_ref(u));
  RtValue s = rt_tensor(rt_tensor_scalar(IR_DTYPE_INT64, 9));
  ASSERT_PRINTS(s, "Long()");
  g_assert_true(rt_value_to_double(s, &d));
  g_assert_cmpfloat(d, ==, 9.0);
  int64_t one[2] = {1, 1};
  RtValue o = rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT64, 2, one, -0.25));
  g_assert_true(rt_value_to_double(o, &d));
  g_assert_cmpfloat(d, ==, -0.25);
  RtValue v2 = rt_value_ref(v);
  g_assert_cmpint(t->refcount, ==, 2);
  rt_value_unref(v2);
  g_assert_cmpint(t->refcount, ==, 1);
  rt_value_unref(o);
  rt_value_unref(s);
  rt_value_unref(v);
}

static void test_sequences(void) {
  gint64 ints[3] = {5, 1, -2};
  RtValue l = rt_int_list(ints, 3);
  ASSERT_PRINTS(l, "[5, 1, -2]");
  gint64 out[4];
  guint n;
  g_assert_true(rt_value_to_int_list(l, out, 4, &n));
  g_assert_cmpuint(n, ==, 3);
  g_assert_cmpint(out[2], ==, -2);
  g_assert_false(rt_value_to_int_list(l, out, 2, &n)); /* too long for the buffer */
  g_assert_false(rt_value_to_int_list(rt_int(3), out, 4, &n));

  int64_t sz[1] = {4};
  RtTensor *t = rt_tensor_zeros(IR_DTYPE_BOOL, 1, sz);
  RtValue items[3] = {rt_value_ref(l), rt_tensor(rt_tensor_ref(t)), rt_none()};
  RtValue tup = rt_tuple(items, 3);
  ASSERT_PRINTS(tup, "([5, 1, -2], Bool(4), None)");
  g_assert_cmpint(t->refcount, ==, 2);
  RtValue mixed_items[2] = {rt_int(1), rt_double(2.0)};
  RtValue mixed = rt_list(mixed_items, 2);
  g_assert_false(rt_value_to_int_list(mixed, out, 4, &n));
  RtValue one_items[1] = {rt_int(1)};
  RtValue one = rt_tuple(one_items, 1);
  ASSERT_PRINTS(one, "(1,)");
  RtValue empty = rt_list(NULL, 0);
  ASSERT_PRINTS(empty, "[]");
  g_assert_true(rt_value_to_int_list(empty, out, 4, &n));
  g_assert_cmpuint(n, ==, 0);
  rt_value_unref(empty);
  rt_value_unref(one);
  rt_value_unref(mixed);
  RtValue tup2 = rt_value_ref(tup);
  rt_value_unref(tup);
  g_assert_cmpint(t->refcount, ==, 2); /* still held by tup2 */
  rt_value_unref(tup2);
  g_assert_cmpint(t->refcount, ==, 1);
  g_assert_cmpint(l.u.seq->refcount, ==, 1);
  rt_value_unref(l);
  rt_tensor_unref(t);
}

static void test_dicts(void) {
  RtValue d = rt_dict_new();
  ASSERT_PRINTS(d, "{}");
  rt_dict_set(d, rt_str("b"), rt_int(1));
  rt_dict_set(d, rt_str("a"), rt_int(2));
  rt_dict_set(d, rt_str("b"), rt_int(3)); /* replaces, keeps its place */
  ASSERT_PRINTS(d, "{\"b\": 3, \"a\": 2}");
  RtValue key = rt_str("a");
  g_assert_cmpint(rt_dict_find(d.u.dict, key), ==, 1);
  g_assert_false(rt_dict_key_equal(key, rt_int(1)));
  RtValue taken = rt_dict_take(d.u.dict, 0);
  g_assert_cmpint(taken.u.i, ==, 3);
  g_assert_cmpint(rt_dict_find(d.u.dict, key), ==, 0);
  rt_value_unref(key);
  /* Shared, as lists: a second holder sees the change. */
  RtValue same = rt_value_ref(d);
  for (gint64 k = 0; k < 9; k++)
    rt_dict_set(same, rt_int(k), rt_none());
  g_assert_cmpuint(d.u.dict->len, ==, 10);
  rt_value_unref(same);
  rt_value_unref(d);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/runtime/value/scalars", test_scalars);
  g_test_add_func("/runtime/value/tensors", test_tensors);
  g_test_add_func("/runtime/value/sequences", test_sequences);
  g_test_add_func("/runtime/value/dicts", test_dicts);
  return g_test_run();
}
