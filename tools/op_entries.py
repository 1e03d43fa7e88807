#!/usr/bin/env python
"""The profiler entry of every op, written once.

A public op in ``pyad/ops/*.pxi`` is marked with one line above its ``cpdef``/``def``::

    @profiled_op
    cpdef Variable add(object input, object other, object alpha=1):
        \"\"\"...\"\"\"
        ...

(``@profiled_op("linalg_norm")`` reports the op under another name.) Cython has no
decorators on ``cpdef`` functions and no macros, so ``setup.py`` expands the marker
before it compiles: it writes a copy of the engine's sources under
``build/pyad-src/pyad/`` in which the marker line is gone and the op's first statement,
after its docstring, is the one-line entry test::

    if _profiling and _profile_enter(): return _profiled(add, (input, other, alpha, ))

derived from the signature: the positional parameters are the op's inputs (what
``record_shapes`` reports), a ``*args`` parameter adds its tuple, and keyword-only
parameters are passed on by a closure, so the profiler sees the same inputs as the
forward. The body lines keep their line numbers, and Cython records the files under
their usual names (``pyad/ops/shape.pxi``), so tracebacks read as before.

An op that takes ``out=`` (a parameter named ``out``; see ``pyad/ops/_out.pxi``) starts
with the statement ``if out is not None: return _write_out(...)``, which calls the op
again without it; the entry goes after that statement and does not pass ``out`` on, so
the profiler reports the op once, as it would without ``out``.

    python tools/op_entries.py --convert [FILE ...]   # today's written-out prologues
                                                      # -> the marker (the lead's merge)
    python tools/op_entries.py --check                # no written-out prologue left,
                                                      # every marker expands
    python tools/op_entries.py --show FILE            # print the expanded text
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r'^@profiled_op(?:\(\s*"(\w+)"\s*\))?\s*$')
HEADER = re.compile(r"^(?:cpdef|def)\s+(?:[\w.]+\s+)?(\w+)\s*\(")
# The prologue as it was written out by hand (and still may be, for special cases).
# An op's out= line (see expand).
OUT_LINE = re.compile(r"^\s+if out is not None: return \S")
WRITTEN = re.compile(r"^(\s+)if _profiling and _profile_enter\(\):\s*$")
# The engine module and every file it includes: pyad/_engine.pyx, .pxd and each
# pyad/*.pxi (a new include needs no edit here).
SOURCES = ["pyad/_engine.pyx", "pyad/_engine.pxd"] + sorted(
    "pyad/" + f for f in os.listdir(os.path.join(ROOT, "pyad")) if f.endswith(".pxi"))


class EntryError(ValueError):
    pass


def _split_params(text):
    params, depth, cur = [], 0, ""
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += c
    params.append(cur)
    return [p.strip() for p in params if p.strip()]


def _header_end(lines, i):
    """Index of the line that closes the def header starting at lines[i]."""
    depth = 0
    for j in range(i, len(lines)):
        for c in lines[j]:
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
        if depth == 0 and lines[j].rstrip().endswith(":"):
            return j
    raise EntryError("unterminated def at line %d" % (i + 1))


def _signature(lines, i, j):
    text = " ".join(line.strip() for line in lines[i:j + 1])
    name = HEADER.match(text).group(1)
    inner = text[text.index("(") + 1:text.rindex(")")]
    positional, star, keyword = [], None, []
    after_star = False
    for p in _split_params(inner):
        p = p.split("=")[0].strip()
        if p == "*":
            after_star = True
        elif p.startswith("**"):
            raise EntryError("%s: **%s cannot be passed on" % (name, p[2:]))
        elif p.startswith("*"):
            star, after_star = p[1:].strip(), True
        else:
            (keyword if after_star else positional).append(p.split()[-1])
    return name, positional, star, keyword


def entry_call(name, positional, star, keyword, report=None, fn=None):
    """The call that runs the op under the profiler (the part after ``return``)."""
    fn = fn or name
    inputs = "(%s)" % "".join(p + ", " for p in positional) if positional else None
    if star:
        inputs = "%s + %s" % (inputs, star) if inputs else star
    inputs = inputs or "()"
    if keyword:
        params = ", ".join(positional + (["*" + star] if star else []))
        call = ", ".join(positional + (["*" + star] if star else [])
                         + ["%s=%s" % (k, k) for k in keyword])
        return '_profiled_named("%s", lambda %s: %s(%s), %s)' % (
            report or name, params, fn, call, inputs)
    if report:
        return '_profiled_named("%s", %s, %s)' % (report, fn, inputs)
    return "_profiled(%s, %s)" % (fn, inputs)


def _docstring_end(lines, k):
    """Index of the last line of the docstring starting at lines[k], or k - 1 if none."""
    s = lines[k].strip()
    for q in ('"""', "'''"):
        for prefix in ("", "r", "u"):
            if s.startswith(prefix + q):
                rest = s[len(prefix) + 3:]
                if q in rest:
                    return k
                for m in range(k + 1, len(lines)):
                    if q in lines[m]:
                        return m
                raise EntryError("unterminated docstring at line %d" % (k + 1))
    return k - 1


