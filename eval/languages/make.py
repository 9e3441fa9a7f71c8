#!/usr/bin/env python3
"""Writes HomeClaw's own multilingual task set (issue 38): one home per language, its names in
that language, and 40 sentences each, in the Home LLM Leaderboard's task format, so that
`homeclaw-bench assist --dataset eval/languages` measures both agents on it.

How the sentences were written: by hand, by the HomeClaw team, before the agent change of
issue 38, without looking at Home Assistant's test files. Each act below is one thing a person
wants done or asked (the same acts in every language, so the languages compare); each language
says it in its own words, some in the plain form Home Assistant's templates accept ("turn on the
lights in the kitchen"), some as people say it ("kitchen lights off please", "Licht im Büro
aus"). Every act states what must change (or that nothing may) and, for a question, words the
answer must contain.

    python3 eval/languages/make.py     # rewrites eval/languages/<lang>-home/
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGS = ["en", "de", "pl", "fr", "nl", "es"]

# Per language: area names, floor names, and entity names (the same keys in every language).
NAMES = {
    "en": dict(kitchen="Kitchen", living="Living Room", bedroom="Bedroom", office="Office",
               garage="Garage", hall="Hallway", ground="Ground Floor", upper="First Floor",
               kitchen_light="Ceiling Light", floor_lamp="Floor Lamp", bedside="Bedside Lamp",
               desk="Desk Lamp", fan="Ceiling Fan", blinds="Bedroom Blinds",
               garage_door="Garage Door", lock="Front Door", thermostat="Thermostat",
               speaker="Speaker", vacuum="Robot Vacuum", todo="Shopping List",
               coffee="Coffee Machine", outside="Outside Temperature", satellite="Satellite"),
    "de": dict(kitchen="Küche", living="Wohnzimmer", bedroom="Schlafzimmer", office="Büro",
               garage="Garage", hall="Flur", ground="Erdgeschoss", upper="Obergeschoss",
               kitchen_light="Deckenleuchte", floor_lamp="Stehlampe", bedside="Nachttischlampe",
               desk="Schreibtischlampe", fan="Deckenventilator", blinds="Schlafzimmerjalousie",
               garage_door="Garagentor", lock="Haustür", thermostat="Thermostat",
               speaker="Lautsprecher", vacuum="Saugroboter", todo="Einkaufsliste",
               coffee="Kaffeemaschine", outside="Außentemperatur", satellite="Satellit"),
    "pl": dict(kitchen="Kuchnia", living="Salon", bedroom="Sypialnia", office="Gabinet",
               garage="Garaż", hall="Korytarz", ground="Parter", upper="Piętro",
               kitchen_light="Lampa sufitowa", floor_lamp="Lampa stojąca", bedside="Lampka nocna",
               desk="Lampka biurkowa", fan="Wentylator sufitowy", blinds="Rolety w sypialni",
               garage_door="Brama garażowa", lock="Drzwi wejściowe", thermostat="Termostat",
               speaker="Głośnik", vacuum="Odkurzacz", todo="Lista zakupów",
               coffee="Ekspres do kawy", outside="Temperatura na zewnątrz", satellite="Satelita"),
    "fr": dict(kitchen="Cuisine", living="Salon", bedroom="Chambre", office="Bureau",
               garage="Garage", hall="Couloir", ground="Rez-de-chaussée", upper="Étage",
               kitchen_light="Plafonnier", floor_lamp="Lampadaire", bedside="Lampe de chevet",
               desk="Lampe de bureau", fan="Ventilateur de plafond", blinds="Stores de la chambre",
               garage_door="Porte du garage", lock="Porte d'entrée", thermostat="Thermostat",
               speaker="Enceinte", vacuum="Aspirateur", todo="Liste de courses",
               coffee="Machine à café", outside="Température extérieure", satellite="Satellite"),
    "nl": dict(kitchen="Keuken", living="Woonkamer", bedroom="Slaapkamer", office="Kantoor",
               garage="Garage", hall="Gang", ground="Begane grond", upper="Eerste verdieping",
               kitchen_light="Plafondlamp", floor_lamp="Staande lamp", bedside="Nachtlamp",
               desk="Bureaulamp", fan="Plafondventilator", blinds="Slaapkamer jaloezieën",
               garage_door="Garagedeur", lock="Voordeur", thermostat="Thermostaat",
               speaker="Speaker", vacuum="Robotstofzuiger", todo="Boodschappenlijst",
               coffee="Koffiezetapparaat", outside="Buitentemperatuur", satellite="Satelliet"),
    "es": dict(kitchen="Cocina", living="Salón", bedroom="Dormitorio", office="Oficina",
               garage="Garaje", hall="Pasillo", ground="Planta baja", upper="Planta de arriba",
               kitchen_light="Luz del techo", floor_lamp="Lámpara de pie", bedside="Lámpara de noche",
               desk="Lámpara de escritorio", fan="Ventilador de techo",
               blinds="Persianas del dormitorio", garage_door="Puerta del garaje",
               lock="Puerta principal", thermostat="Termostato", speaker="Altavoz",
               vacuum="Robot aspirador", todo="Lista de la compra", coffee="Cafetera",
               outside="Temperatura exterior", satellite="Satélite"),
}

FEATURES = {
    "cover_blind": ["cover.CoverEntityFeature.OPEN", "cover.CoverEntityFeature.CLOSE",
                    "cover.CoverEntityFeature.SET_POSITION"],
    "cover_garage": ["cover.CoverEntityFeature.OPEN", "cover.CoverEntityFeature.CLOSE"],
    "fan": ["fan.FanEntityFeature.TURN_ON", "fan.FanEntityFeature.TURN_OFF",
            "fan.FanEntityFeature.SET_SPEED"],
    "media": [f"media_player.MediaPlayerEntityFeature.{f}" for f in
              ["PLAY", "PAUSE", "STOP", "VOLUME_SET", "VOLUME_STEP", "NEXT_TRACK",
               "PREVIOUS_TRACK", "TURN_ON", "TURN_OFF"]],
    "vacuum": [f"vacuum.VacuumEntityFeature.{f}" for f in
               ["START", "STOP", "STATE", "PAUSE", "RETURN_HOME"]],
    "climate": [f"climate.ClimateEntityFeature.{f}" for f in
                ["TARGET_TEMPERATURE", "TURN_ON", "TURN_OFF"]],
    "todo": [f"todo.TodoListEntityFeature.{f}" for f in
             ["CREATE_TODO_ITEM", "UPDATE_TODO_ITEM", "DELETE_TODO_ITEM"]],
}

# key: (entity id object, domain, area, device, state, attributes)
ENTITIES = [
    ("kitchen_light", "light", "kitchen", "off",
     {"supported_color_modes": ["brightness"], "color_mode": "brightness", "brightness": 200}),
    ("floor_lamp", "light", "living", "off", {"supported_color_modes": ["hs"], "color_mode": "hs",
                                              "brightness": 200, "hs_color": [30, 50]}),
    ("bedside", "light", "bedroom", "off",
     {"supported_color_modes": ["brightness"], "color_mode": "brightness", "brightness": 200}),
    ("desk", "light", "office", "off",
     {"supported_color_modes": ["onoff"], "color_mode": "onoff"}),
    ("fan", "fan", "living", "off", {"supported_features": FEATURES["fan"], "percentage": 50}),
    ("blinds", "cover", "bedroom", "open",
     {"device_class": "cover.CoverDeviceClass.BLIND", "supported_features": FEATURES["cover_blind"],
      "current_position": 100}),
    ("garage_door", "cover", "garage", "closed",
     {"device_class": "cover.CoverDeviceClass.GARAGE",
      "supported_features": FEATURES["cover_garage"]}),
    ("lock", "lock", "hall", "unlocked", {}),
    ("thermostat", "climate", "living", "heat",
     {"unit_of_measurement": "°C", "supported_features": FEATURES["climate"],
      "hvac_modes": ["off", "heat"], "hvac_mode": "heat", "current_temperature": 22,
      "target_temperature": 20}),
    ("speaker", "media_player", "living", "playing",
     {"device_class": "media_player.MediaPlayerDeviceClass.SPEAKER",
      "supported_features": FEATURES["media"], "volume_level": 0.2, "media_track": 3,
      "media_title": "Track 3"}),
    ("vacuum", "vacuum", "hall", "docked", {"supported_features": FEATURES["vacuum"]}),
    ("todo", "todo", None, None, {"supported_features": FEATURES["todo"], "todo_items": []}),
    ("coffee", "switch", "kitchen", "off", {"device_class": "switch.SwitchDeviceClass.OUTLET"}),
    ("outside", "sensor", None, "12",
     {"device_class": "sensor.SensorDeviceClass.TEMPERATURE", "state_class": "measurement",
      "native_unit_of_measurement": "°C"}),
]
ENTITY_IDS = {
    "en": dict(kitchen_light="light.ceiling_light", floor_lamp="light.floor_lamp",
               bedside="light.bedside_lamp", desk="light.desk_lamp", fan="fan.ceiling_fan",
               blinds="cover.bedroom_blinds", garage_door="cover.garage_door",
               lock="lock.front_door", thermostat="climate.thermostat",
               speaker="media_player.speaker", vacuum="vacuum.robot_vacuum",
               todo="todo.shopping_list", coffee="switch.coffee_machine",
               outside="sensor.outside_temperature"),
}


def entity_id(lang: str, key: str) -> str:
    """Ids from the language's names, as Home Assistant makes them (ASCII, underscores)."""
    if lang == "en":
        return ENTITY_IDS["en"][key]
    import unicodedata
    domain = ENTITY_IDS["en"][key].split(".")[0]
    name = unicodedata.normalize("NFKD", NAMES[lang][key]).encode("ascii", "ignore").decode()
    slug = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_")
    while "__" in slug:
        slug = slug.replace("__", "_")
    return f"{domain}.{slug}"


