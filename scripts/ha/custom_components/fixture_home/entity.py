"""Entities of a fixture home: each answers its domain's services the way a simple real device
does, and can be put back into its fixture state (`reset`) or into a task's set-up state
(`apply`).

Every class keeps its device state in Home Assistant's own `_attr_*` fields, so the state
machine shows exactly what the entity base classes derive from them (a light that is off shows
no brightness, a media player that is off shows no volume) — the same attributes a benchmark
diff sees for a real integration.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Callable

from homeassistant.components.assist_satellite import (
    AssistSatelliteAnnouncement,
    AssistSatelliteConfiguration,
    AssistSatelliteEntity,
    AssistSatelliteEntityFeature,
)
from homeassistant.components.assist_satellite.entity import AssistSatelliteState
from homeassistant.components.assist_pipeline import PipelineEvent
from homeassistant.components.binary_sensor import BinarySensorEntity
from homeassistant.components.intent import (
    TimerEventType,
    TimerInfo,
    async_register_timer_handler,
)
from homeassistant.components.calendar import CalendarEntity, CalendarEvent
from homeassistant.components.climate import (
    ClimateEntity,
    ClimateEntityFeature,
    HVACAction,
    HVACMode,
)
from homeassistant.components.cover import CoverEntity
from homeassistant.components.fan import FanEntity, FanEntityFeature
from homeassistant.components.light import (
    ATTR_BRIGHTNESS,
    ATTR_COLOR_TEMP_KELVIN,
    ATTR_HS_COLOR,
    ATTR_RGB_COLOR,
    ATTR_RGBW_COLOR,
    ColorMode,
    LightEntity,
)
from homeassistant.components.lock import LockEntity
from homeassistant.components.media_player import MediaPlayerEntity, MediaPlayerState
from homeassistant.components.scene import Scene
from homeassistant.components.sensor import SensorEntity
from homeassistant.components.switch import SwitchEntity
from homeassistant.components.todo import (
    TodoItem,
    TodoItemStatus,
    TodoListEntity,
    TodoListEntityFeature,
)
from homeassistant.components.vacuum import (
    StateVacuumEntity,
    VacuumActivity,
    VacuumEntityFeature,
)
from homeassistant.components.valve import ValveEntity
from homeassistant.components.weather import Forecast, WeatherEntity, WeatherEntityFeature
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import UnitOfTemperature
from homeassistant.core import HomeAssistant
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddEntitiesCallback
from homeassistant.util import dt as dt_util

from .home import DOMAIN, EntitySpec, parse_when


class FixtureEntity(Entity):
    """Common part: identity from the fixture, and reset/apply of fixture state."""

    _attr_should_poll = False
    _attr_has_entity_name = False

    def __init__(self, spec: EntitySpec) -> None:
        self.entity_id = spec.entity_id
        self._attr_unique_id = spec.entity_id
        self._attr_name = spec.name
        if spec.device:
            self._attr_device_info = DeviceInfo(identifiers={(DOMAIN, spec.device)})
        self._spec = spec
        self.reset()

    def reset(self) -> None:
        """Back to the fixture's state, as if the home had just been loaded."""
        self._defaults()
        self.apply(self._spec.state, self._spec.attributes)

    def _defaults(self) -> None:
        """Every field the domain models, at its value before the fixture says anything."""

    def apply(self, state: str | None, attributes: dict[str, Any]) -> None:
        """Sets state and attributes as a task's set-up describes them (already checked)."""
        raise NotImplementedError

    def apply_at(self, state: str | None, attributes: dict[str, Any],
                 context_now: dt.datetime | None) -> None:
        """As `apply`, for a task spoken at `context_now` (only a calendar's dates depend on
        it)."""
        self.apply(state, attributes)

    def _copy(self, attributes: dict[str, Any], *keys: str) -> None:
        """Sets `_attr_<key>` for each of `keys` that the set-up names."""
        for key in keys:
            if key in attributes:
                setattr(self, f"_attr_{key}", attributes[key])


def _on(state: str) -> bool:
    return state == "on"


class FixtureSwitch(FixtureEntity, SwitchEntity):
    def _defaults(self) -> None:
        self._attr_is_on = False
        self._attr_device_class = None

    def apply(self, state, attributes):
        if state is not None:
            self._attr_is_on = _on(state)
        self._copy(attributes, "device_class")

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()


