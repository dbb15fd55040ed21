/*
 * viewers.h - running tests/viewers/speedscope.mjs (speedscope from npm in
 * headless Chromium) from the Check tests: whether it can run here, the run
 * itself, and speedscope's way of showing a weight.
 */
#ifndef CUPROF_VIEWERS_H
#define CUPROF_VIEWERS_H

#include "harness.h"

/* Why the viewer cannot run here (node, Chromium or the npm packages not
 * installed), or NULL when it can. Static storage. */
const char *viewer_missing(void);
/* speedscope.mjs on profile (any file speedscope imports), the screenshot
 * to shot, NAME... (NULL-terminated) that must be drawn. Returns what it
 * printed, parsed (asserts it is JSON); *r gets the run (free it). */
json_t *viewer_speedscope(const char *profile, const char *shot, const char *const names[],
                          e2e_result *r);
/* A weight as speedscope shows it ("83.50µs", "1.78ms", "48", "1,234") in
 * ns (or a count); *unit gets the size of its last digit's step. */
double viewer_shown_value(const char *text, double *unit);

#endif