def expand(text, path="<source>"):
    """The source with every marker expanded (same number of lines)."""
    lines = text.split("\n")
    out = list(lines)
    aliases = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        if i + 1 >= len(lines) or not HEADER.match(lines[i + 1]):
            raise EntryError("%s:%d: @profiled_op must be directly above a cpdef/def"
                             % (path, i + 1))
        j = _header_end(lines, i + 1)
        name, positional, star, keyword = _signature(lines, i + 1, j)
        fn = name
        if name in positional or name in keyword or name == star:
            fn = "_profiled_op_" + name         # a parameter hides the op's own name
            aliases.append("cdef object %s = %s" % (fn, name))
        body = j + 1
        while body < len(lines) and not lines[body].strip():
            body += 1
        indent = re.match(r"\s*", lines[body]).group(0)
        d = _docstring_end(lines, body)
        # An op that takes ``out=`` writes its result there by calling itself without
        # it (first statement, one line): the profiler entry goes after that line and
        # does not pass ``out`` on, so the op is reported once, as without ``out``.
        if "out" in positional or "out" in keyword:
            if not OUT_LINE.match(lines[d + 1]):
                raise EntryError("%s:%d: %s takes out= but its first statement is not "
                                 "'if out is not None: return ...'" % (path, d + 2, name))
            d += 1
            depth = lines[d].count("(") - lines[d].count(")")
            while depth > 0:                    # the statement may go on over lines
                d += 1
                depth += lines[d].count("(") - lines[d].count(")")
            positional = [p for p in positional if p != "out"]
            keyword = [k for k in keyword if k != "out"]
        call = entry_call(name, positional, star, keyword, m.group(1), fn)
        # The marker line goes; the entry takes one line after the docstring, so the
        # header and docstring move up one line and the body keeps its line numbers.
        del out[i]
        out.insert(d, "%sif _profiling and _profile_enter(): return %s" % (indent, call))
        lines = out[:]
        i = d + 1
    if aliases:
        out.append("# The ops whose own name a parameter hides (for their profiler entry).")
        out.extend(aliases)
        out.append("")
    return "\n".join(out)


def expanded_tree(dest):
    """Write the engine's sources, markers expanded, under dest/pyad; return the .pyx."""
    names = SOURCES + sorted("pyad/ops/" + f for f in os.listdir(os.path.join(ROOT, "pyad", "ops"))
                             if f.endswith(".pxi"))
    for rel in names + ["pyad/__init__.py"]:
        src = os.path.join(ROOT, rel)
        if rel == "pyad/__init__.py":
            text = ""                           # a package marker for Cython only
        else:
            with open(src, encoding="utf-8") as f:
                text = f.read()
            if rel.endswith(".pxi"):
                text = expand(text, rel)
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        old = None
        if os.path.exists(target):
            with open(target, encoding="utf-8") as f:
                old = f.read()
        if old != text:                         # unchanged files keep their mtime
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
    return os.path.join(dest, "pyad", "_engine.pyx")