class FixtureBinarySensor(FixtureEntity, BinarySensorEntity):
    def _defaults(self) -> None:
        self._attr_is_on = False
        self._attr_device_class = None

    def apply(self, state, attributes):
        if state is not None:
            self._attr_is_on = _on(state)
        self._copy(attributes, "device_class")


def _number(value: Any) -> Any:
    """Sensors with a device or state class must report numbers; fixtures write "90"."""
    if isinstance(value, str):
        try:
            as_float = float(value)
        except ValueError:
            return value
        return int(as_float) if as_float.is_integer() else as_float
    return value


class FixtureSensor(FixtureEntity, SensorEntity):
    def _defaults(self) -> None:
        self._attr_native_value = None
        self._attr_device_class = None
        self._attr_state_class = None
        self._attr_native_unit_of_measurement = None

    def apply(self, state, attributes):
        self._copy(attributes, "device_class", "state_class", "native_unit_of_measurement")
        numeric = self._attr_device_class is not None or self._attr_state_class is not None
        value = attributes.get("native_value", state)
        if value is not None:
            self._attr_native_value = _number(value) if numeric else value


class FixtureLight(FixtureEntity, LightEntity):
    def _defaults(self) -> None:
        self._attr_is_on = False
        self._attr_supported_color_modes = {ColorMode.ONOFF}
        self._attr_color_mode = ColorMode.ONOFF
        self._attr_brightness = None
        self._attr_rgb_color = None
        self._attr_rgbw_color = None
        self._attr_hs_color = None
        self._attr_color_temp_kelvin = None

    def apply(self, state, attributes):
        if state is not None:
            self._attr_is_on = _on(state)
        if "supported_color_modes" in attributes:
            self._attr_supported_color_modes = {
                ColorMode(m) for m in attributes["supported_color_modes"]
            }
            if self._attr_color_mode not in self._attr_supported_color_modes:
                self._attr_color_mode = next(iter(sorted(self._attr_supported_color_modes)))
        if attributes.get("color_mode") is not None:
            self._attr_color_mode = ColorMode(attributes["color_mode"])
        for key in ("brightness", "rgb_color", "rgbw_color", "hs_color", "color_temp_kelvin"):
            if key in attributes:
                value = attributes[key]
                setattr(self, f"_attr_{key}", tuple(value) if isinstance(value, list) else value)

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        if ATTR_BRIGHTNESS in kwargs:
            self._attr_brightness = kwargs[ATTR_BRIGHTNESS]
        for key, mode in (
            (ATTR_RGBW_COLOR, ColorMode.RGBW),
            (ATTR_RGB_COLOR, ColorMode.RGB),
            (ATTR_HS_COLOR, ColorMode.HS),
            (ATTR_COLOR_TEMP_KELVIN, ColorMode.COLOR_TEMP),
        ):
            if key in kwargs:
                setattr(self, f"_attr_{key}", kwargs[key])
                self._attr_color_mode = mode
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()


class FixtureFan(FixtureEntity, FanEntity):
    def _defaults(self) -> None:
        self._is_on = False
        self._attr_percentage = None
        self._attr_oscillating = None
        self._attr_supported_features = FanEntityFeature.TURN_ON | FanEntityFeature.TURN_OFF

    @property
    def is_on(self) -> bool:
        return self._is_on

    def apply(self, state, attributes):
        if state is not None:
            self._is_on = _on(state)
        if "supported_features" in attributes:
            # A real fan answers turn_on/turn_off; Home Assistant 2025.4 needs the flags.
            self._attr_supported_features = FanEntityFeature(
                attributes["supported_features"]
            ) | FanEntityFeature.TURN_ON | FanEntityFeature.TURN_OFF
        self._copy(attributes, "oscillating", "percentage")

    async def async_turn_on(self, percentage=None, preset_mode=None, **kwargs: Any) -> None:
        self._is_on = True
        self._attr_percentage = 100 if percentage is None else percentage
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._is_on = False
        self._attr_percentage = 0
        self.async_write_ha_state()

    async def async_set_percentage(self, percentage: int) -> None:
        self._is_on = percentage > 0
        self._attr_percentage = percentage
        self.async_write_ha_state()

    async def async_oscillate(self, oscillating: bool) -> None:
        self._attr_oscillating = oscillating
        self.async_write_ha_state()


