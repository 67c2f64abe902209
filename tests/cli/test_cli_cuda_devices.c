/* device=cuda inputs in every command that runs the program (stages, plans, check, export,
 * replay), as `run` treats them. Where CUDA runs (the tests' emulator: JITSCOPE_CUDA_LIBDIR
 * names tests/cudaemu), the plans are compiled for device=cuda and the numbers are those of
 * the same inputs on the CPU. With --fallback, CUDA cannot load (JITSCOPE_CUDA_LIBDIR names an
 * empty folder, so this holds on GPU machines too): each command says so in one note on
 * stderr, compiles device=cpu plans and exits 0.
 * Usage: test-cli-cuda-devices JITSCOPE_BINARY [--fallback] */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "cli_run.h"
#include "runtime/npy.h"

#define CPU_NOTE "inputs with device=cuda are kept in CPU memory and computed on the CPU"
/* float32 results of the device and of the CPU, relative to max(1, max |cpu|). */
#define FLOAT32_TOLERANCE 1e-5

static char *jitscope;
static char *tmpdir;
static bool fallback;
/* The device the plans of device=cuda inputs are compiled for, and the other one. */
static const char *expected_device, *other_device;

/* Broadcasting (%y is one row), so that backward sums %y's gradient to its size; mul and add
 * fuse. Few ops: every kernel costs the emulator a C++ compile. */
static const char program[] = "graph(%x : Tensor,\n"
                              "      %y : Tensor):\n"
                              "  %one : int = prim::Constant[value=1]()\n"
                              "  %a : Tensor = aten::mul(%x, %y)\n"
                              "  %c : Tensor = aten::add(%a, %x, %one)\n"
                              "  return (%c)\n";

/* Drawn tensors: the same values on either device. The other SPEC form,
 * `x.npy:requires_grad=1,device=cuda`, is what the replay of the bundle binds. */
static const char *const cuda_inputs[] = {"Float(3, 4, requires_grad=1, device=cuda)",
                                          "Float(1, 4, requires_grad=1, device=cuda)", NULL};
static const char *const cpu_inputs[] = {"Float(3, 4, requires_grad=1)",
                                         "Float(1, 4, requires_grad=1)", NULL};

static guint count(const char *text, const char *needle) {
  guint n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* `jitscope COMMAND g.ir [--input INPUTS...] EXTRA...` in tmpdir; asserts exit status 0 and
 * what stderr says about device=cuda: one note with the fallback (however many calls the
 * command makes), none otherwise or for CPU inputs. */
static CliRun jit(const char *command, const char *const *inputs, const char *const *extra) {
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)command);
  g_ptr_array_add(argv, "g.ir");
  if (inputs) {
    g_ptr_array_add(argv, "--input");
    for (const char *const *a = inputs; *a; a++)
      g_ptr_array_add(argv, (gpointer)*a);
  }
  for (const char *const *a = extra; *a; a++)
    g_ptr_array_add(argv, (gpointer)*a);
  g_ptr_array_add(argv, NULL);
  CliRun r = cli_run(jitscope, tmpdir, (const char *const *)argv->pdata);
  if (r.status != 0)
    g_printerr("jitscope %s failed (status %d, signal %d): %s", command, r.status, r.signal, r.err);
  g_assert_cmpint(r.status, ==, 0);
  bool asked_cuda = inputs != cpu_inputs;
  g_assert_cmpuint(count(r.err, CPU_NOTE), ==, fallback && asked_cuda ? 1 : 0);
  g_ptr_array_unref(argv);
  return r;
}

static JsonNode *parse(const char *text) {
  GError *error = NULL;
  JsonNode *root = json_from_string(text, &error);
  g_assert_no_error(error);
  g_assert_nonnull(root);
  return root;
}

/* `ir`, the text of every stage of one plan, names the expected device only. */
static void assert_ir_device(JsonObject *plan, const char *ir) {
  if (count(ir, expected_device) == 0 || count(ir, other_device) != 0)
    g_error("plan %s (%s) is not compiled for %s only:\n%s",
            json_object_get_string_member(plan, "graph"),
            json_object_get_string_member(plan, "spec"), expected_device, ir);
}

/* A plan as `stages --json` prints it, every stage with its IR. */
static void assert_plan_device(JsonObject *plan) {
  GString *ir = g_string_new(NULL);
  JsonArray *stages = json_object_get_array_member(plan, "stages");
  for (guint s = 0; s < json_array_get_length(stages); s++)
    g_string_append(ir,
                    json_object_get_string_member(json_array_get_object_element(stages, s), "ir"));
  assert_ir_device(plan, ir->str);
  g_string_free(ir, TRUE);
}

