"""Start the real app on a free loopback port and drive it with Debian's chromium through playwright.

Used by the browser tests and by bench/bench_ui.py. The app runs as a subprocess in its own session
(so teardown kills its whole process group) with DEBATE_HOME pointed at a temporary folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def have_browser() -> bool:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return os.path.exists(CHROMIUM)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def app_server(home: Path, env: dict | None = None, timeout: float = 60.0, address: str = "127.0.0.1") -> Iterator[str]:
    """Yield the base URL of a running app; kill its process group afterwards."""
    port = free_port()
    e = {**os.environ, "DEBATE_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    log = open(home / "streamlit.log", "wb")  # noqa: SIM115 - the server writes to it until the fixture ends
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.address",
            address,
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=REPO,
        env=e,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(url, proc, timeout):
            raise RuntimeError(f"the app did not start: see {home / 'streamlit.log'}")
        yield url
    finally:
        stop_group(proc)
        log.close()


# What the app's own log may not hold while a person uses it: a stack trace, a warning, a deprecation
# notice (each is a line someone running the app reads as a fault). Interpreter shutdown is not checked.
_LOG_PROBLEM = re.compile(r"Traceback|Warning|deprecat|will be removed|Please replace", re.IGNORECASE)


def app_log_problems(home: Path) -> list[str]:
    """The lines of the app's log (`app_server`'s streamlit.log in `home`) that report a fault, with the
    lines after each (the message a notice spans)."""
    lines = (home / "streamlit.log").read_text(encoding="utf-8", errors="replace").splitlines()
    return ["\n".join(lines[i : i + 3]) for i, line in enumerate(lines) if _LOG_PROBLEM.search(line)]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float) -> bool:
    """Poll the app's health endpoint until it answers "ok" (True), the process ends or `timeout` passes."""
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return True
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            return False
        time.sleep(0.2)


def stop_group(proc: subprocess.Popen, grace: float = 10) -> None:
    """End a process started with start_new_session and everything it started: SIGTERM, then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


@contextlib.contextmanager
def browser_page(width: int = 1400, height: int = 2200) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


# The page's own run state (Streamlit marks its root element): "rerunRequested" as soon as the page asks
# for a rerun, "initial" before the first run. The status widget alone shows only a moment after a run
# starts, so a step taken when it has not appeared yet raced the run (and the browser's widget state, sent
# with that step, wins over values the run sets).
NOT_RUNNING_JS = """(() => { const app = document.querySelector('[data-testid="stApp"]');
    return !!app && ['notRunning', 'compilationError'].includes(app.dataset.testScriptState)
        && !document.querySelector('[data-testid="stStatusWidget"]'); })()"""


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until the script is not running (the page's run state says so and the status widget is gone)."""
    page.wait_for_function(f"() => {NOT_RUNNING_JS}", timeout=timeout)


SETTLED_JS = f"""() => {NOT_RUNNING_JS} && !document.querySelector('[data-stale="true"]')"""


def wait_settled(page, timeout: float = 120.0, quiet_s: float = 1.0) -> None:
    """Wait until no rerun is in progress and no stale element is left, for `quiet_s` in a row
    (the status widget appears only a moment after a rerun starts, so one look is not enough)."""
    deadline = time.time() + timeout
    calm_since = None
    while time.time() < deadline:
        if page.evaluate(SETTLED_JS):
            calm_since = calm_since or time.time()
            if time.time() - calm_since >= quiet_s:
                return
        else:
            calm_since = None
        time.sleep(0.1)
    raise TimeoutError("the page did not settle")


def pick(page, key: str, option: str, exact: bool = False, attempts: int = 3) -> None:
    """Choose `option` in the select box keyed `key`: settle, open, click the option; if the list did not
    open (a click that landed as an expander or a rerun moved the box) close it and open it again."""
    for attempt in range(attempts):
        wait_settled(page)
        page.locator(f".st-key-{key}").click()
        try:
            page.get_by_role("option", name=option, exact=exact).first.click(timeout=15_000)
            break
        except Exception:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")
    page.keyboard.press("Escape")  # a multiselect keeps its list open after a pick
    wait_settled(page)


@contextlib.contextmanager
def library_page(tmp_path: Path, debate_id: str, ready: str = ".verdict-card"):
    """(url, page): a quiet app server (no warm-up) on `tmp_path` and chromium on the Library at
    `debate_id`, once `ready` (a Playwright selector) shows and the page has settled."""
    with (
        app_server(tmp_path, env={"DEBATE_WARM_RETRIEVER": "0", "DEBATE_WARM_AHEAD": "0"}) as url,
        browser_page(1500, 2600) as page,
    ):
        page.goto(f"{url}/library?debate={debate_id}")
        page.locator(ready).first.wait_for(timeout=120_000)
        wait_settled(page)
        yield url, page


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def poll(fn, timeout: float = 15.0):
    """fn() until it returns something truthy or `timeout` seconds pass (then its last answer), for pages
    that update in the background."""
    end = time.time() + timeout
    while time.time() < end:
        if got := fn():
            return got
        time.sleep(0.2)
    return fn()


class SlowDownlink:
    """Between the page and the app's websocket (playwright's route_web_socket): while `held`, the app's
    messages are kept back, as on a slow network, and the page's still go through. A test can so make the
    browser act before it has drawn what the app just sent, which is how Streamlit's browser-wins widget
    state loses a value the app set; `release` then delivers what was kept, in order."""

    def __init__(self, page) -> None:
        self.page = page
        self.held = False
        self.kept: list = []
        self._ws = None
        page.route_web_socket(re.compile(r".*/_stcore/stream"), self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self._ws = ws
        server.on_message(lambda m: self.kept.append(m) if self.held else ws.send(m))
        ws.on_message(lambda m: server.send(m))

    def wait_kept(self, needle: bytes, since: int = 0, timeout: float = 60.0) -> None:
        """Until a message of the app kept after the first `since` contains `needle` (e.g. a widget key:
        the app drew that widget)."""
        deadline = time.time() + timeout
        while not any(needle in (m if isinstance(m, bytes) else m.encode()) for m in self.kept[since:]):
            if time.time() > deadline:
                raise TimeoutError(f"the app sent nothing with {needle!r}")
            self.page.wait_for_timeout(50)  # (playwright delivers the messages while it waits)

    def release(self) -> None:
        self.held = False
        kept, self.kept = self.kept, []
        for m in kept:
            self._ws.send(m)


def save_loop_council(home: Path, model: str, name: str = "loop-council") -> None:
    """Save a council lineup (ana, ben, cy, a chair and a judge) all on `model` (e.g. a loopback server's
    `openai:scripted@URL`) into the store under `home`, as "NAME (saved)" in the Debate page's presets."""
    from debate.store import DebateStore

    store = DebateStore(home / "debates.sqlite")
    store.save_lineup(
        name,
        {
            "name": name,
            "members": [{"name": n, "model": model, "seed": i} for i, n in enumerate(("ana", "ben", "cy"))],
            "chair": {"name": "chair", "model": model},
            "judge": {"name": "judge", "model": model},
        },
    )
    store.close()


def open_debate_page(page, url: str, claim: str) -> None:
    """The Debate page with `claim` in its box and the small-model aids off."""
    page.goto(url)
    area = page.locator(".st-key-claim textarea")
    area.wait_for(timeout=60_000)
    wait_settled(page)
    area.fill(claim)
    area.press("Control+Enter")
    wait_idle(page)
    if page.locator(".st-key-cfg_aids input").is_checked():
        page.locator(".st-key-cfg_aids").get_by_text("Small-model aids").click()
        wait_settled(page)
