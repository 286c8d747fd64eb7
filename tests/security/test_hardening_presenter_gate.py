"""The presenter's gate's decisions (ui/presenter.py): which requests are beyond loopback, where the
passcode comes from, and that it is compared in constant time. The gate itself runs in chromium
(tests/browser/test_ui_presenter_gate_browser.py)."""

from __future__ import annotations

import pytest

from ui import presenter


@pytest.mark.parametrize(
    "address, host, beyond",
    [
        ("127.0.0.1", "127.0.0.1:8501", False),
        ("127.0.0.1", "localhost:8501", False),
        ("::1", "[::1]:8501", False),
        ("127.0.0.1", None, False),
        ("0.0.0.0", "127.0.0.1:8501", True),  # listens everywhere: the room could open it too
        (None, "127.0.0.1:8501", True),  # Streamlit's default address is every interface
        ("127.0.0.1", "laptop.local:8501", True),  # reached under another name (a proxy, a widened allow-list)
        ("127.0.0.1", "127.0.0.1.evil.example", True),
    ],
)
def test_beyond_loopback(address, host, beyond):
    assert presenter.beyond_loopback(address, host) is beyond


def test_the_passcode_comes_from_the_environment_then_the_home_file(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    monkeypatch.delenv("DEBATE_PRESENTER_PASSCODE", raising=False)
    assert presenter.passcode() is None
    (tmp_path / "presenter-passcode").write_text("  from-file \n", encoding="utf-8")
    assert presenter.passcode() == "from-file"
    monkeypatch.setenv("DEBATE_PRESENTER_PASSCODE", "from-env")
    assert presenter.passcode() == "from-env"
    monkeypatch.setenv("DEBATE_PRESENTER_PASSCODE", "   ")  # blank: not a passcode
    assert presenter.passcode() == "from-file"


def test_matches_only_the_passcode():
    assert presenter.matches(" violet ", "violet")
    assert not presenter.matches("violet2", "violet") and not presenter.matches("", "violet")
    assert not presenter.matches("vіolet", "violet")  # a Cyrillic і is another passcode
