/*
 * py_calls.c - the Python rows of the overhead benchmark (bench/py_stacks.sh):
 * a C extension module, pycalls, built against the interpreter's headers,
 * whose launches(n) makes n cudaLaunchKernel calls of a dummy kernel (as
 * bench/calls.c registers it) in a C loop and returns the ns per call. Called
 * from a recursive Python function (bench/py_calls.py), every launch's stack
 * has that many Python frames: with --stacks each one reads them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda_runtime_api.h>
#include <time.h>

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);

static void dummy_kernel_stub(void) {}
static char dummy_name[] = "_Z12dummy_kernelv";
static cudaStream_t stream;

static PyObject *launches(PyObject *self, PyObject *arg)
{
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n <= 0)
        return PyErr_Occurred() ? NULL : PyFloat_FromDouble(0);
    if (!stream) {
        static char fatbin[16];
        void **module = __cudaRegisterFatBinary(fatbin);
        __cudaRegisterFunction(module, (const char *)dummy_kernel_stub, dummy_name, dummy_name,
                               -1, NULL, NULL, NULL, NULL, NULL);
        __cudaRegisterFatBinaryEnd(module);
        if (cudaStreamCreate(&stream) != cudaSuccess)
            return PyErr_Format(PyExc_RuntimeError, "cudaStreamCreate failed");
    }
    dim3 grid = {1, 1, 1}, block = {32, 1, 1};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        if (cudaLaunchKernel((const void *)dummy_kernel_stub, grid, block, NULL, 0, stream) !=
            cudaSuccess)
            return PyErr_Format(PyExc_RuntimeError, "cudaLaunchKernel failed");
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    return PyFloat_FromDouble(ns / (double)n);
}

static PyMethodDef methods[] = {{"launches", launches, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "pycalls", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_pycalls(void)
{
    return PyModule_Create(&module);
}
