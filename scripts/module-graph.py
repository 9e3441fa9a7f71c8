#!/usr/bin/env python3
"""The library's module import graph, from its `use` paths (`crate::…`, `super::…`).

Prints one line per module with what it imports, then checks the two rules of
docs/architecture.md and exits non-zero when one is broken:
  1. no cycle, between top-level modules or between the files of one module;
  2. no transport (api, mqtt, wyoming) imports another transport.
Test modules (`#[cfg(test)] mod tests { … }` and `*_tests.rs`) are left out: tests may reach
anywhere. Usage: scripts/module-graph.py [--quiet]
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
TRANSPORTS = {"api", "mqtt", "notify", "wyoming"}
MODULES = set()


def module_files():
    for dirpath, _, files in os.walk(ROOT):
        rel_dir = os.path.relpath(dirpath, ROOT)
        if rel_dir.split(os.sep)[0] == "bin":
            continue
        for name in files:
            if (
                not name.endswith(".rs")
                or name in ("lib.rs", "main.rs", "tests.rs")
                or name.endswith("_tests.rs")
            ):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, name[:-3]))
            parts = [p for p in rel.split(os.sep) if p != "."]
            if parts[-1] == "mod":
                parts = parts[:-1]
            yield "::".join(parts), os.path.join(dirpath, name)


def strip_tests(text):
    cut = re.search(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)
    text = text[: cut.start()] if cut else text
    # Comments (doc links included) are not imports.
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def paths_in(text):
    """Every path in a `use` item or an inline `crate::`/`super::` path, groups expanded."""
    out = []
    for item in re.findall(r"\buse\s+([^;]+);", text):
        out.extend(expand(re.sub(r"\s+", "", item)))
    out.extend(re.findall(r"(?<![\w:])((?:crate|super)(?:::\w+)+)", text))
    return out


def expand(item):
    m = re.match(r"^(.*?)\{(.*)\}$", item)
    if not m:
        return [item]
    prefix, inner = m.groups()
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    return [x for p in parts if p for x in expand(prefix + p)]


def resolve(path, module):
    """The longest known module a `crate::`/`super::` path names (`super` is the parent of the
    file's module, for `mod.rs` and `name.rs` alike)."""
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] == "super":
        base = module.split("::")[:-1]
        segs = segs[1:]
        while segs and segs[0] == "super":
            base, segs = base[:-1], segs[1:]
    else:
        return None
    best = None
    for i in range(len(segs) + 1):
        cand = "::".join(base + segs[:i])
        if cand in MODULES:
            best = cand
    return best


def cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def main():
    quiet = "--quiet" in sys.argv
    files = dict(module_files())
    MODULES.update(files)
    MODULES.update(m.split("::")[0] for m in files)
    graph = {}
    for module, path in files.items():
        text = strip_tests(open(path, encoding="utf-8").read())
        deps = set()
        for p in paths_in(text):
            target = resolve(p, module)
            if target and target != module and not module.startswith(target + "::"):
                deps.add(target)
        graph[module] = deps
    top = {}
    for module, deps in graph.items():
        t = module.split("::")[0]
        top.setdefault(t, set()).update(d.split("::")[0] for d in deps if d.split("::")[0] != t)
    if not quiet:
        for t in sorted(top):
            print(f"{t} -> {', '.join(sorted(top[t])) or '(nothing)'}")
    problems = []
    for comp in cycles(top):
        problems.append("cycle between modules: " + " -> ".join(comp))
    inner = {m: {d for d in deps if d.split("::")[0] == m.split("::")[0]} for m, deps in graph.items()}
    for comp in cycles(inner):
        problems.append("cycle between files: " + " -> ".join(comp))
    for t in sorted(TRANSPORTS):
        for other in sorted(top.get(t, set()) & TRANSPORTS):
            problems.append(f"transport {t} imports transport {other}")
    for p in problems:
        print("module graph:", p, file=sys.stderr)
    if not problems and not quiet:
        print("module graph: no cycle, no transport importing another")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
