/*
 * big_tls.c - a shared library with a large thread-local block, as NVIDIA's
 * libcublasLt.so.13 has (94 KiB) and libcuda more: glibc carves every
 * initially loaded library's TLS out of each new thread's stack, so a thread
 * created with a small fixed stack size has little left (tls_prog).
 */
#include <stddef.h>

#define BIG_TLS_BYTES (120 * 1024)

static __thread char big[BIG_TLS_BYTES];

/* Touches this thread's block; returns a byte of it (0). */
int big_tls_touch(size_t i)
{
    big[i % BIG_TLS_BYTES] = 0;
    return big[(i * 7) % BIG_TLS_BYTES];
}
