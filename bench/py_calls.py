"""The Python rows of the overhead benchmark (bench/py_stacks.sh): N
launches (pycalls, bench/py_calls.c) made DEPTH recursive Python calls
deep. Run: python3 py_calls.py DIR DEPTH N WARMUP (DIR holds pycalls).
Prints "calls api=launch python_depth=D n=N ns_per_call=X rss_kb=R"."""
import resource
import sys

sys.path.insert(0, sys.argv[1])
import pycalls  # noqa: E402


def recurse(depth, n):
    if depth <= 1:
        return pycalls.launches(n)
    return recurse(depth - 1, n) + 0.0


def main():
    depth, n, warm = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    recurse(depth, warm)
    ns = recurse(depth, n)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("calls api=launch python_depth=%d n=%d ns_per_call=%.2f rss_kb=%d" % (depth, n, ns, rss))


main()
