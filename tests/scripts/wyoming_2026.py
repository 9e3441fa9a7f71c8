"""Speaks to a Wyoming handle service as Home Assistant 2026.11's Wyoming conversation agent
does (homeassistant/components/wyoming/conversation.py), with the `wyoming` package it pins
(1.10.x): describe, read what the handle program says of itself, then one transcript whose
context carries the conversation id and, when given, the satellite's device and entity ids.
Prints one JSON line.

Usage: wyoming_2026.py HOST PORT TEXT LANGUAGE [DEVICE_ID [SATELLITE_ID [CONVERSATION_ID]]]
"""
import asyncio
import json
import sys

from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.handle import Handled, NotHandled
from wyoming.info import Describe, Info


async def main(host, port, text, language, device_id=None, satellite_id=None,
               conversation_id=None):
    out = {}
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Describe().event())
        info = Info.from_event(await client.read_event())
        handle = next(h for h in info.handle if h.installed)
        out.update(
            supports_home_control=handle.supports_home_control,
            languages=handle.models[0].languages,
        )
    context = {"conversation_id": conversation_id or "01KAZ0WYOMING2026TEST0000"}
    if device_id:
        context["device_id"] = device_id
    if satellite_id:
        context["satellite_id"] = satellite_id
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Transcript(text, context=context, language=language).event())
        event = await client.read_event()
        if Handled.is_type(event.type):
            answer = Handled.from_event(event)
        elif NotHandled.is_type(event.type):
            answer = NotHandled.from_event(event)
        else:
            answer = None
        out.update(
            result_type=event.type,
            text=answer.text if answer else None,
            context=answer.context if answer else None,
        )
    print(json.dumps(out))


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], int(args[1]), *[a or None for a in args[2:]]))
