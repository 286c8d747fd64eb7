"""Sharing and steering page parts: fork a debate, steer it, check its robustness, share it, present it.

Pages stay thin: each function here reads its widgets and calls the engine (debate.sharing.fork,
debate.moderation, debate.sharing.robustness, debate.sharing.html, debate.sharing.family); the debates they start run in
the live worker like any other (debate.live.worker), so they are stored as they stream.
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from debate import live, moderation
from debate.errors import DebateError, InvalidInput
from debate.events import event_from_dict
from debate.lineups import PRESETS
from debate.sanitize import unmarked
from debate.sharing.family import align_rounds, family, variants
from debate.sharing.fork import cut_after_round, fork_config, fork_plan, rounds_of
from debate.sharing.html import to_html
from debate.sharing.robustness import summary, table, variant_configs, variant_row, verdict_of
from debate.tasks import stop_confidence_words
from ui import resources, verdicts
from ui.safe import error_md, escape, text_html
from ui.transcript import DebateView, build_view

SAME = "same seats as the parent"


def _error(e: DebateError) -> None:
    st.error(error_md(e), icon=":material/error:")


def parse_params(text: str) -> dict[str, str]:
    """'rounds=2, theta=0.6' -> {'rounds': '2', 'theta': '0.6'}; the runner checks names and types."""
    out: dict[str, str] = {}
    for part in (text or "").replace("\n", ",").split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise InvalidInput(f"Parameter {part.strip()!r} has no value.", "Write name=value, e.g. rounds=2.")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def start(config: Any) -> str:
    store = resources.get_store()
    return live.start_debate(
        config, resources.get_client(), resources.retriever_for(config), store, run=resources.get_run()
    )


# -- share ------------------------------------------------------------------------------------------
def html_download(debate_id: str, key: str, container: Any = st) -> None:
    """The debate as one offline HTML file (no scripts, styles or fonts from anywhere)."""
    from debate.store import people

    store = resources.get_store()
    page = to_html(store.event_dicts(debate_id), people=people.export(store.path, debate_id))
    container.download_button(
        "HTML",
        page,
        file_name=f"debate-{debate_id}.html",
        mime="text/html",
        on_click="ignore",
        key=key,
        icon=":material/share:",
        help="One file that opens offline: transcript, votes, verdict, evidence.",
    )


def deep_link() -> tuple[str | None, int | None]:
    """?debate=ID&round=N from the address bar (round None when absent or not a number)."""
    qp = st.query_params
    did = qp.get("debate")
    try:
        rnd = int(qp["round"]) if "round" in qp else None
    except ValueError:
        rnd = None
    return did, rnd


def events_until_round(events: list[dict], rnd: int) -> list[dict]:
    """The stored events up to the state after round `rnd` (everything when that round is not found)."""
    cut, _ = cut_after_round(events, rnd)
    return events if cut is None else events[:cut]


def show_at_round(debate_id: str, rnd: int) -> None:
    """A stored debate as it stood after round `rnd` (what a shared link ?debate=ID&round=N opens)."""
    from ui.render import render_debate

    store = resources.get_store()
    events = store.event_dicts(debate_id)
    rounds = rounds_of(events)
    if rnd not in rounds:
        st.warning(
            f"This debate has no complete round {rnd}; showing all of it. "
            f"Rounds: {', '.join(map(str, rounds)) or 'none'}.",
            icon=":material/warning:",
        )
        shown = events
    else:
        shown = events_until_round(events, rnd)
        st.info(
            f"Shown as it stood after round {rnd} (shared link); “Show the whole debate” shows all of it.",
            icon=":material/link:",
        )
    view = build_view([event_from_dict(e) for e in shown])
    render_debate(view, debate_id, row=store.get(debate_id), chart_key=f"at{rnd}")


# -- fork -------------------------------------------------------------------------------------------
def fork_form(debate_id: str, key: str, default_round: int | None = None) -> str | None:
    """'Fork from round N' with an optional note, lineup and parameters; returns the new debate's id.

    The round is picked outside the form so that what a fork there will do is said before Fork is pressed."""
    store = resources.get_store()
    events = store.event_dicts(debate_id)
    rounds = rounds_of(events)
    if not rounds:
        st.caption("This debate has no complete round to fork from (baseline and one-agent debates have none).")
        return None
    idx = rounds.index(default_round) if default_round in rounds else len(rounds) - 1
    rnd = st.selectbox("Fork from round", rounds, index=idx, key=f"{key}_fork_round")
    try:
        plan = fork_plan(events, rnd)
    except DebateError as e:
        _error(e)
        return None
    (st.info if plan.runs_new else st.warning)(plan.says, icon=":material/call_split:")
    with st.form(key=f"{key}_fork"):
        argue = False
        if plan.argue:
            argue = st.checkbox(plan.argue_says, value=not plan.runs_new, key=f"{key}_fork_argue")
        note = st.text_input(
            "Moderator's note (optional)",
            key=f"{key}_fork_note",
            placeholder="e.g. Consider whether the link is a press release.",
            max_chars=moderation.MAX_NOTE_CHARS,
        )
        c3, c4 = st.columns([1, 1])
        lineup = c3.selectbox("Lineup", [SAME] + list(PRESETS) + sorted(store.lineups()), key=f"{key}_fork_lineup")
        params = c4.text_input(
            "Parameters (name=value, comma-separated)", key=f"{key}_fork_params", placeholder="e.g. rounds=3, theta=0.6"
        )
        st.caption(
            "With no note and the same lineup and parameters the models read the same prompts as in the "
            "parent, so at temperature 0 the response cache answers and the fork repeats the parent."
        )
        go = st.form_submit_button("Fork", icon=":material/call_split:", type="primary")
    if not go:
        return None
    try:
        chosen: Any = None if lineup == SAME else (store.lineups().get(lineup) or lineup)
        if isinstance(chosen, dict):
            chosen = {"name": lineup, **chosen}
        changed = {**(plan.argue if argue and plan.argue else {}), **parse_params(params)}
        cfg = fork_config(events, rnd, say=note, lineup=chosen, params=changed)
        return start(cfg)
    except DebateError as e:
        _error(e)
        return None


def open_debate(debate_id: str) -> None:
    """Open a debate (e.g. a new fork, which streams there) in the Library at its own link, so the address
    bar always names the debate on screen."""
    st.switch_page("pages/library.py", query_params={"debate": debate_id})


def family_panel(debate_id: str, key: str) -> None:
    """The debate's family (its parent, forks and variants), each openable; compare a fork with its parent."""
    store = resources.get_store()
    fam = family(store, debate_id)
    if len(fam) < 2:
        return
    st.markdown("#### Family")
    lines = []
    for f in fam:
        row = store.get(f["id"]) or {}
        what = {
            "original": "original",
            "fork": f"fork after round {f['round']}",
            "variant": f"variant: {f['variant']}",
        }[f["kind"]]
        me = " ◀ this one" if f["id"] == debate_id else ""
        lines.append(
            f"{'&nbsp;' * 4 * f['depth']}{'└ ' if f['depth'] else ''}<code>{escape(f['id'])}</code> · "
            f"{escape(what)} · {escape(str(row.get('verdict') or row.get('status') or 'gone'))}{escape(me)}"
        )
    st.markdown('<div class="tally family">' + "<br>".join(lines) + "</div>", unsafe_allow_html=True)
    ids = [f["id"] for f in fam]
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    pick = c1.selectbox("Open a relative", ids, index=ids.index(debate_id), key=f"{key}_fam_pick")
    if pick != debate_id and c2.button("Open", key=f"{key}_fam_open"):
        st.query_params.pop("round", None)
        st.query_params.update(debate=pick)  # the Library opens it as it opens a shared link
        st.rerun()
    me = next(f for f in fam if f["id"] == debate_id)
    if me["kind"] == "fork" and st.button(
        "Compare with its parent, round by round", key=f"{key}_fam_cmp", icon=":material/compare_arrows:"
    ):
        st.session_state["cmp_fork"] = debate_id
        st.switch_page("pages/compare.py")


