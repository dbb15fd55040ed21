/*
 * gpuops.c - a C extension module as PyTorch's _C is one: Python calls it,
 * it launches (libpyk.so: a kernel, a cuBLAS call), and it calls back into
 * Python. Built by test_e2e_python.c against each interpreter's headers
 * (sysconfig's include path), linked to libpyk.so.
 *
 *   gpuops.scale(n[, ignored])   launches pyk_scale_kernel
 *   gpuops.gemm(n[, ignored])    one cublasSgemm
 *   gpuops.call_back(fn)         calls fn() from C (through_c, a frame of
 *                                this module's own between the two Pythons)
 *   gpuops.sync()                cudaDeviceSynchronize
 * The ignored argument lets a caller evaluate traceback.extract_stack() on
 * the line of the call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

int pyk_scale(int n);
int pyk_gemm(int n);
int pyk_sync(void);

static PyObject *scale(PyObject *self, PyObject *args)
{
    int n;
    PyObject *ignored = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "i|O", &n, &ignored))
        return NULL;
    return PyLong_FromLong(pyk_scale(n));
}

static PyObject *gemm(PyObject *self, PyObject *args)
{
    int n;
    PyObject *ignored = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "i|O", &n, &ignored))
        return NULL;
    return PyLong_FromLong(pyk_gemm(n));
}

static volatile int sink;

__attribute__((noinline)) static PyObject *through_c(PyObject *fn)
{
    PyObject *r = PyObject_CallObject(fn, NULL);
    sink++;   /* not a tail call: this frame stays between the two */
    return r;
}

static PyObject *call_back(PyObject *self, PyObject *fn)
{
    (void)self;
    return through_c(fn);
}

static PyObject *sync_(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(pyk_sync());
}

static PyMethodDef methods[] = {
    {"scale", scale, METH_VARARGS, NULL},
    {"gemm", gemm, METH_VARARGS, NULL},
    {"call_back", call_back, METH_O, NULL},
    {"sync", sync_, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "gpuops", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_gpuops(void)
{
    return PyModule_Create(&module);
}
