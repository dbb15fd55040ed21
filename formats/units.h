/*
 * units.h - numbers as the tables print them, like torch.profiler does.
 */
#ifndef CUPROF_UNITS_H
#define CUPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* A duration in torch.profiler's units: three decimals of the largest unit
 * that keeps the number >= 1 ("3.210s", "1.234ms", "56.000us"), whole
 * nanoseconds under a microsecond ("850ns"), and "0.000us" for zero, as
 * torch prints an empty cell. Rounded to nearest. Returns dst. */
char *cuprof_fmt_time(char *dst, size_t len, uint64_t ns);
/* part / total as "12.34%" (torch's two decimals); "0.00%" when total is 0. */
char *cuprof_fmt_pct(char *dst, size_t len, uint64_t part, uint64_t total);
/* A byte count: "512 B", "1.50 KiB", "12.00 MiB", "3.25 GiB". */
char *cuprof_fmt_bytes(char *dst, size_t len, uint64_t bytes);
/* A count with an SI prefix, three significant digits or so: "524.3 K",
 * "2.15 G", "1.10 T", "12" (FLOPs). */
char *cuprof_fmt_count(char *dst, size_t len, double v);

#endif /* CUPROF_UNITS_H */