def fork_comparison(fork_id: str) -> None:
    """Parent and fork side by side, aligned by round, with a table of what changed."""
    from ui.render import render_sections, render_verdict

    store = resources.get_store()
    fe = store.event_dicts(fork_id)
    started = next((e for e in fe if e.get("type") == "debate_started"), {})
    parent_id = (started.get("forked_from") or {}).get("debate_id")
    if not parent_id or store.get(parent_id) is None:
        st.info("This debate is not a fork of a debate in the Library.")
        return
    pe = store.event_dicts(parent_id)
    n = (started.get("forked_from") or {}).get("round")
    st.markdown(f"#### Fork after round {n}: what changed")
    rows = align_rounds(pe, fe)
    st.dataframe(
        [{**r, "changed": "✱" if r["changed"] else ""} for r in rows],
        hide_index=True,
        width="stretch",
        key="cmp_fork_table",
    )
    notes = [e.get("text", "") for e in fe if e.get("type") == "moderator"]
    if notes:
        st.markdown(
            '<div class="tally moderator-note"><b>Moderator</b> '
            + "".join(text_html(x, css="txt inline") for x in notes)
            + "</div>",
            unsafe_allow_html=True,
        )
    cols = st.columns(2, gap="large")
    for col, did, events, title in ((cols[0], parent_id, pe, "Parent"), (cols[1], fork_id, fe, "Fork")):
        with col:
            st.markdown(f"##### {title} · `{did}`")
            view = build_view([event_from_dict(e) for e in events])
            render_verdict(view)
            render_sections(view, f"cmp-{title}")


