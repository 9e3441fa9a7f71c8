"""The fixture home's voice satellites (all domain logic lives in entity.py)."""

from .entity import platform_setup

async_setup_entry = platform_setup("assist_satellite")
