/* The loop step budget and the cancellation flag (contract in run_control.h). */
#include "runtime/run_control.h"

atomic_int rt_run_cancel_flag;
static _Atomic guint64 max_steps;

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