# -- robustness -------------------------------------------------------------------------------------
def robustness_panel(debate_id: str, key: str) -> None:
    """One click: the same claim with swapped positions, shuffled members, other seeds; does the verdict hold?"""
    store = resources.get_store()
    done = variants(store, debate_id)
    row = store.get(debate_id) or {}
    c1, c2 = st.columns([1, 3], vertical_alignment="center")
    seeds = c1.number_input("Other seeds", 0, 5, 2, key=f"{key}_rb_seeds")
    if c2.button(
        "Run the robustness check",
        key=f"{key}_rb_go",
        icon=":material/balance:",
        disabled=row.get("status") == "running" or any(live.is_running(v) for v in done),
    ):
        try:
            for v in variant_configs(store.event_dicts(debate_id), seeds=int(seeds)):
                start(v.config)
            st.rerun()
        except DebateError as e:
            _error(e)
    if not done:
        c2.caption(
            "Runs the same claim again with the two sides' models swapped, council members in another "
            "order, and other seeds; each run is saved in the Library."
        )
        return
    ticking = any(live.is_running(v) for v in done)

    @st.fragment(run_every=1.0 if ticking else None)
    def _table() -> None:
        original, _ = verdict_of(store.event_dicts(debate_id))
        rows = []
        for vid in variants(store, debate_id):
            ev = store.event_dicts(vid)
            name = ((ev[0].get("settings") or {}).get("variant_of") or {}).get("variant", "") if ev else ""
            rows.append(variant_row(name, ev, vid, running=live.is_running(vid)))
        t = table(original, rows)
        st.markdown(f"**{escape(summary(t))}**")
        st.dataframe(
            [
                {
                    "variant": r["variant"],
                    "verdict": r["label"] or "",
                    "holds": ("replay — not counted" if r["replay"] else "")
                    if r["holds"] is None
                    else ("yes" if r["holds"] else "no"),
                    "status": r["status"],
                    "model calls": f"{r['model_calls']} ({r['cache_hits']} from cache)",
                    "debate": r["debate_id"],
                }
                for r in t["rows"]
            ],
            hide_index=True,
            width="stretch",
            key=f"{key}_rb_table",
        )
        if ticking and not t["pending"]:
            st.rerun()  # all finished: one full run, so the rest of the page (family, Library list) says so too

    _table()


# -- interject --------------------------------------------------------------------------------------
def moderator_box(debate_id: str) -> None:
    """While a debate runs: a note for the debaters, applied from the next round on."""
    with st.form(key="mod_form", clear_on_submit=True, border=False):
        c1, c2 = st.columns([5, 1], vertical_alignment="bottom")
        note = c1.text_input(
            "Moderator",
            key="mod_note",
            max_chars=moderation.MAX_NOTE_CHARS,
            placeholder="A note for every debater, applied from the next round on",
            label_visibility="collapsed",
        )
        sent = c2.form_submit_button("Interject", icon=":material/campaign:", width="stretch")
    if sent:
        if not live.is_running(debate_id):
            st.warning("The debate has ended: fork it from a round to continue with a note.")
        else:
            try:
                moderation.post(debate_id, note)
                st.toast("Note queued: the debaters read it from the next round on.")
            except DebateError as e:
                _error(e)
    waiting = moderation.pending(debate_id)
    if waiting:
        st.caption(f"Waiting for the next round: {len(waiting)} note(s).")


# -- present ----------------------------------------------------------------------------------------
PRESENT_CSS = """
.present{font-size:1.6rem;line-height:1.45;margin:.4rem 0 .8rem}
.present .p-badge{display:inline-block;font-size:.9rem;font-weight:800;letter-spacing:.06em;padding:.1rem .6rem;
  border-radius:.4rem;background:#D64545;color:#fff}
.present .p-badge.rec{background:#555}
.present .p-claim{font-size:2rem;font-weight:700;margin-top:.4rem}
.p-verdict{border:3px solid #1b1d21;border-radius:.8rem;padding:.6rem 1rem}
.p-verdict b{font-size:2.6rem}
.p-votes{background:#F7F8FB;border-radius:.6rem;padding:.4rem .9rem}
.p-speaker{border-left:8px solid #4C78A8;padding:.2rem 1rem}
.p-who{font-weight:800;font-size:1.8rem}
.p-text{font-size:1.7rem}
.p-mod{background:#fff7e0;border-radius:.6rem;padding:.4rem .9rem}
.p-before{font-size:1.1rem;opacity:.8;border-left:4px solid #ccc;padding:.2rem .8rem}
"""

