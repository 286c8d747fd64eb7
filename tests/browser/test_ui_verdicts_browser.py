"""In Debian's chromium: a stored RADAR debate whose judge wrote TRUE and whose fitted class weights gave
FALSE reads the same on the Library and Present pages — the verdict TRUE (what the judge wrote), its
sentence, and the weights' FALSE as a second opinion named as such — and its bubbles read as words, with the
judge's raw JSON only on demand; the Library's two CSV downloads carry the written label, the calibrated
one, the aid and the same sentence."""

from __future__ import annotations

import csv

import pytest

from debate import config, live
from debate.aids.settings import AIDS
from debate.runner import DebateConfig, run_debate
from debate.store import DebateStore
from tests.services.test_verdict_words import CLAIM, RADAR_LINEUP, _radar_client
from tests.support.browser import have_browser, library_page, shot, wait_settled
from tests.support.fitted import fitted  # noqa: F401 (a fixture)
from tests.ui.test_ui_verdicts import fitted_judge  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not have_browser(), reason="no chromium/playwright")]


@pytest.mark.timeout(600)
def test_a_second_opinion_reads_the_same_in_the_library_and_on_present(tmp_path, monkeypatch, fitted_judge):
    monkeypatch.setenv("DEBATE_HOME", str(tmp_path))
    store = DebateStore(config.store_db())
    cfg = DebateConfig(
        claim=CLAIM,
        protocol="radar",
        task="halftruth",
        category=None,
        lineup=RADAR_LINEUP,
        params={"rounds": 0, "early_stop": False},
        max_tokens=64,
        aids=True,
    )
    did = live.start_debate(
        cfg, _radar_client({"TRUE": 0.55, "FALSE": 0.08, "HALF-TRUE": 0.37}), None, store, run=run_debate
    )
    assert live.wait(did, 60) and store.get(did)["status"] == "completed"
    # the aids switched off, their values kept by hand (as a fork keeps its parent's): the "Ran with" line
    # once said "small-model aids off" beside a judge its class weights recalibrated
    kept = DebateConfig(**{**cfg.__dict__, "aids": False, "params": {**cfg.params, **AIDS["radar"]}})
    did2 = live.start_debate(
        kept, _radar_client({"TRUE": 0.55, "FALSE": 0.08, "HALF-TRUE": 0.37}), None, store, run=run_debate
    )
    assert live.wait(did2, 60) and store.get(did2)["status"] == "completed"
    with library_page(tmp_path, did, "text=Calibrated reading: FALSE") as (url, page):
        card = page.locator(".verdict-card").first.inner_text()
        assert "TRUE — the claim is true" in card and "FALSE — the claim is false" not in card
        assert "Calibrated reading: FALSE (class weights fitted on liar-train, 90) — a second opinion" in card
        judge = page.locator(".turn").filter(has_text="The figure matches the jobs report.").first
        assert "TRUE — the claim is true" in judge.inner_text() and "counted as" not in judge.inner_text()
        raw = judge.locator("details.raw")
        assert not raw.locator(".raw-json").is_visible()  # the JSON is there on demand only
        raw.locator("summary").click()
        assert '"verdict": "TRUE"' in raw.locator(".raw-json").inner_text()
        assert "Ran with: radar" in page.locator("body").inner_text()
        shot(page, "verdicts-library-second-opinion")
        # both CSV downloads say it too: the list (made on the click) and the debate's turns
        for key, name in (("lib_export_list", "list.csv"), ("lib_csv", "turns.csv")):
            with page.expect_download() as dl:
                page.locator(f".st-key-{key} button").first.click()
            dl.value.save_as(tmp_path / name)
        listed = next(r for r in csv.DictReader((tmp_path / "list.csv").open(newline="")) if r["id"] == did)
        verdict = next(r for r in csv.DictReader((tmp_path / "turns.csv").open(newline="")) if r["phase"] == "verdict")
        for row in (listed, verdict):
            assert row["written_label"] == "TRUE" and row["calibrated_label"] == "FALSE"
            assert "class weights fitted on" in row["aid"] and row["overrule"].startswith("Calibrated reading: FALSE")

        page.goto(f"{url}/present?debate={did}")
        page.locator(".p-verdict").first.wait_for(timeout=120_000)
        wait_settled(page)
        present = page.locator(".p-verdict").first.inner_text()
        assert "TRUE — the claim is true" in present and "Calibrated reading: FALSE" in present
        speaker = page.locator(".p-speaker").first.inner_text()  # the judge's answer in words, not its JSON
        assert "TRUE — the claim is true. The figure matches the jobs report." in speaker and "{" not in speaker
        shot(page, "verdicts-present-second-opinion")

        page.goto(f"{url}/library?debate={did2}")
        page.get_by_text("Calibrated reading: FALSE").first.wait_for(timeout=120_000)
        wait_settled(page)
        body = page.locator("body").inner_text()
        ran = next((x for x in body.splitlines() if "Ran with: radar" in x), body)
        assert "small-model aids off" not in ran, ran
        assert "small-model aids' values in effect (set by hand): " in ran and "judge_calibration fitted" in ran, ran