static void test_stages(void) {
  CliRun r = jit("stages", cuda_inputs, (const char *[]){"--json", NULL});
  JsonNode *root = parse(r.out);
  JsonArray *plans = json_object_get_array_member(json_node_get_object(root), "plans");
  /* forward, then the backward plan of its DifferentiableGraph */
  g_assert_cmpuint(json_array_get_length(plans), >=, 2);
  for (guint p = 0; p < json_array_get_length(plans); p++)
    assert_plan_device(json_array_get_object_element(plans, p));
  json_node_unref(root);
  cli_run_clear(&r);
}

static void test_plans(void) {
  /* Two calls that differ in sizes: one forward plan, and the note said once. */
  CliRun r = jit("plans", NULL,
                 (const char *[]){"--spec",
                                  "Float(3, 4, requires_grad=1, device=cuda); "
                                  "Float(1, 4, requires_grad=1, device=cuda)",
                                  "--spec",
                                  "Float(5, 4, requires_grad=1, device=cuda); "
                                  "Float(1, 4, requires_grad=1, device=cuda)",
                                  "--json", NULL});
  JsonNode *root = parse(r.out);
  JsonArray *specs = json_object_get_array_member(json_node_get_object(root), "specs");
  g_assert_cmpuint(json_array_get_length(specs), ==, 2);
  for (guint i = 0; i < json_array_get_length(specs); i++) {
    JsonObject *spec = json_array_get_object_element(specs, i);
    assert_plan_device(json_object_get_object_member(spec, "forward"));
    JsonArray *backward = json_object_get_array_member(spec, "backward");
    for (guint b = 0; b < json_array_get_length(backward); b++)
      assert_plan_device(json_array_get_object_element(backward, b));
  }
  json_node_unref(root);
  cli_run_clear(&r);
}

static double member_double(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  return json_node_get_value_type(n) == G_TYPE_INT64 ? (double)json_node_get_int(n)
                                                     : json_node_get_double(n);
}

static void test_check(void) {
  CliRun on_cuda = jit("check", cuda_inputs, (const char *[]){"--json", NULL});
  CliRun on_cpu = jit("check", cpu_inputs, (const char *[]){"--json", NULL});
  JsonNode *a = parse(on_cuda.out), *b = parse(on_cpu.out);
  JsonObject *x = json_node_get_object(a), *y = json_node_get_object(b);
  g_assert_true(json_object_get_boolean_member(x, "ok"));
  g_assert_true(json_object_get_boolean_member(y, "ok"));
  g_assert_cmpint(json_object_get_int_member(x, "finite_difference_elements"), ==,
                  json_object_get_int_member(y, "finite_difference_elements"));
  g_assert_cmpint(json_object_get_int_member(x, "finite_difference_elements"), ==, 16);
  const char *errors[] = {"optimized_vs_unoptimized", "gradient_vs_finite_differences"};
  for (guint i = 0; i < G_N_ELEMENTS(errors); i++)
    g_assert_cmpfloat(fabs(member_double(x, errors[i]) - member_double(y, errors[i])), <=,
                      FLOAT32_TOLERANCE);
  json_node_unref(a);
  json_node_unref(b);
  cli_run_clear(&on_cuda);
  cli_run_clear(&on_cpu);
}

static JsonNode *read_manifest(const char *bundle) {
  char *path = g_build_filename(tmpdir, bundle, "manifest.json", NULL);
  char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  JsonNode *root = parse(text);
  g_free(text);
  g_free(path);
  return root;
}

static RtTensor *load_npy(const char *bundle, const char *rel) {
  char *path = g_build_filename(tmpdir, bundle, rel, NULL);
  GError *error = NULL;
  RtTensor *t = rt_npy_load(path, &error);
  g_assert_no_error(error);
  g_free(path);
  return t;
}

/* max |a - b| / max(1, max |b|) over same-shaped tensors. */
static double relative_error(const RtTensor *a, const RtTensor *b) {
  g_assert_cmpint(a->ndim, ==, b->ndim);
  for (int d = 0; d < a->ndim; d++)
    g_assert_cmpint(a->sizes[d], ==, b->sizes[d]);
  double diff = 0, ref = 1;
  for (int64_t i = 0; i < rt_tensor_numel(b); i++) {
    diff = fmax(diff, fabs(rt_tensor_get(a, i) - rt_tensor_get(b, i)));
    ref = fmax(ref, fabs(rt_tensor_get(b, i)));
  }
  return diff / ref;
}

/* The files of one member of the --input call ("inputs", "outputs", "grads") agree between
 * the two bundles within `tolerance`. */
static void compare_call_files(JsonObject *call, const char *member, double tolerance) {
  JsonArray *values = json_object_get_array_member(call, member);
  guint compared = 0;
  for (guint i = 0; i < json_array_get_length(values); i++) {
    JsonNode *v = json_array_get_element(values, i);
    if (JSON_NODE_HOLDS_NULL(v))
      continue;
    const char *rel = json_object_get_string_member(json_node_get_object(v), "file");
    RtTensor *a = load_npy("cuda.bundle", rel), *b = load_npy("cpu.bundle", rel);
    double err = relative_error(a, b);
    if (err > tolerance)
      g_error("%s: relative error %g between the device=cuda and device=cpu bundles", rel, err);
    compared++;
    rt_tensor_unref(a);
    rt_tensor_unref(b);
  }
  g_assert_cmpuint(compared, >, 0);
}

