"""The fixture home's scene entities (all domain logic lives in entity.py)."""

from .entity import platform_setup

async_setup_entry = platform_setup("scene")
