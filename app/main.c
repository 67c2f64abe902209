/* The jitscope executable: everything is in cli.c; builds with the window hand it
 * `jitscope [FILE]`. */
#include "cli.h"
#ifdef JITSCOPE_HAVE_GUI
#include "jitscope-application.h"
#endif

int main(int argc, char **argv) {
#ifdef JITSCOPE_HAVE_GUI
  cli_set_window_handler(jitscope_application_main);
#endif
  return cli_main(argc, argv);
}
