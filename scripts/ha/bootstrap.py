#!/usr/bin/env python3
"""Obtain a long-lived Home Assistant access token without a person, and put the demo home's
devices into areas.

Usage: bootstrap.py BASE_URL TOKEN_FILE

Runs inside the Home Assistant venv (aiohttp is there). Steps:
  1. wait until HTTP answers (fails fast if the process in $HA_PID died);
  2. keep TOKEN_FILE when HA still accepts its token;
  3. otherwise create the owner through onboarding (fresh config dir) or log in
     through the login flow (already onboarded), exchange the auth code for an
     access token, and trade that for a long-lived token over the websocket;
  4. wait until get_config reports RUNNING, so every demo entity exists;
  5. assign demo devices (and a few entities directly) to the demo areas, so that the
     entity -> device -> area chain is exercised; idempotent.
The core_config onboarding step is skipped on purpose: it creates integrations
that reach the internet. With HA_FRONTEND=1 (an instance whose web UI a test looks at) it is
done too, since the UI shows onboarding until every step is.
"""
import asyncio
import os
import sys
import time

import aiohttp

USER = os.environ.get("HA_USER", "homeclaw")
PASSWORD = os.environ.get("HA_PASSWORD", "homeclaw-dev-password")
TIMEOUT = float(os.environ.get("HA_START_TIMEOUT", "300"))


def fail(msg):
    raise SystemExit(f"bootstrap: {msg}")


def hass_alive():
    pid = os.environ.get("HA_PID")
    if not pid:
        return
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        fail(f"hass (pid {pid}) exited during start-up")


async def wait_http(session, base, deadline):
    last = "no answer"
    while time.monotonic() < deadline:
        hass_alive()
        try:
            async with session.get(f"{base}/api/onboarding") as resp:
                if resp.status in (200, 401, 404):
                    return
                last = f"HTTP {resp.status}"
        except aiohttp.ClientError as err:
            last = repr(err)
        await asyncio.sleep(0.2)
    fail(f"{base} did not answer in time ({last})")


async def accepted(session, base, token):
    async with session.get(f"{base}/api/", headers={"Authorization": f"Bearer {token}"}) as r:
        return r.status == 200


async def exchange_code(session, base, client_id, code):
    form = {"grant_type": "authorization_code", "code": code, "client_id": client_id}
    async with session.post(f"{base}/auth/token", data=form) as resp:
        body = await resp.json()
        if resp.status != 200:
            fail(f"/auth/token answered {resp.status}: {body}")
        return body["access_token"]


async def onboard_owner(session, base, client_id):
    user = {"client_id": client_id, "name": "HomeClaw Dev", "username": USER,
            "password": PASSWORD, "language": "en"}
    async with session.post(f"{base}/api/onboarding/users", json=user) as resp:
        body = await resp.json()
        if resp.status != 200:
            fail(f"onboarding/users answered {resp.status}: {body}")
    access = await exchange_code(session, base, client_id, body["auth_code"])
    headers = {"Authorization": f"Bearer {access}"}
    steps = {
        "analytics": {},
        "integration": {"client_id": client_id, "redirect_uri": f"{client_id}?auth_callback=1"},
    }
    for step, payload in steps.items():
        async with session.post(f"{base}/api/onboarding/{step}", json=payload,
                                headers=headers) as resp:
            if resp.status not in (200, 403):
                print(f"bootstrap: onboarding/{step}: HTTP {resp.status}", file=sys.stderr)
    return access


async def log_in(session, base, client_id):
    start = {"client_id": client_id, "handler": ["homeassistant", None],
             "redirect_uri": f"{client_id}?auth_callback=1"}
    async with session.post(f"{base}/auth/login_flow", json=start) as resp:
        flow = await resp.json()
    creds = {"client_id": client_id, "username": USER, "password": PASSWORD}
    async with session.post(f"{base}/auth/login_flow/{flow['flow_id']}", json=creds) as resp:
        step = await resp.json()
    if step.get("type") != "create_entry":
        fail(f"login as {USER!r} failed: {step.get('errors') or step.get('type')}")
    return await exchange_code(session, base, client_id, step["result"])


async def ws_session(session, base, token):
    ws = await session.ws_connect(base.replace("http", "ws", 1) + "/api/websocket")
    hello = await ws.receive_json()
    if hello.get("type") != "auth_required":
        fail(f"unexpected websocket greeting {hello}")
    await ws.send_json({"type": "auth", "access_token": token})
    answer = await ws.receive_json()
    if answer.get("type") != "auth_ok":
        fail(f"websocket auth failed: {answer}")
    return ws


