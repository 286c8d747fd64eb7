"""The audience link as a QR code (segno: pure Python, no dependencies), for the presenter's screen."""

from __future__ import annotations

import io

import segno


def png(url: str, scale: int = 8) -> bytes:
    """A PNG of the QR code for `url`, error correction M (a projector's glare, a phone far back)."""
    buf = io.BytesIO()
    segno.make(url, error="m", micro=False).save(buf, kind="png", scale=scale, border=2)
    return buf.getvalue()
