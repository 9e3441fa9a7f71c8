"""Talks to a Wyoming server with the reference implementation (the `wyoming` package from
PyPI, as bundled with Home Assistant): describe, then one transcript. Prints one JSON line.

Usage: wyoming_probe.py HOST PORT TEXT
"""
import asyncio
import json
import sys

from wyoming.asr import Transcript
from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info


async def main(host: str, port: int, text: str) -> None:
    out = {}
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Describe().event())
        event = await client.read_event()
        info = Info.from_event(event)
        handle = info.handle[0]
        out.update(
            info_type=event.type,
            handle=[h.name for h in info.handle],
            installed=handle.installed,
            languages=handle.models[0].languages,
        )
    async with AsyncTcpClient(host, port) as client:
        await client.write_event(Transcript(text=text).event())
        event = await client.read_event()
        out.update(result_type=event.type, text=(event.data or {}).get("text"))
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
