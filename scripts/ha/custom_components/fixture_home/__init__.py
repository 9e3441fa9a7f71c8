"""A test-only integration that turns one home of the Home LLM Leaderboard task sets
(`_fixtures.yaml`) into real Home Assistant areas, devices and entities, for HomeClaw's
benchmarks and tests (`scripts/ha-dev.sh` with `HA_HOME=...`).

    fixture_home:
      path: /abs/path/to/_fixtures.yaml

What must hold:
- every floor, area (with its floor), device (with its area), entity id, friendly name, state
  and attribute of the file exists as written; anything it cannot represent fails the set-up
  with a message that names the entity (see home.py) — nothing is skipped;
- scripts and input_booleans (no integration's platform in Home Assistant) are configured in
  YAML as a household configures them (`home.py --helpers`, appended by `scripts/ha-dev.sh`);
  this integration gives them their areas and aliases, and resets and sets them through their
  own services;
- every entity of the home but a voice satellite is exposed to Assist, so Home Assistant's
  own agent and HomeClaw see the same home;
- `fixture_home.reset` puts every entity back into its fixture state (and Home Assistant's
  time zone back to the configured one; a zone is changed as the UI changes it, with
  `core_config_updated`) and `fixture_home.set_state` applies a task's set-up
  (state and/or attributes) to one entity, checked like the file itself;
- with `context_now` (the moment the task is spoken, `2025-04-02 08:30+10:00`) the home's
  clock shows that moment as nearly as a real clock can be made to: Home Assistant's time zone
  becomes the whole-hour offset whose local time now is nearest to 08:30, and a calendar's
  events keep their wall-clock times on the same days relative to that day. "Today" and
  "tonight" then mean for every agent what they meant when the task was written.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

import voluptuous as vol
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_IMPORT, ConfigEntry
from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.exceptions import ConfigEntryError, ServiceValidationError
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers.typing import ConfigType

from .home import (
    DOMAIN,
    HELPER_DOMAINS,
    FixtureError,
    Home,
    check_entity_update,
    load,
    parse_when,
)

PLATFORMS = [
    "assist_satellite", "binary_sensor", "calendar", "climate", "cover", "fan", "light", "lock", "media_player",
    "scene", "sensor", "switch", "todo", "vacuum", "valve", "weather",
]

CONFIG_SCHEMA = vol.Schema(
    {DOMAIN: vol.Schema({vol.Required("path"): cv.string})}, extra=vol.ALLOW_EXTRA
)

SET_STATE_SCHEMA = vol.Schema(
    {
        vol.Required("entity_id"): cv.string,
        vol.Optional("state"): vol.Any(str, bool, int, float, None),
        vol.Optional("attributes"): dict,
        # When the task is spoken (`2025-04-02 08:30+10:00`): that day becomes today for the
        # calendar's events.
        vol.Optional("context_now"): cv.string,
    }
)


@dataclass
class Loaded:
    home: Home
    entities: dict = field(default_factory=dict)

    def helpers(self):
        return [spec for spec in self.home.entities if spec.domain in HELPER_DOMAINS]


async def _put_helper(hass: HomeAssistant, entity_id: str, state: str | None) -> None:
    """A helper into a state through its own services, as a person's dashboard does it."""
    domain = entity_id.split(".", 1)[0]
    if domain == "input_boolean" and state is not None:
        service = "turn_on" if state == "on" else "turn_off"
    elif domain == "script":
        service = "turn_off"
    else:
        return
    await hass.services.async_call(domain, service, {"entity_id": entity_id}, blocking=True)


