/* The hostile-input fixtures (contract in hostile_fixtures.h). */
#include "hostile_fixtures.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"
#include "runtime/npy.h"

static void write_file(const char *dir, const char *name, const void *data, gssize length) {
  g_autofree char *path = g_build_filename(dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname(path);
  g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
  g_assert_true(g_file_set_contents(path, data, length, NULL));
}

/* An .npy file with a raw header dict and no data (the reader must refuse it before
 * allocating what the shape asks for). */
static void write_npy_header(const char *dir, const char *name, const char *dict) {
  GString *header = g_string_new(dict);
  while ((10 + header->len + 1) % 64 != 0)
    g_string_append_c(header, ' ');
  g_string_append_c(header, '\n');
  GString *file = g_string_new_len("\x93NUMPY\x01\x00", 8);
  g_string_append_c(file, (char)(header->len & 0xff));
  g_string_append_c(file, (char)(header->len >> 8));
  g_string_append_len(file, header->str, (gssize)header->len);
  write_file(dir, name, file->str, (gssize)file->len);
  g_string_free(file, TRUE);
  g_string_free(header, TRUE);
}

static void write_npy(const char *dir, const char *name, int ndim, const int64_t *sizes) {
  RtTensor *t = rt_tensor_full(IR_DTYPE_FLOAT32, ndim, sizes, 1.0);
  g_autofree char *path = g_build_filename(dir, name, NULL);
  g_assert_true(rt_npy_save(path, t, NULL));
  rt_tensor_unref(t);
}

/* A chain of n elementwise nodes: the interpreter, passes and fuser must stay linear. */
static void write_chain(const char *dir, const char *name, guint n) {
  GString *s = g_string_new("graph(%x : Tensor):\n");
  for (guint i = 0; i < n; i++) {
    g_string_append_printf(s, "  %%v%u : Tensor = aten::%s(", i, i % 2 ? "relu" : "neg");
    if (i == 0)
      g_string_append(s, "%x)\n");
    else
      g_string_append_printf(s, "%%v%u)\n", i - 1);
  }
  g_string_append_printf(s, "  return (%%v%u)\n", n - 1);
  write_file(dir, name, s->str, (gssize)s->len);
  g_string_free(s, TRUE);
}

static void export_bundle_of(const char *dir, const char *jitscope, const char *name,
                             const char *spec0, const char *spec1) {
  const char *args[] = {"export", "add.ir", "--input", spec0, spec1, "-o", name, NULL};
  CliRun r = cli_run(jitscope, dir, args);
  if (r.status != 0)
    g_error("cannot export the fixture bundle %s: %s", name, r.err);
  cli_run_clear(&r);
}

static void export_bundle(const char *dir, const char *jitscope, const char *name) {
  export_bundle_of(dir, jitscope, name, "Float(2)", "Float(2)");
}

/* Replaces the first occurrence of `from` in a bundle member by `to`. */
static void edit_member(const char *dir, const char *member, const char *from, const char *to) {
  g_autofree char *path = g_build_filename(dir, member, NULL);
  g_autofree char *text = NULL;
  g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
  char *at = strstr(text, from);
  g_assert_nonnull(at);
  g_autofree char *edited =
      g_strdup_printf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  g_assert_true(g_file_set_contents(path, edited, -1, NULL));
}

static void replace_by_link(const char *dir, const char *member, const char *target) {
  g_autofree char *path = g_build_filename(dir, member, NULL);
  g_autofree char *moved = g_strconcat(path, ".moved", NULL);
  g_assert_cmpint(g_rename(path, moved), ==, 0);
  g_assert_cmpint(symlink(target, path), ==, 0);
}

static const char add_ir[] = "graph(%x : Tensor, %y : Tensor):\n"
                             "  %one : int = prim::Constant[value=1]()\n"
                             "  %z : Tensor = aten::add(%x, %y, %one) # add.py:2:8\n"
                             "  return (%z)\n";

/* A loop whose trip count is 10^12. */
static const char long_loop_ir[] = "graph(%x : Tensor):\n"
                                   "  %n : int = prim::Constant[value=1000000000000]()\n"
                                   "  %t : bool = prim::Constant[value=1]()\n"
                                   "  %one : int = prim::Constant[value=1]()\n"
                                   "  %y : Tensor = prim::Loop(%n, %t, %x) # loop.py:3:4\n"
                                   "    block0(%i : int, %acc : Tensor):\n"
                                   "      %next : Tensor = aten::add(%acc, %x, %one)\n"
                                   "      -> (%t, %next)\n"
                                   "  return (%y)\n";

/* A loop that doubles a tensor with cat 64 times. */
static const char cat_loop_ir[] = "graph(%x : Tensor):\n"
                                  "  %n : int = prim::Constant[value=64]()\n"
                                  "  %t : bool = prim::Constant[value=1]()\n"
                                  "  %zero : int = prim::Constant[value=0]()\n"
                                  "  %y : Tensor = prim::Loop(%n, %t, %x)\n"
                                  "    block0(%i : int, %acc : Tensor):\n"
                                  "      %l : Tensor[] = prim::ListConstruct(%acc, %acc)\n"
                                  "      %next : Tensor = aten::cat(%l, %zero) # grow.py:5:13\n"
                                  "      -> (%t, %next)\n"
                                  "  return (%y)\n";

/* An expand to 100000 x 100000 (a view) that an add then materializes (40 GB). */
/* Concatenations of nothing, loose and in a group the graph gives: every fused backend must
 * decline them (the C backend used to return an unwritten 0-d tensor) and leave the
 * interpreter's error. */
static const char empty_concat_ir[] = "graph(%x : Float(*, *)):\n"
                                      "  %c : Float(*, *) = prim::FusedConcat[dim=0]()\n"
                                      "  return (%c)\n";
static const char empty_concat_group_ir[] = "graph(%x : Float(*, *)):\n"
                                            "  %c : Float(*, *) = prim::FusionGroup_0(%x)\n"
                                            "  return (%c)\n"
                                            "with prim::FusionGroup_0 = graph(%x : Float(*, *)):\n"
                                            "  %c : Float(*, *) = prim::FusedConcat[dim=0]()\n"
                                            "  return (%c)\n";
static const char expand_ir[] = "graph(%x : Tensor):\n"
                                "  %sizes : int[] = prim::Constant[value=[100000, 100000]]()\n"
                                "  %no : bool = prim::Constant[value=0]()\n"
                                "  %one : int = prim::Constant[value=1]()\n"
                                "  %e : Tensor = aten::expand(%x, %sizes, %no)\n"
                                "  %y : Tensor = aten::add(%e, %e, %one) # big.py:2:8\n"
                                "  return (%y)\n";

/* An expand whose element count overflows int64. */
static const char expand_overflow_ir[] =
    "graph(%x : Tensor):\n"
    "  %sizes : int[] = prim::Constant[value=[4294967296, 4294967296, 4]]()\n"
    "  %no : bool = prim::Constant[value=0]()\n"
    "  %e : Tensor = aten::expand(%x, %sizes, %no) # wide.py:2:8\n"
    "  return (%e)\n";

/* A view of an empty tensor whose other sizes overflow int64 when multiplied. */
static const char view_overflow_ir[] =
    "graph(%x : Tensor):\n"
    "  %sizes : int[] = prim::Constant[value=[0, 1099511627776, 1099511627776]]()\n"
    "  %e : Tensor = aten::view(%x, %sizes) # flat.py:2:8\n"
    "  return (%e)\n";

/* A list of one tensor unpacked into two, in a chain long enough for a DifferentiableGraph:
 * the run's error, never autodiff reading a third element. */
static const char bad_unpack_ir[] =
    "graph(%x : Tensor, %y : Tensor):\n"
    "  %a : Tensor = aten::tanh(%x)\n"
    "  %b : Tensor = aten::sigmoid(%y)\n"
    "  %c : Tensor = aten::exp(%a)\n"
    "  %l : Tensor[] = prim::ListConstruct(%c)\n"
    "  %p : Tensor, %q : Tensor = prim::ListUnpack(%l) # two.py:6:4\n"
    "  %m : Tensor = aten::mul(%p, %q)\n"
    "  %n : Tensor = aten::mul(%m, %b)\n"
    "  return (%n)\n";

void hostile_fixtures_write(const char *dir, const char *jitscope) {
  write_file(dir, "add.ir", add_ir, -1);
  write_file(dir, "long_loop.ir", long_loop_ir, -1);
  write_file(dir, "cat_loop.ir", cat_loop_ir, -1);
  write_file(dir, "expand.ir", expand_ir, -1);
  write_file(dir, "empty_concat.ir", empty_concat_ir, -1);
  write_file(dir, "empty_concat_group.ir", empty_concat_group_ir, -1);
  write_file(dir, "expand_overflow.ir", expand_overflow_ir, -1);
  write_file(dir, "view_overflow.ir", view_overflow_ir, -1);
  write_file(dir, "bad_unpack.ir", bad_unpack_ir, -1);
  write_chain(dir, "chain.ir", 20000);

  write_npy(dir, "scalar.npy", 0, NULL);
  write_npy(dir, "vec2.npy", 1, (const int64_t[]){2});
  write_npy_header(dir, "huge.npy",
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }");
  write_npy_header(dir, "overflow.npy",
                   "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1099511627776, "
                   "1099511627776), }");
  g_autofree char *fifo = g_build_filename(dir, "fifo.npy", NULL);
  g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
  g_autofree char *fifo_ir = g_build_filename(dir, "fifo.ir", NULL);
  g_assert_cmpint(mkfifo(fifo_ir, 0600), ==, 0);
  g_autofree char *zero = g_build_filename(dir, "zero.npy", NULL);
  g_assert_cmpint(symlink("/dev/zero", zero), ==, 0);
  g_autofree char *folder = g_build_filename(dir, "folder.npy", NULL);
  g_assert_cmpint(g_mkdir(folder, 0755), ==, 0);

  export_bundle(dir, jitscope, "bundle-ok");
  export_bundle_of(dir, jitscope, "bundle-scalar-grad", "Float(requires_grad=1)", "Float(3)");
  export_bundle(dir, jitscope, "bundle-link-program");
  replace_by_link(dir, "bundle-link-program/program.ir", "/etc/passwd");
  export_bundle(dir, jitscope, "bundle-link-inputs");
  replace_by_link(dir, "bundle-link-inputs/inputs", "../bundle-ok/inputs");
  export_bundle(dir, jitscope, "bundle-deep-manifest");
  GString *deep = g_string_new(NULL);
  for (int i = 0; i < 200000; i++)
    g_string_append_c(deep, '[');
  for (int i = 0; i < 200000; i++)
    g_string_append_c(deep, ']');
  write_file(dir, "bundle-deep-manifest/manifest.json", deep->str, (gssize)deep->len);
  g_string_free(deep, TRUE);
  /* The first input drawn from a spec of 4 TB instead of read from its file. */
  export_bundle(dir, jitscope, "bundle-huge-spec");
  edit_member(dir, "bundle-huge-spec/manifest.json", "\"spec\" : \"Float(2)\"",
              "\"spec\" : \"Float(1000000, 1000000)\"");
  edit_member(dir, "bundle-huge-spec/manifest.json", "\"kind\" : \"tensor\"",
              "\"kind\" : \"drawn\"");
  export_bundle(dir, jitscope, "bundle-fifo-program");
  g_autofree char *program = g_build_filename(dir, "bundle-fifo-program/program.ir", NULL);
  g_assert_cmpint(g_unlink(program), ==, 0);
  g_assert_cmpint(mkfifo(program, 0600), ==, 0);
}