ON, OFF = {"state": "on"}, {"state": "off"}
LIGHT_ON = {"state": "on"}
# Lights turned on or dimmed keep or change derived colour attributes: not what is scored.
LIGHT_IGNORE = ["brightness", "color_mode", "hs_color", "rgb_color", "xy_color"]

# act: (category, setup {key: spec}, expect_changes {key: spec} or None, ignore {key: [attrs]},
#       context_device or None, expect_response per language or None, sentences per language)
ACTS = [
    ("light", {"kitchen_light": OFF}, {"kitchen_light": ON}, {"kitchen_light": LIGHT_IGNORE}, None,
     None, dict(en="Turn on the lights in the kitchen", de="Schalte das Licht in der Küche an",
                pl="Włącz światło w kuchni", fr="Allume la lumière dans la cuisine",
                nl="Zet het licht in de keuken aan", es="Enciende la luz de la cocina")),
    ("light", {"kitchen_light": ON}, {"kitchen_light": OFF}, {"kitchen_light": LIGHT_IGNORE}, None,
     None, dict(en="kitchen lights off please", de="Küche Licht aus bitte",
                pl="Zgaś światło w kuchni", fr="Éteins les lumières de la cuisine stp",
                nl="Doe het licht in de keuken uit", es="Apaga las luces de la cocina por favor")),
    ("light", {"bedside": OFF}, {"bedside": ON}, {"bedside": LIGHT_IGNORE}, None, None,
     dict(en="Turn on the bedside lamp", de="Mach die Nachttischlampe an",
          pl="Włącz lampkę nocną", fr="Allume la lampe de chevet", nl="Zet de nachtlamp aan",
          es="Enciende la lámpara de noche")),
    ("light", {"floor_lamp": ON}, {"floor_lamp": {"state": "on", "attributes": {"brightness": 128}}},
     {"floor_lamp": ["color_mode", "hs_color", "rgb_color", "xy_color"]}, None, None,
     dict(en="Set the floor lamp to 50%", de="Stell die Stehlampe auf 50 Prozent",
          pl="Ustaw lampę stojącą na 50%", fr="Mets le lampadaire à 50 %",
          nl="Zet de staande lamp op 50%", es="Pon la lámpara de pie al 50%")),
    ("light", {"floor_lamp": ON},
     {"floor_lamp": {"state": "on", "attributes": {"rgb_color": [255, 0, 0]}}},
     {"floor_lamp": ["brightness", "color_mode", "hs_color", "xy_color"]}, None, None,
     dict(en="Make the floor lamp red", de="Mach die Stehlampe rot",
          pl="Zmień kolor lampy stojącej na czerwony", fr="Mets le lampadaire en rouge",
          nl="Maak de staande lamp rood", es="Pon la lámpara de pie en rojo")),
    ("fan", {"fan": OFF}, {"fan": ON}, {"fan": ["percentage"]}, None, None,
     dict(en="Turn on the fan in the living room", de="Schalte den Ventilator im Wohnzimmer ein",
          pl="Włącz wentylator w salonie", fr="Allume le ventilateur du salon",
          nl="Zet de ventilator in de woonkamer aan", es="Enciende el ventilador del salón")),
    ("fan", {"fan": ON}, {"fan": OFF}, {"fan": ["percentage"]}, None, None,
     dict(en="switch off the ceiling fan", de="Deckenventilator aus",
          pl="Wyłącz wiatrak sufitowy", fr="Arrête le ventilateur de plafond",
          nl="Zet de plafondventilator uit", es="Apaga el ventilador de techo")),
    ("cover", {"blinds": {"state": "open", "attributes": {"current_position": 100}}},
     {"blinds": {"state": "closed", "attributes": {"current_position": 0}}}, {}, None, None,
     dict(en="Close the blinds in the bedroom", de="Schließe die Jalousien im Schlafzimmer",
          pl="Zasłoń rolety w sypialni", fr="Ferme les stores de la chambre",
          nl="Doe de jaloezieën in de slaapkamer dicht", es="Cierra las persianas del dormitorio")),
    ("cover", {"blinds": {"state": "closed", "attributes": {"current_position": 0}}},
     {"blinds": {"state": "open", "attributes": {"current_position": 100}}}, {}, None, None,
     dict(en="Open the bedroom blinds", de="Öffne die Schlafzimmerjalousie",
          pl="Otwórz rolety w sypialni", fr="Ouvre les stores de la chambre",
          nl="Open de slaapkamer jaloezieën", es="Abre las persianas del dormitorio")),
    ("cover", {"blinds": {"state": "closed", "attributes": {"current_position": 0}}},
     {"blinds": {"state": "open", "attributes": {"current_position": 30}}}, {}, None, None,
     dict(en="Set the bedroom blinds to 30%", de="Stelle die Schlafzimmerjalousie auf 30 %",
          pl="Ustaw rolety w sypialni na 30%", fr="Règle les stores de la chambre à 30 %",
          nl="Zet de slaapkamer jaloezieën op 30%", es="Pon las persianas del dormitorio al 30%")),
    ("cover", {"garage_door": {"state": "open"}}, {"garage_door": {"state": "closed"}}, {}, None,
     None, dict(en="Close the garage door", de="Mach das Garagentor zu",
                pl="Zamknij bramę garażową", fr="Ferme la porte du garage",
                nl="Doe de garagedeur dicht", es="Cierra la puerta del garaje")),
    ("cover", {"garage_door": {"state": "open"},
               "blinds": {"state": "open", "attributes": {"current_position": 100}}},
     {"blinds": {"state": "closed", "attributes": {"current_position": 0}}}, {}, None, None,
     dict(en="close all the blinds", de="Alle Jalousien schließen", pl="Zamknij wszystkie rolety",
          fr="Ferme tous les stores", nl="Sluit alle jaloezieën", es="Cierra todas las persianas")),
    ("lock", {"lock": {"state": "unlocked"}}, {"lock": {"state": "locked"}}, {}, None, None,
     dict(en="Lock the front door", de="Schließ die Haustür ab",
          pl="Zamknij drzwi wejściowe na klucz", fr="Verrouille la porte d'entrée",
          nl="Doe de voordeur op slot", es="Cierra con llave la puerta principal")),
    ("climate", {"thermostat": {"state": "heat", "attributes": {"target_temperature": 20}}},
     {"thermostat": {"state": "heat", "attributes": {"temperature": 21}}}, {}, None, None,
     dict(en="Set the temperature to 21 degrees", de="Stelle die Temperatur auf 21 Grad",
          pl="Ustaw temperaturę na 21 stopni", fr="Règle la température à 21 degrés",
          nl="Zet de temperatuur op 21 graden", es="Pon la temperatura a 21 grados")),
    ("climate", {"thermostat": {"state": "heat", "attributes": {"target_temperature": 20}}},
     {"thermostat": {"state": "heat", "attributes": {"temperature": 19}}}, {}, None, None,
     dict(en="Make it 19 degrees in the living room", de="Im Wohnzimmer bitte 19 Grad",
          pl="Ustaw w salonie 19 stopni", fr="Mets le salon à 19 degrés",
          nl="Maak het 19 graden in de woonkamer", es="Pon el salón a 19 grados")),
    ("media", {"speaker": {"state": "playing"}}, {"speaker": {"state": "paused"}}, {}, None, None,
     dict(en="Pause the music", de="Pausiere die Musik", pl="Wstrzymaj muzykę",
          fr="Mets la musique en pause", nl="Pauzeer de muziek", es="Pausa la música")),
    ("media", {"speaker": {"state": "paused"}}, {"speaker": {"state": "playing"}}, {}, None, None,
     dict(en="Resume the music", de="Setze die Musik fort", pl="Wznów muzykę",
          fr="Reprends la musique", nl="Hervat de muziek", es="Reanuda la música")),
    ("media", {"speaker": {"state": "playing", "attributes": {"media_track": 3}}},
     {"speaker": {"state": "playing", "attributes": {"media_track": 4}}}, {"speaker": ["media_title"]},
     None, None, dict(en="Next song", de="Nächstes Lied", pl="Następna piosenka",
                      fr="Chanson suivante", nl="Volgend nummer", es="Siguiente canción")),
    ("media", {"speaker": {"state": "playing", "attributes": {"volume_level": 0.2}}},
     {"speaker": {"state": "playing", "attributes": {"volume_level": 0.4}}}, {}, None, None,
     dict(en="Set the volume to 40 percent", de="Stelle die Lautstärke auf 40 Prozent",
          pl="Ustaw głośność na 40 procent", fr="Mets le volume à 40 pour cent",
          nl="Zet het volume op 40 procent", es="Pon el volumen al 40 por ciento")),
    ("vacuum", {"vacuum": {"state": "docked"}}, {"vacuum": {"state": "cleaning"}}, {}, None, None,
     dict(en="Start the robot vacuum", de="Starte den Saugroboter", pl="Uruchom odkurzacz",
          fr="Lance l'aspirateur", nl="Start de robotstofzuiger", es="Pon en marcha el robot aspirador")),
    ("vacuum", {"vacuum": {"state": "cleaning"}}, {"vacuum": {"state": "returning"}}, {}, None, None,
     dict(en="Send the vacuum back to its dock",
          de="Schick den Saugroboter zurück zur Ladestation",
          pl="Odeślij odkurzacz do stacji dokującej", fr="Renvoie l'aspirateur à sa base",
          nl="Stuur de stofzuiger terug naar het laadstation", es="Manda la aspiradora a la base")),
    ("todo", {"todo": {"attributes": {"todo_items": []}}}, {"todo": {"state": "1"}},
     {"todo": ["todo_items"]}, None, None,
     dict(en="Add milk to the shopping list", de="Setze Milch auf die Einkaufsliste",
          pl="Dodaj mleko do listy zakupów", fr="Ajoute du lait à la liste de courses",
          nl="Zet melk op de boodschappenlijst", es="Añade leche a la lista de la compra")),
    ("switch", {"coffee": OFF}, {"coffee": ON}, {}, None, None,
     dict(en="Turn on the coffee machine", de="Schalte die Kaffeemaschine ein",
          pl="Włącz ekspres do kawy", fr="Allume la machine à café",
          nl="Zet het koffiezetapparaat aan", es="Enciende la cafetera")),
    ("switch", {"coffee": ON}, {"coffee": OFF}, {}, None, None,
     dict(en="coffee machine off", de="Kaffeemaschine aus", pl="Wyłącz ekspres",
          fr="Éteins la machine à café", nl="Koffiezetapparaat uit", es="Apaga la cafetera")),
    ("light", {"kitchen_light": ON, "floor_lamp": ON, "bedside": ON, "desk": ON},
     {"kitchen_light": OFF, "floor_lamp": OFF, "bedside": OFF, "desk": OFF},
     {k: LIGHT_IGNORE for k in ["kitchen_light", "floor_lamp", "bedside", "desk"]}, None, None,
     dict(en="Turn off all the lights", de="Mach alle Lichter aus",
          pl="Wyłącz wszystkie światła", fr="Éteins toutes les lumières",
          nl="Doe alle lichten uit", es="Apaga todas las luces")),
    ("light", {"kitchen_light": ON, "floor_lamp": ON, "bedside": ON, "desk": ON},
     {"bedside": OFF, "desk": OFF},
     {k: LIGHT_IGNORE for k in ["kitchen_light", "floor_lamp", "bedside", "desk"]}, None, None,
     dict(en="Turn off the lights on the first floor", de="Schalte das Licht im Obergeschoss aus",
          pl="Wyłącz światła na piętrze", fr="Éteins les lumières à l'étage",
          nl="Doe de lichten op de eerste verdieping uit",
          es="Apaga las luces de la planta de arriba")),
    ("light", {"floor_lamp": OFF}, {"floor_lamp": ON}, {"floor_lamp": LIGHT_IGNORE}, "satellite",
     None, dict(en="Turn on the light", de="Mach das Licht an", pl="Zapal światło",
                fr="Allume la lumière", nl="Doe het licht aan", es="Enciende la luz")),
    ("fan", {"fan": ON}, {"fan": OFF}, {"fan": ["percentage"]}, "satellite", None,
     dict(en="Turn off the fan in here", de="Mach hier den Ventilator aus",
          pl="Wyłącz tutaj wentylator", fr="Éteins le ventilateur ici",
          nl="Zet de ventilator hier uit", es="Apaga el ventilador aquí")),
    ("question", {"bedside": ON}, None, {}, None,
     dict(en=["yes", "on"], de=["ja", "an", "ein"], pl=["tak", "włącz"], fr=["oui", "allum"],
          nl=["ja", "aan"], es=["sí", "encendid"]),
     dict(en="Is the bedside lamp on?", de="Ist die Nachttischlampe an?",
          pl="Czy lampka nocna jest włączona?", fr="Est-ce que la lampe de chevet est allumée ?",
          nl="Staat de nachtlamp aan?", es="¿Está encendida la lámpara de noche?")),
    ("question", {}, None, {}, None, {l: ["12"] for l in LANGS},
     dict(en="What is the outside temperature?", de="Wie hoch ist die Außentemperatur?",
          pl="Jaka jest temperatura na zewnątrz?", fr="Quelle est la température extérieure ?",
          nl="Wat is de buitentemperatuur?", es="¿Cuál es la temperatura exterior?")),
    ("question", {"garage_door": {"state": "closed"}}, None, {}, None,
     dict(en=["no", "closed"], de=["nein", "geschlossen", "zu"], pl=["nie", "zamkn"],
          fr=["non", "ferm"], nl=["nee", "dicht", "gesloten"], es=["no", "cerrad"]),
     dict(en="Is the garage door open?", de="Ist das Garagentor offen?",
          pl="Czy brama garażowa jest otwarta?", fr="Est-ce que la porte du garage est ouverte ?",
          nl="Staat de garagedeur open?", es="¿Está abierta la puerta del garaje?")),
    ("question", {}, None, {}, None, {l: ["22"] for l in LANGS},
     dict(en="What's the temperature in the living room?", de="Wie warm ist es im Wohnzimmer?",
          pl="Jaka jest temperatura w salonie?", fr="Quelle est la température dans le salon ?",
          nl="Hoe warm is het in de woonkamer?", es="¿Qué temperatura hace en el salón?")),
    ("question", {"lock": {"state": "locked"}}, None, {}, None,
     dict(en=["yes", "locked"], de=["ja", "abgeschlossen", "verriegelt"], pl=["tak", "zamkn"],
          fr=["oui", "verrouill"], nl=["ja", "op slot", "vergrendeld"], es=["sí", "cerrad", "bloquead"]),
     dict(en="Is the front door locked?", de="Ist die Haustür abgeschlossen?",
          pl="Czy drzwi wejściowe są zamknięte na klucz?", fr="La porte d'entrée est-elle verrouillée ?",
          nl="Is de voordeur op slot?", es="¿Está cerrada con llave la puerta principal?")),
    ("question", {"kitchen_light": ON, "floor_lamp": ON, "bedside": OFF, "desk": OFF}, None, {}, None,
     dict(en=["2", "two"], de=["2", "zwei"], pl=["2", "dwa", "dwie"], fr=["2", "deux"],
          nl=["2", "twee"], es=["2", "dos"]),
     dict(en="How many lights are on?", de="Wie viele Lichter sind an?",
          pl="Ile świateł jest włączonych?", fr="Combien de lumières sont allumées ?",
          nl="Hoeveel lampen staan aan?", es="¿Cuántas luces están encendidas?")),
    ("light", {"bedside": OFF}, {"bedside": ON}, {"bedside": LIGHT_IGNORE}, None, None,
     dict(en="Bedroom lights on", de="Licht im Schlafzimmer an", pl="Zapal światło w sypialni",
          fr="Allume la lumière de la chambre", nl="Slaapkamer licht aan",
          es="Luces del dormitorio encendidas")),
    ("light", {"floor_lamp": ON}, {"floor_lamp": {"state": "on", "attributes": {"brightness": 51}}},
     {"floor_lamp": ["color_mode", "hs_color", "rgb_color", "xy_color"]}, None, None,
     dict(en="Dim the floor lamp to 20 percent", de="Dimme die Stehlampe auf 20 Prozent",
          pl="Przyciemnij lampę stojącą do 20 procent", fr="Baisse le lampadaire à 20 pour cent",
          nl="Dim de staande lamp naar 20 procent", es="Baja la lámpara de pie al 20 por ciento")),
    ("cover", {"blinds": {"state": "closed", "attributes": {"current_position": 0}}},
     {"blinds": {"state": "open", "attributes": {"current_position": 100}}}, {}, None, None,
     dict(en="Raise the blinds in the bedroom", de="Fahr die Jalousien im Schlafzimmer hoch",
          pl="Podnieś rolety w sypialni", fr="Monte les stores de la chambre",
          nl="Doe de jaloezieën in de slaapkamer omhoog", es="Sube las persianas del dormitorio")),
    ("nothing", {}, {}, {}, None, None,
     dict(en="Turn on the sauna", de="Schalte die Sauna ein", pl="Włącz saunę",
          fr="Allume le sauna", nl="Zet de sauna aan", es="Enciende la sauna")),
    ("light", {"desk": ON}, {"desk": OFF}, {"desk": LIGHT_IGNORE}, None, None,
     dict(en="Switch off the light in the office", de="Licht im Büro aus",
          pl="Zgaś światło w gabinecie", fr="Éteins la lumière du bureau",
          nl="Lamp in het kantoor uit", es="Apaga la luz de la oficina")),
    ("cover", {"garage_door": {"state": "closed"}}, {"garage_door": {"state": "open"}}, {}, None,
     None, dict(en="Open the garage door", de="Öffne das Garagentor",
                pl="Otwórz bramę garażową", fr="Ouvre la porte du garage",
                nl="Open de garagedeur", es="Abre la puerta del garaje")),
]

