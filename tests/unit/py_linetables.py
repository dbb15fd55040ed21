"""For test_pyframes.c: code objects of the standard library with the line
of each code unit, as the interpreter running this script says
(co_lines(): PyCode_Addr2Line's ranges). One line per code object:
FIRSTLINENO TABLE_HEX LINE0 LINE1 ... (-1: no line), at most N objects
(argv[1])."""
import os
import sys
import sysconfig

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
lib = sysconfig.get_paths()["stdlib"]
names = sorted(n for n in os.listdir(lib) if n.endswith(".py"))
seen = 0


def walk(code):
    global seen
    if seen >= limit:
        return
    units = len(code.co_code) // 2
    lines = [-1] * units
    for start, end, line in code.co_lines():
        for i in range(start // 2, min(end // 2, units)):
            lines[i] = -1 if line is None else line
    print(code.co_firstlineno, code.co_linetable.hex() or "-", *lines)
    seen += 1
    for c in code.co_consts:
        if hasattr(c, "co_lines"):
            walk(c)


for n in names:
    try:
        with open(os.path.join(lib, n), "rb") as f:
            walk(compile(f.read(), n, "exec"))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        continue
    if seen >= limit:
        break
