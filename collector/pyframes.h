/*
 * pyframes.h - the Python frames of a call's stack (--stacks): read in the
 * calling thread from CPython's own state, spliced into the native stack
 * where the interpreter's evaluation frames are (stacks.c calls it).
 *
 * What is read, per version (the layouts are this file's tables, checked
 * against the interpreter once: PyCode_Type's and str's basic sizes, 3.13's
 * _Py_DebugOffsets at the head of _PyRuntime):
 *  - the thread's state: PyGILState_GetThisThreadState (a thread-specific
 *    key: no GIL, and the state is found while ctypes or an extension has
 *    released the GIL), looked up with dlsym (no link to libpython; a
 *    python3 linked statically has the symbols in the executable). Its
 *    thread_id must be the calling thread's;
 *  - its frame chain: 3.10 PyThreadState.frame -> PyFrameObject.f_back,
 *    f_lasti; 3.11 and 3.12 cframe->current_frame -> _PyInterpreterFrame
 *    .previous, prev_instr; 3.13 current_frame, instr_ptr. Frames not yet
 *    started (_PyFrame_IsIncomplete) are left out as traceback leaves them;
 *  - each frame's code object (its type must be PyCode_Type): co_qualname
 *    (3.10: co_name, it has no qualified name), co_filename, and the line
 *    of the instruction the frame is at, from co_linetable as
 *    PyCode_Addr2Line decodes it (3.10's pairs, 3.11+'s location table).
 * Pointers are checked before each read: user-space, aligned, and on a
 * page known readable (pages are learned with one process_vm_readv each);
 * strings and line tables are copied with process_vm_readv. The chain is
 * bounded and must be the same at the end of the walk as at its start; a
 * chain that fails a check gives no Python frames for that call (counted),
 * never a wrong one.
 *
 * (code object, instruction) pairs are interned in a table read without
 * locks; a new one takes a lock, copies its strings (the code object may be
 * freed later) and decodes its line. Frames are identified by content
 * (qualified name, file, line): the same function at two lines is two
 * frames. In a stack a Python frame is CUPROF_PY_PC | its id. A code object
 * freed and another made at its address is told apart by its stamp: 3.12+
 * its co_version (a serial number), before a hash of its name and file
 * objects and first line.
 * Per thread, a memo (one mmap, freed at the thread's end) keeps what each
 * step of its last walks met: a frame at the same address with the same
 * code object and instruction is taken from it with no check, no table and
 * (3.12+, while the counter co_version comes from has not moved: no code
 * object was made since) no read of the code object; when the native
 * frames and every Python frame are the thread's last stack's, its id is
 * that stack's (no splice, no interning).
 *
 * The splice: each native frame in _PyEval_EvalFrameDefault (its .cold
 * part too, from the ELF symbol table) is replaced by the Python frames
 * that evaluation runs (3.10: one; 3.11: up to the frame marked is_entry;
 * 3.12+: up to the FRAME_OWNED_BY_CSTACK entry frame). The interpreter's
 * other frames (the call machinery, Py_RunMain, ...) are dropped from such a
 * stack; the program's main, C extensions, libffi and the libraries stay.
 * When the native stack does not hold as many evaluation frames as the chain
 * has evaluations (a native walk cut short), the native frames up to the
 * first evaluation frame come first, then all Python frames, then the
 * native frames after the last one.
 *
 * Versions: CPython 3.10, 3.11, 3.12 and 3.13 release builds. Any other
 * (3.14+, a free-threaded 3.13t, a debug build, a layout that fails the
 * checks) gets one "cuprof:" line and native frames only.
 */
#ifndef CUPROF_COLLECTOR_PYFRAMES_H
#define CUPROF_COLLECTOR_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

/* A Python frame in a stack: this bit | its id (1..). Never a return
 * address: those are user-space. */
#define CUPROF_PY_PC ((uintptr_t)1 << 63)

/* 1 once this process's Python is found and its frames can be read: the
 * capture's one check. */
extern int cuprof_py_ready;

/* From cuprof_stacks_init with stacks on: looks for CPython in the process
 * (again later, see cuprof_py_retry, when it is not there yet). enabled: 0
 * when CUPROF_STACKS_PYTHON=0. */
void cuprof_py_init(int enabled);

/* Called by stacks.c when it interned a new stack while no Python was found:
 * looks again now and then (an embedding program may load libpython
 * after its first CUDA call). */
void cuprof_py_retry(void);

/* The splice (stacks.c): native return addresses pcs[0..n) innermost first
 * (the profiler's own frames cut off). Writes the stack to take into out
 * (at most max entries, innermost kept) and returns its length; -1 when
 * the thread runs no Python (take pcs as they are); 0 when it is the same
 * stack as the thread's last one, whose id *same_id gets (the native frames
 * the same, and every Python frame met in the same place with the same code
 * and instruction). Hot path. */
int cuprof_py_splice(const uintptr_t *pcs, int n, uintptr_t *out, int max, uint32_t *same_id);
/* The id the stack cuprof_py_splice wrote last on this thread got. */
void cuprof_py_remember(uint32_t id);

/* Python frame id (pc & ~CUPROF_PY_PC) at exit: its qualified name, file
 * (co_filename) and line (0 unknown); 0 for an unknown id. */
int cuprof_py_frame(uint32_t id, const char **qualname, const char **file, uint32_t *line);

/* Counters for the debug line at exit. */
typedef struct cuprof_py_stats {
    uint64_t dropped;             /* chains that failed a check: native only */
    uint64_t unmatched;           /* evaluation frames and chains not matched */
    uint32_t frames;              /* distinct Python frames */
    uint32_t codes;               /* (code, instruction) pairs cached */
} cuprof_py_stats;
void cuprof_py_stats_get(cuprof_py_stats *out);

/* Line of byte offset addr in a code object's co_linetable, as CPython
 * minor version (10..13) decodes it: -1 for no line. Exposed for the unit
 * test. */
int cuprof_py_addr2line(int minor, const uint8_t *table, size_t len, int firstlineno, int addr);

/* The layout this file reads for 3.minor, as "name offset" lines (the unit
 * test compares them with offsetof against the interpreter's headers):
 * the text's length, -1 for a version it does not read. */
int cuprof_py_layout_text(int minor, char *buf, size_t cap);

/* Fork handlers: the table's lock is never inherited held. */
void cuprof_py_fork_prepare(void);
void cuprof_py_fork_done(int child);

#endif /* CUPROF_COLLECTOR_PYFRAMES_H */
