/* Fault injection for tests: HOGLAKE_FAILPOINTS="name,name" turns on the
 * named points, where code that must survive a fault (a lost commit race,
 * a death mid-stage) simulates it. Unset in production: every point is off
 * and costs one getenv. */
#ifndef HL_UTIL_FAILPOINT_H
#define HL_UTIL_FAILPOINT_H

#include <stdbool.h>

bool failpoint_on(const char *name);

#endif
