/* `jitscope run` with device=cuda inputs where CUDA cannot load (JITSCOPE_CUDA_LIBDIR names an
 * empty folder, so this holds on GPU machines too): the run still succeeds on the CPU, says
 * why in a note and in the JSON "device" member, and prints the same outputs and gradients as
 * the run without device=cuda. argv[1]: the jitscope executable. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <string.h>

#include "json_strict.h"

static const char program[] = "graph(%x : Tensor, %y : Tensor):\n"
                              "  %one : int = prim::Constant[value=1]()\n"
                              "  %a : Tensor = aten::add(%x, %y, %one)\n"
                              "  %b : Tensor = aten::tanh(%a)\n"
                              "  %c : Tensor = aten::mm(%b, %y)\n"
                              "  return (%c)\n";

static JsonNode *run(const char *exe, const char *file, const char *dir, bool cuda,
                     char **err_out) {
  const char *x =
      cuda ? "Float(3, 3, requires_grad=1, device=cuda)" : "Float(3, 3, requires_grad=1)";
  const char *y = cuda ? "Float(3, 3, device=cuda)" : "Float(3, 3)";
  char *argv[] = {(char *)exe, "run",     (char *)file, "--input",
                  (char *)x,   (char *)y, "--json",     NULL};
  char **env = g_get_environ();
  env = g_environ_setenv(env, "JITSCOPE_CUDA_LIBDIR", dir, TRUE);
  char *out = NULL, *err = NULL;
  int status = 0;
  GError *error = NULL;
  g_assert_true(
      g_spawn_sync(NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error(error);
  g_assert_true(g_spawn_check_wait_status(status, NULL));
  g_assert_true(json_strict_check(out, &error));
  JsonNode *root = json_from_string(out, &error);
  g_assert_no_error(error);
  g_free(out);
  *err_out = err;
  g_strfreev(env);
  return root;
}

int main(int argc, char **argv) {
  g_assert_cmpint(argc, ==, 2);
  char *dir = g_dir_make_tmp("jitscope-nocuda-XXXXXX", NULL);
  char *file = g_build_filename(dir, "g.ir", NULL);
  g_assert_true(g_file_set_contents(file, program, -1, NULL));
  char *err_cpu = NULL, *err_cuda = NULL;
  JsonNode *cpu = run(argv[1], file, dir, false, &err_cpu);
  JsonNode *cuda = run(argv[1], file, dir, true, &err_cuda);
  g_assert_nonnull(strstr(err_cuda, "inputs with device=cuda are kept in CPU memory"));
  g_assert_null(strstr(err_cpu, "device=cuda"));
  JsonObject *dev = json_object_get_object_member(json_node_get_object(cuda), "device");
  g_assert_cmpstr(json_object_get_string_member(dev, "inputs_on"), ==, "cpu");
  g_assert_nonnull(strstr(json_object_get_string_member(dev, "why_cpu"), "CUDA"));
  g_assert_false(json_object_get_boolean_member(dev, "cuda_runtime"));
  /* Same numbers either way. */
  const char *members[] = {"outputs", "grads"};
  for (int m = 0; m < 2; m++) {
    JsonNode *a = json_object_get_member(json_node_get_object(cpu), members[m]);
    JsonNode *b = json_object_get_member(json_node_get_object(cuda), members[m]);
    char *ta = json_to_string(a, FALSE), *tb = json_to_string(b, FALSE);
    g_assert_cmpstr(ta, ==, tb);
    g_free(ta);
    g_free(tb);
  }
  json_node_unref(cpu);
  json_node_unref(cuda);
  g_free(err_cpu);
  g_free(err_cuda);
  g_unlink(file);
  g_rmdir(dir);
  g_free(file);
  g_free(dir);
  return 0;
}
