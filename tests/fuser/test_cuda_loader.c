/* CUDA libraries missing: JITSCOPE_CUDA_LIBDIR points at a folder with no driver, no cuBLAS
 * and a libnvrtc.so that is not a shared object. Every part reports why, once, and a fusion
 * group still runs (on the CPU). Usage: test-cuda-loader [JITSCOPE_BINARY]. */
#include <glib/gstdio.h>
#include <string.h>

#include "cuda/cuda_compile.h"
#include "cuda/cuda_launch.h"
#include "ir/text.h"

static char *libdir;

static const char group_text[] = "graph(%a : Float(4), %b : Float(4)):\n"
                                 "  %c : Float(4) = prim::FusionGroup_0(%a, %b)\n"
                                 "  return (%c)\n"
                                 "with prim::FusionGroup_0 = graph(%x : Float(4), %y : Float(4)):\n"
                                 "  %one : int = prim::Constant[value=1]()\n"
                                 "  %z : Float(4) = aten::add(%x, %y, %one)\n"
                                 "  %w : Float(4) = aten::tanh(%z)\n"
                                 "  return (%w)\n";

static void test_status(void) {
  const CudaStatus *s = cuda_loader_get();
  g_assert_true(s == cuda_loader_get());
  g_assert_false(s->driver.loaded);
  g_assert_nonnull(strstr(s->driver.error, "libcuda.so.1 not found in JITSCOPE_CUDA_LIBDIR="));
  g_assert_false(s->nvrtc.loaded);
  g_assert_nonnull(s->nvrtc.error);
  g_assert_nonnull(strstr(s->nvrtc.error, "libnvrtc.so")); /* dlopen names the file */
  g_assert_false(s->cublas.loaded);
  g_assert_nonnull(strstr(s->cublas.error, "libcublas.so not found in JITSCOPE_CUDA_LIBDIR="));
  g_assert_false(s->device_present);
  g_assert_cmpstr(s->device_error, ==, "the CUDA driver did not load");
  g_assert_null(s->cu.cuInit);
  g_assert_null(s->nvrtc_api.nvrtcCompileProgram);

  GString *text = g_string_new(NULL);
  cuda_status_describe(text, s);
  g_assert_nonnull(strstr(text->str, "cuda driver: not loaded (libcuda.so.1 not found"));
  g_assert_nonnull(strstr(text->str, "nvrtc: not loaded ("));
  g_assert_nonnull(strstr(text->str, "cuda device: none (the CUDA driver did not load)"));
  g_string_free(text, TRUE);

  char *why = cuda_status_unavailable_reason(s);
  g_assert_nonnull(strstr(why, "CUDA is not available: the driver did not load"));
  g_assert_nonnull(strstr(why, "fusion groups run on the CPU"));
  /* Said once per process. */
  char *note = cuda_loader_take_unavailable_note();
  g_assert_cmpstr(note, ==, why);
  g_assert_null(cuda_loader_take_unavailable_note());
  g_free(note);
  g_free(why);
}

static void test_compile_and_device_refuse(void) {
  GError *error = NULL;
  g_assert_null(cuda_compile_ptx("extern \"C\" __global__ void k() {}", "k", "compute_90", &error));
  g_assert_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE);
  g_assert_nonnull(strstr(error->message, "nvrtc did not load"));
  g_clear_error(&error);
  g_assert_false(cuda_loader_make_current(&error));
  g_assert_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE);
  g_clear_error(&error);
  /* Without nvrtc's list of archs nor a device: sm_52. */
  char *arch = cuda_compile_resolve_arch(NULL, &error);
  g_assert_no_error(error);
  g_assert_cmpstr(arch, ==, "compute_52");
  g_free(arch);
  guint groups, kernels, hits;
  IrGraph *g = ir_graph_parse(group_text, strlen(group_text), "<t>", &error);
  g_assert_no_error(error);
  const IrGraph *kg = ir_node_attr_g(g->block->param->next, IR_ATTR_SUBGRAPH);
  IrDtype d[2] = {IR_DTYPE_FLOAT32, IR_DTYPE_FLOAT32};
  guint nd[2] = {1, 1};
  g_assert_null(cuda_kernel_cache_get(kg, d, nd, nd, "compute_90", &error));
  g_assert_error(error, JITSCOPE_CUDA_ERROR, CUDA_ERROR_UNAVAILABLE);
  g_clear_error(&error);
  cuda_kernel_cache_stats(&groups, &kernels, &hits);
  g_assert_cmpuint(kernels, ==, 0);
  ir_graph_free(g);
}

