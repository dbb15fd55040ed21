// throw_lib.cc - C++ code loaded after the profiler (like Python loading a
// C++ extension): throws and catches exceptions, and says which object its
// _Unwind_RaiseException comes from. If a preloaded libunwind put its
// _Unwind_* into the global scope, that object would be libunwind, and every
// throw far slower (stacks.h).
#include <dlfcn.h>
#include <stdexcept>
#include <time.h>
#include <unwind.h>

extern "C" int throw_lib_run(int n, double *ns_per_throw, const char **unwinder)
{
    int caught = 0;
    timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        try {
            throw std::runtime_error("x");
        } catch (const std::runtime_error &) {
            caught++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    *ns_per_throw = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (n ? n : 1);
    Dl_info info;
    void *fn = reinterpret_cast<void *>(&_Unwind_RaiseException);
    *unwinder = dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "?";
    return caught;
}
