"""CUDA through ctypes (libffi), as a Python program without an extension
reaches it: cudaMalloc, cudaMemset and cudaFree from known lines (mark.py).
Run: python3 ct.py DIR (DIR holds mark.py); CUPROF_CT_CUDART names the runtime's
file where libcudart.so is not on the library path.
"""
import ctypes
import os
import sys

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
from mark import mark  # noqa: E402

# CUPROF_CT_CUDART: the runtime's path where libcudart.so is not on the library path
rt = ctypes.CDLL(os.environ.get("CUPROF_CT_CUDART", "libcudart.so"))


def alloc(size):
    p = ctypes.c_void_p()
    rc = rt.cudaMalloc(ctypes.byref(p), mark("ct_malloc", size))
    return rc, p


def fill(p, size):
    return rt.cudaMemset(p, 0, mark("ct_memset", size))


class Pool:
    def cycle(self):
        rc, p = alloc(1 << 20)
        assert rc == 0, rc
        fill(p, 1 << 20)
        rt.cudaFree(p)


def main():
    pool = Pool()
    for _ in range(3):
        pool.cycle()
    rt.cudaDeviceSynchronize()


if __name__ == "__main__":
    main()
