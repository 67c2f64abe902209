/* The error domain of the application library (model, input, bundle, format): the errors the
 * command line and the window report to the user. The command line depends on it, never the
 * other way round.
 *
 * APP_ERROR_LOCATED messages already start with "FILE[:LINE:COL]: error: ", so that a
 * reporter prints them as they are; the others are prefixed with "error: " by the reporter. */
#ifndef JITSCOPE_APP_ERROR_H
#define JITSCOPE_APP_ERROR_H

#include <glib.h>

#define JITSCOPE_APP_ERROR (jitscope_app_error_quark())
GQuark jitscope_app_error_quark(void);

typedef enum {
  APP_ERROR_USAGE,   /* a bad option or argument */
  APP_ERROR_INPUT,   /* a bad input SPEC or input file */
  APP_ERROR_LOCATED, /* message already "FILE[:LINE:COL]: error: ..." */
} AppErrorCode;

#endif
