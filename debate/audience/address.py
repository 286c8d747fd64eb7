"""Where the audience server is, for the presenter's pages: the address phones use, and the signing key.

`debate audience` writes `audience.json` into DEBATE_HOME when it starts (the address phones use and its
process id); the presenter's Poll and Present pages read it to show the link and its QR code, and say how
to start the server when it is not running. The key that signs the phones' cookies is kept beside it
(`audience-secret`, readable by its owner only), so a restarted server still knows the phones that voted.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from pathlib import Path

from debate import config

INFO_FILE = "audience.json"
SECRET_FILE = "audience-secret"


def secret_key(home: Path | None = None) -> str:
    """The cookie-signing key, made once (64 hex digits) and kept in DEBATE_HOME."""
    p = (home or config.home()) / SECRET_FILE
    if not p.is_file() or len(p.read_text().strip()) < 32:
        config.private_file(p)
        p.write_text(secrets.token_hex(32))
    return p.read_text().strip()


def lan_address() -> str:
    """This machine's address on its network (the one a route to the outside would leave from); no packet
    is sent. 127.0.0.1 when there is no network."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: a connect on UDP only picks the route
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def public_url(host: str, port: int, url: str | None = None) -> str:
    """The address phones type or scan: `url` when given, else this machine's network address when the
    server listens on every interface, else the host it listens on."""
    if url:
        return url.rstrip("/")
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def publish(url: str, home: Path | None = None) -> Path:
    p = (home or config.home()) / INFO_FILE
    config.private_file(p)
    p.write_text(json.dumps({"url": url, "pid": os.getpid()}))
    return p


def unpublish(home: Path | None = None) -> None:
    p = (home or config.home()) / INFO_FILE
    try:
        if json.loads(p.read_text()).get("pid") == os.getpid():
            p.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def published_url(home: Path | None = None) -> str | None:
    """The running audience server's address for phones, or None when none runs for this DEBATE_HOME."""
    p = (home or config.home()) / INFO_FILE
    try:
        info = json.loads(p.read_text())
        pid, url = int(info["pid"]), str(info["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        pass
    return url
