"""The fixture home is configured from configuration.yaml only (an import flow)."""

from typing import Any

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult

from .home import DOMAIN


class FixtureHomeFlow(ConfigFlow, domain=DOMAIN):
    """Creates the one entry that holds the path of the home file."""

    VERSION = 1

    async def async_step_import(self, data: dict[str, Any]) -> ConfigFlowResult:
        await self.async_set_unique_id(DOMAIN)
        self._abort_if_unique_id_configured(updates=data)
        return self.async_create_entry(title="Fixture home", data=data)
