/* The files the hostile-input cases run on, written into one temporary folder: graphs that
 * explode at run time, .npy files with hostile headers, a FIFO, and bundles that reach
 * outside themselves. */
#ifndef JITSCOPE_TESTS_HOSTILE_FIXTURES_H
#define JITSCOPE_TESTS_HOSTILE_FIXTURES_H

#include <glib.h>

/* Writes every fixture into dir; bundles are exported with the jitscope binary. */
void hostile_fixtures_write(const char *dir, const char *jitscope);

#endif
