#!/usr/bin/env python3
"""Writes src/lang/ha_replies.json: what Home Assistant's own agent says after an action, in
every language it ships, taken from the `home-assistant-intents` package pinned with Home
Assistant (its `responses`). HomeClaw speaks these where it has no lexicon of its own (Dutch,
Spanish, Italian, ...), so a person hears their language and the words they know from Home
Assistant. Only plain sentences are kept, with `{{ slots.item }}`-style slots; templates with
logic are left out (HomeClaw then says the intent's plain default, or hands the request to Home
Assistant). The data is the home-assistant/intents project's (CC BY 4.0).

Beside them, two rows from Home Assistant Core's own translations (Apache-2.0), in the same
languages: `services` (what a service is called, "cover.open_cover" → "Openen": the action an
approval question names) and `states` (what a state is called, "cover.closed" → "Gesloten",
"binary_sensor.door.on" → "Open": Home Assistant's agent answers "Nee, die is closed", HomeClaw
says the word the household's own dashboard shows).

    <HA venv>/bin/python scripts/ha/reply-table.py
"""

import json
import re
from importlib.metadata import version
from pathlib import Path

import home_assistant_intents as hai
import homeassistant.components as components

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


# The domains HomeClaw acts on or answers about.
DOMAINS = ["alarm_control_panel", "binary_sensor", "climate", "cover", "fan", "humidifier",
           "input_boolean", "light", "lock", "media_player", "scene", "script", "siren",
           "switch", "vacuum", "valve", "water_heater"]


# The services an approval is likely to hold (HomeClaw's defaults and the usual additions): a
# held service without a name here is named in English.
SERVICES = re.compile(r"^(turn_on|turn_off|toggle|open\w*|close\w*|lock|unlock|alarm_\w+|start|"
                      r"stop|return_to_base|set_temperature|set_hvac_mode|set_cover_position)$")


def core_rows():
    """{tag: {"services": {...}, "states": {...}}} from Home Assistant Core's translations."""
    rows = {}
    root = Path(components.__file__).parent
    for domain in DOMAINS:
        for path in sorted((root / domain / "translations").glob("*.json")):
            tag = path.stem.lower().replace("_", "-")
            doc = json.loads(path.read_text(encoding="utf-8"))
            row = rows.setdefault(tag, {"services": {}, "states": {}})
            for service, text in doc.get("services", {}).items():
                if isinstance(text, dict) and text.get("name") and SERVICES.match(service):
                    row["services"][f"{domain}.{service}"] = text["name"]
            for key, entry in doc.get("entity_component", {}).items():
                prefix = domain if key == "_" else f"{domain}.{key}"
                for state, word in (entry.get("state") or {}).items():
                    if isinstance(word, str) and word:
                        row["states"][f"{prefix}.{state}"] = word
    return rows


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
    core = core_rows()
    for tag, lang in table.items():
        # Intents' "zh-cn" is Core's "zh-hans"; a tag Core lacks keeps only the intents' rows.
        found = core.get(tag) or core.get({"zh-cn": "zh-hans", "zh-tw": "zh-hant",
                                           "zh-hk": "zh-hant"}.get(tag, ""))
        for name, row in (found or {}).items():
            if row:
                lang[name] = row
    out = Path(__file__).resolve().parents[2] / "src" / "lang" / "ha_replies.json"
    doc = {"source": f"home-assistant-intents {version('home-assistant-intents')} responses "
                     "(github.com/home-assistant/intents, CC BY 4.0); services and states from "
                     f"homeassistant {version('homeassistant')} translations (Apache-2.0)",
           "languages": table}
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                   encoding="utf-8")
    print(f"{out}: {len(table)} languages")


if __name__ == "__main__":
    main()
