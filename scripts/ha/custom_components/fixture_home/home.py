"""Reads a home in the Home LLM Leaderboard's `_fixtures.yaml` format and checks that this
integration can represent every part of it.

Nothing is skipped: an entity of a domain we do not model, an attribute its domain does not
have, a state outside the domain's states, or an enum name Home Assistant does not know is a
`FixtureError` that names the entity. The same checks guard the `set_state` service, so a
benchmark task's `setup` cannot silently do less than it says.

Run as a script (inside the Home Assistant venv) to check a file before Home Assistant starts:
    python home.py path/to/_fixtures.yaml
and, with `--helpers`, to print the configuration of its helpers: scripts and input_booleans
are no integration's platform in Home Assistant, so they are configured as a household
configures them (YAML, `scripts/ha-dev.sh` appends it) and this integration gives them their
areas and aliases and exposes them like every other entity.
"""

from __future__ import annotations

import enum
import importlib
import re
import sys
from dataclasses import dataclass, field
from typing import Any

DOMAIN = "fixture_home"

# The states each domain can be put in; `None` leaves the domain's default.
ON_OFF = {"on", "off"}
STATES: dict[str, set[str] | None] = {
    "light": ON_OFF,
    "switch": ON_OFF,
    "fan": ON_OFF,
    "binary_sensor": ON_OFF,
    "cover": {"open", "closed", "opening", "closing"},
    "valve": {"open", "closed", "opening", "closing"},
    "lock": {"locked", "unlocked", "jammed", "open", "opening", "locking", "unlocking"},
    # "off" appears in the task sets' vacuum set-ups; it is kept as written.
    "vacuum": {"cleaning", "docked", "idle", "paused", "returning", "error", "off"},
    "media_player": {"off", "on", "idle", "playing", "paused", "standby", "buffering"},
    "climate": {"off", "heat", "cool", "heat_cool", "auto", "dry", "fan_only"},
    # A to-do list's state is its count of open items ("2"): see `todo_state`.
    "todo": set(),
    # A scene's state is when it was last activated: Home Assistant's to keep.
    "scene": set(),
    "script": {"off"},
    "input_boolean": ON_OFF,
    # A calendar's state is whether an event is on now; a weather entity's is its condition
    # (an attribute here, as upstream writes it).
    "calendar": set(),
    "weather": set(),
    # A voice satellite's state is what it is doing (Home Assistant's AssistSatelliteState).
    "assist_satellite": {"idle", "listening", "processing", "responding"},
    # Any value: a sensor reports what it measures.
    "sensor": None,
}

# The attributes each domain models (what a fixture or a set-up may set).
ATTRIBUTES: dict[str, set[str]] = {
    "light": {
        "supported_color_modes", "color_mode", "brightness", "rgb_color", "rgbw_color",
        "hs_color", "color_temp_kelvin",
    },
    "switch": {"device_class"},
    "fan": {"supported_features", "oscillating", "percentage"},
    "binary_sensor": {"device_class"},
    "cover": {"device_class", "supported_features", "current_position"},
    # `current_valve_position` is upstream's name for the position (Home Assistant's own
    # attribute is `current_position`); both are taken.
    "valve": {
        "device_class", "supported_features", "reports_position", "current_position",
        "current_valve_position",
    },
    "lock": {"supported_features"},
    "vacuum": {"supported_features", "fan_speed", "fan_speed_list", "battery_level"},
    "media_player": {
        "device_class", "supported_features", "volume_level", "is_volume_muted", "media_track",
        "media_title",
    },
    "climate": {
        "unit_of_measurement", "supported_features", "hvac_modes", "hvac_mode", "hvac_action",
        "current_temperature", "target_temperature", "target_temp_low", "target_temp_high",
        "fan_modes", "fan_mode", "current_humidity", "min_temp", "max_temp",
    },
    "todo": {"supported_features", "todo_items"},
    # What activating the scene does: {entity_id: state} of the home's own entities.
    "scene": {"entities"},
    # Home Assistant actions the script runs (checked by Home Assistant when it loads them).
    "script": {"sequence"},
    "input_boolean": set(),
    "sensor": {"device_class", "state_class", "native_unit_of_measurement", "native_value"},
    # What the satellite was asked to do is recorded, never set.
    "assist_satellite": set(),
    "calendar": {"supported_features", "events"},
    "weather": {
        "supported_features", "condition", "native_temperature", "native_temperature_unit",
        "native_apparent_temperature", "native_dew_point", "humidity", "native_wind_speed",
        "native_wind_speed_unit", "wind_bearing", "native_pressure", "native_pressure_unit",
        "cloud_coverage", "uv_index", "native_visibility", "native_visibility_unit",
        "forecast_daily", "forecast_hourly",
    },
}

