/* Replays every file of a directory (default: the seed corpus) through the fuzz target's
 * LLVMFuzzerTestOneInput: what the fuzzer found once stays fixed. Run as a meson test; the
 * optional second argument is the fewest seed files the corpus must hold (default 40), so
 * that a lost corpus cannot pass unnoticed. */
#include <glib.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    g_printerr("usage: %s CORPUS_DIR [MIN_FILES]\n", argv[0]);
    return 2;
  }
  guint min_files = argc == 3 ? (guint)g_ascii_strtoull(argv[2], NULL, 10) : 40;
  GError *error = NULL;
  GDir *dir = g_dir_open(argv[1], 0, &error);
  if (dir == NULL) {
    g_printerr("%s\n", error->message);
    return 1;
  }
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name(dir)) != NULL) {
    char *path = g_build_filename(argv[1], name, NULL);
    char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, &error)) {
      g_printerr("%s\n", error->message);
      return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    g_free(data);
    g_free(path);
    n++;
  }
  g_dir_close(dir);
  if (n < min_files) {
    g_printerr("only %u seed files in %s\n", n, argv[1]);
    return 1;
  }
  g_print("replayed %u inputs\n", n);
  return 0;
}
