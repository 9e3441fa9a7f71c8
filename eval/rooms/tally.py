#!/usr/bin/env python3
"""Tallies a run of eval/rooms (`homeclaw-bench assist --json FILE`) per language and agent:
sentences right, answered without the model, and actions outside the room — a failed run whose
reason names an entity the task did not ask to change (the scorer lists every entity that
differs from what was expected; one that was expected to stay as set up and did not is a device
the words and the satellite did not name).

    python3 eval/rooms/tally.py run.jsonl
"""
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def expected(lang: str, category: str, index: int) -> set[str]:
    """The entities task `index` of `category` in `lang`'s home asks to change."""
    text = (HERE / f"{lang}-home" / f"{category}.yaml").read_text(encoding="utf-8")
    blocks = text.split("  - sentences:")[1:]
    line = next(l for l in blocks[index].splitlines() if "expect_changes:" in l)
    return set(json.loads(line.split("expect_changes:", 1)[1]))


def main(path: str) -> None:
    rows = [json.loads(l) for l in open(path, encoding="utf-8")]
    table = defaultdict(lambda: {"n": 0, "pass": 0, "no_model": 0, "outside": []})
    for r in rows:
        lang = r["task"].split("-home/")[0]
        category, rest = r["task"].split("/", 1)[1].split("#")
        index = int(rest.split(".")[0])
        t = table[(lang, r["agent"])]
        t["n"] += 1
        t["pass"] += bool(r["pass"])
        t["no_model"] += (r.get("llm_requests") or 0) == 0
        if not r["pass"]:
            named = set(re.findall(r"([a-z_]+\.[a-z0-9_]+) [a-z_]+: expected", r["reason"] or ""))
            outside = named - expected(lang, category, index)
            if outside:
                t["outside"].append((r["sentence"], sorted(outside), r["reply"]))
    for (lang, agent), t in sorted(table.items()):
        print(f"{lang} {agent:12} {t['pass']}/{t['n']} without the model {t['no_model']} "
              f"outside the room {len(t['outside'])}")
        for sentence, ids, reply in t["outside"]:
            print(f"    {sentence!r} -> {', '.join(ids)} | {reply}")
    for agent in sorted({a for _, a in table}):
        rows_a = [t for (_, a), t in table.items() if a == agent]
        print(f"all {agent:12} {sum(t['pass'] for t in rows_a)}/{sum(t['n'] for t in rows_a)} "
              f"without the model {sum(t['no_model'] for t in rows_a)} "
              f"outside the room {sum(len(t['outside']) for t in rows_a)}")


if __name__ == "__main__":
    main(sys.argv[1])
