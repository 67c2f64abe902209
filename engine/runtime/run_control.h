/* Stopping runs from outside the graph: a step budget for loops and a cancellation flag.
 *
 * Contracts:
 * - The step budget bounds the iterations of each prim::Loop execution; the iteration that
 *   would pass it fails with an error naming the loop (its source location when it has one).
 *   Default RT_RUN_DEFAULT_MAX_STEPS; the command line sets it with --max-steps.
 * - rt_run_cancel may be called from any thread and from a signal handler (it only stores
 *   an atomic flag). Every interpreter run checks the flag before each instruction and each
 *   loop iteration, so a run stops between nodes with an error (RT_ERROR_CANCELLED) naming
 *   the node it stopped before; the flag stays set (every later run stops at once) until
 *   rt_run_clear_cancel.
 * - Both are process-wide: the CLI runs one program per process, the window one run at a
 *   time.
 * - Grad mode (PyTorch's thread-local GradMode, what aten::is_grad_enabled reads) is per
 *   thread, on by default; the executor sets it for each run to whether the run records
 *   gradients and restores it after. */
#ifndef JITSCOPE_RUNTIME_RUN_CONTROL_H
#define JITSCOPE_RUNTIME_RUN_CONTROL_H

#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>

#define RT_RUN_DEFAULT_MAX_STEPS G_GUINT64_CONSTANT(10000000)

/* 0 restores the default. */
void rt_run_set_max_steps(guint64 steps);
guint64 rt_run_max_steps(void);

void rt_run_cancel(void);
void rt_run_clear_cancel(void);

extern atomic_int rt_run_cancel_flag;
static inline bool rt_run_cancelled(void) {
  return atomic_load_explicit(&rt_run_cancel_flag, memory_order_relaxed) != 0;
}

/* Sets this thread's grad mode; returns the previous one. */
bool rt_run_set_grad_mode(bool enabled);
bool rt_run_grad_mode(void);

#endif
