/* Binding `--input SPEC...` to a graph's inputs: parse every SPEC, check the count against
 * the graph, make the values and check each against the graph's declared input type.
 *
 * "Fits" means: tensors match the declared dtype, rank, every known size and the device when
 * the declared type says them (requires_grad and strides are not checked: they are what an
 * argument spec specializes, not a contract of the program); an int fits int, float
 * (converted, as PyTorch does) and Scalar; a float fits float and Scalar; a bool fits bool
 * and Scalar; none fits NoneType and every optional T?; anything fits Any. */
#ifndef JITSCOPE_APP_GRAPH_INPUTS_H
#define JITSCOPE_APP_GRAPH_INPUTS_H

#include "input_spec.h"
#include "ir/ir.h"

typedef struct {
  GPtrArray *specs; /* of InputSpec*, graph input order */
  GArray *values;   /* of RtValue (owned references), graph input order */
  guint64 seed;
} AppInputs;

/* Errors are JITSCOPE_APP_ERROR / APP_ERROR_INPUT with messages "--input N: ..." (N counts
 * from 1) or, for a wrong count, naming both counts. */
AppInputs *app_inputs_bind(const IrGraph *graph, char *const *spec_texts, guint n_specs,
                           guint64 seed, GError **error);
void app_inputs_free(AppInputs *inputs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AppInputs, app_inputs_free)

/* The SPEC texts of one `--spec 'SPEC; SPEC; ...'` call: split at ';', trimmed, empty parts
 * dropped; a GPtrArray of char* that frees them. */
GPtrArray *app_spec_group_split(const char *group);

/* Does any input ask for device=cuda? */
bool app_inputs_want_cuda(const AppInputs *inputs);

/* Copies the tensors of the device=cuda inputs into GPU memory when CUDA can run
 * (cuda_runtime_enable: driver, nvrtc, a device); requires_grad is kept. Returns true when
 * they are on the GPU now (or no input asks for it); false with *why (a new string) when every
 * input stays in host memory, values untouched. */
bool app_inputs_to_devices(AppInputs *inputs, char **why);

/* app_inputs_to_devices for a caller that tells its user: when the device=cuda inputs stay in
 * host memory, adds "inputs with device=cuda are kept in CPU memory and computed on the CPU:
 * WHY" to `notes` (char*) unless that sentence is there already (several calls, one cause).
 * `why` may be NULL; else *why gets WHY (a new string), or NULL when the inputs went where
 * they asked. Returns what app_inputs_to_devices returns. */
bool app_inputs_place(AppInputs *inputs, GPtrArray *notes, char **why);

#endif
