#!/usr/bin/env python3
"""Writes src/lang/ha_replies.json: what Home Assistant's own agent says after an action, in
every language it ships, taken from the `home-assistant-intents` package pinned with Home
Assistant (its `responses`). HomeClaw speaks these where it has no lexicon of its own (Dutch,
Spanish, Italian, ...), so a person hears their language and the words they know from Home
Assistant. Only plain sentences are kept, with `{{ slots.item }}`-style slots; templates with
logic are left out (HomeClaw then says the intent's plain default, or hands the request to Home
Assistant). The data is the home-assistant/intents project's (CC BY 4.0).

    <HA venv>/bin/python scripts/ha/reply-table.py
"""

import json
import re
from importlib.metadata import version
from pathlib import Path

import home_assistant_intents as hai

INTENTS = {
    "HassTurnOn": None, "HassTurnOff": None, "HassLightSet": None,
    "HassClimateSetTemperature": None, "HassSetPosition": None, "HassMediaPause": None,
    "HassMediaUnpause": None, "HassMediaNext": None, "HassMediaPrevious": None,
    "HassSetVolume": None, "HassVacuumStart": None, "HassVacuumReturnToBase": None,
    "HassListAddItem": None, "HassListCompleteItem": None, "HassFanSetSpeed": None,
}
ERRORS = ["handle_error", "no_intent", "no_entity"]
SLOT = re.compile(r"\{\{\s*(?:slots\.)?(\w+)(\s*\|\s*capitalize)?\s*\}\}")


# `{{ 'graad' if (slots.temperature | float) == 1 else 'graden' }}`: a word chosen by a
# number; HomeClaw says the general form (the `else`), as a temperature is rarely exactly 1.
CHOICE = re.compile(r"\{\{\s*'([^']*)'\s+if\s+[^{}]*?\s+else\s+'([^']*)'\s*\}\}")


def plain(text):
    """The sentence with its slots as `{item}`, or None where it has template logic."""
    if not isinstance(text, str) or "{%" in text:
        return None
    text = CHOICE.sub(lambda m: m.group(2), text)
    text = SLOT.sub(lambda m: "{" + m.group(1) + ("|capitalize" if m.group(2) else "") + "}", text)
    if "{{" in text:
        return None
    return " ".join(text.split())


def main():
    data_dir = Path(hai.__file__).parent / "data"
    table = {}
    for path in sorted(data_dir.glob("*.json")):
        responses = json.loads(path.read_text(encoding="utf-8")).get("responses", {})
        lang = {}
        for intent in INTENTS:
            kept = {k: p for k, v in responses.get("intents", {}).get(intent, {}).items()
                    if (p := plain(v))}
            if kept:
                lang[intent] = kept
        errors = {k: p for k in ERRORS if (p := plain(responses.get("errors", {}).get(k)))}
        if errors:
            lang["errors"] = errors
        table[path.stem.lower()] = lang
    out = Path(__file__).resolve().parents[2] / "src" / "lang" / "ha_replies.json"
    doc = {"source": f"home-assistant-intents {version('home-assistant-intents')} responses "
                     "(github.com/home-assistant/intents, CC BY 4.0)", "languages": table}
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                   encoding="utf-8")
    print(f"{out}: {len(table)} languages")


if __name__ == "__main__":
    main()