class FixtureCover(FixtureEntity, CoverEntity):
    def _defaults(self) -> None:
        self._attr_is_closed = True
        self._attr_is_opening = False
        self._attr_is_closing = False
        self._attr_current_cover_position = None
        self._attr_device_class = None
        self._attr_supported_features = 0

    def apply(self, state, attributes):
        if state is not None:
            self._attr_is_opening = state == "opening"
            self._attr_is_closing = state == "closing"
            self._attr_is_closed = state == "closed"
        self._copy(attributes, "device_class", "supported_features")
        if "current_position" in attributes:
            self._attr_current_cover_position = attributes["current_position"]

    def _move_to(self, position: int) -> None:
        self._attr_is_opening = self._attr_is_closing = False
        self._attr_is_closed = position == 0
        if self._attr_current_cover_position is not None or position not in (0, 100):
            self._attr_current_cover_position = position
        self.async_write_ha_state()

    async def async_open_cover(self, **kwargs: Any) -> None:
        self._move_to(100)

    async def async_close_cover(self, **kwargs: Any) -> None:
        self._move_to(0)

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        self._move_to(kwargs["position"])

    async def async_stop_cover(self, **kwargs: Any) -> None:
        self._attr_is_opening = self._attr_is_closing = False
        self.async_write_ha_state()


class FixtureValve(FixtureEntity, ValveEntity):
    def _defaults(self) -> None:
        self._attr_is_closed = True
        self._attr_reports_position = False
        self._attr_current_valve_position = None
        self._attr_device_class = None
        self._attr_supported_features = 0

    def apply(self, state, attributes):
        self._copy(attributes, "device_class", "supported_features", "reports_position")
        if "current_position" in attributes:
            self._attr_current_valve_position = attributes["current_position"]
        if self._attr_reports_position and self._attr_current_valve_position is None:
            self._attr_current_valve_position = 0
        if state is not None:
            self._attr_is_closed = state == "closed"
            # A valve that reports its position shows its state through it.
            if self._attr_reports_position and "current_position" not in attributes:
                if state == "closed":
                    self._attr_current_valve_position = 0
                elif self._attr_current_valve_position == 0:
                    self._attr_current_valve_position = 100

    def _move_to(self, position: int) -> None:
        self._attr_is_closed = position == 0
        if self._attr_reports_position:
            self._attr_current_valve_position = position
        self.async_write_ha_state()

    async def async_open_valve(self) -> None:
        self._move_to(100)

    async def async_close_valve(self) -> None:
        self._move_to(0)

    async def async_set_valve_position(self, position: int) -> None:
        self._move_to(position)

    async def async_stop_valve(self) -> None:
        self.async_write_ha_state()


class FixtureLock(FixtureEntity, LockEntity):
    def _defaults(self) -> None:
        self._set("locked")
        self._attr_supported_features = 0

    def _set(self, state: str) -> None:
        self._attr_is_locked = state == "locked"
        self._attr_is_jammed = state == "jammed"
        self._attr_is_open = state == "open"
        self._attr_is_opening = state == "opening"
        self._attr_is_locking = state == "locking"
        self._attr_is_unlocking = state == "unlocking"

    def apply(self, state, attributes):
        if state is not None:
            self._set(state)
        self._copy(attributes, "supported_features")

    async def async_lock(self, **kwargs: Any) -> None:
        self._set("locked")
        self.async_write_ha_state()

    async def async_unlock(self, **kwargs: Any) -> None:
        self._set("unlocked")
        self.async_write_ha_state()

    async def async_open(self, **kwargs: Any) -> None:
        self._set("open")
        self.async_write_ha_state()


