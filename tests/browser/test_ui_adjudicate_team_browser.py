"""Real browser (Debian chromium + playwright): two annotators and a reviewer on one blind queue.
Before an annotator labels a case, the page's whole DOM holds neither the other annotator's name, label or
rationale nor the debate's verdict (the transcript is shown, without votes and verdict); after labelling
they appear. The reviewer then settles the case with a reason. Screenshots: test-artifacts/issue16/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from debate.adjudication.annotations import AnnotationStore
from debate.adjudication.hardcases import from_runs
from tests.support.browser import ARTIFACTS, app_server, browser_page, have_browser, poll, wait_settled
from tests.support.scripted_runs import make_run

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="chromium/playwright missing")]


def _poll(fn, timeout: float = 15.0):
    return poll(fn, timeout)


def _shot(page, name: str) -> None:
    (ARTIFACTS / "issue16").mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "issue16" / f"{name}.png"))


def _open(page, url: str, case: str) -> str:
    page.goto(url)
    page.locator('body[data-adj-keys="on"]').wait_for(state="attached", timeout=60_000)
    page.get_by_text(case).wait_for(timeout=60_000)
    wait_settled(page)
    return page.content()


@pytest.mark.timeout(300)
def test_two_annotators_and_a_reviewer_on_a_blind_queue(tmp_path):
    home = Path(os.environ["DEBATE_HOME"])
    a = make_run(tmp_path, "council-a", "council", {"1": "TRUE", "2": "FALSE"})
    b = make_run(tmp_path, "radar-b", "radar", {"1": "TRUE", "2": "TRUE"})
    store = AnnotationStore()
    qid = store.create_queue(from_runs([a, b], name="team queue"), {"blind": True, "show_transcript": True})
    keys = [c.key for c in store.cases(qid)]
    with app_server(home, env={"DEBATE_WARM_RETRIEVER": "0"}) as url, browser_page(1400, 2400) as page:
        # zoya, case 1: the transcript is there, nothing of the decision is
        page.goto(
            url
        )  # the first request of a fresh server must not be a deep link (see test_ui_adjudicate_compare_learn_browser)
        wait_settled(page)
        html = _open(page, f"{url}/adjudicate?who=zoya&q={qid}&i=0", "Case 1 of 2")
        assert "Case 1 of 2" in html and "Blind queue" in html and 'class="round-title"' in html  # the transcript
        for leak in ('class="verdict-card"', "council-a", "radar-b", "protocols disagree", "Others:"):
            assert leak not in html, leak
        assert page.locator('[data-testid="stDataFrame"]').count() == 0  # no verdicts or votes table
        _shot(page, "1-zoya-blind")
        page.locator("h2").first.click()
        page.keyboard.press("1")  # TRUE, then on to case 2
        assert _poll(lambda: store.mine(qid, "zoya").get(keys[0], {}).get("label")) == "TRUE"
        wait_settled(page)
        page.get_by_text("Case 2 of 2").wait_for()
        page.keyboard.press("3")  # FALSE
        assert _poll(lambda: store.mine(qid, "zoya").get(keys[1], {}).get("label")) == "FALSE"
        wait_settled(page)
        # bob, case 2: zoya's label and the verdict are not in the page until he labels
        page.context.clear_cookies()
        html = _open(page, f"{url}/adjudicate?who=bob&q={qid}&i=1", "Case 2 of 2")
        assert "Case 2 of 2" in html
        for leak in ("zoya", 'class="verdict-card"', "council-a", "Others:"):
            assert leak not in html, leak
        assert page.locator('[data-testid="stDataFrame"]').count() == 0
        _shot(page, "2-bob-blind")
        note = page.locator('textarea[aria-label="Rationale"]')
        note.fill("The record shows the opposite.")
        note.press("Tab")
        assert _poll(lambda: store.mine(qid, "bob").get(keys[1], {}).get("note")) == "The record shows the opposite."
        wait_settled(page)
        html = page.content()
        assert "zoya" not in html, html[max(0, html.find("zoya") - 300) : html.find("zoya") + 100]
        page.locator("h2").first.click()
        page.keyboard.press("1")  # TRUE: disagrees with zoya
        assert _poll(lambda: store.mine(qid, "bob").get(keys[1], {}).get("label")) == "TRUE"
        wait_settled(page)
        page.get_by_text("Others: zoya: FALSE").wait_for(timeout=20_000)
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=20_000)  # verdicts and votes revealed
        assert "Hidden until you label" not in page.content()
        _shot(page, "3-bob-revealed")
        # rita reviews: both labels with bob's rationale, then a final label with a reason
        page.goto(f"{url}/adjudicate?who=rita&q={qid}")
        wait_settled(page)
        page.locator(".st-key-adj_view").get_by_text("Review", exact=True).click()
        wait_settled(page)
        assert "This queue is blind" in page.content()  # an annotator does not land here by accident
        page.locator(".st-key-adj_reviewer label").click()
        wait_settled(page)
        page.get_by_text("The record shows the opposite.").first.wait_for(
            state="attached", timeout=20_000
        )  # a grid cell
        case = page.locator('[data-testid="stExpander"]').filter(has_text=f"{keys[1]} ·")
        box = case.get_by_label("Reason")
        box.fill("The cited figure is for another year.")
        box.press("Enter")
        wait_settled(page)
        case.get_by_role("button", name="Save final").click()
        res = _poll(lambda: store.resolutions(qid).get(keys[1]))
        assert res and res["reviewer"] == "rita" and res["reason"] == "The cited figure is for another year."
        wait_settled(page)
        _shot(page, "4-rita-resolved")
