"""The bubble of a turn the engine shortened says so with the full text one click away, and a figure no
source gave is underlined with "not in the claim or the evidence" — escaped, as all model text is."""

from __future__ import annotations

from debate.models.base import Final
from debate.models.client import ModelClient
from debate.models.scripted import ScriptedBackend
from tests.ui.test_ui_app import _app, _html, _run_to_end, _set, _store
from ui.safe import UNSUPPORTED_TITLE, text_html

CUT = "Crime fell 12 percent, the mayor said. Murders dropped to 292 <b>in</b> 2018, the lowest since records began and"


class Budgeted(ScriptedBackend):
    """The proponent's argument ends as the answer budget ends it (finish "length")."""

    def stream(self, model, messages, options):
        for chunk in super().stream(model, messages, options):
            if isinstance(chunk, Final) and model == "cut":
                chunk.finish_reason = "length"
            yield chunk


def _saved_lineup(name: str, **seats) -> object:
    """A fresh store holding a lineup of scripted seats (`members`, `judge`, `chair`, `roles`), saved as
    `name` so the Lineup box offers it as "saved:<name>"."""
    store = _store()
    store.save_lineup(name, {"name": name, **seats})
    return store


def _run_saved(backend: ScriptedBackend, name: str, claim: str, protocol: str = "", timeout: int = 600, **params):
    """The Debate page with `backend` behind "scripted:", the saved lineup chosen, run to its end."""
    at = _app(_client=ModelClient({"scripted": backend}))
    at.text_area(key="claim").input(claim)
    if protocol:
        at.radio(key="cfg_protocol").set_value(protocol).run()
    at.selectbox(key="cfg_preset").set_value(f"saved:{name}").run()
    for key, value in params.items():
        _set(at, key, value)
    if params:
        at.run()
    return at, _run_to_end(at, timeout=timeout)


def test_text_html_marks_flagged_figures_escaped():
    html = text_html('Up 40 percent <img src=x onerror="alert(1)"> [E1] in 2018', flagged={"40 percent"}, known=set())
    assert f'<span class="unsupported-figure" title="{UNSUPPORTED_TITLE}">40 percent</span>' in html
    assert "<img" not in html and "2018" in html and html.count("unsupported-figure") == 1


def test_the_debate_page_marks_shortened_turns_and_unsupported_figures():
    store = _saved_lineup(
        "cut-lineup",
        members=[{"name": "m", "model": "scripted:judge"}],
        judge={"name": "judge", "model": "scripted:judge"},
        roles={
            "proponent": {"name": "pro", "model": "scripted:cut"},
            "opponent": {"name": "opp", "model": "scripted:opp"},
        },
    )
    backend = Budgeted(
        {
            "cut": CUT,
            "opp": "Only 40 percent of people feel safer.",
            "judge": '{"category": 1, "explanation": "The proponent was convincing."}',
        }
    )
    at, row = _run_saved(
        backend, "cut-lineup", "Crime fell 12 percent in New York, the mayor said.", "single", 300, p_single_rounds=0
    )
    assert row["status"] == "completed"
    pro = [e for e in store.events(row["id"]) if e.type == "turn_finished" and e.role == "proponent"]
    assert pro[0].shortened == "sentence" and pro[0].text == "Crime fell 12 percent, the mayor said."
    html = _html(at)
    assert "shortened to its last full sentence" in html
    assert "Murders dropped to 292 &#60;b&#62;in&#60;/b&#62;" in html  # the full text, escaped, one click away
    assert "<b>in</b>" not in html
    # the closing repeats the opening, whose figures then have a source: only the opening's are flagged,
    # and the figures of the shortened opening are those of its kept text (none: 12 percent is the claim's)
    assert pro[0].unsupported_figures == []
    opp = [e for e in store.events(row["id"]) if e.type == "turn_finished" and e.role == "opponent"]
    assert opp[0].unsupported_figures == ["40 percent"] and opp[1].unsupported_figures == []
    assert f'<span class="unsupported-figure" title="{UNSUPPORTED_TITLE}">40 percent</span>' in html


ECHO = (
    '{"vote": "YES", "explanation": "Brief explanation of your decision, including which arguments you found '
    'most compelling <script>x</script>"}'
)


def test_a_member_that_copies_its_format_is_shown_without_a_reason_of_its_own():
    """The instruction a small member copies into its explanation is not shown as its reason: the bubble
    says it gave none and names what it copied; the raw answer stays one click away, escaped."""
    store = _saved_lineup(
        "echo-lineup",
        members=[{"name": "smol", "model": "scripted:echo"}, {"name": "qwen", "model": "scripted:own"}],
        judge={"name": "judge", "model": "scripted:own"},
        chair={"name": "chair", "model": "scripted:own"},
    )
    # the members disagree, so the council discusses: the placeholder is in the discussion's format (the
    # paper's member prompt), which is where the small model copied it
    backend = ScriptedBackend({"echo": ECHO, "own": '{"vote": "NO", "explanation": "It links a study."}'})
    at, row = _run_saved(backend, "echo-lineup", "A new study in Nature shows coffee helps.")
    assert row["status"] == "completed", [e.to_dict() for e in store.events(row["id"])][-3:]
    turns = [e for e in store.events(row["id"]) if e.type == "turn_finished"]
    smol = [e for e in turns if e.agent == "smol" and e.round >= 1]
    assert smol and all(e.echoed_format.startswith("Brief explanation of your decision") for e in smol)
    assert all(e.echoed_format == "" for e in turns if e.agent != "smol")
    html = _html(at)
    assert "copied the answer format&#39;s placeholder" in html and "without a reason of its own" in html
    assert "It links a study." in html  # the other member's own reason is shown as before
    assert "<script>" not in html and "&#60;script&#62;" in html  # the raw answer, escaped, under its fold


def test_a_chair_summary_that_loops_is_shown_up_to_the_loop_with_the_rest_one_click_away():
    """A chairperson's JSON summary that repeats itself until the budget (real model output) is shown in
    words up to the repeat, marked, with what it wrote under a fold: the words the members read too."""
    from tests.engine.test_content_turns import CHAIR_LOOP

    store = _saved_lineup(
        "loop-chair",
        members=[
            {"name": "a", "model": "scripted:yes"},
            {"name": "b", "model": "scripted:yes"},
            {"name": "c", "model": "scripted:no"},
        ],
        judge={"name": "judge", "model": "scripted:yes"},
        chair={"name": "chair", "model": "scripted:cut"},
    )
    backend = Budgeted(
        {
            "cut": CHAIR_LOOP,
            "yes": '{"vote": "YES", "explanation": "It links a study."}',
            "no": '{"vote": "NO", "explanation": "No paper is named."}',
        }
    )
    at, row = _run_saved(backend, "loop-chair", "A new research analysis in a journal shows coffee helps.")
    assert row["status"] == "completed", [e.to_dict() for e in store.events(row["id"])][-3:]
    chair = [e for e in store.events(row["id"]) if e.type == "turn_finished" and e.role == "chair"]
    assert chair and all(e.shortened == "loop" for e in chair)
    html = _html(at)
    assert "stopped where it began to repeat itself" in html
    # the bubble's words: the summary up to the repeat; the repeat only under the folds (raw JSON, full text)
    start = html.index("The discussion has reached a consensus on the topic")
    words = html[start : html.index("Raw answer (JSON)", start)]
    assert "an academic publication." in words
    assert "journal name" not in words and words.count("The discussion has also addressed") == 1
    fold = html[html.index("stopped where it began to repeat itself") :]
    assert "The discussion has also addressed the issue of the journal name" in fold
