#!/usr/bin/env python3
"""Writes HomeClaw's task set for the room a person speaks in (issue 46): six homes (en, de,
pl, fr, nl, es; the same homes as eval/languages, plus a voice satellite in the bedroom, the
kitchen, the office and the living room) and ten sentences each, every one said to a
satellite, in the Home LLM Leaderboard's task format, so that
`homeclaw-bench assist --dataset eval/rooms --agent both` measures both agents on it.

How the sentences were written: by hand, by the HomeClaw team, before the agent change of
issue 46, without looking at Home Assistant's test files. The ten acts are the four ways a
person leans on the room they are in: "here" said outright ("turn off all the lights in
here", "close the blinds in this room"), no room named at all ("turn on the light"), another
room named while standing elsewhere ("turn on the light in the kitchen" said in the bedroom),
and "here" where the room has no such device ("turn on the fan in here" in the bedroom, whose
fan is in the living room: nothing may change). Every act lists what must change; the scorer
fails a task in which anything else changed, so an action outside the room the words or the
satellite name is always a failure.

    python3 eval/rooms/make.py     # rewrites eval/rooms/<lang>-home/
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("languages", HERE.parent / "languages" / "make.py")
languages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(languages)

LANGS = languages.LANGS
NAMES = languages.NAMES
entity_id = languages.entity_id
yaml_str = languages.yaml_str
ON, OFF = languages.ON, languages.OFF
LIGHT_IGNORE = languages.LIGHT_IGNORE
LIGHTS = ["kitchen_light", "floor_lamp", "bedside", "desk"]

# The satellites: device id → area key.
SATELLITES = {"sat_bedroom": "bedroom", "sat_kitchen": "kitchen", "sat_office": "office",
              "sat_living": "living"}


def lights(on: list[str]) -> dict:
    """Every light set: those in `on` on, the rest off."""
    return {k: (ON if k in on else OFF) for k in LIGHTS}


IGNORE_LIGHTS = {k: LIGHT_IGNORE for k in LIGHTS}

# act: (category, satellite, setup {key: spec}, expect_changes {key: spec}, ignore, sentences)
ACTS = [
    # "Here", every light of the kind: the bedroom's only.
    ("light", "sat_bedroom", lights(LIGHTS), {"bedside": OFF}, IGNORE_LIGHTS,
     dict(en="Turn off all the lights in here", de="Mach hier alle Lichter aus",
          pl="Zgaś wszystkie światła tutaj", fr="Éteins toutes les lumières ici",
          nl="Doe hier alle lichten uit", es="Apaga todas las luces aquí")),
    # No room named: the satellite's room.
    ("light", "sat_office", lights([]), {"desk": ON}, IGNORE_LIGHTS,
     dict(en="Turn on the light", de="Mach das Licht an", pl="Włącz światło",
          fr="Allume la lumière", nl="Doe het licht aan", es="Enciende la luz")),
    # "Here" with a value: the living room's lamp.
    ("light", "sat_living", lights(["floor_lamp"]),
     {"floor_lamp": {"state": "on", "attributes": {"brightness": 128}}},
     {"floor_lamp": ["color_mode", "hs_color", "rgb_color", "xy_color"],
      **{k: LIGHT_IGNORE for k in LIGHTS if k != "floor_lamp"}},
     dict(en="Set the brightness in here to 50 percent",
          de="Stell die Helligkeit hier auf 50 Prozent",
          pl="Ustaw jasność w tym pokoju na 50 procent",
          fr="Mets la luminosité ici à 50 pour cent",
          nl="Zet de helderheid hier op 50 procent", es="Pon el brillo aquí al 50 por ciento")),
    # "This room": the bedroom's blinds.
    ("cover", "sat_bedroom", {"blinds": {"state": "open", "attributes": {"current_position": 100}}},
     {"blinds": {"state": "closed", "attributes": {"current_position": 0}}}, {},
     dict(en="Close the blinds in this room", de="Schließ die Jalousien in diesem Raum",
          pl="Zasłoń rolety w tym pokoju", fr="Ferme les stores dans cette pièce",
          nl="Doe de jaloezieën in deze kamer dicht",
          es="Cierra las persianas en esta habitación")),
    # "Here" where the room has none: the living room's fan stays off.
    ("fan", "sat_bedroom", {"fan": OFF}, {}, {"fan": ["percentage"]},
     dict(en="Turn on the fan in here", de="Mach hier den Ventilator an",
          pl="Włącz tutaj wentylator", fr="Allume le ventilateur ici",
          nl="Zet de ventilator hier aan", es="Enciende el ventilador aquí")),
    # Another room named, said in the bedroom: the kitchen's light, not the bedroom's.
    ("light", "sat_bedroom", lights([]), {"kitchen_light": ON}, IGNORE_LIGHTS,
     dict(en="Turn on the light in the kitchen", de="Mach das Licht in der Küche an",
          pl="Włącz światło w kuchni", fr="Allume la lumière de la cuisine",
          nl="Doe het licht in de keuken aan", es="Enciende la luz de la cocina")),
    # "Here" for the thermostat in the living room.
    ("climate", "sat_living", {"thermostat": {"state": "heat", "attributes": {"target_temperature": 20}}},
     {"thermostat": {"state": "heat", "attributes": {"temperature": 22}}}, {},
     dict(en="Set the temperature in here to 22 degrees",
          de="Stell die Temperatur hier auf 22 Grad",
          pl="Ustaw tutaj temperaturę na 22 stopnie",
          fr="Règle la température ici à 22 degrés",
          nl="Zet de temperatuur hier op 22 graden", es="Pon la temperatura aquí a 22 grados")),
    # No room named, every light on: the kitchen's goes off, no other.
    ("light", "sat_kitchen", lights(LIGHTS), {"kitchen_light": OFF}, IGNORE_LIGHTS,
     dict(en="Turn off the light", de="Mach das Licht aus", pl="Wyłącz światło",
          fr="Éteins la lumière", nl="Doe het licht uit", es="Apaga la luz")),
    # "This room", plural: the office's lamp.
    ("light", "sat_office", lights(LIGHTS), {"desk": OFF}, IGNORE_LIGHTS,
     dict(en="Switch off the lights in this room", de="Schalte das Licht in diesem Raum aus",
          pl="Wyłącz światła w tym pomieszczeniu", fr="Éteins les lumières dans cette pièce",
          nl="Doe de lichten in deze kamer uit", es="Apaga las luces en esta habitación")),
    # "Here" for the player in the living room.
    ("media", "sat_living", {"speaker": {"state": "playing", "attributes": {"volume_level": 0.2}}},
     {"speaker": {"state": "playing", "attributes": {"volume_level": 0.3}}}, {},
     dict(en="Set the volume in here to 30 percent", de="Stell die Lautstärke hier auf 30 Prozent",
          pl="Ustaw tutaj głośność na 30 procent", fr="Mets le volume ici à 30 pour cent",
          nl="Zet het volume hier op 30 procent", es="Pon el volumen aquí al 30 por ciento")),
]


def fixture(lang: str) -> str:
    """The languages set's home, with a satellite in four rooms."""
    text = languages.fixture(lang).replace(
        "# Written by eval/languages/make.py", "# Written by eval/rooms/make.py")
    n = NAMES[lang]
    extra = []
    for device, area in SATELLITES.items():
        extra += [f"  - name: {yaml_str(n['satellite'] + ' ' + n[area])}", f"    id: {device}",
                  f"    area: {area}"]
    marker = "devices:\n"
    return text.replace(marker, marker + "\n".join(extra) + "\n", 1)


def tasks(lang: str) -> dict[str, str]:
    files: dict[str, list[str]] = {}
    for category, device, setup, expect, ignore, sentences in ACTS:
        ids = lambda specs: {entity_id(lang, k): v for k, v in specs.items()}
        lines = [f"  - sentences: [{yaml_str(sentences[lang])}]",
                 f"    context_device: {device}",
                 f"    setup: {yaml_str(ids(setup))}",
                 f"    expect_changes: {yaml_str(ids(expect))}"]
        if ignore:
            lines.append(f"    ignore_changes: {yaml_str(ids(ignore))}")
        files.setdefault(category, []).extend(lines)
    return {c: "# Written by eval/rooms/make.py: do not edit by hand.\n---\n"
               f"category: {c}\ntests:\n" + "\n".join(lines) + "\n"
            for c, lines in files.items()}


def main() -> None:
    assert len(ACTS) == 10, len(ACTS)
    languages.write_homes(HERE, fixture, tasks)
    print(f"{len(LANGS)} homes, {len(ACTS)} sentences each")


if __name__ == "__main__":
    main()