AREAS = [("kitchen", "ground"), ("living", "ground"), ("hall", "ground"), ("garage", "ground"),
         ("bedroom", "upper"), ("office", "upper")]


def yaml_str(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def fixture(lang: str) -> str:
    n = NAMES[lang]
    out = ["# Written by eval/languages/make.py: do not edit by hand.", "---",
           f"language: {lang}", "areas:"]
    for key, floor in AREAS:
        out += [f"  - name: {yaml_str(n[key])}", f"    id: {key}", f"    floor: {yaml_str(n[floor])}"]
    out.append("devices:")
    out += [f"  - name: {yaml_str(n['satellite'])}", "    id: satellite", "    area: living"]
    for key, _, area, *_ in ENTITIES:
        out += [f"  - name: {yaml_str(n[key])}", f"    id: {key}"]
        if area:
            out.append(f"    area: {area}")
    out.append("entities:")
    for key, domain, area, state, attributes in ENTITIES:
        out += [f"  - name: {yaml_str(n[key])}", f"    id: {entity_id(lang, key)}",
                f"    device: {key}"]
        if area:
            out.append(f"    area: {area}")
        if state is not None:
            out.append(f"    state: {yaml_str(state)}")
        if attributes:
            out.append(f"    attributes: {yaml_str(attributes)}")
    return "\n".join(out) + "\n"


def tasks(lang: str) -> dict[str, str]:
    files: dict[str, list[str]] = {}
    for category, setup, expect, ignore, device, response, sentences in ACTS:
        ids = lambda specs: {entity_id(lang, k): v for k, v in specs.items()}
        lines = [f"  - sentences: [{yaml_str(sentences[lang])}]"]
        if device:
            lines.append(f"    context_device: {device}")
        if setup:
            lines.append(f"    setup: {yaml_str(ids(setup))}")
        if expect is not None:
            lines.append(f"    expect_changes: {yaml_str(ids(expect))}")
        if ignore:
            lines.append(f"    ignore_changes: {yaml_str(ids(ignore))}")
        if response:
            lines.append(f"    expect_response: {yaml_str(response[lang])}")
        files.setdefault(category, []).extend(lines)
    return {c: "# Written by eval/languages/make.py: do not edit by hand.\n---\n"
               f"category: {c}\ntests:\n" + "\n".join(lines) + "\n"
            for c, lines in files.items()}


def write_homes(folder: Path, fixture_of, tasks_of, langs=LANGS) -> None:
    """Writes `folder/<lang>-home/` for each of `langs`: the fixture and one task file per
    category, replacing what was there (also used by eval/rooms/make.py and
    eval/questions/make.py)."""
    for lang in langs:
        home = folder / f"{lang}-home"
        home.mkdir(exist_ok=True)
        for old in home.glob("*.yaml"):
            old.unlink()
        (home / "_fixtures.yaml").write_text(fixture_of(lang), encoding="utf-8")
        for category, text in tasks_of(lang).items():
            (home / f"{category}.yaml").write_text(text, encoding="utf-8")


def main() -> None:
    assert len(ACTS) == 40, len(ACTS)
    write_homes(HERE, fixture, tasks)
    print(f"{len(LANGS)} homes, {len(ACTS)} sentences each")


if __name__ == "__main__":
    main()
