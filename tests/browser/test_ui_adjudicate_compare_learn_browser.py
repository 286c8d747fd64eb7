"""Real browser (Debian chromium + playwright) on the app served on a loopback port: label a queue with the
keyboard, reload and find the labels, export; compare two protocols side by side; step through a replay.
Screenshots go to test-artifacts/adjudicate-compare-learn/ (look at them)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_runs
from debate.store import DebateStore
from tests.support.browser import wait_idle
from tests.support.scripted_runs import SCRIPTED_LINEUP, make_run, stored_council_debate

REPO = Path(__file__).resolve().parents[2]
ART = REPO / "test-artifacts" / "adjudicate-compare-learn"
CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")


def _main_script() -> Path:
    """app.py once it registers these pages; until then a copy of it that does (kept out of git)."""
    app = (REPO / "app.py").read_text()
    if all(f"pages/{p}.py" in app for p in ("adjudicate", "compare", "learn")):
        return REPO / "app.py"
    ART.mkdir(parents=True, exist_ok=True)
    main = ART / "app_main.py"
    main.write_text(f"""import sys
sys.path.insert(0, {str(REPO)!r})
import streamlit as st
from ui.style import apply_style
st.set_page_config(page_title="Debate viewer", layout="wide")
apply_style()
P = {str(REPO / "pages")!r}
st.navigation([st.Page(P + "/debate.py", title="Debate", default=True), st.Page(P + "/library.py", title="Library"),
               st.Page(P + "/adjudicate.py", title="Adjudicate"), st.Page(P + "/compare.py", title="Compare"),
               st.Page(P + "/learn.py", title="Learn")]).run()
""")
    return main


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    home = Path(os.environ["DEBATE_HOME"])
    (home / "settings.json").write_text(json.dumps({"scripted": {"default": "YES"}}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "DEBATE_RUNS_DIR": str(runs), "DEBATE_WARM_RETRIEVER": "0", "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(_main_script()),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=REPO,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("the app did not start: " + proc.stderr.read().decode()[-2000:])
    yield {"url": url, "runs": runs}
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


@pytest.fixture(scope="module", autouse=True)
def _warm(app, browser):
    """The first request of the fresh server is a deep link. Without ui/entry.py Streamlit runs the page file
    alone in its old pages/ mode (tab title "learn", menu "app | adjudicate | ..." from file names, no
    stylesheet); with it the page reruns through app.py's navigation."""
    page = browser.new_page()
    page.goto(f"{app['url']}/learn")
    idle(page)
    page.get_by_text("Learn", exact=True).first.wait_for(timeout=30_000)
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text().split()
    assert "Debate" in nav and "Adjudicate" in nav and "app" not in nav, nav
    assert page.title() == "Debate viewer" and page.url.endswith("/learn")
    page.wait_for_function(
        "[...document.querySelectorAll('style')].some(s => s.textContent.includes('claim-card'))", timeout=20_000
    )  # the app's stylesheet (assets/style.css) is on the page
    page.close()


def idle(page, timeout: float = 60_000) -> None:
    page.wait_for_timeout(300)
    wait_idle(page, timeout)  # the page's run state too: the status widget shows only a moment after a run starts
    page.wait_for_timeout(200)


def keys_ready(page) -> None:
    idle(page)
    page.locator('body[data-adj-keys="on"]').wait_for(state="attached", timeout=20_000)


def shot(page, name: str) -> None:
    ART.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(1000)  # data grids and charts paint after the script is idle
    page.screenshot(path=str(ART / f"{name}.png"))


def _poll(fn, timeout: float = 15.0):
    end = time.time() + timeout
    while time.time() < end:
        got = fn()
        if got:
            return got
        time.sleep(0.2)
    return fn()


