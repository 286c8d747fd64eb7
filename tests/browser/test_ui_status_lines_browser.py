"""The Debate page's status lines in a real browser, on the embedded models (Debian chromium + playwright).

A short council debate runs with evidence shown beside it but not given to the agents (the viewer's own
search, which can arrive late): while the debate runs, the evidence panel never says that no evidence
was retrieved; once the debate has completed, "Preparing: the models are reading…" never comes back
under Run (the models re-reading the set-up for a re-run is not news about the debate shown below).
"""

from __future__ import annotations

import time

import pytest

from tests.browser.test_ui_browser import STATE_JS, _fill_claim, _set_number, _toggle
from tests.support.browser import app_server, browser_page, have_browser, shot, wait_idle, wait_settled

pytestmark = [
    pytest.mark.browser,
    pytest.mark.real_model,
    pytest.mark.skipif(not have_browser(), reason="needs /usr/bin/chromium and playwright"),
]

EVIDENCE_JS = """() => { const h = [...document.querySelectorAll('h4')]
      .filter(el => el.innerText.trim() === 'Evidence' && !el.closest('[data-stale="true"]')).pop();
    if (!h) return null;
    const col = h.closest('[data-testid="stVerticalBlock"]');
    return col ? col.innerText : null; }"""

STATUS_JS = """() => { const card = [...document.querySelectorAll('.claim-card')]
      .filter(el => !el.closest('[data-stale="true"]')).pop();
    if (!card) return '';
    const block = card.closest('[data-testid="stElementContainer"]');
    const next = block && block.nextElementSibling;
    return next ? next.innerText : ''; }"""

BODY_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] *')]
    .filter(el => !el.closest('[data-stale="true"]') && el.children.length === 0)
    .map(el => el.textContent).join('\\n')"""


@pytest.mark.timeout(1800)  # two small models on a shared 2-core machine took 7.5 min for this debate
def test_status_lines_say_what_is_happening(tmp_path):
    with app_server(tmp_path) as url, browser_page() as page:
        page.goto(url)
        page.locator(".st-key-claim textarea").wait_for(timeout=60_000)
        wait_idle(page)
        _fill_claim(page, "A new study in Nature shows that two cups of coffee a day lower the risk of heart disease.")
        _toggle(page, "cfg_aids", "Small-model aids", True)
        _set_number(page, "p_council_rounds", 1)
        _set_number(page, "p_council_members", 2)
        _set_number(page, "cfg_max_tokens", 24)
        page.locator(".st-key-run button").click()
        deadline = time.time() + 1500
        running_evidence: list[str] = []
        while time.time() < deadline:
            state = page.evaluate(STATE_JS)
            panel = page.evaluate(EVIDENCE_JS)
            status = page.evaluate(STATUS_JS)  # the badge under the claim: Running, Completed, …
            if panel and "Running" in status:
                running_evidence.append(panel)
            if state["verdict"] and "Completed" in status:
                break
            time.sleep(0.25)
        wait_settled(page)
        assert running_evidence, "the evidence panel was never seen while the debate ran"
        assert not any(
            "No evidence was retrieved" in p or "No passages were retrieved" in p for p in running_evidence
        ), running_evidence
        # after the debate: watch the area under Run for a while (the models re-read the set-up meanwhile)
        preparing = []
        until = time.time() + 20
        while time.time() < until:
            text = page.evaluate(BODY_JS)
            if "Preparing:" in text:  # any "Preparing" line under Run (whatever it says it waits for)
                preparing.append(text)
            time.sleep(0.2)
        shot(page, "status-lines-after-run")
        assert not preparing, "“Preparing: the models are reading…” came back after the debate completed"
        final = page.evaluate(EVIDENCE_JS) or ""
        assert "Searching" not in final  # ended: either the passages or a plain "none"
