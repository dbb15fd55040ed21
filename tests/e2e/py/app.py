"""A model-shaped Python program reaching CUDA through a C extension
(gpuops: a kernel, a cuBLAS call, a callback from C into Python), from the
main thread, a thread, a coroutine, generators, a forked child and a spawned
one. Every CUDA call takes mark()'s value on its line (mark.py): the test
finds each printed stack in cuprof's outputs. Run: python3 app.py DIR (DIR
holds gpuops and mark.py).
"""
import asyncio
import multiprocessing
import os
import sys
import threading

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
import gpuops  # noqa: E402
from mark import mark  # noqa: E402


class Model:
    def encoder_block(self, n):
        return gpuops.scale(mark("model_scale", n))

    def project(self, n):
        return gpuops.gemm(mark("model_gemm", n))

    def forward(self, n):
        self.encoder_block(n)
        self.project(16)


def recurse(depth):
    if depth <= 1:
        return gpuops.scale(mark("deep", 64))
    return recurse(depth - 1)


def worker():
    for _ in range(2):
        gpuops.scale(mark("thread", 128))


async def coro_step():
    await asyncio.sleep(0)
    gpuops.scale(mark("coro", 32))


async def coro_main():
    await coro_step()
    await asyncio.gather(coro_step(), coro_step())


def gen_items():
    for _ in range(2):
        yield gpuops.scale(mark("gen", 16))


def from_callback():
    gpuops.scale(mark("callback", 8))


def dynamic():
    # code made at run time, one function after the other: each one's code
    # object may take the freed one's address (its frames must keep their
    # own names)
    for i in range(3):
        ns = {}
        src = "def dyn_fn_%d(ops, mark):\n    return ops.scale(mark('dyn%d', 1))\n" % (i, i)
        exec(compile(src, "<dyn%d>" % i, "exec"), ns)
        ns["dyn_fn_%d" % i](gpuops, mark)
        del ns


def child_work():
    gpuops.scale(mark("fork", 4))


def spawn_work():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    gpuops.scale(mark("spawn", 2))


def main():
    m = Model()
    for _ in range(3):
        m.forward(256)
    recurse(40)
    t = threading.Thread(target=worker, name="worker")
    t.start()
    t.join()
    asyncio.run(coro_main())
    list(gen_items())                     # resumed from C (list())
    for _ in gen_items():                 # resumed by the loop
        pass
    gpuops.call_back(from_callback)
    dynamic()
    gpuops.sync()
    pid = os.fork()
    if pid == 0:
        child_work()
        gpuops.sync()
        os._exit(0)
    os.waitpid(pid, 0)
    if os.environ.get("APP_SPAWN", "1") == "1":
        p = multiprocessing.get_context("spawn").Process(target=spawn_work)
        p.start()
        p.join()
    gpuops.sync()


if __name__ == "__main__":
    main()
