/* CUDA code generation: exact lines for small groups (expectations written by hand), dtype
 * spellings, chunks, determinism, errors, layout merging and cache keys. Needs no CUDA. */
#include <string.h>

#include "cuda/cuda_compile.h"
#include "cuda/cuda_launch.h"
#include "ir/text.h"
#include "source_lines.h"

static CudaKernelSource *gen(const IrGraph *g, IrDtype dtype, const guint *in_nd,
                             const guint *out_nd) {
  IrDtype dtypes[8];
  for (guint i = 0; i < 8; i++)
    dtypes[i] = dtype;
  GError *error = NULL;
  CudaKernelSource *k = cuda_codegen_kernel(g, "k", dtypes, in_nd, out_nd, &error);
  g_assert_no_error(error);
  g_assert_nonnull(k);
  return k;
}

static const guint ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};

static const char add_sigmoid[] = "graph(%a : Float(*, *), %b : Float(*, *)):\n"
                                  "  %one : int = prim::Constant[value=1]()\n"
                                  "  %c : Float(*, *) = aten::add(%a, %b, %one)\n"
                                  "  %d : Float(*, *) = aten::sigmoid(%c)\n"
                                  "  return (%d)\n";

static void test_float_add_sigmoid(void) {
  IrGraph *g = source_lines_parse(add_sigmoid);
  CudaKernelSource *k = gen(g, IR_DTYPE_FLOAT32, ones, ones);
  static const char *const lines[] = {
      "typedef unsigned int IndexType;",
      "template <typename T, int N>",
      "struct TensorInfo {",
      "  T *data;",
      "  IndexType sizes[N];",
      "  IndexType strides[N];",
      "};",
      "#define NAN __int_as_float(0x7fffffff)",
      "#define INFINITY __int_as_float(0x7f800000)",
      "extern \"C\" __global__ void k(IndexType numel, TensorInfo<float, 1> t0, "
      "TensorInfo<float, 1> t1, TensorInfo<float, 1> t2) {",
      "  for (IndexType linear = blockIdx.x * blockDim.x + threadIdx.x; linear < numel; "
      "linear += gridDim.x * blockDim.x) {",
      "    IndexType t0_offset = linear * t0.strides[0];",
      "    float n0 = __ldg(&t0.data[t0_offset]);",
      "    IndexType t1_offset = linear * t1.strides[0];",
      "    float n1 = __ldg(&t1.data[t1_offset]);",
      "    float n2 = (1.f == 1 ? n0 + n1 : fmaf(1.f, n1, n0));",
      "    float n3 = 1 / (1 + expf(-n2));",
      "    IndexType t2_offset = linear * t2.strides[0];",
      "    t2.data[t2_offset] = n3;",
      "  }",
      "}",
      NULL};
  source_lines_expect(k->source, lines);
  g_assert_null(strstr(k->source, "__half"));
  g_assert_cmpuint(k->args->len, ==, 3);
  const CudaKernelArg *out = &g_array_index(k->args, CudaKernelArg, 2);
  g_assert_true(out->is_output);
  g_assert_cmpuint(out->index, ==, 0);
  g_assert_cmpint(g_array_index(k->output_dtypes, IrDtype, 0), ==, IR_DTYPE_FLOAT32);
  kernel_source_free(k);

  /* float64: double spellings and literals. */
  k = gen(g, IR_DTYPE_FLOAT64, ones, ones);
  static const char *const dlines[] = {"    double n0 = __ldg(&t0.data[t0_offset]);",
                                       "    double n2 = (1. == 1 ? n0 + n1 : fma(1., n1, n0));",
                                       "    double n3 = 1 / (1 + exp(-n2));", NULL};
  source_lines_expect(k->source, dlines);
  g_assert_nonnull(strstr(k->source, "TensorInfo<double, 1> t2"));
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_half(void) {
  IrGraph *g = source_lines_parse("graph(%x : Half(*)):\n"
                                  "  %e : Half(*) = aten::exp(%x)\n"
                                  "  %t : Half(*) = aten::tanh(%e)\n"
                                  "  return (%t)\n");
  CudaKernelSource *k = gen(g, IR_DTYPE_FLOAT16, ones, ones);
  static const char *const lines[] = {
      "struct __align__(2) __half {",
      "static __device__ __forceinline__ __half __float2half(const float f) {",
      "static __device__ __forceinline__ float __half2float(const __half h) {",
      "extern \"C\" __global__ void k(IndexType numel, TensorInfo<__half, 1> t0, "
      "TensorInfo<__half, 1> t1) {",
      "    float n0 = __half2float(t0.data[t0_offset]);",
      "    float n1 = expf(n0);",
      "    float n2 = tanhf(n1);",
      "    t1.data[t1_offset] = __float2half(n2);",
      NULL};
  source_lines_expect(k->source, lines);
  g_assert_cmpint(g_array_index(k->output_dtypes, IrDtype, 0), ==, IR_DTYPE_FLOAT16);
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_chunk(void) {
  IrGraph *g = source_lines_parse("graph(%x : Float(*, *), %y : Float(*, *)):\n"
                                  "  %one : int = prim::Constant[value=1]()\n"
                                  "  %y0 : Float(*, *), %y1 : Float(*, *) = "
                                  "prim::ConstantChunk[chunks=2, dim=1](%y)\n"
                                  "  %z : Float(*, *) = aten::mul(%y0, %y1)\n"
                                  "  %w : Float(*, *) = aten::add(%x, %z, %one)\n"
                                  "  return (%w)\n");
  const guint in_nd[] = {1, 2};
  CudaKernelSource *k = gen(g, IR_DTYPE_FLOAT32, in_nd, ones);
  static const char *const lines[] = {
      "extern \"C\" __global__ void k(IndexType numel, TensorInfo<float, 1> t0, "
      "TensorInfo<float, 2> t1, TensorInfo<float, 2> t2, TensorInfo<float, 1> t3) {",
      "    float n0 = __ldg(&t0.data[t0_offset]);",
      "    IndexType t1_offset = 0;",
      "    {",
      "      IndexType rest = linear;",
      "      t1_offset += (rest % t1.sizes[1]) * t1.strides[1];",
      "      rest /= t1.sizes[1];",
      "      t1_offset += rest * t1.strides[0];",
      "    }",
      "    float n2 = __ldg(&t1.data[t1_offset]);",
      "    IndexType t2_offset = 0;",
      "    float n3 = __ldg(&t2.data[t2_offset]);",
      "    float n4 = n2 * n3;",
      "    float n5 = (1.f == 1 ? n0 + n4 : fmaf(1.f, n4, n0));",
      "    t3.data[t3_offset] = n5;",
      NULL};
  source_lines_expect(k->source, lines);
  g_assert_cmpuint(k->args->len, ==, 4);
  for (guint p = 1; p <= 2; p++) {
    const CudaKernelArg *a = &g_array_index(k->args, CudaKernelArg, p);
    g_assert_false(a->is_output);
    g_assert_cmpuint(a->index, ==, 1);
    g_assert_cmpint(a->piece, ==, (int)p - 1);
    g_assert_cmpint(a->n_pieces, ==, 2);
    g_assert_cmpint(a->dim, ==, 1);
    g_assert_cmpuint(a->ndim, ==, 2);
  }
  guint assumed_in[2], assumed_out[1];
  cuda_group_assumed_ndims(g, assumed_in, assumed_out);
  g_assert_cmpuint(assumed_in[0], ==, 1);
  g_assert_cmpuint(assumed_in[1], ==, 2);
  g_assert_cmpuint(assumed_out[0], ==, 1);
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_clamp_compare_where(void) {
  IrGraph *g = source_lines_parse("graph(%x : Double(*), %y : Double(*)):\n"
                                  "  %lo : float = prim::Constant[value=-0.5]()\n"
                                  "  %none : NoneType = prim::Constant()\n"
                                  "  %c : Double(*) = aten::clamp(%x, %lo, %none)\n"
                                  "  %g : Bool(*) = aten::gt(%c, %y)\n"
                                  "  %w : Double(*) = aten::where(%g, %x, %y)\n"
                                  "  return (%w, %g)\n");
  CudaKernelSource *k = gen(g, IR_DTYPE_FLOAT64, ones, ones);
  static const char *const lines[] = {
      "extern \"C\" __global__ void k(IndexType numel, TensorInfo<double, 1> t0, "
      "TensorInfo<double, 1> t1, TensorInfo<double, 1> t2, TensorInfo<bool, 1> t3) {",
      "    double n2 = (n0 < (-0.5) ? (-0.5) : (n0 > INFINITY ? INFINITY : n0));",
      "    bool n3 = (n2 > n1);",
      "    double n4 = (n3 ? n0 : n1);",
      "    t2.data[t2_offset] = n4;",
      "    t3.data[t3_offset] = n3;",
      NULL};
  source_lines_expect(k->source, lines);
  g_assert_cmpint(g_array_index(k->output_dtypes, IrDtype, 1), ==, IR_DTYPE_BOOL);
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_integer_true_division(void) {
  IrGraph *g = source_lines_parse("graph(%x : Long(*), %y : Long(*)):\n"
                                  "  %d : Float(*) = aten::div(%x, %y)\n"
                                  "  return (%d)\n");
  CudaKernelSource *k = gen(g, IR_DTYPE_INT64, ones, ones);
  static const char *const lines[] = {"    long long n0 = __ldg(&t0.data[t0_offset]);",
                                      "    float n2 = ((float)n0) / ((float)n1);", NULL};
  source_lines_expect(k->source, lines);
  g_assert_nonnull(strstr(k->source, "TensorInfo<float, 1> t2"));
  kernel_source_free(k);
  ir_graph_free(g);
}

/* CUDA C++ overloads fma for float and double only, so an integral argument matches both
 * (nvrtc rejected bool add on a real GPU): with integral operands a math call's first
 * argument is cast to double, as C converts it. lgamma of float32 computes in double, where
 * CUDA's lgammaf is far from glibc's near its negative roots. */
static void test_device_math_spellings(void) {
  IrGraph *g = source_lines_parse("graph(%x : Bool(*), %y : Bool(*)):\n"
                                  "  %one : int = prim::Constant[value=1]()\n"
                                  "  %d : Bool(*) = aten::add(%x, %y, %one)\n"
                                  "  return (%d)\n");
  CudaKernelSource *k = gen(g, IR_DTYPE_BOOL, ones, ones);
  g_assert_nonnull(strstr(k->source, "fma((double)(1), n1, n0)"));
  kernel_source_free(k);
  ir_graph_free(g);
  g = source_lines_parse("graph(%x : Float(*)):\n"
                         "  %d : Float(*) = aten::lgamma(%x)\n"
                         "  return (%d)\n");
  k = gen(g, IR_DTYPE_FLOAT32, ones, ones);
  g_assert_nonnull(strstr(k->source, "lgamma((double)(n0))"));
  g_assert_null(strstr(k->source, "lgammaf"));
  kernel_source_free(k);
  ir_graph_free(g);
}

static void test_deterministic(void) {
  IrGraph *a = source_lines_parse(add_sigmoid);
  IrGraph *b = source_lines_parse("graph(%p.1 : Float(5, 5), %q.7 : Float(5, 5)):\n"
                                  "  %90 : int = prim::Constant[value=1]()\n"
                                  "  %r : Float(5, 5) = aten::add(%p.1, %q.7, %90)\n"
                                  "  %s.3 : Float(5, 5) = aten::sigmoid(%r)\n"
                                  "  return (%s.3)\n");
  char *ca = cuda_codegen_canonical_text(a), *cb = cuda_codegen_canonical_text(b);
  g_assert_cmpstr(ca, ==, cb);
  CudaKernelSource *ka = gen(a, IR_DTYPE_FLOAT32, ones, ones);
  CudaKernelSource *kb = gen(b, IR_DTYPE_FLOAT32, ones, ones);
  g_assert_cmpstr(ka->source, ==, kb->source);
  /* A different constant is a different group. */
  IrGraph *c = source_lines_parse("graph(%a : Float(*, *), %b : Float(*, *)):\n"
                                  "  %two : int = prim::Constant[value=2]()\n"
                                  "  %c : Float(*, *) = aten::add(%a, %b, %two)\n"
                                  "  %d : Float(*, *) = aten::sigmoid(%c)\n"
                                  "  return (%d)\n");
  char *cc = cuda_codegen_canonical_text(c);
  g_assert_cmpstr(ca, !=, cc);
  g_free(ca);
  g_free(cb);
  g_free(cc);
  kernel_source_free(ka);
  kernel_source_free(kb);
  ir_graph_free(a);
  ir_graph_free(b);
  ir_graph_free(c);
}

static void test_errors(void) {
  IrGraph *g = source_lines_parse("graph(%a : Float(*, *), %b : Float(*, *)):\n"
                                  "  %c : Float(*, *) = aten::mm(%a, %b)\n"
                                  "  return (%c)\n");
  IrDtype dtypes[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT32};
  GError *error = NULL;
  CudaKernelSource *k = cuda_codegen_kernel(g, "k", dtypes, ones, ones, &error);
  g_assert_null(k);
  g_assert_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_CODEGEN);
  g_assert_nonnull(strstr(error->message, "aten::mm"));
  g_clear_error(&error);
  ir_graph_free(g);

  g = source_lines_parse(add_sigmoid);
  const guint bad[] = {0, 1};
  k = cuda_codegen_kernel(g, "k", dtypes, bad, ones, &error);
  g_assert_null(k);
  g_assert_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_CODEGEN);
  g_clear_error(&error);
  ir_graph_free(g);
}

static void test_literals(void) {
  static const struct {
    double v;
    IrDtype d;
    const char *text;
  } cases[] = {
      {1.0, IR_DTYPE_FLOAT32, "1.f"},
      {0.5, IR_DTYPE_FLOAT32, "0.5f"},
      {0.1, IR_DTYPE_FLOAT32, "0.1f"},
      {0.1, IR_DTYPE_FLOAT64, "0.1"},
      {-2.0, IR_DTYPE_FLOAT64, "(-2.)"},
      {1e-5, IR_DTYPE_FLOAT32, "1e-05f"},
      {1.0 / 0.0, IR_DTYPE_FLOAT32, "INFINITY"},
      {-1.0 / 0.0, IR_DTYPE_FLOAT64, "(-INFINITY)"},
      {0.0 / 0.0, IR_DTYPE_FLOAT16, "NAN"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *t = cuda_codegen_float_literal(cases[i].v, cases[i].d);
    g_assert_cmpstr(t, ==, cases[i].text);
    g_free(t);
  }
}

static void check_merge(int nd, const int64_t *sizes, const int64_t *strides, guint want_nd,
                        const int64_t *want_sizes, const int64_t *want_strides) {
  CudaLayout l;
  cuda_layout_merge(nd, sizes, strides, &l);
  g_assert_cmpuint(l.ndim, ==, want_nd);
  for (guint d = 0; d < want_nd; d++) {
    g_assert_cmpint(l.sizes[d], ==, want_sizes[d]);
    g_assert_cmpint(l.strides[d], ==, want_strides[d]);
  }
}

static void test_layout_merge(void) {
  /* Contiguous: one dim. */
  check_merge(3, (int64_t[]){2, 3, 4}, (int64_t[]){12, 4, 1}, 1, (int64_t[]){24}, (int64_t[]){1});
  /* [5, 1] expanded to [5, 5]: the broadcast dim stays. */
  check_merge(2, (int64_t[]){5, 5}, (int64_t[]){1, 0}, 2, (int64_t[]){5, 5}, (int64_t[]){1, 0});
  /* A chunk piece of a [3, 8] tensor along dim 1: [3, 4] with strides [8, 1]. */
  check_merge(2, (int64_t[]){3, 4}, (int64_t[]){8, 1}, 2, (int64_t[]){3, 4}, (int64_t[]){8, 1});
  /* A transposed [4, 3]: no merge; size-1 dims vanish; 0-dim gives one dim of 1. */
  check_merge(2, (int64_t[]){4, 3}, (int64_t[]){1, 4}, 2, (int64_t[]){4, 3}, (int64_t[]){1, 4});
  check_merge(3, (int64_t[]){1, 6, 1}, (int64_t[]){99, 1, 7}, 1, (int64_t[]){6}, (int64_t[]){1});
  check_merge(0, NULL, NULL, 1, (int64_t[]){1}, (int64_t[]){1});
  /* Outer dims contiguous with each other but not with the inner one. */
  check_merge(3, (int64_t[]){2, 3, 4}, (int64_t[]){24, 8, 1}, 2, (int64_t[]){6, 4},
              (int64_t[]){8, 1});
}

static void test_keys_and_dtypes(void) {
  IrDtype d[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT16};
  guint in[2] = {2, 1}, out[1] = {1};
  char *key = cuda_compile_signature_key(2, d, in, 1, out, "compute_90");
  g_assert_cmpstr(key, ==, "float32/2 float16/1 -> 1 @compute_90");
  g_free(key);

  IrGraph *g = source_lines_parse(add_sigmoid);
  IrDtype mixed[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT64}, o[1];
  GError *error = NULL;
  g_assert_true(cuda_codegen_output_dtypes(g, mixed, o, &error));
  g_assert_cmpint(o[0], ==, IR_DTYPE_FLOAT64);
  ir_graph_free(g);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/cuda/codegen/float-add-sigmoid", test_float_add_sigmoid);
  g_test_add_func("/cuda/codegen/half", test_half);
  g_test_add_func("/cuda/codegen/chunk", test_chunk);
  g_test_add_func("/cuda/codegen/clamp-compare-where", test_clamp_compare_where);
  g_test_add_func("/cuda/codegen/integer-true-division", test_integer_true_division);
  g_test_add_func("/cuda/codegen/device-math-spellings", test_device_math_spellings);
  g_test_add_func("/cuda/codegen/deterministic", test_deterministic);
  g_test_add_func("/cuda/codegen/errors", test_errors);
  g_test_add_func("/cuda/codegen/literals", test_literals);
  g_test_add_func("/cuda/launch/layout-merge", test_layout_merge);
  g_test_add_func("/cuda/compile/keys-and-dtypes", test_keys_and_dtypes);
  return g_test_run();
}