async def long_lived(session, base, access):
    ws = await ws_session(session, base, access)
    try:
        await ws.send_json({"id": 1, "type": "auth/long_lived_access_token",
                            "client_name": f"homeclaw-dev-{int(time.time())}", "lifespan": 3650})
        answer = await ws.receive_json()
        if not answer.get("success"):
            fail(f"long-lived token refused: {answer}")
        return answer["result"]
    finally:
        await ws.close()


async def wait_running(session, base, token, deadline):
    ws = await ws_session(session, base, token)
    try:
        msg_id = 0
        while True:
            msg_id += 1
            await ws.send_json({"id": msg_id, "type": "get_config"})
            answer = await ws.receive_json()
            state = answer.get("result", {}).get("state")
            if state == "RUNNING":
                return
            hass_alive()
            if time.monotonic() > deadline:
                fail(f"Home Assistant still {state} at the deadline")
            await asyncio.sleep(0.2)
    finally:
        await ws.close()


# Device name -> area id (the device's entities inherit the area).
DEVICE_AREAS = {
    "Kitchen Lights": "kitchen",
    "Kitchen Window": "kitchen",
    "Ceiling Lights": "living_room",
    "Living Room RGBWW Lights": "living_room",
    "Living Room Window": "living_room",
    "Decorative Lights": "living_room",
    "Bed Light": "bedroom",
    "HeatPump": "bedroom",
}
# Entity id -> area id, set on the entity itself (overrides its device's area).
ENTITY_AREAS = {
    "sensor.outside_temperature": "living_room",
    "switch.ac": "bedroom",
}


async def assign_areas(session, base, token):
    ws = await ws_session(session, base, token)
    msg_id = 0

    async def call(payload):
        nonlocal msg_id
        msg_id += 1
        await ws.send_json(dict(payload, id=msg_id))
        while True:
            answer = await ws.receive_json()
            if answer.get("id") == msg_id:
                return answer

    try:
        devices = (await call({"type": "config/device_registry/list"}))["result"]
        for device in devices:
            area = DEVICE_AREAS.get(device.get("name_by_user") or device.get("name"))
            if area and device.get("area_id") != area:
                answer = await call({"type": "config/device_registry/update",
                                     "device_id": device["id"], "area_id": area})
                if not answer.get("success"):
                    fail(f"cannot put device {device['name']!r} in {area}: {answer}")
        for entity_id, area in ENTITY_AREAS.items():
            answer = await call({"type": "config/entity_registry/update",
                                 "entity_id": entity_id, "area_id": area})
            if not answer.get("success"):
                fail(f"cannot put {entity_id} in {area}: {answer}")
    finally:
        await ws.close()


async def finish_onboarding(session, base, token):
    """Home Assistant's web UI sends a person to onboarding until every step is done."""
    if os.environ.get("HA_FRONTEND") != "1":
        return
    async with session.get(f"{base}/api/onboarding") as resp:
        steps = await resp.json() if resp.status == 200 else []
    if any(s["step"] == "core_config" and not s["done"] for s in steps):
        async with session.post(f"{base}/api/onboarding/core_config", json={},
                                headers={"Authorization": f"Bearer {token}"}) as resp:
            if resp.status not in (200, 403):
                fail(f"onboarding/core_config answered {resp.status}: {await resp.text()}")


async def demo_areas(session, base, token):
    """The demo home gets its areas here; a fixture home (HA_HOME) brings its own."""
    if not os.environ.get("HA_HOME"):
        await assign_areas(session, base, token)


async def main(base, token_file):
    base = base.rstrip("/")
    client_id = f"{base}/"
    deadline = time.monotonic() + TIMEOUT
    async with aiohttp.ClientSession() as session:
        await wait_http(session, base, deadline)
        if os.path.exists(token_file):
            with open(token_file) as fh:
                token = fh.read().strip()
            if token and await accepted(session, base, token):
                await wait_running(session, base, token, deadline)
                await demo_areas(session, base, token)
                await finish_onboarding(session, base, token)
                return
        async with session.get(f"{base}/api/onboarding") as resp:
            steps = await resp.json() if resp.status == 200 else []
        owner_exists = not steps or any(s["step"] == "user" and s["done"] for s in steps)
        access = await (log_in if owner_exists else onboard_owner)(session, base, client_id)
        token = await long_lived(session, base, access)
        if not await accepted(session, base, token):
            fail("the new long-lived token is not accepted by /api/")
        await wait_running(session, base, token, deadline)
        await demo_areas(session, base, token)
        await finish_onboarding(session, base, token)
    tmp = f"{token_file}.tmp"
    with open(tmp, "w") as fh:
        fh.write(token + "\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, token_file)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
