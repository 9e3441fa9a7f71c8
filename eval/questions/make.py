#!/usr/bin/env python3
"""Writes HomeClaw's own set of questions about the household (issue 48): four homes (en, de,
pl, fr; the homes of eval/languages, plus a personal calendar, a task list, a shopping list
with items, a leak sensor's battery and the garden's sprinklers) and eleven questions each, in
the Home LLM Leaderboard's task format, so that
`SETS=eval/questions scripts/bench-assist.sh --agent homeclaw` measures HomeClaw on it.

How the questions were written: by hand, by the HomeClaw team, before the model-path work of
issue 48, without looking at upstream's question sets beyond their format. They are the
questions a household asks of its calendar, its lists and its garden — who, when, what is on,
what is left to do — said as people say them in each language, not as the entities are named
("the sink sensor", "the sprinklers"). Each names the words one of which the answer must hold
(the home holds the answer); nothing may change. An answer the model words itself is scored
like any other here; the run's trace says which path answered.

    python3 eval/questions/make.py     # rewrites eval/questions/<lang>-home/
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("languages", HERE.parent / "languages" / "make.py")
languages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(languages)

LANGS = ["en", "de", "pl", "fr"]
yaml_str = languages.yaml_str

# The household's things, per language: the calendar, the lists, the sensor, the sprinklers.
NAMES = {
    "en": dict(calendar="Personal", tasks="Tasks", sink_battery="Sink Sensor Battery",
               sprinklers="Sprinklers"),
    "de": dict(calendar="Persönlich", tasks="Aufgaben", sink_battery="Spülensensor Batterie",
               sprinklers="Rasensprenger"),
    "pl": dict(calendar="Osobisty", tasks="Zadania", sink_battery="Bateria czujnika zlewu",
               sprinklers="Zraszacze"),
    "fr": dict(calendar="Personnel", tasks="Tâches", sink_battery="Batterie capteur évier",
               sprinklers="Arrosage"),
}
IDS = dict(calendar="calendar.personal", tasks="todo.tasks",
           sink_battery="sensor.sink_sensor_battery", sprinklers="switch.sprinklers")

# What the household wrote, per language.
WORDS = {
    "en": dict(dentist="Dentist", dinner="Dinner with Liza", piano="Piano lesson",
               guests="Tom and Anna visiting", call="Call Liza",
               repair="Repair the terrace light", milk="Milk", eggs="Eggs", bread="Bread"),
    "de": dict(dentist="Zahnarzt", dinner="Abendessen mit Liza", piano="Klavierstunde",
               guests="Besuch von Tom und Anna", call="Liza anrufen",
               repair="Terrassenlicht reparieren", milk="Milch", eggs="Eier", bread="Brot"),
    "pl": dict(dentist="Dentysta", dinner="Kolacja z Lizą", piano="Lekcja pianina",
               guests="Wizyta Toma i Anny", call="Zadzwonić do Lizy",
               repair="Naprawić lampę na tarasie", milk="Mleko", eggs="Jajka", bread="Chleb"),
    "fr": dict(dentist="Dentiste", dinner="Dîner avec Liza", piano="Cours de piano",
               guests="Visite de Tom et Anna", call="Appeler Liza",
               repair="Réparer la lampe de la terrasse", milk="Lait", eggs="Œufs", bread="Pain"),
}

# The moment every question is asked: a Thursday morning.
NOW = "2026-04-02 08:30+02:00"


def calendar(lang: str) -> dict:
    w = WORDS[lang]
    events = [
        dict(summary=w["dentist"], start="2026-04-02 11:00+02:00", end="2026-04-02 11:45+02:00"),
        dict(summary=w["dinner"], location="Trattoria Roma", start="2026-04-02 19:00+02:00",
             end="2026-04-02 21:00+02:00"),
        dict(summary=w["piano"], start="2026-04-03 17:00+02:00", end="2026-04-03 18:00+02:00"),
        dict(summary=w["guests"], start="2026-04-04 15:00+02:00", end="2026-04-05 12:00+02:00"),
    ]
    return {"attributes": {"events": events}}


def tasks_list(lang: str) -> dict:
    w = WORDS[lang]
    return {"attributes": {"todo_items": [
        {"summary": w["call"], "status": "needs_action"},
        {"summary": w["repair"], "status": "needs_action"}]}}


def shopping(lang: str) -> dict:
    w = WORDS[lang]
    return {"attributes": {"todo_items": [
        {"summary": w[k], "status": "needs_action"} for k in ("milk", "eggs", "bread")]}}


YES = dict(en="yes", de="ja", pl="tak", fr="oui")

# act: (category, setup per language, expected words per language, sentences)
ACTS = [
    ("calendar", lambda l: {"calendar": calendar(l)},
     dict(en=["dentist", "Liza"], de=["Zahnarzt", "Liza"], pl=["dentyst", "Liz"],
          fr=["dentiste", "Liza"]),
     dict(en="What's on my calendar today?", de="Was steht heute in meinem Kalender?",
          pl="Co mam dziś w kalendarzu?", fr="Qu'est-ce que j'ai dans mon agenda aujourd'hui ?")),
    ("calendar", lambda l: {"calendar": calendar(l)}, {l: ["Liza", "Lizą"] for l in LANGS},
     dict(en="Who am I having dinner with tonight?", de="Mit wem esse ich heute Abend?",
          pl="Z kim jem dziś kolację?", fr="Avec qui je dîne ce soir ?")),
    ("calendar", lambda l: {"calendar": calendar(l)},
     dict(en=["piano"], de=["Klavier"], pl=["pianin"], fr=["piano"]),
     dict(en="What do I have on tomorrow?", de="Was habe ich morgen vor?", pl="Co mam jutro?",
          fr="Qu'est-ce que j'ai demain ?")),
    ("calendar", lambda l: {"calendar": calendar(l)}, {l: ["Tom", "Anna", "Anny"] for l in LANGS},
     dict(en="Are we expecting any guests this week?", de="Bekommen wir diese Woche Besuch?",
          pl="Czy spodziewamy się gości w tym tygodniu?",
          fr="Est-ce qu'on attend des invités cette semaine ?")),
    ("calendar", lambda l: {"calendar": calendar(l)}, {l: ["11"] for l in LANGS},
     dict(en="What time is the dentist?", de="Um wie viel Uhr ist der Zahnarzt?",
          pl="O której jest dentysta?", fr="À quelle heure est le dentiste ?")),
    ("todo", lambda l: {"tasks": tasks_list(l)},
     dict(en=["terrace"], de=["Terrasse"], pl=["taras"], fr=["terrasse"]),
     dict(en="What needs fixing around the house?", de="Was muss im Haus repariert werden?",
          pl="Co trzeba naprawić w domu?", fr="Qu'est-ce qu'il faut réparer dans la maison ?")),
    ("todo", lambda l: {"tasks": tasks_list(l)}, {l: ["Liza", "Lizy"] for l in LANGS},
     dict(en="Who do I need to call?", de="Wen muss ich anrufen?", pl="Do kogo muszę zadzwonić?",
          fr="Qui dois-je appeler ?")),
    ("todo", lambda l: {"todo": shopping(l)},
     dict(en=["milk"], de=["Milch"], pl=["mleko"], fr=["lait"]),
     dict(en="What's on the shopping list?", de="Was steht auf der Einkaufsliste?",
          pl="Co jest na liście zakupów?", fr="Qu'y a-t-il sur la liste de courses ?")),
    ("todo", lambda l: {"todo": shopping(l)},
     dict(en=["3", "three"], de=["3", "drei"], pl=["3", "trzy"], fr=["3", "trois"]),
     dict(en="How many things are on the shopping list?",
          de="Wie viele Sachen stehen auf der Einkaufsliste?",
          pl="Ile rzeczy jest na liście zakupów?", fr="Combien d'articles sur la liste de courses ?")),
    ("sensor", lambda l: {"sink_battery": {"state": "12"}}, {l: [YES[l], "12"] for l in LANGS},
     dict(en="Is the sink sensor battery low?", de="Ist die Batterie vom Spülensensor schwach?",
          pl="Czy bateria czujnika zlewu jest słaba?",
          fr="Est-ce que la batterie du capteur de l'évier est faible ?")),
    ("switch", lambda l: {"sprinklers": {"state": "on"}},
     dict(en=["yes", "is on", "running"], de=["ja", "ist an", "läuft", "laufen"],
          pl=["tak", "włączon"], fr=["oui", "allumé", "en marche"]),
     dict(en="Are the sprinklers running?", de="Laufen die Rasensprenger?",
          pl="Czy zraszacze są włączone?", fr="Est-ce que l'arrosage est en marche ?")),
]


def entity_id(lang: str, key: str) -> str:
    return IDS.get(key) or languages.entity_id(lang, key)


def fixture(lang: str) -> str:
    """The languages set's home, with the household's calendar, lists, sensor and sprinklers."""
    text = languages.fixture(lang).replace(
        "# Written by eval/languages/make.py", "# Written by eval/questions/make.py")
    n = NAMES[lang]
    devices = [f"  - name: {yaml_str(n['calendar'])}", "    id: calendar",
               f"  - name: {yaml_str(n['tasks'])}", "    id: tasks",
               f"  - name: {yaml_str(n['sink_battery'])}", "    id: sink_sensor",
               "    area: kitchen",
               f"  - name: {yaml_str(n['sprinklers'])}", "    id: sprinklers"]
    text = text.replace("devices:\n", "devices:\n" + "\n".join(devices) + "\n", 1)
    entities = [
        (n["calendar"], IDS["calendar"], "calendar", None, None,
         {"supported_features": ["calendar.CalendarEntityFeature.CREATE_EVENT"]}),
        (n["tasks"], IDS["tasks"], "tasks", None, None,
         {"supported_features": languages.FEATURES["todo"], "todo_items": []}),
        (n["sink_battery"], IDS["sink_battery"], "sink_sensor", "kitchen", "80",
         {"device_class": "sensor.SensorDeviceClass.BATTERY", "state_class": "measurement",
          "native_unit_of_measurement": "%"}),
        (n["sprinklers"], IDS["sprinklers"], "sprinklers", None, "off", {}),
    ]
    out = []
    for name, eid, device, area, state, attributes in entities:
        out += [f"  - name: {yaml_str(name)}", f"    id: {eid}", f"    device: {device}"]
        if area:
            out.append(f"    area: {area}")
        if state is not None:
            out.append(f"    state: {yaml_str(state)}")
        out.append(f"    attributes: {yaml_str(attributes)}")
    return text + "\n".join(out) + "\n"


def tasks(lang: str) -> dict[str, str]:
    files: dict[str, list[str]] = {}
    for category, setup, response, sentences in ACTS:
        ids = {entity_id(lang, k): v for k, v in setup(lang).items()}
        lines = [f"  - sentences: [{yaml_str(sentences[lang])}]",
                 f"    context_now: {NOW}",
                 f"    setup: {yaml_str(ids)}",
                 f"    expect_response: {yaml_str(response[lang])}"]
        files.setdefault(category, []).extend(lines)
    return {c: "# Written by eval/questions/make.py: do not edit by hand.\n---\n"
               f"category: [{c}, question]\ntests:\n" + "\n".join(lines) + "\n"
            for c, lines in files.items()}


def main() -> None:
    assert len(ACTS) * len(LANGS) >= 30
    languages.write_homes(HERE, fixture, tasks, LANGS)
    print(f"{len(LANGS)} homes, {len(ACTS)} questions each")


if __name__ == "__main__":
    main()
