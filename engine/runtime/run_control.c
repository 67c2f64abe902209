/* The loop step budget and the cancellation flag (contract in run_control.h). */
#include "runtime/run_control.h"

atomic_int rt_run_cancel_flag;
static _Atomic guint64 max_steps;
static _Thread_local bool grad_mode_off; /* zero-initialized: grad mode on */

void rt_run_set_max_steps(guint64 steps) {
  atomic_store(&max_steps, steps);
}

guint64 rt_run_max_steps(void) {
  guint64 steps = atomic_load(&max_steps);
  return steps ? steps : RT_RUN_DEFAULT_MAX_STEPS;
}

void rt_run_cancel(void) {
  atomic_store(&rt_run_cancel_flag, 1);
}

void rt_run_clear_cancel(void) {
  atomic_store(&rt_run_cancel_flag, 0);
}

bool rt_run_set_grad_mode(bool enabled) {
  bool previous = !grad_mode_off;
  grad_mode_off = !enabled;
  return previous;
}

bool rt_run_grad_mode(void) {
  return !grad_mode_off;
}
