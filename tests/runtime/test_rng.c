/* The PyTorch-compatible generator (tensor/rng.h) against PyTorch 1.13's own numbers: every
 * constant below was printed by Debian's python3-torch 1.13 (bit patterns of float32 /
 * float64 values) after torch.manual_seed(7) (or 2**32 + 7, or 11), e.g. torch.randn(21). */
#include "tensor/rng.h"

#include <string.h>

static RtTensor *drawn(IrDtype dtype, int64_t n) {
  return rt_tensor_new(dtype, 1, (int64_t[]){n});
}

static void assert_bits32(RtTensor *t, const guint32 *want, int64_t n) {
  const float *d = rt_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    guint32 bits;
    memcpy(&bits, &d[i], sizeof bits);
    g_assert_cmphex(bits, ==, want[i]);
  }
  rt_tensor_unref(t);
}

static void assert_bits64(RtTensor *t, const guint64 *want, int64_t n) {
  const double *d = rt_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    guint64 bits;
    memcpy(&bits, &d[i], sizeof bits);
    g_assert_cmphex(bits, ==, want[i]);
  }
  rt_tensor_unref(t);
}

static void test_rand(void) {
  static const guint32 rand32[] = {0x3f08f0af, 0x3e4b9310, 0x3f28c219, 0x3f2829f6, 0x3e6e590c};
  static const guint64 rand64[] = {0x3fd1e15e7465c988u, 0x3fd18432a35053ecu, 0x3feb9643fa6cd0d3u};
  RtGenerator g;
  rt_generator_seed(&g, 7);
  RtTensor *t = drawn(IR_DTYPE_FLOAT32, 5);
  rt_generator_uniform(&g, t, 0, 1);
  assert_bits32(t, rand32, 5);
  rt_generator_seed(&g, 7);
  t = drawn(IR_DTYPE_FLOAT64, 3);
  rt_generator_uniform(&g, t, 0, 1);
  assert_bits64(t, rand64, 3);
  /* Only the seed's low 32 bits seed mt19937. */
  rt_generator_seed(&g, G_GUINT64_CONSTANT(0x100000007));
  t = drawn(IR_DTYPE_FLOAT32, 2);
  rt_generator_uniform(&g, t, 0, 1);
  assert_bits32(t, rand32, 2);
}

static void test_randn_small(void) {
  /* Fewer than 16 elements: normal_distribution<double> per element. */
  static const guint32 randn32[] = {0xbe165174, 0x3f49408e, 0x3f7262e7, 0xbf8ea2d3, 0x3fd86bd0};
  /* randn(3) twice: the second call starts with the pair's cached sine. */
  static const guint64 twice[] = {0xbfc2ca2e8774a1c0u, 0x3fe92811cc01ae83u, 0x3fee4c5cd4ba2dcfu,
                                  0xbff1d45a657cf2b6u, 0x3ffb0d79f26af9afu, 0xbfeca26e13930e85u};
  RtGenerator g;
  rt_generator_seed(&g, 7);
  RtTensor *t = drawn(IR_DTYPE_FLOAT32, 5);
  rt_generator_normal(&g, t, 0, 1);
  assert_bits32(t, randn32, 5);
  rt_generator_seed(&g, 7);
  t = drawn(IR_DTYPE_FLOAT64, 3);
  rt_generator_normal(&g, t, 0, 1);
  assert_bits64(t, twice, 3);
  t = drawn(IR_DTYPE_FLOAT64, 3);
  rt_generator_normal(&g, t, 0, 1);
  assert_bits64(t, twice + 3, 3);
}

