/* The application's error domain (app_error.h). */
#include "app_error.h"

G_DEFINE_QUARK(jitscope - app - error - quark, jitscope_app_error)