def zone_for(context_now: datetime.datetime, utc_now: datetime.datetime) -> str:
    """The `Etc/GMT…` zone (whole hours, -12 to +14) whose local time at `utc_now` is nearest
    to `context_now`'s wall-clock time."""
    wall = context_now.hour * 60 + context_now.minute
    now = utc_now.hour * 60 + utc_now.minute
    hours = round((wall - now) / 60)
    while hours > 14:
        hours -= 24
    while hours < -12:
        hours += 24
    if hours == 0:
        return "Etc/UTC"
    # The Etc zones count the other way: UTC+10 is Etc/GMT-10.
    return f"Etc/GMT{-hours:+d}"


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    configured_zone = hass.config.time_zone

    async def set_zone(zone: str) -> None:
        # As a person's change in the UI does it: `core_config_updated` tells every agent
        # (HomeClaw reads the home's time zone from it).
        await hass.config.async_update(time_zone=zone)

    async def reset(call: ServiceCall) -> None:
        if hass.config.time_zone != configured_zone:
            await set_zone(configured_zone)
        loaded = _loaded(hass)
        for entity in loaded.entities.values():
            entity.reset()
            entity.async_write_ha_state()
        for spec in loaded.helpers():
            await _put_helper(hass, spec.entity_id, spec.state or "off")

    async def set_state(call: ServiceCall) -> None:
        entity_id = call.data["entity_id"]
        loaded = _loaded(hass)
        entity = loaded.entities.get(entity_id)
        helper = entity is None and any(s.entity_id == entity_id for s in loaded.helpers())
        if entity is None and not helper:
            raise ServiceValidationError(f"{entity_id} is not an entity of the fixture home")
        try:
            state, attributes = check_entity_update(
                entity_id.split(".", 1)[0], call.data.get("state"), call.data.get("attributes"),
                f"entity {entity_id}",
            )
            context_now = None
            if call.data.get("context_now"):
                context_now = parse_when(call.data["context_now"], f"entity {entity_id} context_now")
                if not isinstance(context_now, datetime.datetime):
                    raise FixtureError(f"entity {entity_id}: context_now needs a time of day")
        except FixtureError as err:
            raise ServiceValidationError(str(err)) from err
        if helper:
            await _put_helper(hass, entity_id, state)
            return
        if context_now is not None:
            await set_zone(zone_for(context_now, datetime.datetime.now(datetime.UTC)))
        entity.apply_at(state, attributes, context_now)
        entity.async_write_ha_state()

    hass.services.async_register(DOMAIN, "reset", reset)
    hass.services.async_register(DOMAIN, "set_state", set_state, schema=SET_STATE_SCHEMA)
    if DOMAIN in config:
        hass.async_create_task(
            hass.config_entries.flow.async_init(
                DOMAIN, context={"source": SOURCE_IMPORT}, data=dict(config[DOMAIN])
            )
        )
    return True


def _loaded(hass: HomeAssistant) -> Loaded:
    loaded = hass.data.get(DOMAIN)
    if loaded is None:
        raise ServiceValidationError("no fixture home is loaded")
    return loaded


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    try:
        home = await hass.async_add_executor_job(load, entry.data["path"])
    except (FixtureError, OSError) as err:
        raise ConfigEntryError(str(err)) from err
    hass.data[DOMAIN] = Loaded(home)

    floors = fr.async_get(hass)
    areas = ar.async_get(hass)
    area_ids = {}
    for spec in home.areas:
        floor_id = None
        if spec.floor is not None:
            floor = floors.async_get_floor_by_name(spec.floor) or floors.async_create(spec.floor)
            floor_id = floor.floor_id
        area = areas.async_get_area_by_name(spec.name) or areas.async_create(spec.name)
        if area.floor_id != floor_id or set(area.aliases) != set(spec.aliases):
            area = areas.async_update(area.id, floor_id=floor_id, aliases=set(spec.aliases))
        area_ids[spec.id] = area.id
    devices = dr.async_get(hass)
    device_areas = {}
    for spec in home.devices:
        device = devices.async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={(DOMAIN, spec.id)},
            name=spec.name,
            manufacturer=spec.info.get("manufacturer"),
            model=spec.info.get("model"),
            sw_version=spec.info.get("sw_version"),
        )
        area_id = area_ids.get(spec.area) if spec.area else None
        devices.async_update_device(device.id, area_id=area_id)
        device_areas[spec.id] = area_id

    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)

    entities = er.async_get(hass)
    for spec in home.entities:
        if entities.async_get(spec.entity_id) is None:
            hint = (" (its YAML is written by scripts/ha-dev.sh from home.py --helpers)"
                    if spec.domain in HELPER_DOMAINS else "")
            raise ConfigEntryError(
                f"entity {spec.entity_id}: was not registered under that id{hint}"
            )
        area_id = area_ids.get(spec.area) if spec.area else None
        # The entity follows its device's area unless the file puts it elsewhere.
        inherited = device_areas.get(spec.device) if spec.device else None
        entities.async_update_entity(
            spec.entity_id,
            area_id=area_id if area_id != inherited else None,
            aliases=set(spec.aliases),
        )
        # A voice satellite stays as Home Assistant leaves it: not exposed to Assist (it is
        # where a person speaks, not something to control).
        if spec.domain != "assist_satellite":
            async_expose_entity(hass, "conversation", spec.entity_id, True)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    unloaded = await hass.config_entries.async_unload_platforms(entry, PLATFORMS)
    if unloaded:
        hass.data.pop(DOMAIN, None)
    return unloaded
