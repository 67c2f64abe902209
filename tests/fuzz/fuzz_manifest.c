/* libFuzzer target for a bundle's manifest.json (app/bundle/bundle_manifest.h, app/bundle/bundle_replay.h).
 * The other files of a small real bundle (tests/fuzz/bundle: add.ir on two Float(2) inputs)
 * are copied once into a temporary folder; every input becomes that folder's manifest.json
 * and the bundle is replayed. The replay either fails with an error that has a message, or
 * returns a report. Any crash, abort, leak or g_error is a finding. The seed corpus
 * (manifest_corpus/) starts from the bundle's own manifest. */
#include <gio/gio.h>
#include <string.h>

#include "bundle_fs.h"
#include "bundle_replay.h"
#include "fuzz_common.h"

static char *bundle_dir;

static void remove_bundle_dir(void) {
  app_bundle_remove_tree(bundle_dir);
  g_free(bundle_dir);
}

/* Copies the files under from (but its manifest.json) into to, folders included. */
static void copy_tree(const char *from, const char *to, bool top) {
  g_autoptr(GDir) dir = g_dir_open(from, 0, NULL);
  if (dir == NULL)
    g_error("fuzz setup: cannot open %s", from);
  const char *name;
  while ((name = g_dir_read_name(dir)) != NULL) {
    if (top && strcmp(name, "manifest.json") == 0)
      continue;
    g_autofree char *src = g_build_filename(from, name, NULL);
    g_autofree char *dst = g_build_filename(to, name, NULL);
    if (g_file_test(src, G_FILE_TEST_IS_DIR)) {
      g_mkdir_with_parents(dst, 0755);
      copy_tree(src, dst, false);
      continue;
    }
    g_autofree char *data = NULL;
    gsize length = 0;
    if (!g_file_get_contents(src, &data, &length, NULL) ||
        !g_file_set_contents(dst, data, (gssize)length, NULL))
      g_error("fuzz setup: cannot copy %s", src);
  }
}

static void setup_bundle_dir(void) {
  static gsize done = 0;
  if (!g_once_init_enter(&done))
    return;
  const char *source = g_getenv("JITSCOPE_FUZZ_BUNDLE");
  bundle_dir = g_dir_make_tmp("jitscope-fuzz-manifest-XXXXXX", NULL);
  if (bundle_dir == NULL)
    g_error("fuzz setup: cannot make a temporary folder");
  copy_tree(source ? source : FUZZ_BUNDLE_DIR, bundle_dir, true);
  atexit(remove_bundle_dir);
  g_once_init_leave(&done, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_setup_once();
  setup_bundle_dir();
  g_autofree char *manifest = g_build_filename(bundle_dir, "manifest.json", NULL);
  if (!g_file_set_contents(manifest, (const char *)data, (gssize)size, NULL))
    g_error("fuzz setup: cannot write %s", manifest);
  GError *error = NULL;
  AppBundleReplay *replay = app_bundle_replay(bundle_dir, &error);
  if (replay == NULL) {
    if (error == NULL || error->message == NULL || error->message[0] == '\0')
      g_error("fuzz invariant: a failed replay must say why");
    g_error_free(error);
    return 0;
  }
  app_bundle_replay_free(replay);
  return 0;
}