def convert(text, path="<source>"):
    """Replace each written-out prologue that the marker reproduces by the marker."""
    lines = text.split("\n")
    i = 0
    n = 0
    while i < len(lines):
        if not HEADER.match(lines[i]):
            i += 1
            continue
        j = _header_end(lines, i)
        name, positional, star, keyword = _signature(lines, i, j)
        body = j + 1
        while body < len(lines) and not lines[body].strip():
            body += 1
        d = _docstring_end(lines, body)
        p = d + 1
        if p >= len(lines) or not WRITTEN.match(lines[p]):
            i = j + 1
            continue
        # the return statement, possibly over several lines
        q = p + 1
        stmt = lines[q].strip()
        while stmt.count("(") != stmt.count(")"):
            q += 1
            stmt += " " + lines[q].strip()
        if not stmt.startswith("return "):
            i = j + 1
            continue
        written = _normal(stmt[len("return "):])
        report = None
        m = re.match(r'_profiled_named\("(\w+)", (\w+),', written)
        if m and m.group(2) == name:
            report = m.group(1)
        fn = name
        if name in positional or name in keyword or name == star:
            fn = None
        candidates = []
        if fn:
            candidates.append(entry_call(name, positional, star, keyword, report))
        lam = re.match(r'_profiled_named\("(\w+)", lambda', written)
        if lam and lam.group(1) != name:
            report = lam.group(1)
            candidates.append(entry_call(name, positional, star, keyword, report))
        if not fn:
            # a parameter hides the name: the written form used an alias
            alias = re.match(r"_profiled\((\w+), ", written)
            if alias:
                candidates.append(entry_call(name, positional, star, keyword, None,
                                             alias.group(1)))
        if not any(_same(written, c) for c in candidates):
            i = j + 1
            continue
        del lines[p:q + 1]
        marker = '@profiled_op("%s")' % report if report and report != name else "@profiled_op"
        lines.insert(i, marker)
        n += 1
        i = j + 2
    return "\n".join(lines), n


def _normal(s):
    s = " ".join(s.split())
    s = s.replace("( ", "(").replace(" )", ")")
    s = re.sub(r",\s*\)", ")", s)
    return s


def _same(written, generated):
    a, b = _normal(written), _normal(generated)
    if a == b:
        return True
    # lambdas: the parameter names do not matter, only what is passed on
    la = re.match(r'_profiled_named\("(\w+)", lambda ([^:]*): (\w+)\((.*)\), (.*)\)$', a)
    lb = re.match(r'_profiled_named\("(\w+)", lambda ([^:]*): (\w+)\((.*)\), (.*)\)$', b)
    if not (la and lb):
        return False
    pa = [x.strip() for x in la.group(2).split(",")]
    pb = [x.strip() for x in lb.group(2).split(",")]
    if len(pa) != len(pb) or la.group(1) != lb.group(1) or la.group(3) != lb.group(3):
        return False
    body = la.group(4)
    for x, y in zip(pa, pb):
        body = re.sub(r"(?<![\w=])%s(?![\w=])" % re.escape(x.lstrip("*")), "\0" + y.lstrip("*"),
                      body)
    body = body.replace("\0", "")
    return (_normal(body) == _normal(lb.group(4))
            and _normal(la.group(5)) == _normal(lb.group(5)))


def _ops_files():
    folder = os.path.join(ROOT, "pyad", "ops")
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".pxi")]


def check():
    """Problems: written-out prologues the marker would reproduce, markers that fail."""
    problems = []
    for path in _ops_files():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, ROOT)
        try:
            expanded = expand(text, rel)
        except EntryError as exc:
            problems.append(str(exc))
            continue
        if expanded.count("\n") - text.count("\n") not in (0,) and "_profiled_op_" not in expanded:
            problems.append("%s: the expansion changed the number of lines" % rel)
        converted, n = convert(text, rel)
        if n:
            problems.append("%s: %d written-out op prologue(s); run python tools/op_entries.py "
                            "--convert" % (rel, n))
    return problems


def main(argv):
    if argv[:1] == ["--convert"]:
        paths = argv[1:] or _ops_files()
        for path in paths:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            new, n = convert(text, path)
            if n:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
            print("%s: %d prologue(s) converted" % (os.path.relpath(path, ROOT), n))
        return 0
    if argv[:1] == ["--check"]:
        problems = check()
        for p in problems:
            print(p)
        return 1 if problems else 0
    if argv[:1] == ["--show"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8") as f:
            sys.stdout.write(expand(f.read(), argv[1]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