# Full screen: the sidebar, its toggle and the app's header hidden, the content as wide as the window
FULLSCREEN_CSS = """
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stSidebarNav"],
header[data-testid="stHeader"] {display:none !important}
[data-testid="stMainBlockContainer"], .block-container {max-width:100% !important; padding-top:1rem !important}
"""


def _reason(view: DebateView) -> str:
    """The verdict's reason as every view states it, with the budget's cut said when it was cut."""
    vv = view.verdict_view
    return "" if vv is None else vv.reason + (f" ({vv.cut})" if vv.cut else "")


def presenter(view: DebateView, *, recorded: bool, status: str, reveal: float = 1.0, focus: str | None = None) -> None:
    """Large type, one column: the claim, the verdict, the votes and stop checks so far, who speaks now
    (and, smaller, what was said just before). Same layout live or recorded; a recorded playback is
    labelled so. `focus`: the turn to show as speaking (recorded playback), `reveal`: how much of its
    text is shown yet."""
    s = view.started
    badge = "RECORDED · long waits shortened" if recorded else ("LIVE" if status == "running" else status.upper())
    st.markdown(
        f'<div class="present"><div class="p-badge{" rec" if recorded else ""}">{escape(badge)}</div>'
        f"{text_html(s.claim if s else '', css='p-claim')}</div>",
        unsafe_allow_html=True,
    )
    v = view.verdict
    if v is not None:
        label = v.label or ", ".join(f"{k}: {x}" for k, x in (v.labels or {}).items()) or "no verdict"
        words = verdicts.verdict_words_html(v, view.started, sentence_css="p-sentence")
        head = f'<div class="p-sentence"><b>{escape(view.headline())}</b></div>' if view.headline() else ""
        st.markdown(
            f'<div class="present p-verdict"><span class="meta">Verdict</span> <b>{escape(label)}</b>'
            f"{head}{words}{text_html(_reason(view), css='p-expl')}</div>",
            unsafe_allow_html=True,
        )
    lines = []
    for t, rv in list(zip(view.tallies, view.rounds))[-3:]:
        chips = " ".join(f"<b>{escape(k)}</b> {n}" for k, n in (t.counts or {}).items())
        if rv.differs:  # written and counted both, as the card's headline
            chips = f"<b>{escape(rv.headline())}</b>"
        state = "reached" if t.reached else ("votes stabilised" if t.stabilised else "not reached")
        kept = f" · {escape(rv.kept_note())}" if rv.kept else ""
        lines.append(
            f"Votes, round {t.round}: {chips} · consensus {t.consensus_share:.0%} (θ {t.threshold:.0%}) · {state}{kept}"
        )
    for c in view.stop_checks[-3:]:
        lines.append(
            f"Stop check, round {c.round}: margin {c.stop_margin:.2f} (τs {c.tau_s:.2f}) · "
            f"{escape(stop_confidence_words(c))} (τc {c.tau_c:.2f}) → <b>{escape(str(c.decision).upper())}</b>"
        )
    if lines:
        st.markdown(f'<div class="present p-votes">{"<br>".join(lines)}</div>', unsafe_allow_html=True)
    turns = list(view.turns.values())
    current = view.turns.get(focus) if focus else None
    if current is None:
        current = next((t for t in reversed(turns) if not t.done), turns[-1] if turns else None)
    if current is not None:
        color = view.color(current.agent)
        _, answer, _ = current.display()
        # a finished answer as every view shows it (a JSON answer in words, no Markdown marks)
        answer = verdicts.turn_words(current, view.started) or (current.words() if current.done else unmarked(answer))
        shown = answer[: int(len(answer) * reveal)] if reveal < 1.0 else answer
        sec = next((x.title for x in reversed(view.sections) if ("turn", current.turn_id) in x.items), "")
        shown_label = current.shown_label() if current.done else None
        label = f" · {escape(shown_label)}" if shown_label and reveal >= 1.0 else ""
        st.markdown(
            f'<div class="present p-speaker" style="border-color:{color}"><div class="meta">'
            f'{escape(sec)}</div><div class="p-who" style="color:{color}">{escape(current.agent)} '
            f'<span class="meta">{escape(current.role)}{label}</span></div>'
            f"{text_html(shown or '…', css='p-text')}</div>",
            unsafe_allow_html=True,
        )
        before = [t for t in turns if t.done and t.turn_id != current.turn_id]
        if before:
            p = before[-1]
            said = verdicts.turn_words(p, view.started) or p.words()
            st.markdown(
                f'<div class="present p-before"><span class="meta">just before</span> <b>{escape(p.agent)}'
                f'</b> <span class="meta">{escape(p.role)}{" · " + escape(p.shown_label() or "") if p.label else ""}'
                f"</span>{text_html(said[:400] + ('…' if len(said) > 400 else ''), css='txt')}</div>",
                unsafe_allow_html=True,
            )
    for n in [i for k, i in (view.sections[-1].items if view.sections else []) if k == "moderator"][-1:]:
        st.markdown(
            f'<div class="present p-mod"><b>Moderator:</b> {text_html(n.text, css="txt inline")}</div>',
            unsafe_allow_html=True,
        )