# Domains configured in YAML rather than set up as this integration's platforms.
HELPER_DOMAINS = {"script", "input_boolean"}

# What an event of a calendar fixture may say (Home Assistant's CalendarEvent fields).
EVENT_KEYS = {"summary", "start", "end", "description", "location", "uid"}
# What a forecast entry may say (Home Assistant's Forecast fields, native units).
FORECAST_KEYS = {
    "datetime", "condition", "humidity", "precipitation_probability", "cloud_coverage",
    "native_precipitation", "native_pressure", "native_temperature", "native_templow",
    "native_apparent_temperature", "wind_bearing", "native_wind_gust_speed", "native_wind_speed",
    "native_dew_point", "uv_index", "is_daytime",
}

# `light.LightEntityFeature.EFFECT`-style names: module under homeassistant.components, class,
# member.
ENUM_NAME = re.compile(r"^([a-z_]+)\.([A-Z][A-Za-z]+)\.([A-Z0-9_]+)$")


class FixtureError(ValueError):
    """The home file says something this integration cannot represent."""


@dataclass
class AreaSpec:
    id: str
    name: str
    floor: str | None = None
    aliases: list[str] = field(default_factory=list)


@dataclass
class DeviceSpec:
    id: str
    name: str
    area: str | None
    info: dict[str, str] = field(default_factory=dict)


@dataclass
class EntitySpec:
    entity_id: str
    name: str
    area: str | None
    device: str | None
    state: str | None
    attributes: dict[str, Any]
    aliases: list[str] = field(default_factory=list)

    @property
    def domain(self) -> str:
        return self.entity_id.split(".", 1)[0]


@dataclass
class Home:
    areas: list[AreaSpec]
    devices: list[DeviceSpec]
    entities: list[EntitySpec]
    # The language the home's names are in (upstream's fixtures say it; ours do too).
    language: str | None = None


def resolve_enum(value: Any, where: str) -> Any:
    """Turns `domain.EnumClass.MEMBER` strings into Home Assistant's own enum members."""
    if isinstance(value, list):
        return [resolve_enum(v, where) for v in value]
    if not isinstance(value, str) or not (m := ENUM_NAME.match(value)):
        return value
    module, cls, member = m.groups()
    try:
        enum_cls = getattr(importlib.import_module(f"homeassistant.components.{module}"), cls)
        return enum_cls[member]
    except (ImportError, AttributeError, KeyError) as err:
        raise FixtureError(f"{where}: Home Assistant has no {value} ({err})") from err


def flags(value: Any, where: str) -> int:
    """supported_features as a list of flag names (or an int) -> the combined int."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, list):
        raise FixtureError(f"{where}: supported_features must be a list, not {value!r}")
    # Combined as the domain's own flag type: Home Assistant rejects plain ints.
    total = None
    for item in resolve_enum(value, where):
        if not isinstance(item, enum.IntFlag):
            raise FixtureError(f"{where}: {item!r} is not a feature flag")
        total = item if total is None else total | item
    return 0 if total is None else total


def normalise_state(domain: str, state: Any, where: str) -> str | None:
    """YAML 1.1 reads `on`/`off` as booleans: map them back to the domain's words."""
    if state is None:
        return None
    if isinstance(state, bool):
        if domain in ("cover", "valve"):
            return "open" if state else "closed"
        state = "on" if state else "off"
    state = str(state)
    if domain == "todo":
        if not state.isdigit():
            raise FixtureError(f"{where}: a todo's state is its count of open items, not {state!r}")
        return state
    allowed = STATES[domain]
    if allowed is not None and state not in allowed:
        raise FixtureError(
            f"{where}: state {state!r} is not one of {sorted(allowed)} for a {domain}"
        )
    return state


def check_attributes(domain: str, attributes: Any, where: str) -> dict[str, Any]:
    """Validates attribute names for the domain and resolves enum names in their values."""
    if attributes is None:
        return {}
    if not isinstance(attributes, dict):
        raise FixtureError(f"{where}: attributes must be a mapping, not {attributes!r}")
    unknown = sorted(set(attributes) - ATTRIBUTES[domain])
    if unknown:
        raise FixtureError(
            f"{where}: a {domain} cannot have {', '.join(unknown)} "
            f"(modelled: {', '.join(sorted(ATTRIBUTES[domain]))})"
        )
    out = {}
    for key, value in attributes.items():
        if key == "supported_features":
            out[key] = flags(value, where)
        else:
            out[key] = resolve_enum(value, where)
    if domain == "light":
        _check_color_modes(out, where)
    if domain == "valve" and "current_valve_position" in out:
        out["current_position"] = out.pop("current_valve_position")
    if domain == "calendar" and "events" in out:
        out["events"] = [_check_event(e, f"{where} event {i}")
                         for i, e in enumerate(out["events"] or [])]
    if domain == "weather":
        for key in ("forecast_daily", "forecast_hourly"):
            if key in out:
                out[key] = [_check_forecast(f, f"{where} {key} {i}")
                            for i, f in enumerate(out[key] or [])]
    return out