class FixtureVacuum(FixtureEntity, StateVacuumEntity):
    def _defaults(self) -> None:
        self._activity: str | None = VacuumActivity.DOCKED
        self._attr_supported_features = VacuumEntityFeature.STATE
        self._attr_fan_speed = None
        self._attr_fan_speed_list = []
        self._attr_battery_level = None

    @property
    def activity(self) -> str | None:
        return self._activity

    def apply(self, state, attributes):
        if state is not None:
            self._activity = state
        if "supported_features" in attributes:
            self._attr_supported_features = (
                VacuumEntityFeature(attributes["supported_features"]) | VacuumEntityFeature.STATE
            )
        self._copy(attributes, "fan_speed", "fan_speed_list", "battery_level")

    def _go(self, activity: VacuumActivity) -> None:
        self._activity = activity
        self.async_write_ha_state()

    async def async_start(self) -> None:
        self._go(VacuumActivity.CLEANING)

    async def async_pause(self) -> None:
        self._go(VacuumActivity.PAUSED)

    async def async_stop(self, **kwargs: Any) -> None:
        self._go(VacuumActivity.IDLE)

    async def async_return_to_base(self, **kwargs: Any) -> None:
        self._go(VacuumActivity.RETURNING)

    async def async_clean_spot(self, **kwargs: Any) -> None:
        self._go(VacuumActivity.CLEANING)

    async def async_locate(self, **kwargs: Any) -> None:
        self.async_write_ha_state()

    async def async_set_fan_speed(self, fan_speed: str, **kwargs: Any) -> None:
        self._attr_fan_speed = fan_speed
        self.async_write_ha_state()


class FixtureMediaPlayer(FixtureEntity, MediaPlayerEntity):
    def _defaults(self) -> None:
        self._attr_state = MediaPlayerState.OFF
        self._attr_device_class = None
        self._attr_supported_features = 0
        self._attr_volume_level = None
        self._attr_is_volume_muted = None
        self._attr_media_track = None
        self._attr_media_title = None

    def apply(self, state, attributes):
        if state is not None:
            self._attr_state = MediaPlayerState(state)
        self._copy(
            attributes, "device_class", "supported_features", "volume_level",
            "is_volume_muted", "media_track", "media_title",
        )

    def _set(self, **fields: Any) -> None:
        for key, value in fields.items():
            setattr(self, f"_attr_{key}", value)
        self.async_write_ha_state()

    async def async_turn_on(self) -> None:
        self._set(state=MediaPlayerState.IDLE)

    async def async_turn_off(self) -> None:
        self._set(state=MediaPlayerState.OFF)

    async def async_media_play(self) -> None:
        self._set(state=MediaPlayerState.PLAYING)

    async def async_media_pause(self) -> None:
        self._set(state=MediaPlayerState.PAUSED)

    async def async_media_stop(self) -> None:
        self._set(state=MediaPlayerState.IDLE)

    async def async_media_next_track(self) -> None:
        self._set(state=MediaPlayerState.PLAYING, media_track=(self._attr_media_track or 0) + 1)

    async def async_media_previous_track(self) -> None:
        self._set(media_track=max(1, (self._attr_media_track or 1) - 1))

    async def async_set_volume_level(self, volume: float) -> None:
        self._set(volume_level=volume)

    async def async_mute_volume(self, mute: bool) -> None:
        self._set(is_volume_muted=mute)


def _todo_item(value: Any) -> TodoItem:
    if isinstance(value, dict):
        return TodoItem(
            summary=str(value.get("summary", "")),
            uid=str(value.get("uid") or uuid.uuid4().hex),
            status=TodoItemStatus(value.get("status", TodoItemStatus.NEEDS_ACTION)),
        )
    return TodoItem(summary=str(value), uid=uuid.uuid4().hex,
                    status=TodoItemStatus.NEEDS_ACTION)


class FixtureTodo(FixtureEntity, TodoListEntity):
    def _defaults(self) -> None:
        self._attr_todo_items = []
        self._attr_supported_features = TodoListEntityFeature.CREATE_TODO_ITEM

    def apply(self, state, attributes):
        self._copy(attributes, "supported_features")
        if "todo_items" in attributes:
            self._attr_todo_items = [_todo_item(v) for v in attributes["todo_items"] or []]
        elif state is not None:
            # A count of open items without their texts (checked against todo_items when both
            # are given): that many items, numbered.
            self._attr_todo_items = [_todo_item(f"Item {n}") for n in range(1, int(state) + 1)]

    async def async_create_todo_item(self, item: TodoItem) -> None:
        item.uid = item.uid or uuid.uuid4().hex
        item.status = item.status or TodoItemStatus.NEEDS_ACTION
        self._attr_todo_items = [*self._attr_todo_items, item]
        self.async_write_ha_state()

    async def async_update_todo_item(self, item: TodoItem) -> None:
        self._attr_todo_items = [item if i.uid == item.uid else i for i in self._attr_todo_items]
        self.async_write_ha_state()

    async def async_delete_todo_items(self, uids: list[str]) -> None:
        self._attr_todo_items = [i for i in self._attr_todo_items if i.uid not in uids]
        self.async_write_ha_state()