def play_recorded(debate_id: str, speed: float, key: str) -> None:
    """A stored debate beat by beat (debate.sharing.playback) in the presenter layout, labelled 'recorded',
    with pause, step back and step forward."""
    from debate.sharing import playback

    store = resources.get_store()
    events = store.event_dicts(debate_id)
    bs = playback.beats(events)
    durs = playback.durations(bs, speed)
    k_pos, k_play, k_last = f"{key}_pos:{debate_id}", f"{key}_playing:{debate_id}", f"{key}_last:{debate_id}"
    st.session_state.setdefault(k_pos, 0.0)
    st.session_state.setdefault(k_play, True)

    def now_pos() -> float:
        t = time.monotonic()
        if st.session_state[k_play]:
            st.session_state[k_pos] = playback.advance(
                st.session_state[k_pos], t - st.session_state.get(k_last, t), durs
            )
            if st.session_state[k_pos] >= len(bs):
                st.session_state[k_play] = False
        st.session_state[k_last] = t
        return st.session_state[k_pos]

    def toggle() -> None:
        now_pos()
        if st.session_state[k_pos] >= len(bs):  # at the end, play starts again
            st.session_state[k_pos] = 0.0
        st.session_state[k_play] = not st.session_state[k_play]

    def move(by: int) -> None:
        st.session_state[k_pos] = playback.step(now_pos(), by, len(bs))

    playing = st.session_state[k_play]
    b1, b2, b3, b4 = st.columns([1, 1, 1, 5], vertical_alignment="center")
    b1.button("Back", key=f"{key}_back", icon=":material/skip_previous:", on_click=move, args=(-1,), width="stretch")
    b2.button(
        "Pause" if playing else "Play",
        key=f"{key}_play",
        icon=":material/pause:" if playing else ":material/play_arrow:",
        on_click=toggle,
        width="stretch",
    )
    b3.button("Next", key=f"{key}_next", icon=":material/skip_next:", on_click=move, args=(+1,), width="stretch")

    @st.fragment(run_every=0.3 if playing else None)
    def _frame() -> None:
        pos = now_pos()
        shown, focus, reveal = playback.frame(events, bs, pos)
        done = pos >= len(bs)
        view = DebateView().extend([event_from_dict(e) for e in shown])
        presenter(
            view,
            recorded=True,
            status="completed" if done else "running",
            reveal=reveal if playing else 1.0,  # paused or stepped: the whole turn, to talk about it
            focus=focus.turn_id if focus is not None and focus.kind == "turn" else None,
        )
        st.progress(
            min(1.0, pos / len(bs)) if bs else 1.0,
            text=f"step {min(int(pos) + 1, len(bs))} of {len(bs)}" + (" · paused" if not playing else ""),
        )
        if playing and not st.session_state[k_play]:
            st.rerun()  # reached the end: one full run stops the ticking and shows "Play"

    _frame()


def follow_live(debate_id: str) -> None:
    """A running (or finished) debate in the presenter layout, following the current speaker."""
    store = resources.get_store()
    ticking = live.is_running(debate_id)

    @st.fragment(run_every=0.3 if ticking else None)
    def _frame() -> None:
        row = store.get(debate_id) or {}
        view = build_view(store.events(debate_id))
        presenter(view, recorded=False, status=view.status if view.finished else row.get("status", "running"))
        if ticking and not live.is_running(debate_id):
            st.rerun()

    _frame()
