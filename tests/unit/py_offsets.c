/*
 * py_offsets.c - the offsets collector/pyframes.c reads, from a CPython's
 * own headers (compiled by test_pyframes.c against each interpreter's
 * sysconfig include path, Py_BUILD_CORE for the internal ones), printed as
 * cuprof_py_layout_text prints its table: "name offset" lines.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#else
#include "internal/pycore_frame.h"
#endif
#include "internal/pycore_runtime.h"
#if PY_VERSION_HEX >= 0x030D0000
#include "internal/pycore_interp.h"
#endif

#define P(name, v) printf("%s %u\n", name, (unsigned)(v))

int main(void)
{
    P("ts_thread_id", offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX < 0x030B0000
    P("ts_frame", offsetof(PyThreadState, frame));
    P("fr_back", offsetof(PyFrameObject, f_back));
    P("fr_code", offsetof(PyFrameObject, f_code));
    P("fr_instr", offsetof(PyFrameObject, f_lasti));
#elif PY_VERSION_HEX < 0x030D0000
    P("ts_frame", offsetof(PyThreadState, cframe));
    P("cf_current", offsetof(_PyCFrame, current_frame));
    P("fr_back", offsetof(_PyInterpreterFrame, previous));
    P("fr_code", offsetof(_PyInterpreterFrame, f_code));
    P("fr_instr", offsetof(_PyInterpreterFrame, prev_instr));
    P("fr_owner", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX < 0x030C0000
    P("fr_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
#else
    P("ts_frame", offsetof(PyThreadState, current_frame));
    P("fr_back", offsetof(_PyInterpreterFrame, previous));
    P("fr_code", offsetof(_PyInterpreterFrame, f_executable));
    P("fr_instr", offsetof(_PyInterpreterFrame, instr_ptr));
    P("fr_owner", offsetof(_PyInterpreterFrame, owner));
#endif
    P("co_filename", offsetof(PyCodeObject, co_filename));
    P("co_name", offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030B0000
    P("co_qualname", offsetof(PyCodeObject, co_qualname));
#else
    P("co_qualname", offsetof(PyCodeObject, co_name));   /* 3.10 has none: co_name */
#endif
    P("co_linetable", offsetof(PyCodeObject, co_linetable));
    P("co_firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030C0000
    P("co_version", offsetof(PyCodeObject, co_version));
#endif
#if PY_VERSION_HEX >= 0x030B0000
    P("co_firsttraceable", offsetof(PyCodeObject, _co_firsttraceable));
    P("co_code", offsetof(PyCodeObject, co_code_adaptive));
    P("code_basicsize", offsetof(PyCodeObject, co_code_adaptive));
#else
    P("co_code", offsetof(PyCodeObject, co_code));
    P("code_basicsize", sizeof(PyCodeObject));
#endif
    P("ascii_size", sizeof(PyASCIIObject));
    P("compact_size", sizeof(PyCompactUnicodeObject));
    P("str_basicsize", sizeof(PyUnicodeObject));
    P("rt_finalizing", offsetof(_PyRuntimeState, _finalizing));
#if PY_VERSION_HEX < 0x030B0000
    P("frame_basicsize", sizeof(PyFrameObject));
#endif
#if PY_VERSION_HEX >= 0x030D0000
    P("ep_interp", offsetof(PyInterpreterState, func_state.next_version));
#endif
    return 0;
}
