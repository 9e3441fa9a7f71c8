#!/usr/bin/env python3
"""Checks the dependency tree against deny.toml, offline: licences, banned crates, and crates
in more than one version. Reads `cargo metadata --locked --offline` for each target of
`[graph].targets` (what the add-on's images and this machine build), follows normal and build
dependencies from the package (dev-dependencies never ship), and prints one line per finding.
Exits 1 on a finding, 2 when deny.toml or cargo cannot be read. Understands the part of
cargo-deny's format deny.toml uses: `crate = "name"` or `"name@<requirement>"` in
`bans.deny` and `bans.skip`, SPDX expressions with OR, AND, WITH and parentheses.
Usage: scripts/deps-check.py [--verbose]
"""
import json
import os
import re
import subprocess
import sys
import tomllib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def version_tuple(text):
    parts = re.findall(r"\d+", text.split("-")[0].split("+")[0])
    return tuple(int(p) for p in parts[:3]) + (0,) * (3 - min(3, len(parts)))


def matches(version, requirement):
    """A Cargo-style requirement: `<x`, `<=x`, `>x`, `>=x`, `=x` or a bare prefix `0.2`."""
    if not requirement:
        return True
    m = re.match(r"^(<=|>=|<|>|=)?\s*(.+)$", requirement.strip())
    op, want = m.group(1) or "", m.group(2)
    have = version_tuple(version)
    if not op:
        prefix = tuple(int(p) for p in want.split("."))
        return have[: len(prefix)] == prefix
    target = version_tuple(want)
    return {
        "<": have < target,
        "<=": have <= target,
        ">": have > target,
        ">=": have >= target,
        "=": have == target,
    }[op]


def spec(entry):
    text = entry["crate"]
    name, _, requirement = text.partition("@")
    return name, requirement


def tokens(expression):
    return re.findall(r"\(|\)|[A-Za-z0-9.\-+]+", expression.replace("/", " OR "))


def licence_ok(expression, allowed):
    """Whether the SPDX expression can be satisfied with allowed licences only."""
    toks = tokens(expression)
    pos = 0

    def atom():
        nonlocal pos
        if toks[pos] == "(":
            pos += 1
            value = disjunction()
            pos += 1  # ")"
            return value
        name = toks[pos]
        pos += 1
        if pos < len(toks) and toks[pos] == "WITH":
            name = f"{name} WITH {toks[pos + 1]}"
            pos += 2
        return name in allowed

    def conjunction():
        nonlocal pos
        value = atom()
        while pos < len(toks) and toks[pos] == "AND":
            pos += 1
            value = atom() and value
        return value

    def disjunction():
        nonlocal pos
        value = conjunction()
        while pos < len(toks) and toks[pos] == "OR":
            pos += 1
            value = conjunction() or value
        return value

    return bool(toks) and disjunction()


def metadata(target):
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked", "--offline",
         "--filter-platform", target],
        cwd=ROOT, capture_output=True, text=True,
    )
    if out.returncode != 0:
        print(f"deps-check: cargo metadata failed for {target}:\n{out.stderr}", file=sys.stderr)
        sys.exit(2)
    return json.loads(out.stdout)


def shipped(meta):
    """Packages reached from the workspace by normal and build dependencies."""
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    seen, todo = set(), list(meta["workspace_members"])
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        for dep in nodes[pid]["deps"]:
            kinds = {k["kind"] for k in dep["dep_kinds"]}
            if kinds & {None, "build"}:
                todo.append(dep["pkg"])
    packages = {p["id"]: p for p in meta["packages"]}
    return [packages[i] for i in seen if i not in meta["workspace_members"]]


def main():
    verbose = "--verbose" in sys.argv
    try:
        with open(os.path.join(ROOT, "deny.toml"), "rb") as f:
            policy = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"deps-check: cannot read deny.toml: {e}", file=sys.stderr)
        return 2
    allowed = set(policy["licenses"]["allow"])
    bans = [spec(e) + (e.get("reason", ""),) for e in policy["bans"].get("deny", [])]
    skips = [spec(e) for e in policy["bans"].get("skip", [])]
    findings, used_skips, count = [], set(), 0
    for target in policy["graph"]["targets"]:
        packages = shipped(metadata(target))
        count = max(count, len(packages))
        versions = {}
        for p in packages:
            name, version = p["name"], p["version"]
            versions.setdefault(name, set()).add(version)
            licence = p.get("license")
            if not licence:
                findings.append(f"{name} {version}: no SPDX licence expression")
            elif not licence_ok(licence, allowed):
                findings.append(f"{name} {version}: licence {licence!r} is not allowed")
            for ban, requirement, reason in bans:
                if name == ban and matches(version, requirement):
                    findings.append(f"{name} {version} is banned ({target}): {reason}")
        for name, found in sorted(versions.items()):
            if len(found) < 2:
                continue
            extra = []
            for version in found:
                allowed_by = [(s, r) for s, r in skips if s == name and matches(version, r)]
                used_skips.update(allowed_by)
                if not allowed_by:
                    extra.append(version)
            # One version may be the tree's own; every other one needs its reason in deny.toml.
            if len(extra) > 1:
                findings.append(f"{name} in {len(found)} versions ({', '.join(sorted(found))}) for {target}")
    for name, requirement in skips:
        if (name, requirement) not in used_skips:
            findings.append(f"deny.toml skips {name}@{requirement}, which is no longer duplicated: remove it")
    for line in sorted(set(findings)):
        print(f"deps-check: {line}")
    if verbose or not findings:
        print(f"deps-check: {count} crates shipped, {len(allowed)} licences allowed, "
              f"{len(bans)} bans, {len(skips)} duplicates allowed: "
              f"{'ok' if not findings else f'{len(set(findings))} findings'}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