def _check_event(event: Any, where: str) -> dict[str, Any]:
    """An event as written (dates and times as text or YAML dates), checked for its keys."""
    if not isinstance(event, dict):
        raise FixtureError(f"{where}: an event is a mapping, not {event!r}")
    unknown = sorted(set(event) - EVENT_KEYS)
    if unknown:
        raise FixtureError(f"{where}: an event cannot have {', '.join(unknown)}")
    for key in ("summary", "start"):
        if event.get(key) in (None, ""):
            raise FixtureError(f"{where}: an event needs {key}")
    for key in ("start", "end"):
        if event.get(key) is not None:
            parse_when(event[key], f"{where} {key}")
    return {k: v for k, v in event.items() if v is not None}


def _check_forecast(entry: Any, where: str) -> dict[str, Any]:
    if not isinstance(entry, dict) or "datetime" not in entry:
        raise FixtureError(f"{where}: a forecast entry is a mapping with a datetime")
    unknown = sorted(set(entry) - FORECAST_KEYS)
    if unknown:
        raise FixtureError(f"{where}: a forecast cannot have {', '.join(unknown)}")
    return dict(entry)


def parse_when(value: Any, where: str):
    """A date (`2025-04-06`) or a date and time (`2025-04-02 11:00+10:00`) as Python's types."""
    import datetime as dt

    if isinstance(value, dt.datetime | dt.date):
        return value
    text = str(value).strip()
    try:
        if len(text) == 10:
            return dt.date.fromisoformat(text)
        return dt.datetime.fromisoformat(text)
    except ValueError as err:
        raise FixtureError(f"{where}: {value!r} is not a date or a date and time") from err


def _check_color_modes(attributes: dict[str, Any], where: str) -> None:
    from homeassistant.components.light import ColorMode

    mode = attributes.get("color_mode")
    # Some homes write the mode as a one-element list; that is still one mode.
    if isinstance(mode, list) and len(mode) == 1:
        attributes["color_mode"] = mode = mode[0]
    modes = attributes.get("supported_color_modes")
    try:
        if mode is not None:
            ColorMode(mode)
        for m in modes or []:
            ColorMode(m)
    except ValueError as err:
        raise FixtureError(f"{where}: {err}") from err
    if modes is not None and not isinstance(modes, list):
        raise FixtureError(f"{where}: supported_color_modes must be a list, not {modes!r}")


def check_entity_update(domain: str, state: Any, attributes: Any, where: str):
    """What `set_state` and the home file share: (state, attributes) checked for the domain."""
    if domain not in STATES:
        raise FixtureError(f"{where}: the {domain} domain is not modelled")
    state = normalise_state(domain, state, where)
    attributes = check_attributes(domain, attributes, where)
    if domain == "todo" and state is not None and "todo_items" in attributes:
        items = attributes["todo_items"] or []
        open_items = sum(1 for i in items
                         if not isinstance(i, dict) or i.get("status", "needs_action")
                         == "needs_action")
        if open_items != int(state):
            raise FixtureError(f"{where}: state {state!r} but {open_items} open todo_items")
    if domain == "script" and not isinstance(attributes.get("sequence", []), list):
        raise FixtureError(f"{where}: a script's sequence is a list of actions")
    return state, attributes


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise FixtureError(f"{what} must be a non-empty string, not {value!r}")
    return value