@pytest.mark.timeout(300)
def test_label_queue_with_keyboard_reload_and_export(app, browser, tmp_path):
    a = make_run(app["runs"], "council-a", "council", {"1": "TRUE", "2": "FALSE", "3": "TRUE"})
    b = make_run(app["runs"], "radar-b", "radar", {"1": "TRUE", "2": "TRUE", "3": "HALF-TRUE"})
    store = AnnotationStore()
    qid = store.create_queue(from_runs([a, b], name="browser queue"))
    keys = [c.key for c in store.cases(qid)]
    labels = store.queue(qid)["labels"]
    page = browser.new_page(viewport={"width": 1400, "height": 2000}, accept_downloads=True)
    page.goto(f"{app['url']}/adjudicate?who=kim&q={qid}")
    idle(page)
    page.get_by_text("Case 1 of 3").wait_for()
    keys_ready(page)
    shot(page, "adjudicate-1-start")
    page.locator("h2").first.click()  # focus the page, not an input
    page.keyboard.press("1")
    assert _poll(lambda: store.mine(qid, "kim").get(keys[0], {}).get("label")) == labels[0]
    idle(page)
    page.get_by_text("Case 2 of 3").wait_for()
    page.keyboard.press("s")
    assert _poll(lambda: store.mine(qid, "kim").get(keys[1], {}).get("skipped"))
    idle(page)
    page.get_by_text("Case 3 of 3").wait_for()
    page.keyboard.press("f")
    assert _poll(lambda: store.mine(qid, "kim").get(keys[2], {}).get("flagged"))
    idle(page)
    page.keyboard.press("3")
    assert _poll(lambda: store.mine(qid, "kim").get(keys[2], {}).get("label")) == labels[2]
    idle(page)
    page.keyboard.press("ArrowLeft")
    idle(page)
    page.get_by_text("Case 2 of 3").wait_for()
    # typing in the note box must not trigger shortcuts
    note = page.locator('textarea[aria-label="Rationale"]')
    _poll(lambda: note.count() == 1)  # the previous case's box leaves when the rerun ends
    note.fill("1 s f")
    note.press("Tab")
    assert _poll(lambda: store.mine(qid, "kim").get(keys[1], {}).get("note")) == "1 s f"
    assert store.mine(qid, "kim")[keys[1]]["label"] is None
    # reload: everything is still there, and we are where we were
    page.reload()
    keys_ready(page)
    page.get_by_text("Case 2 of 3").wait_for()
    assert _poll(lambda: page.locator(".st-key-adj_annotator input").input_value() == "kim")
    page.locator("h2").first.click()  # focus the page, not an input (as before the first key)
    page.keyboard.press("ArrowRight")
    idle(page)
    page.get_by_text("Case 3 of 3").wait_for()
    assert page.locator(".st-key-adj_flag button").inner_text().strip() == "Unflag"
    assert "labelled " + labels[2] in page.get_by_text("This case:").inner_text()
    shot(page, "adjudicate-2-after-reload")
    # export
    page.locator(".st-key-adj_view").get_by_text("Export", exact=True).click()
    idle(page)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download CSV").click()
    path = tmp_path / "out.csv"
    dl.value.save_as(path)
    rows = {r["id"]: r["label"] for r in csv.DictReader(io.StringIO(path.read_text()))}
    assert rows == {keys[0]: labels[0].lower(), keys[1]: "", keys[2]: labels[2].lower()}  # LIAR's lower-case names
    shot(page, "adjudicate-3-export")
    page.close()


@pytest.mark.timeout(300)
def test_compare_two_protocols_side_by_side(app, browser):
    DebateStore().save_lineup("scripted", SCRIPTED_LINEUP)
    page = browser.new_page(viewport={"width": 1500, "height": 2200})
    page.goto(f"{app['url']}/compare")
    idle(page)
    page.get_by_role("textbox", name="Tweet or claim").fill("A new study shows that coffee cures the common cold.")
    page.get_by_role("textbox", name="Tweet or claim").press("Tab")
    if page.locator(".st-key-cfg_aids input").is_checked():  # the Debate page's set-up: the papers' settings here
        page.locator(".st-key-cfg_aids").get_by_text("Small-model aids").click()
        idle(page)
    for i, proto in ((1, "Few-shot"), (2, "Single debate")):
        page.locator(f".st-key-cmp_proto_{i - 1}").click()
        page.get_by_role("option", name=proto).first.click()
        idle(page)
        page.locator(f".st-key-cmp_lineup_{i - 1}").click()
        page.get_by_role("option", name="saved:scripted").click()
        idle(page)
    page.get_by_role("button", name="Run side by side").click()
    page.get_by_text("Completed").nth(1).wait_for(timeout=60_000)
    idle(page)
    verdicts = page.locator('[data-testid="stMetric"]').filter(has_text="Verdict")
    assert verdicts.count() == 2
    assert all("YES" in verdicts.nth(i).inner_text() for i in range(2))
    calls = page.locator('[data-testid="stMetric"]').filter(has_text="Model calls")
    assert [calls.nth(i).inner_text().split()[-1] for i in range(2)][0] == "1"  # baseline: one call
    ids = [r["id"] for r in DebateStore().list(limit=2)]
    assert {DebateStore().get(i)["protocol"] for i in ids} == {"baseline", "single"}
    shot(page, "compare-1-side-by-side")
    page.close()


