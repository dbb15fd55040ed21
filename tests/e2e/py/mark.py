"""The Python tests' witness (test_e2e_python.c): mark(tag, value) prints
the caller's stack as traceback.extract_stack() has it, each frame with its
qualified name, and returns value, so that the CUDA call taking value on
the same line is the one the line describes:

    gpuops.scale(mark("model", 256))

One line on stdout: CUPROF_PY {"tag", "pid", "frames": [[qualname, name,
file, line], ...]}, outermost frame first.
"""
import json
import os
import sys
import traceback


def mark(tag, value):
    f = sys._getframe(1)
    stack = traceback.extract_stack(f)
    chain = []
    while f is not None:
        chain.append(f)
        f = f.f_back
    chain.reverse()
    assert len(chain) == len(stack), (len(chain), len(stack))
    frames = []
    for fs, fr in zip(stack, chain):
        code = fr.f_code
        assert fs.name == code.co_name and fs.lineno == fr.f_lineno
        frames.append([getattr(code, "co_qualname", code.co_name), fs.name, fs.filename,
                       fs.lineno])
    print("CUPROF_PY " + json.dumps({"tag": tag, "pid": os.getpid(), "frames": frames}),
          flush=True)
    return value
