/* Bug-report bundles (DESIGN.md, "Bundles"): what the writer (bundle_write.h) and the replayer
 * (bundle_replay.h) share: the error domain, file naming, hashing, the runs both make and the
 * comparison of numbers.
 *
 * A bundle is a folder:
 *   REPORT.md                     one page for people (bundle_report.c)
 *   manifest.json                 everything a replay needs (format below)
 *   program.ir                    the program as given
 *   inputs/inN.npy                the values used for input N of the --input call (drawn
 *                                 inputs included); inputs/specK/inN.npy for the K-th --spec
 *   outputs/outN.npy, grads/gradN.npy   (outputs/specK/..., grads/specK/... likewise)
 *   plans/NN-GRAPH/MM-STAGE.ir    every stage of every plan (NN: plan index, GRAPH: the plan's
 *                                 graph name with '/' as '.'); .dot for changed stages and the
 *                                 last one, .svg where Graphviz's `dot` rendered it
 *   kernels/NN-GROUP.cu           generated CUDA sources of fusion groups, when the build
 *                                 generates them
 *
 * manifest.json, format version 1:
 *   {"format": "jitscope-bundle", "format_version": 1, "jitscope_version", "build_options",
 *    "program": {"file": "program.ir", "name": BASENAME, "sha256"},
 *    "seed": N, "environment": {"os", "cpu", "cuda", "graphviz"},
 *    "calls": [{"option": "--input" | "--spec K", "inputs": [INPUT...], "outputs": [VALUE...],
 *               "grads": [{"file", "sha256", "dtype", "shape"} | null per input]}],
 *    "plans": [{"index", "dir", "kind", "graph", "spec", "stages": [{"index", "name", "group",
 *               "changed", "ms", "ir", "sha256", ["dot", "dot_sha256"], ["svg", "svg_sha256"]}]}],
 *    "kernels": [{"plan", "group", "kernel", "file", "sha256"}],
 *    "check": {"ran", "ok", "first_differing_stage", "error"},
 *    "files": [{"path", "sha256", "bytes"}]}
 *   INPUT: {"spec": TEXT, "kind": "tensor", "file", "sha256", "dtype", "shape",
 *           "requires_grad", "device"} or {"spec": TEXT, "kind": "int"|"float"|"bool"|"none"}
 *   VALUE: {"file", "sha256", "dtype", "shape"} for a tensor, {"value": JSON} otherwise
 * "files" lists every file of the bundle but manifest.json; every path in the manifest is
 * relative, without ".." and names a file of that list with the same hash. */
#ifndef JITSCOPE_APP_BUNDLE_H
#define JITSCOPE_APP_BUNDLE_H

#include "exec/executor.h"
#include "graph_inputs.h"
#include "program_run.h"

#define APP_BUNDLE_ERROR (app_bundle_error_quark())
GQuark app_bundle_error_quark(void);

typedef enum {
  APP_BUNDLE_ERROR_MALFORMED, /* a bundle file missing, corrupted or inconsistent */
  APP_BUNDLE_ERROR_EXISTS,    /* export: DIR is not empty and --force was not given */
  APP_BUNDLE_ERROR_IO,        /* export: a file could not be written */
  APP_BUNDLE_ERROR_INPUT,     /* export: the program or its inputs were refused */
} AppBundleErrorCode;

#define APP_BUNDLE_FORMAT "jitscope-bundle"
#define APP_BUNDLE_FORMAT_VERSION 1

/* Lower-case hex SHA-256 of the bytes (GChecksum). */
char *app_bundle_sha256(const void *data, gsize length);

/* "main/DifferentiableGraph_0/backward" -> "main.DifferentiableGraph_0.backward"; every
 * character outside [A-Za-z0-9._-] becomes '_' (and a leading '.' too). */
char *app_bundle_safe_name(const char *text);
/* "plans/03-main.DifferentiableGraph_0.backward" */
char *app_bundle_plan_dir(guint plan_index, const char *graph_name);
/* "plans/03-main/07-peephole" (no extension) */
char *app_bundle_stage_base(const char *plan_dir, guint stage_index, const char *stage_name);
/* "inputs/in0.npy" for call 0, "inputs/spec2/in0.npy" for call 2 (its --spec 2). `kind` is
 * "inputs", "outputs" or "grads"; `stem` "in", "out" or "grad". */
char *app_bundle_value_path(const char *kind, const char *stem, guint call, guint index);

/* A path read from a manifest is safe: relative, no "..", no backslash, no empty part. */
bool app_bundle_path_is_safe(const char *path);

/* The runs of an export or a replay: every call's inputs, in order, through ONE executor (as
 * `plans` does), each forward and, when an input requires grad, backward. Device=cuda inputs
 * run on the GPU, as `run` does (app_inputs_place). */
typedef struct {
  ExecSession *session;
  GPtrArray *runs; /* of AppProgramRun*, one per call */
} AppBundleRuns;

/* calls: AppInputs* per call (borrowed; their device=cuda tensors are moved to the GPU, or
 * the note that says why they cannot be is added to `notes`). On error, *failed_call says
 * which call failed. */
AppBundleRuns *app_bundle_runs_new(const IrGraph *graph, GPtrArray *calls, GPtrArray *notes,
                                   guint *failed_call, GError **error);
void app_bundle_runs_free(AppBundleRuns *runs);

/* The corpus tolerance of a dtype: float32/float16 1e-4, float64 1e-10, others exact (0). */
double app_bundle_tolerance(IrDtype dtype);
/* Compares `got` against the reference: same dtype and shape, NaN where and only where the
 * reference has NaN, equal infinities, and max|got-ref| / max(1, max|ref|) within the
 * dtype's tolerance. *rel_error gets the relative error (+inf on a dtype/shape/NaN
 * mismatch); *why (when not NULL) a sentence on failure, else NULL. */
bool app_bundle_compare_tensors(const RtTensor *ref, const RtTensor *got, double *rel_error,
                                char **why);

/* "float32 [5, 1]" */
char *app_bundle_describe_tensor(const RtTensor *t);

#endif