static void test_randn_large(void) {
  /* 16 or more: normal_fill, the last block of 16 redone (21 = 16 + 5). */
  static const guint32 randn32[] = {
      0xbf51f456, 0x3eca902b, 0x3f661ede, 0xbfb1b738, 0xbe2b0101, 0x3f4835ea, 0x3f85017b,
      0xbf397989, 0xbf595213, 0xbf9bc458, 0xbda5eea5, 0x3fae4525, 0xbfa6cfce, 0x3f2c91dd,
      0xbfa96365, 0xbfae0ce9, 0xbf5de028, 0xbf1062be, 0xc0039d15, 0xbeb6a456, 0x3f8c3bfb};
  static const guint64 randn64[] = {0x3fb0f6e8d3a53973u, 0x3fa80f46f1ebf213u, 0x3ffd6276549d121eu,
                                    0x3ff5e20f53cc4c77u, 0x3ff1f115c8471adbu, 0x3ffeea5a21096e4bu,
                                    0xbff711ab8c9c9497u, 0x3fe749d011ade7a0u, 0xbff502a937321611u,
                                    0xbfd4fdf47365b832u, 0xbff5a27b878c9061u, 0x3ffcb8c2a005a32eu,
                                    0x3fc9c0eb4528ebc7u, 0xbfe0c449e70ad4cdu, 0xbfd22b12c8c0e81cu,
                                    0x3fdcf6ff3d1fa92fu, 0xbffaaf04bea1dd97u, 0xbff9647bfa50381eu,
                                    0x40003dfab338259cu, 0x3fe51bdf321a248au, 0x3fe04a1282b8276cu};
  RtGenerator g;
  rt_generator_seed(&g, 7);
  RtTensor *t = drawn(IR_DTYPE_FLOAT32, 21);
  rt_generator_normal(&g, t, 0, 1);
  assert_bits32(t, randn32, 21);
  rt_generator_seed(&g, 7);
  t = drawn(IR_DTYPE_FLOAT64, 21);
  rt_generator_normal(&g, t, 0, 1);
  assert_bits64(t, randn64, 21);
}

/* torch.manual_seed(11); torch.randn(65536): FNV-1a over the float32 bit patterns. The float32
 * normal_fill's log and sincos polynomials differ from libm's in about one value in a
 * thousand; this holds every one of them to PyTorch's. */
static void test_randn_many(void) {
  RtGenerator g;
  rt_generator_seed(&g, 11);
  RtTensor *t = drawn(IR_DTYPE_FLOAT32, 65536);
  rt_generator_normal(&g, t, 0, 1);
  const guint32 *bits = rt_tensor_data(t);
  guint64 h = G_GUINT64_CONSTANT(0xcbf29ce484222325);
  for (int64_t i = 0; i < 65536; i++)
    h = (h ^ bits[i]) * G_GUINT64_CONSTANT(0x100000001b3);
  g_assert_cmphex(h, ==, G_GUINT64_CONSTANT(0x505f5cc11d24a310));
  rt_tensor_unref(t);
}

static void assert_ones(RtTensor *t, const char *want) {
  const float *d = rt_tensor_data(t);
  for (int64_t i = 0; i < rt_tensor_numel(t); i++)
    g_assert_cmpfloat(d[i], ==, want[i] == '1' ? 1.0f : 0.0f);
  rt_tensor_unref(t);
}

static void test_bernoulli(void) {
  RtGenerator g;
  /* empty(12).bernoulli_(0.3) and bernoulli(full(12, 0.3, float64)): 53-bit uniforms. */
  rt_generator_seed(&g, 7);
  RtTensor *t = drawn(IR_DTYPE_FLOAT32, 12);
  rt_generator_bernoulli(&g, t, 0.3, NULL);
  assert_ones(t, "110000100011");
  RtTensor *p = rt_tensor_full(IR_DTYPE_FLOAT64, 1, (int64_t[]){12}, 0.3);
  rt_generator_seed(&g, 7);
  t = drawn(IR_DTYPE_FLOAT32, 12);
  rt_generator_bernoulli(&g, t, 0, p);
  assert_ones(t, "110000100011");
  rt_tensor_unref(p);
  /* bernoulli(full(12, 0.3)): a float32 p draws 24-bit uniforms. */
  p = rt_tensor_full(IR_DTYPE_FLOAT32, 1, (int64_t[]){12}, 0.3);
  rt_generator_seed(&g, 7);
  t = drawn(IR_DTYPE_FLOAT32, 12);
  rt_generator_bernoulli(&g, t, 0, p);
  assert_ones(t, "010010100000");
  rt_tensor_unref(p);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/rng/rand", test_rand);
  g_test_add_func("/rng/randn-small", test_randn_small);
  g_test_add_func("/rng/randn-large", test_randn_large);
  g_test_add_func("/rng/randn-many", test_randn_many);
  g_test_add_func("/rng/bernoulli", test_bernoulli);
  return g_test_run();
}
