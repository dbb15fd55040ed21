/*
 * cusim_stub.h - what a generated stub (tests/sim/gen_stubs.sh) does when a
 * program calls an entry point of the real library that the sim does not
 * model: one line on stderr the first time ("cusim: NAME is not
 * simulated"), and a count, reported at exit ("cusim: N calls to entry
 * points that are not simulated"). The stub then returns the library's
 * "not supported" status.
 */
#ifndef CUSIM_STUB_H
#define CUSIM_STUB_H

#define CUSIM_STUB __attribute__((visibility("default")))

typedef struct cusim_stub_site {
    const char *name;
    int said;                   /* the line was printed (the site is on the called list) */
    struct cusim_stub_site *next;   /* the sites called so far */
} cusim_stub_site;

/* Notes a call of site (thread-safe). In libcusim.so. */
CUSIM_STUB void cusim_stub_hit(cusim_stub_site *site);

#endif