class FixtureScene(FixtureEntity, Scene):
    """Activating it puts the home's entities it names into its states, as a real scene
    does; Home Assistant keeps the scene's own state (when it was last activated)."""

    def _defaults(self) -> None:
        self._targets: dict[str, str] = {}

    def apply(self, state, attributes):
        if "entities" in attributes:
            self._targets = dict(attributes["entities"])

    async def async_activate(self, **kwargs: Any) -> None:
        entities = self.hass.data[DOMAIN].entities
        for entity_id, state in self._targets.items():
            entity = entities[entity_id]
            entity.apply(state, {})
            entity.async_write_ha_state()


def _calendar_event(value: dict[str, Any], shift: dt.timedelta) -> CalendarEvent:
    """An event of the fixture, `shift` days later, its times as wall-clock times of Home
    Assistant's time zone (the home's time zone is where the person lives)."""

    def when(raw: Any) -> dt.date | dt.datetime:
        parsed = parse_when(raw, "event")
        if isinstance(parsed, dt.datetime):
            wall = parsed.replace(tzinfo=None) + shift
            return wall.replace(tzinfo=dt_util.get_default_time_zone())
        return parsed + shift

    start = when(value["start"])
    end = when(value["end"]) if value.get("end") is not None else None
    if isinstance(start, dt.datetime):
        if not isinstance(end, dt.datetime) or end <= start:
            end = start + dt.timedelta(hours=1)
    elif isinstance(end, dt.datetime) or end is None or end <= start:
        # An all-day event ends the day after it starts (Home Assistant's end is exclusive).
        end = start + dt.timedelta(days=1)
    return CalendarEvent(
        start=start, end=end, summary=str(value["summary"]),
        description=value.get("description"), location=value.get("location"),
        uid=str(value.get("uid") or uuid.uuid4().hex),
    )


class FixtureCalendar(FixtureEntity, CalendarEntity):
    """A calendar whose events are the fixture's; `calendar.get_events` and the state (on while
    an event runs, with the current or next event's fields) come from Home Assistant's own
    calendar code."""

    def _defaults(self) -> None:
        self._events: list[CalendarEvent] = []
        self._attr_supported_features = 0

    def apply(self, state, attributes):
        self.apply_at(state, attributes, None)

    def apply_at(self, state, attributes, context_now):
        self._copy(attributes, "supported_features")
        if "events" in attributes:
            # The day the task is spoken becomes today (in the zone set_state chose for it);
            # wall-clock times stay as written.
            shift = dt.timedelta(0)
            if context_now is not None:
                shift = dt_util.now().date() - context_now.date()
            self._events = sorted(
                (_calendar_event(e, shift) for e in attributes["events"] or []),
                key=lambda e: e.start_datetime_local,
            )

    @property
    def event(self) -> CalendarEvent | None:
        now = dt_util.now()
        return next((e for e in self._events if e.end_datetime_local > now), None)

    async def async_get_events(
        self, hass: HomeAssistant, start_date: dt.datetime, end_date: dt.datetime
    ) -> list[CalendarEvent]:
        return [e for e in self._events
                if e.start_datetime_local < end_date and e.end_datetime_local > start_date]


class FixtureWeather(FixtureEntity, WeatherEntity):
    """Current conditions and forecasts as the fixture writes them, in native units (Home
    Assistant converts them to the home's unit system as for any weather integration)."""

    NUMBERS = (
        "native_temperature", "native_apparent_temperature", "native_dew_point", "humidity",
        "native_wind_speed", "native_pressure", "cloud_coverage", "uv_index",
        "native_visibility",
    )

    def _defaults(self) -> None:
        self._attr_condition = None
        self._attr_native_temperature_unit = UnitOfTemperature.CELSIUS
        self._attr_native_wind_speed_unit = None
        self._attr_native_pressure_unit = None
        self._attr_native_visibility_unit = None
        self._attr_wind_bearing = None
        for key in self.NUMBERS:
            setattr(self, f"_attr_{key}", None)
        self._daily: list[Forecast] | None = None
        self._hourly: list[Forecast] | None = None
        self._attr_supported_features = WeatherEntityFeature(0)

    def apply(self, state, attributes):
        self._copy(attributes, "condition", "native_temperature_unit", "native_wind_speed_unit",
                   "native_pressure_unit", "native_visibility_unit", "wind_bearing")
        for key in self.NUMBERS:
            if key in attributes:
                setattr(self, f"_attr_{key}", _number(attributes[key]))
        if "forecast_daily" in attributes:
            self._daily = [Forecast(**f) for f in attributes["forecast_daily"] or []]
        if "forecast_hourly" in attributes:
            self._hourly = [Forecast(**f) for f in attributes["forecast_hourly"] or []]
        features = WeatherEntityFeature(0)
        if self._daily is not None:
            features |= WeatherEntityFeature.FORECAST_DAILY
        if self._hourly is not None:
            features |= WeatherEntityFeature.FORECAST_HOURLY
        self._attr_supported_features = features

    async def async_forecast_daily(self) -> list[Forecast] | None:
        return self._daily

    async def async_forecast_hourly(self) -> list[Forecast] | None:
        return self._hourly


