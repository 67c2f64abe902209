/* Replaying a bug-report bundle (format in bundle.h): what `jitscope replay` and the window
 * call. No GTK, nothing printed.
 *
 * 1. manifest.json is read and checked: format and version, every member's type, every path
 *    relative and inside the bundle.
 * 2. Every file the manifest lists is read and its SHA-256 compared with the manifest's. A
 *    missing or changed file makes the bundle MALFORMED: a bundle is an exporter's record, and
 *    a file that no longer has the hash the exporter wrote is corruption (or an edit), not a
 *    result. (To plant a different expectation, change the file and its hashes together; the
 *    replay then reports the difference.)
 * 3. The program (program.ir) runs again on the saved inputs (.npy files with the saved
 *    requires_grad and device flags; scalars from their specs), every call in order through
 *    one executor, as the export did.
 * 4. Plans are compared by position, graph name, kind and spec; stages by position and name,
 *    their IR text exactly (a unified diff when it differs); outputs and gradients within the
 *    corpus tolerances (float32 1e-4, float64 1e-10 relative per tensor, others exactly);
 *    generated CUDA sources exactly, when this build generates them.
 *
 * Errors: APP_BUNDLE_ERROR_MALFORMED with a message naming the missing or corrupted files or
 * the manifest member at fault. Differences are not errors: they are in the report. */
#ifndef JITSCOPE_APP_BUNDLE_REPLAY_H
#define JITSCOPE_APP_BUNDLE_REPLAY_H

#include "bundle.h"

typedef struct {
  guint index;
  char *name;
  char *file; /* the bundle's .ir file, or NULL when the bundle has no such stage */
  bool match;
  char *why;  /* a sentence when the stage differs other than by text, or NULL */
  char *diff; /* unified diff of the IR (bundle vs replay), or NULL */
} AppReplayStage;

typedef struct {
  guint index;
  char *dir;   /* the bundle's plan folder, or NULL for a plan only the replay compiled */
  char *label; /* "forward main" */
  bool match;
  char *why;         /* what differs at the plan level (missing, extra, spec), or NULL */
  GPtrArray *stages; /* of AppReplayStage* */
  guint stages_matching;
} AppReplayPlan;

typedef struct {
  char *label; /* "--input call: output 0", "--spec 1 call: gradient of input 2",
                  "kernel of plan 3 FusionGroup_0" */
  char *file;  /* bundle file or NULL */
  bool match;
  double rel_error; /* tensors: the relative error (0 when exact); else 0 or +inf */
  char *why;        /* when it differs */
  char *diff;       /* kernels: unified diff of the source, or NULL */
} AppReplayValue;

typedef struct {
  char *bundle_version; /* the jitscope version that exported it */
  char *program_name;
  guint files_verified;
  GPtrArray *plans;   /* of AppReplayPlan* */
  GPtrArray *values;  /* of AppReplayValue*: outputs and gradients, call by call */
  GPtrArray *kernels; /* of AppReplayValue* */
  GPtrArray *notes;   /* char*: facts that change no verdict (version differs, kernels not
                         compared) */
  char *run_error;    /* a call that failed to run again, or NULL */
  guint differences;
  bool ok; /* everything matches */
} AppBundleReplay;

AppBundleReplay *app_bundle_replay(const char *dir, GError **error);
void app_bundle_replay_free(AppBundleReplay *replay);

#endif
