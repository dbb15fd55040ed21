/*
 * viewers.h - running the viewers of tests/viewers/ from the Check tests:
 * speedscope.mjs (speedscope from npm in headless Chromium) and devtools.mjs
 * (Chrome DevTools' trace engine from npm, in node): whether each can run
 * here, the run itself, and speedscope's way of showing a weight.
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
/* Why tests/viewers/devtools.mjs (the DevTools trace engine in node)
 * cannot run here, or NULL when it can. Static storage. */
const char *devtools_missing(void);
/* devtools.mjs on a Chrome JSON trace: what the engine parsed (the arrows it
 * binds, the events it draws per thread), parsed (asserts it is JSON); *r
 * gets the run (free it). */
json_t *viewer_devtools(const char *trace, e2e_result *r);
/* tests/viewers/report.mjs on a NAME.report.html (headless Chromium, a
 * file:// URL), the full page's screenshot to shot: what the page did
 * (requests, errors, charts drawn, headline values), parsed; *r gets the
 * run (free it). */
json_t *viewer_report(const char *report, const char *shot, e2e_result *r);
/* A weight as speedscope shows it ("83.50µs", "1.78ms", "48", "1,234") in
 * ns (or a count); *unit gets the size of its last digit's step. */
double viewer_shown_value(const char *text, double *unit);

#endif
