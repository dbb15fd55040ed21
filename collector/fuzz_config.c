/*
 * fuzz_config.c - libFuzzer target for the CUPROF_* environment parser
 * (collector/config.c; tests/fuzz/fuzz_config.sh builds it with clang
 * -fsanitize=fuzzer,address,undefined).
 *
 * Input: the first byte picks the size of the warning buffer (0..255), the
 * rest is "NAME=VALUE" entries separated by newlines or NULs, put in an
 * emptied environment. Besides "no crash, no overflow, no undefined
 * behaviour", it checks config.h's contract: defaults for whatever is
 * malformed (out_dir never empty and with room for a file name, a
 * non-zero memory limit, booleans 0 or 1), a warning buffer always
 * NUL-terminated within its size and made of whole "CUPROF_..." lines when
 * it had the room, and cuprof_config_parse_size agreeing with itself.
 */
#include "collector/config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_size_parse(const char *s)
{
    uint64_t v = 12345;
    if (cuprof_config_parse_size(s, &v) == 0) {
        char again[32];
        snprintf(again, sizeof again, "%llu", (unsigned long long)v);
        uint64_t w = 0;
        if (cuprof_config_parse_size(again, &w) != 0 || w != v)
            abort();   /* a parsed size prints back to itself */
    } else if (v != 12345) {
        abort();       /* a refusal leaves the output alone */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 8192)
        return 0;
    size_t warn_len = data[0];
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    clearenv();
    for (char *p = text; p < text + size - 1;) {
        size_t k = strcspn(p, "\n");
        p[k] = '\0';
        char *eq = strchr(p, '=');
        if (eq && eq != p) {
            *eq = '\0';
            setenv(p, eq + 1, 1);
            check_size_parse(eq + 1);
        }
        p += k + 1;
    }
    char *warn = malloc(warn_len + 1);
    if (!warn) {
        free(text);
        return 0;
    }
    memset(warn, 'x', warn_len + 1);
    cuprof_config c;
    cuprof_config_load(&c, warn_len ? warn : NULL, warn_len);
    if (warn_len) {
        if (memchr(warn, '\0', warn_len) == NULL || warn[warn_len] != 'x')
            abort();   /* NUL-terminated inside, nothing written past it */
        size_t wl = strlen(warn);
        if (strncmp(warn, "CUPROF_", wl < 7 ? wl : 7) != 0)
            abort();   /* (a truncated first line is still a prefix of one) */
    }
    if (!c.out_dir[0] || strlen(c.out_dir) >= sizeof c.out_dir - 64 || c.mem_limit == 0)
        abort();
    if (strchr(c.name, '/') || c.root_pid < 0)
        abort();
    if ((c.quiet | c.enabled | c.prefault | c.clock_monotonic) & ~1)
        abort();
    if (c.gpu != CUPROF_GPU_OFF && c.gpu != CUPROF_GPU_ALL && c.gpu != CUPROF_GPU_KERNELS)
        abort();
    free(warn);
    free(text);
    return 0;
}