def parse(data: Any) -> Home:
    if not isinstance(data, dict):
        raise FixtureError("a home file is a mapping with areas, devices and entities")
    unknown = sorted(set(data) - {"areas", "devices", "entities", "language"})
    if unknown:
        raise FixtureError(f"unknown top-level keys: {', '.join(unknown)}")
    language = _text(data["language"], "language") if data.get("language") is not None else None
    areas = []
    for a in data.get("areas") or []:
        area_id = _text(a.get("id"), "area id")
        extra = sorted(set(a) - {"id", "name", "floor", "aliases"})
        if extra:
            raise FixtureError(f"area {area_id}: unknown keys {', '.join(extra)}")
        floor = _text(a["floor"], f"area {area_id} floor") if a.get("floor") is not None else None
        areas.append(AreaSpec(area_id, _text(a.get("name"), "area name"), floor,
                              _aliases(a.get("aliases"), f"area {area_id}")))
    area_ids = {a.id for a in areas}
    devices = []
    for d in data.get("devices") or []:
        dev_id = _text(d.get("id"), "device id")
        # Two devices under one id would be merged into one: the file means two.
        if any(other.id == dev_id for other in devices):
            raise FixtureError(f"device {dev_id}: defined twice")
        if d.get("area") is not None and d["area"] not in area_ids:
            raise FixtureError(f"device {dev_id}: unknown area {d['area']!r}")
        info = {k: str(v) for k, v in (d.get("info") or {}).items()}
        devices.append(DeviceSpec(dev_id, _text(d.get("name"), f"device {dev_id} name"),
                                  d.get("area"), info))
    device_ids = {d.id for d in devices}
    entities = []
    seen = set()
    for e in data.get("entities") or []:
        entity_id = _text(e.get("id"), "entity id")
        where = f"entity {entity_id}"
        if entity_id in seen:
            raise FixtureError(f"{where}: defined twice")
        seen.add(entity_id)
        extra = sorted(set(e) - {"id", "name", "area", "device", "state", "attributes",
                                 "aliases"})
        if extra:
            raise FixtureError(f"{where}: unknown keys {', '.join(extra)}")
        domain = entity_id.split(".", 1)[0]
        state, attributes = check_entity_update(domain, e.get("state"), e.get("attributes"),
                                                where)
        if e.get("area") is not None and e["area"] not in area_ids:
            raise FixtureError(f"{where}: unknown area {e['area']!r}")
        if e.get("device") is not None and e["device"] not in device_ids:
            raise FixtureError(f"{where}: unknown device {e['device']!r}")
        entities.append(EntitySpec(entity_id, _text(e.get("name"), f"{where} name"),
                                   e.get("area"), e.get("device"), state, attributes,
                                   _aliases(e.get("aliases"), where)))
    _check_scenes(entities)
    return Home(areas, devices, entities, language)


def _check_scenes(entities: list[EntitySpec]) -> None:
    """A scene sets entities of this home (not helpers, not scenes) to states their domains
    have."""
    modelled = {e.entity_id: e.domain for e in entities
                if e.domain not in HELPER_DOMAINS and e.domain != "scene"}
    for scene in (e for e in entities if e.domain == "scene"):
        where = f"entity {scene.entity_id}"
        targets = scene.attributes.get("entities", {})
        if not isinstance(targets, dict):
            raise FixtureError(f"{where}: entities must map entity ids to states")
        for target, state in targets.items():
            if target not in modelled:
                raise FixtureError(f"{where}: {target!r} is no entity a scene can set here")
            targets[target] = normalise_state(modelled[target], state, f"{where} {target}")


def helpers_yaml(home: Home) -> str:
    """configuration.yaml's `script:` and `input_boolean:` blocks for the home's helpers."""
    import yaml

    config: dict[str, dict[str, Any]] = {}
    for spec in home.entities:
        object_id = spec.entity_id.split(".", 1)[1]
        if spec.domain == "script":
            config.setdefault("script", {})[object_id] = {
                "alias": spec.name, "sequence": spec.attributes.get("sequence", []),
            }
        elif spec.domain == "input_boolean":
            config.setdefault("input_boolean", {})[object_id] = {
                "name": spec.name, "initial": spec.state == "on",
            }
    return yaml.safe_dump(config, allow_unicode=True, sort_keys=True) if config else ""


def _aliases(value: Any, where: str) -> list[str]:
    """Other names a person uses (Home Assistant's aliases): a list of non-empty strings."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise FixtureError(f"{where}: aliases must be a list, not {value!r}")
    return [_text(v, f"{where} alias") for v in value]


def load(path: str) -> Home:
    import yaml  # PyYAML, as Home Assistant and the task sets' own tools read these files

    with open(path, encoding="utf-8") as fh:
        try:
            data = yaml.safe_load(fh)
        except yaml.YAMLError as err:
            raise FixtureError(f"{path}: not YAML: {err}") from err
    try:
        return parse(data)
    except FixtureError as err:
        raise FixtureError(f"{path}: {err}") from err


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--helpers"):
        raise SystemExit(__doc__)
    try:
        home = load(sys.argv[1])
    except FixtureError as err:
        raise SystemExit(f"fixture_home: {err}") from err
    if len(sys.argv) == 3:
        print(helpers_yaml(home), end="")
    else:
        print(f"{len(home.areas)} areas, {len(home.devices)} devices, "
              f"{len(home.entities)} entities: ok")
