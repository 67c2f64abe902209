/* What an export collected before writing: the model REPORT.md (bundle_report.c) and
 * manifest.json (bundle_write.c) are written from. Internal to the bundle writer. */
#ifndef JITSCOPE_APP_BUNDLE_REPORT_H
#define JITSCOPE_APP_BUNDLE_REPORT_H

#include "bundle.h"
#include "bundle_env.h"
#include "check.h"

typedef struct {
  const ExecStage *stage;
  char *ir; /* bundle paths; NULL when the file is absent */
  char *dot;
  char *svg;
  char *picture_note; /* why a .dot or .svg is missing, or NULL */
} AppBundleStageFiles;

typedef struct {
  const ExecPlan *plan;
  char *dir;
  GPtrArray *stages; /* of AppBundleStageFiles* */
} AppBundlePlanFiles;

typedef struct {
  char *option;           /* "--input", "--spec 2" */
  AppInputs *inputs;      /* owned */
  AppProgramRun *run;     /* borrowed from the runs */
  GPtrArray *inputs_npy;  /* char* bundle path or NULL (scalar) per input */
  GPtrArray *outputs_npy; /* char* or NULL (not a tensor) per flattened output */
  GPtrArray *grads_npy;   /* char* or NULL per input */
} AppBundleCallFiles;

typedef struct {
  guint plan_index;
  char *plan; /* as exec_session_kernel_reports names it */
  char *group;
  char *kernel; /* NULL when generation failed */
  char *file;   /* NULL when generation failed */
  char *error;
} AppBundleKernelFile;

typedef struct {
  char *program_name; /* basename */
  const char *program_text;
  guint64 seed;
  AppBundleEnv env;
  GPtrArray *calls;      /* AppBundleCallFiles* */
  GPtrArray *plans;      /* AppBundlePlanFiles* */
  GPtrArray *kernels;    /* AppBundleKernelFile* */
  bool kernels_probed;   /* the build generates CUDA sources */
  AppCheckReport *check; /* NULL when check could not run */
  char *check_error;
  guint pictures;
  GPtrArray *notes; /* char* */
} AppBundleModel;

/* REPORT.md's text. */
char *app_bundle_report_markdown(const AppBundleModel *model);

#endif