static void test_export_and_replay(void) {
  CliRun on_cuda = jit("export", cuda_inputs, (const char *[]){"-o", "cuda.bundle", NULL});
  CliRun on_cpu = jit("export", cpu_inputs, (const char *[]){"-o", "cpu.bundle", NULL});
  g_assert_nonnull(strstr(on_cuda.out, "check passed"));
  JsonNode *manifest = read_manifest("cuda.bundle");
  JsonArray *plans = json_object_get_array_member(json_node_get_object(manifest), "plans");
  g_assert_cmpuint(json_array_get_length(plans), >=, 2);
  for (guint p = 0; p < json_array_get_length(plans); p++) {
    /* The manifest names each stage's IR file. */
    JsonObject *plan = json_array_get_object_element(plans, p);
    JsonArray *stages = json_object_get_array_member(plan, "stages");
    GString *ir = g_string_new(NULL);
    for (guint s = 0; s < json_array_get_length(stages); s++) {
      const char *rel =
          json_object_get_string_member(json_array_get_object_element(stages, s), "ir");
      char *path = g_build_filename(tmpdir, "cuda.bundle", rel, NULL);
      char *text = NULL;
      g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
      g_string_append(ir, text);
      g_free(text);
      g_free(path);
    }
    assert_ir_device(plan, ir->str);
    g_string_free(ir, TRUE);
  }
  JsonArray *calls = json_object_get_array_member(json_node_get_object(manifest), "calls");
  JsonObject *call = json_array_get_object_element(calls, 0);
  JsonObject *first_input =
      json_array_get_object_element(json_object_get_array_member(call, "inputs"), 0);
  g_assert_cmpstr(json_object_get_string_member(first_input, "device"), ==, "cuda");
  /* Inputs are saved as given (from host copies of device memory); results within float32
   * tolerance of the CPU's. */
  compare_call_files(call, "inputs", 0.0);
  compare_call_files(call, "outputs", FLOAT32_TOLERANCE);
  compare_call_files(call, "grads", FLOAT32_TOLERANCE);
  json_node_unref(manifest);

  /* The replay puts the saved device=cuda inputs where the export did. */
  char *bundle = g_build_filename(tmpdir, "cuda.bundle", NULL);
  CliRun replay = cli_run(jitscope, tmpdir, (const char *[]){"replay", bundle, NULL});
  if (replay.status != 0)
    g_printerr("replay failed (status %d): %s%s", replay.status, replay.out, replay.err);
  g_assert_cmpint(replay.status, ==, 0);
  g_assert_cmpuint(count(replay.err, CPU_NOTE), ==, fallback ? 1 : 0);
  g_free(bundle);
  cli_run_clear(&replay);
  cli_run_clear(&on_cuda);
  cli_run_clear(&on_cpu);
}

int main(int argc, char **argv) {
  g_test_init(&argc, &argv, NULL);
  if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--fallback") != 0)) {
    g_printerr("usage: %s JITSCOPE_BINARY [--fallback]\n", argv[0]);
    return 2;
  }
  /* Absolute: the binary is started in tmpdir. */
  jitscope = g_canonicalize_filename(argv[1], NULL);
  fallback = argc == 3;
  tmpdir = g_dir_make_tmp("jitscope-cli-cuda-XXXXXX", NULL);
  g_assert_nonnull(tmpdir);
  char *no_cuda = g_build_filename(tmpdir, "no-cuda", NULL);
  if (fallback) {
    g_assert_cmpint(g_mkdir(no_cuda, 0700), ==, 0);
    g_setenv("JITSCOPE_CUDA_LIBDIR", no_cuda, TRUE);
  } else if (!g_getenv("JITSCOPE_CUDA_LIBDIR")) {
    g_printerr("JITSCOPE_CUDA_LIBDIR must name the CUDA emulator (tests/cudaemu)\n");
    return 2;
  }
  expected_device = fallback ? "device=cpu" : "device=cuda";
  other_device = fallback ? "device=cuda" : "device=cpu";
  char *graph = g_build_filename(tmpdir, "g.ir", NULL);
  g_assert_true(g_file_set_contents(graph, program, -1, NULL));

  g_test_add_func("/cli/cuda-devices/stages", test_stages);
  g_test_add_func("/cli/cuda-devices/plans", test_plans);
  g_test_add_func("/cli/cuda-devices/check", test_check);
  g_test_add_func("/cli/cuda-devices/export-and-replay", test_export_and_replay);
  int status = g_test_run();
  char *rm[] = {"rm", "-rf", tmpdir, NULL};
  g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_free(graph);
  g_free(no_cuda);
  g_free(tmpdir);
  g_free(jitscope);
  return status;
}
