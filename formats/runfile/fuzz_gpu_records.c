/*
 * fuzz_gpu_records.c - libFuzzer target of the run file reader's GPU side
 * (tests/fuzz/fuzz_runfile.sh; a bounded run is in make test): the input is
 * cut into GPU_RECORDS (collector/gpu_compact.h), GPU_NAMES and GPU_INFO
 * blocks, written with valid checksums after a header of major 1..5 to a
 * memory file, and read with cuprof_rfread, so the fuzzer reaches the
 * decoder and the normalization rather than the CRC check. No input may
 * crash, read out of bounds, leak, or allocate without bound.
 */
#include "collector/runfile.h"
#include "formats/runfile/runfile_read.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Input: a version byte, then (kind byte, u16 length, payload) repeated. */
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 1)
        return 0;
    int fd = memfd_create("cuprof-fuzz", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    cuprof_rf_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CUPROF_RF_MAGIC, sizeof h.magic);
    h.major = 1 + d[0] % CUPROF_RF_MAJOR;
    h.header_bytes = sizeof h;
    h.block_header_bytes = sizeof(cuprof_rf_block);
    int ok = write(fd, &h, sizeof h) == (ssize_t)sizeof h;
    static const uint8_t zero[8];
    for (size_t i = 1; ok && i + 3 <= n;) {
        uint32_t type = d[i] % 4 ? CUPROF_RF_GPU_RECORDS
                        : d[i] % 8 ? CUPROF_RF_GPU_NAMES : CUPROF_RF_GPU_INFO;
        size_t len = (size_t)d[i + 1] | (size_t)d[i + 2] << 8;
        i += 3;
        if (len > n - i)
            len = n - i;
        cuprof_rf_block b = {.type = type, .len = len, .crc = cuprof_crc32c(0, d + i, len)};
        b.hcrc = cuprof_crc32c(0, &b, offsetof(cuprof_rf_block, hcrc));
        ok = write(fd, &b, sizeof b) == (ssize_t)sizeof b && write(fd, d + i, len) == (ssize_t)len &&
             (len % 8 == 0 || write(fd, zero, 8 - len % 8) == (ssize_t)(8 - len % 8));
        i += len;
    }
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cuprof_rfread_info info;
    cuprof_run *run = ok ? cuprof_rfread(path, &info, err, sizeof err) : NULL;
    cuprof_rfread_free(run);
    close(fd);
    return 0;
}
