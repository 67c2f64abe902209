/* Writing a bug-report bundle (format in bundle.h): what `jitscope export` and the window's
 * Export action call. No GTK, nothing printed.
 *
 * The program runs afresh here, in a session of its own: the --input call first, then every
 * --spec call, all through one executor (the bundle records every plan those runs compiled),
 * then `check` on the --input call's inputs; device=cuda inputs run on the GPU where CUDA can
 * (else a note says why not). Only then is anything written.
 *
 * Atomicity: files go to a temporary folder next to DIR (".NAME.tmp-XXXXXX"), renamed to DIR
 * at the end. DIR may be absent or an empty folder; a non-empty DIR is refused unless `force`,
 * which replaces it (and everything in it) only once the new bundle is complete. A failure at
 * any point removes the temporary folder and leaves DIR as it was. */
#ifndef JITSCOPE_APP_BUNDLE_WRITE_H
#define JITSCOPE_APP_BUNDLE_WRITE_H

#include "bundle.h"

typedef struct {
  const char *program_name; /* the program file as the user named it; only its basename is
                               written into the bundle */
  const char *program_text; /* the program's text (written as program.ir) */
  char **inputs;            /* NULL-terminated SPEC texts of the --input call */
  char **spec_groups;       /* NULL-terminated 'SPEC; SPEC; ...' texts (one per --spec), or NULL */
  guint64 seed;
  bool force;
  guint fail_after_files; /* tests: fail after writing this many files (0: never) */
} AppBundleRequest;

typedef struct {
  guint files; /* files written, manifest.json included */
  guint plans;
  guint stages;
  guint pictures; /* .svg files rendered */
  guint kernels;
  bool check_ok;
  GPtrArray *notes; /* char*: what the user should know (pictures not rendered, ...) */
} AppBundleSummary;

/* Errors: APP_BUNDLE_ERROR (EXISTS, IO, INPUT) naming the path or what was refused; a parse
 * error of the program keeps JITSCOPE_PARSE_ERROR ("NAME:LINE:COL: error: ..."); input
 * errors keep JITSCOPE_APP_ERROR ("--input N: ...", "--spec K: --input N: ..."). */
AppBundleSummary *app_bundle_export(const AppBundleRequest *request, const char *dir,
                                    GError **error);
void app_bundle_summary_free(AppBundleSummary *summary);

#endif