class FixtureClimate(FixtureEntity, ClimateEntity):
    _enable_turn_on_off_backwards_compatibility = False

    def _defaults(self) -> None:
        self._attr_temperature_unit = UnitOfTemperature.CELSIUS
        self._attr_supported_features = ClimateEntityFeature(0)
        self._attr_hvac_modes = [HVACMode.OFF, HVACMode.HEAT]
        self._attr_hvac_mode = HVACMode.OFF
        self._attr_hvac_action = None
        self._attr_current_temperature = None
        self._attr_target_temperature = None
        self._attr_target_temperature_low = None
        self._attr_target_temperature_high = None
        self._attr_fan_modes = None
        self._attr_fan_mode = None
        self._attr_current_humidity = None
        # Home Assistant's own defaults for a thermostat that states no range.
        self._attr_min_temp = 7
        self._attr_max_temp = 35

    def apply(self, state, attributes):
        if "unit_of_measurement" in attributes:
            self._attr_temperature_unit = UnitOfTemperature(attributes["unit_of_measurement"])
        if "supported_features" in attributes:
            self._attr_supported_features = ClimateEntityFeature(attributes["supported_features"])
        if "hvac_modes" in attributes:
            self._attr_hvac_modes = [HVACMode(m) for m in attributes["hvac_modes"]]
        mode = attributes.get("hvac_mode", state)
        if mode is not None:
            self._attr_hvac_mode = HVACMode(mode)
        if attributes.get("hvac_action") is not None:
            self._attr_hvac_action = HVACAction(attributes["hvac_action"])
        for key, attr in (
            ("current_temperature", "current_temperature"),
            ("target_temperature", "target_temperature"),
            ("target_temp_low", "target_temperature_low"),
            ("target_temp_high", "target_temperature_high"),
            ("fan_modes", "fan_modes"),
            ("fan_mode", "fan_mode"),
            ("current_humidity", "current_humidity"),
            ("min_temp", "min_temp"),
            ("max_temp", "max_temp"),
        ):
            if key in attributes:
                setattr(self, f"_attr_{attr}", attributes[key])
        # A thermostat that has a single set point can be set to one.
        if self._attr_target_temperature is not None:
            self._attr_supported_features |= ClimateEntityFeature.TARGET_TEMPERATURE
        # The fan mode feature needs the modes to choose from.
        if self._attr_supported_features & ClimateEntityFeature.FAN_MODE and not self._attr_fan_modes:
            self._attr_supported_features &= ~ClimateEntityFeature.FAN_MODE

    async def async_set_temperature(self, **kwargs: Any) -> None:
        if "temperature" in kwargs:
            self._attr_target_temperature = kwargs["temperature"]
        if "target_temp_low" in kwargs:
            self._attr_target_temperature_low = kwargs["target_temp_low"]
        if "target_temp_high" in kwargs:
            self._attr_target_temperature_high = kwargs["target_temp_high"]
        if kwargs.get("hvac_mode") is not None:
            self._attr_hvac_mode = HVACMode(kwargs["hvac_mode"])
        self.async_write_ha_state()

    async def async_set_hvac_mode(self, hvac_mode: HVACMode) -> None:
        self._attr_hvac_mode = hvac_mode
        self.async_write_ha_state()

    async def async_set_fan_mode(self, fan_mode: str) -> None:
        self._attr_fan_mode = fan_mode
        self.async_write_ha_state()

    async def async_turn_on(self) -> None:
        modes = [m for m in self._attr_hvac_modes if m != HVACMode.OFF]
        preferred = [m for m in (HVACMode.AUTO, HVACMode.HEAT_COOL, HVACMode.HEAT) if m in modes]
        await self.async_set_hvac_mode((preferred or modes or [HVACMode.OFF])[0])

    async def async_turn_off(self) -> None:
        await self.async_set_hvac_mode(HVACMode.OFF)