static void test_group_falls_back(void) {
  GError *error = NULL;
  IrGraph *g = ir_graph_parse(group_text, strlen(group_text), "<t>", &error);
  g_assert_no_error(error);
  const IrNode *group = g->block->param->next;
  g_assert_cmpint(group->kind, ==, IR_PRIM_FUSION_GROUP);
  int64_t sizes[1] = {4};
  RtValue in[2] = {rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT32, 1, sizes, 0.25)),
                   rt_tensor(rt_tensor_full(IR_DTYPE_FLOAT32, 1, sizes, 0.5))};
  cuda_launch_enable(true);
  char *why = NULL;
  g_assert_false(cuda_launch_backend()->can_run(cuda_launch_backend(), group, in, 2, &why));
  g_assert_nonnull(strstr(why, "CUDA is not available"));
  g_free(why);
  RtValue out[1];
  g_assert_true(fuser_run_group(NULL, group, in, 2, out, 1, &error));
  g_assert_no_error(error);
  for (int64_t i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon(rt_tensor_get(out[0].u.tensor, i), 0.6351490, 1e-6);
  rt_value_unref(out[0]);
  rt_value_unref(in[0]);
  rt_value_unref(in[1]);
  ir_graph_free(g);
}

static const char *jitscope_binary;

static void test_cli_kernels(void) {
  if (jitscope_binary == NULL) {
    g_test_skip("no jitscope binary given");
    return;
  }
  char *graph_path = g_build_filename(libdir, "g.ir", NULL);
  const char *text = "graph(%a : Tensor, %b : Tensor):\n"
                     "  %one : int = prim::Constant[value=1]()\n"
                     "  %c : Tensor = aten::add(%a, %b, %one)\n"
                     "  %d : Tensor = aten::sigmoid(%c)\n"
                     "  %e : Tensor = aten::mul(%d, %a)\n"
                     "  return (%e)\n";
  g_assert_true(g_file_set_contents(graph_path, text, -1, NULL));
  const char *argv[] = {jitscope_binary, "kernels",     graph_path, "--input",
                        "Float(3, 4)",   "Float(3, 4)", NULL};
  char *out = NULL, *err = NULL;
  int status = 0;
  GError *error = NULL;
  g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &status, &error));
  g_assert_no_error(error);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_nonnull(strstr(err, "jitscope: note: nvrtc did not load ("));
  g_assert_nonnull(strstr(out, "FusionGroup_0: kernel jitscope_fused_"));
  g_assert_nonnull(strstr(out, "extern \"C\" __global__ void jitscope_fused_"));
  g_assert_nonnull(strstr(out, "-- not compiled"));
  g_free(out);
  g_free(err);
  g_free(graph_path);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  jitscope_binary = argc > 1 ? argv[1] : NULL;
  libdir = g_dir_make_tmp("jitscope-cuda-XXXXXX", NULL);
  g_assert_nonnull(libdir);
  char *fake = g_build_filename(libdir, "libnvrtc.so", NULL);
  g_assert_true(g_file_set_contents(fake, "not a shared object\n", -1, NULL));
  g_setenv("JITSCOPE_CUDA_LIBDIR", libdir, TRUE);
  g_test_add_func("/cuda/loader/status", test_status);
  g_test_add_func("/cuda/loader/compile-and-device-refuse", test_compile_and_device_refuse);
  g_test_add_func("/cuda/loader/group-falls-back", test_group_falls_back);
  g_test_add_func("/cuda/loader/cli-kernels", test_cli_kernels);
  int status = g_test_run();
  char *g = g_build_filename(libdir, "g.ir", NULL);
  g_unlink(g);
  g_unlink(fake);
  g_rmdir(libdir);
  g_free(g);
  g_free(fake);
  g_free(libdir);
  return status;
}