@pytest.mark.timeout(300)
def test_step_through_a_replay(app, browser):
    did = stored_council_debate("Scientists at MIT found that sleep deprivation raises the risk of early death.")
    page = browser.new_page(viewport={"width": 1400, "height": 2000})
    page.goto(f"{app['url']}/learn")
    idle(page)
    page.get_by_text("Step 1 of").wait_for()
    notes = []
    for k in range(12):
        assert _poll(lambda k=k: f"Step {k + 1} of" in page.locator('[data-testid="stProgress"]').inner_text())
        notes.append(page.locator(".learn-note").first.inner_text())
        page.get_by_role("button", name="Next ▶").click()
        idle(page)
    assert "council debate starts" in notes[0].lower() and len(set(notes)) == len(notes)
    assert any("votes" in n for n in notes)
    # plain words for a student: no event's own name, no role said twice, no fitting jargon in a note
    said = "\n".join(notes)
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", said), re.findall(r"\b[a-z]+_[a-z_]+\b", said)
    assert not re.search(r"\b(\w+) \(\1\) speaks", said) and "tokens)" not in said
    assert not any(w in said for w in ("liar-train", "stratified", "class weights fitted"))
    shot(page, "learn-1-step")
    page.get_by_role("button", name="◀ Previous").click()
    idle(page)
    assert _poll(lambda: page.locator(".learn-note").first.inner_text() == notes[-1])
    page.locator(".st-key-learn_view").get_by_text("Vote dynamics", exact=True).click()
    idle(page)
    page.locator(".js-plotly-plot .sankey").first.wait_for(timeout=20_000)
    shot(page, "learn-2-dynamics")
    page.locator(".st-key-learn_view").get_by_text("Protocol flow", exact=True).click()
    idle(page)
    page.locator('[data-testid="stGraphVizChart"] svg').first.wait_for(timeout=20_000)
    assert "consensus" in page.locator('[data-testid="stGraphVizChart"]').inner_text()
    # every edge of the drawn flow says where it goes in words of its own (two "not reached" edges once
    # left a student to guess which diamond each came from)
    edges = page.locator('[data-testid="stGraphVizChart"] svg g.edge').evaluate_all(
        "els => els.map(g => [...g.querySelectorAll('text')].map(t => t.textContent).join(' '))"
    )
    edges = [" ".join(e.split()) for e in edges if e and e.strip()]
    assert len(edges) >= 3 and len(set(edges)) == len(edges), edges
    # the parameter table is read whole: no cell's text is cut or hidden behind a scroll, inside the page
    cut = page.evaluate(
        """() => { const t = document.querySelector('table.learn-params'); if (!t) return null;
          const main = document.querySelector('[data-testid="stMain"]').getBoundingClientRect();
          const cells = [...t.querySelectorAll('td')];
          return {n: cells.length, cut: cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText),
                  inside: t.getBoundingClientRect().right <= main.right + 1}; }"""
    )
    assert cut and cut["n"] >= 9 and cut["cut"] == [] and cut["inside"], cut
    shot(page, "learn-3-flow")
    assert did
    page.close()


@pytest.mark.timeout(300)
def test_a_checkthat_file_exported_keeps_its_labels_and_agreement_reads_against_them(app, browser, tmp_path):
    """An annotator's own CheckThat file: labelled on the page, downloaded "as checkthat file", the file's
    own soft labels are kept and the adjudicated ones added (once they were replaced: [1.0, 0.5, 1.0] became
    [None, 1.0, None]); with one annotator, Agreement gives Cohen's kappa against the file's labels (once it
    showed only "—")."""
    from debate.adjudication.hardcases import from_dataset_file
    from tests.review.test_adjudication_team import checkthat_file

    f = checkthat_file(tmp_path / "ours.tsv")
    original = {r["index"]: r["labels"] for r in csv.DictReader(io.StringIO(f.read_text()), delimiter="\t")}
    store = AnnotationStore()
    qid = store.create_queue(from_dataset_file("ours.tsv", f.read_bytes(), "checkthat", name="own file"))
    cases = store.cases(qid)
    page = browser.new_page(viewport={"width": 1400, "height": 2000}, accept_downloads=True)
    page.goto(f"{app['url']}/adjudicate?who=ann&q={qid}")
    keys_ready(page)
    for k in range(6):  # the first six cases, labelled as the file says but the fourth, against it
        page.get_by_text(f"Case {k + 1} of {len(cases)}").wait_for()
        page.locator("h2").first.click()
        gold = store.gold_labels(qid).get(cases[k].key)
        yes = gold == "YES" if k != 3 else gold != "YES"
        page.keyboard.press("1" if yes else "2")
        assert _poll(lambda k=k: store.mine(qid, "ann").get(cases[k].key, {}).get("label"))
        keys_ready(page)
    page.locator(".st-key-adj_view").get_by_text("Agreement", exact=True).click()
    idle(page)
    page.get_by_text("Against the file's own labels").wait_for()
    page.locator('[data-testid="stDataFrame"] [role="gridcell"]').first.wait_for(state="attached", timeout=20_000)
    grids = page.locator('[data-testid="stDataFrame"]')
    tables = [
        [c.strip() for c in grids.nth(i).locator('[role="gridcell"]').all_inner_texts()] for i in range(grids.count())
    ]
    vs_file = [t for t in tables if t and t[0] == "ann"]  # annotator, cases, Cohen's kappa, interval, raw agreement
    assert vs_file and re.fullmatch(r"-?[01]\.\d+", vs_file[0][2]), tables  # a kappa, not only "—"
    shot(page, "adjudicate-4-agreement-vs-file")
    page.locator(".st-key-adj_view").get_by_text("Export", exact=True).click()
    idle(page)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download as checkthat file").click()
    path = tmp_path / "back.tsv"
    dl.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text()), delimiter="\t"))
    assert {r["index"]: r["labels"] for r in rows} == original  # every row's own labels, as they came
    assert "adjudicated" in rows[0] and sum(bool(r["adjudicated"]) for r in rows) >= 1, rows[0]
    page.close()