class FixtureSatellite(FixtureEntity, AssistSatelliteEntity):
    """A voice satellite without hardware: what Home Assistant asks of it is recorded in its
    attributes (`conversations`: each `start_conversation` with the conversation id Home
    Assistant made for it; `timers`: each timer event on its device), and its state is set as
    a task's set-up sets it (`fixture_home.set_state`), standing in for a pipeline running on
    it. Its device takes timers, as a timer-capable satellite's does."""

    _attr_supported_features = (
        AssistSatelliteEntityFeature.ANNOUNCE | AssistSatelliteEntityFeature.START_CONVERSATION
    )

    def _defaults(self) -> None:
        self._conversations: list[dict[str, Any]] = []
        self._timers: list[dict[str, Any]] = []
        self._AssistSatelliteEntity__assist_satellite_state = AssistSatelliteState.IDLE

    def apply(self, state, attributes):
        if state is not None:
            # The base class keeps the state private and writes it at once; the set-up writes
            # it after `apply`, as for every fixture entity.
            self._AssistSatelliteEntity__assist_satellite_state = AssistSatelliteState(state)

    @property
    def extra_state_attributes(self) -> dict[str, Any]:
        return {"conversations": list(self._conversations), "timers": list(self._timers)}

    async def async_added_to_hass(self) -> None:
        await super().async_added_to_hass()
        device_id = self.registry_entry.device_id if self.registry_entry else None
        if device_id:
            self.async_on_remove(
                async_register_timer_handler(self.hass, device_id, self._timer_event)
            )

    def _timer_event(self, event_type: TimerEventType, timer: TimerInfo) -> None:
        self._timers.append(
            {"event": str(event_type), "seconds": timer.seconds, "name": timer.name}
        )
        self.async_write_ha_state()

    def async_get_configuration(self) -> AssistSatelliteConfiguration:
        return AssistSatelliteConfiguration(
            available_wake_words=[], active_wake_words=[], max_active_wake_words=1
        )

    async def async_set_configuration(self, config: AssistSatelliteConfiguration) -> None:
        """Nothing to configure on a satellite without hardware."""

    def on_pipeline_event(self, event: PipelineEvent) -> None:
        """No pipeline runs on it: the tests set its state instead."""

    async def async_announce(self, announcement: AssistSatelliteAnnouncement) -> None:
        """Played at once: there is no speaker to wait for."""

    async def async_start_conversation(
        self, start_announcement: AssistSatelliteAnnouncement
    ) -> None:
        self._conversations.append(
            {
                "start_message": start_announcement.message,
                "media_id": start_announcement.original_media_id,
                "preannounce_media_id": start_announcement.preannounce_media_id,
                "conversation_id": self._conversation_id,
            }
        )


CLASSES: dict[str, type[FixtureEntity]] = {
    "assist_satellite": FixtureSatellite,
    "switch": FixtureSwitch,
    "binary_sensor": FixtureBinarySensor,
    "sensor": FixtureSensor,
    "light": FixtureLight,
    "fan": FixtureFan,
    "cover": FixtureCover,
    "valve": FixtureValve,
    "lock": FixtureLock,
    "vacuum": FixtureVacuum,
    "media_player": FixtureMediaPlayer,
    "todo": FixtureTodo,
    "scene": FixtureScene,
    "climate": FixtureClimate,
    "calendar": FixtureCalendar,
    "weather": FixtureWeather,
}


def platform_setup(domain: str) -> Callable:
    """The `async_setup_entry` of one platform module: adds the home's entities of `domain`."""

    async def async_setup_entry(
        hass: HomeAssistant, entry: ConfigEntry, async_add_entities: AddEntitiesCallback
    ) -> None:
        loaded = hass.data[DOMAIN]
        entities = [CLASSES[domain](spec) for spec in loaded.home.entities
                    if spec.domain == domain]
        for entity in entities:
            loaded.entities[entity.entity_id] = entity
        async_add_entities(entities)

    return async_setup_entry
