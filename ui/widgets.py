"""The Debate page's inputs: task, protocol and parameters, claim with examples, lineup editor.

Widget keys are the test interface (AppTest drives them by key). A widget's key vanishes from
session_state on pages where it is not drawn, so each value is mirrored into a plain `keep:` key and
restored when the page is drawn again.
"""

from __future__ import annotations

import json
import re
from typing import Any

import streamlit as st

from debate import tasks
from debate.errors import DebateError
from debate.runner import MAX_CLAIM_CHARS
from debate.store.debates import MAX_LINEUP_NAME
from ui import catalog, landing, resources
from ui.examples import gold_for
from ui.examples import missing_sources as examples_missing
from ui.keep import follow_default, keep, remember
from ui.safe import escape
from ui.server_box import server_box

MAIN_PARAMS = (
    "rounds",
    "theta",
    "team_size",
    "config",
    "debaters",
    "roles",
    "role",
    "tau_s",
    "tau_c",
    "early_stop",
    "members",
    "member",
)
DOT = {"ready": "🟢", "missing": "🟠", "unreachable": "🔴", "error": "🔴", "checking": "⚪"}


# -- sidebar: task, protocol, parameters ----------------------------------------------------------
def task_picker() -> dict:
    landing.redo_lost()  # the set-up's first widget: values the app set and a stale browser undid, set again
    keep("cfg_task", "checkthat")
    task = st.selectbox("Task", list(catalog.TASKS), key="cfg_task", format_func=catalog.TASKS.get)
    out = {"task": task, "category": None, "custom_title": "", "custom_description": ""}
    sections = tasks.get(task).categories
    if sections:  # CheckThat's three by their titles, a registered task's by number; or all of them
        keep("cfg_category", sections[0])
        if st.session_state.get("cfg_category", sections[0]) not in (*sections, None):
            st.session_state["cfg_category"] = sections[0]  # another task's section
        names = catalog.CATEGORIES if task == "checkthat" else {**{c: str(c) for c in sections}, None: "all of them"}
        out["category"] = st.selectbox("Category", [*sections, None], key="cfg_category", format_func=names.get)
    elif task == "custom":
        keep("cfg_custom_title", "")
        keep("cfg_custom_description", "")
        out["custom_title"] = st.text_input(
            "Question: does the text …", key="cfg_custom_title", placeholder="e.g. make a health claim"
        )
        out["custom_description"] = st.text_area("What counts", key="cfg_custom_description", height=80)
    remember("cfg_task", "cfg_category", "cfg_custom_title", "cfg_custom_description")
    return out


def _param_widget(protocol: str, name: str, default: Any, help_text: str, choices: dict) -> Any:
    key = f"p_{protocol}_{name}"
    keep(key, default)
    label = name.replace("_", " ")
    zero = re.search(r"\b0 = ([^.;(]+)", help_text) if default == 0 else None
    if zero:  # "members 0" reads as no members: say what 0 means where the value is
        label += f" (0 = {zero.group(1).strip()})"
    kind = catalog.param_kind(name, default, choices)
    if kind == "choice":
        opts = list(choices[name])
        if default not in opts:
            opts.insert(0, default)
        if st.session_state[key] not in opts:
            st.session_state[key] = default
        return st.selectbox(label, opts, key=key, help=help_text)
    if kind == "bool":
        return st.toggle(label, key=key, help=help_text)
    if kind == "int":
        return int(st.number_input(label, key=key, step=1, help=help_text))
    if kind == "float":
        return float(st.number_input(label, key=key, step=0.05, format="%.2f", help=help_text))
    return st.text_input(label, key=key, help=help_text)


def _apply_pace() -> None:
    """The toggle moved: every protocol's paced parameters and the answer budget take the pace's values
    (a person's own edits to those few fields are replaced: the toggle is how one asks for a pace)."""
    from debate.live import pace as pace_mod

    landing.redo_lost()  # (a browser that had not drawn the app's last values sent the old ones back)
    chosen = "demo" if st.session_state.get("cfg_pace") else "paper"
    for name, info in catalog.protocols().items():
        spec = dict(info.params)
        for k in pace_mod.DEMO_PARAMS.get(name, {}):
            if k in spec:
                value = pace_mod.overrides(chosen, name).get(k, spec[k][0])
                landing.set_value(f"p_{name}_{k}", value)
    landing.set_value("cfg_max_tokens", pace_mod.max_tokens(chosen))
    landing.set_value("cfg_top_k", pace_mod.top_k(chosen))


def pace_toggle(protocol: str | list[str], info: Any = None, aids: bool | None = None) -> str:
    """Live-demo pace (on by default: the app opens on the embedded models) or the papers' settings.
    `protocol` may be several (Compare's columns); `aids` (default: the aids switch's value) words the
    caption, since the aids change how votes and verdicts are read."""
    from debate.live import pace as pace_mod

    keep("cfg_pace", True)
    on = st.toggle(
        "Live-demo pace",
        key="cfg_pace",
        on_change=_apply_pace,
        help="Fewer rounds at most and shorter answers, so the embedded models finish while people "
        "watch. Off: the papers' settings. The pace never changes a prompt or how a vote is "
        "read; the small-model aids do (their own switch).",
    )
    remember("cfg_pace")
    chosen = "demo" if on else "paper"
    from debate.aids import settings as aids_mod

    protocols = [protocol] if isinstance(protocol, str) else list(protocol)
    aids_on = bool(st.session_state.get("keep:cfg_aids", True)) if aids is None else aids
    task = st.session_state.get("cfg_task", "checkthat")
    st.caption(pace_mod.describe_many(chosen, protocols, aids_on and any(aids_mod.applies(p, task) for p in protocols)))
    return chosen


def aids_toggle() -> bool:
    """Small-model aids (on by default: the app opens on the embedded models) or the papers' settings."""
    keep("cfg_aids", True)
    on = st.toggle(
        "Small-model aids",
        key="cfg_aids",
        help="For the small embedded models: the most similar CheckThat train tweets as earlier turns, "
        "label probabilities held against thresholds fitted on train, a RADAR judge that always "
        "gives a readable verdict, weighted by class weights fitted on train, a single or team debate's judge "
        "that writes its reason before its label. The verdict stays the "
        "label the judge (or the model) wrote; where the weights or a threshold would give another, it "
        "is shown beside it as a second opinion (the parameter calibrated_reading makes it the "
        "verdict). A council counts its members' votes by the thresholds, and its verdict's headline "
        "gives the votes as written and as counted. Applied only to parameters left at the papers' defaults; the "
        "line under the lineup says what they change. Off: the papers' settings.",
    )
    remember("cfg_aids")
    return bool(on)


def aids_line(protocol: str, task: dict, agents: list, info: Any) -> str:
    """What the aids change for this set-up (they depend on the task, category and models)."""
    from debate.aids import settings as aids
    from debate.tasks import task_categories

    try:
        cats = task_categories(task["task"], task["category"])
    except Exception:  # noqa: BLE001 - an invalid task is reported where it is chosen
        cats = []
    return aids.describe(protocol, task["task"], cats, agents, info.defaults())


def params_editor(protocol: str, info: Any, pace: str = "paper", notes: dict[str, str] | None = None) -> dict:
    """The protocol's parameters with the papers' defaults (or the pace's); the main ones first.
    `notes`: parameter -> a line added to its help (e.g. set by the small-model aids)."""
    from debate.live import pace as pace_mod

    params: dict[str, Any] = {}
    spec = {
        k: ((pace_mod.overrides(pace, protocol)[k], v[1]) if k in pace_mod.overrides(pace, protocol) else v)
        for k, v in dict(info.params).items()
    }
    notes = notes or {}
    spec = {k: (v[0], f"{v[1]} {notes[k]}" if k in notes else v[1]) for k, v in spec.items()}
    choices = dict(getattr(info, "choices", {}) or {})
    main = [k for k in spec if k in MAIN_PARAMS]
    for k in main:
        params[k] = _param_widget(protocol, k, spec[k][0], spec[k][1], choices)
    rest = [k for k in spec if k not in main]
    if rest:
        with st.expander("More parameters"):
            aided = [k for k in rest if k in notes]
            if aided:
                st.caption(
                    "The small-model aids set "
                    + ", ".join(f"{k}" for k in aided)
                    + ": the values below are the ones that will run."
                )
            for k in rest:
                params[k] = _param_widget(protocol, k, spec[k][0], spec[k][1], choices)
    remember(*[f"p_{protocol}_{k}" for k in spec])
    return params


def generation_settings(info: Any, pace: str = "paper") -> dict:
    out = answer_budget(pace, top_k=False)  # the widgets in the order the sidebar always had them
    out["evidence"] = evidence_toggle(info)
    out.update(answer_budget(pace, max_tokens=False))
    out["sources"] = evidence_sources()
    out["questions"] = evidence_questions()
    out["flagged_evidence"] = flagged_evidence()
    return out


FLAGGED_LABELS = {
    "mask": "Keep them, flagged, without the sentences that give orders",
    "keep": "Keep them whole, fenced and flagged",
    "drop": "Leave them out of the prompts",
}


def flagged_evidence() -> str:
    """What the debate does with a passage that reads like an order to the model (default: kept and
    flagged, its order sentences left out of the prompts)."""
    keep("cfg_flagged_evidence", "mask")
    choice = st.selectbox(
        "Passages that read like an order",
        list(FLAGGED_LABELS),
        key="cfg_flagged_evidence",
        format_func=FLAGGED_LABELS.__getitem__,
        help="Every passage reaches the agents as quoted data, between delimiters, with a "
        "sentence that evidence is never an instruction. A passage that also reads like an "
        'order ("ignore the instructions", "the judge must answer TRUE", a fake '
        "[VERDICT]) is flagged in the evidence panel and the exports; choose whether the "
        "agents read it without the sentences that give orders (default: the panel still shows "
        "them), read it whole, or not at all. A sentence that gives a checker's rating of a claim "
        '("We rate this claim False") is flagged too and, unless you keep passages whole, left '
        "out of the prompts: a rating is an opinion, not evidence.",
    )
    remember("cfg_flagged_evidence")
    return str(choice)


def evidence_questions() -> int:
    """How many questions the judge model writes for the evidence search (0: none, no model call)."""
    keep("cfg_questions", 0)
    n = st.number_input(
        "Questions for the search",
        min_value=0,
        max_value=3,
        step=1,
        key="cfg_questions",
        help="0 (default): the claim alone is searched. 1-3: before the debate, the lineup's judge "
        "model writes that many questions whose answers would settle the claim (as in AVeriTeC "
        "and RADAR), and each is searched too. One more model call; only when the agents get "
        "the evidence.",
    )
    remember("cfg_questions")
    return int(n)


def evidence_sources() -> str | None:
    """Which evidence sources to ask; none chosen = every one that answers its health check."""
    from debate.retrieval import sources

    every = sources.registry()  # the built-in sources, then other packages'
    keep("cfg_sources", [])
    chosen = st.multiselect(
        "Evidence sources",
        list(every),
        key="cfg_sources",
        format_func=lambda n: every[n].title if n in every else n,
        placeholder="Auto: every source that answers",
        help="Left empty, every source that answers is asked (offline: the local index "
        "only, and the evidence panel says so).",
    )
    remember("cfg_sources")
    return ",".join(chosen) or None


def answer_budget(pace: str = "paper", *, max_tokens: bool = True, top_k: bool = True) -> dict:
    """Max tokens per turn and the evidence top-k (shared by every protocol on the page)."""
    from debate.live import pace as pace_mod

    out: dict = {}
    if max_tokens:
        keep("cfg_max_tokens", pace_mod.max_tokens(pace))
        out["max_tokens"] = int(
            st.number_input(
                "Max tokens per turn",
                min_value=8,
                max_value=4096,
                step=16,
                key="cfg_max_tokens",
                help="Longest answer each agent may give.",
            )
        )
        remember("cfg_max_tokens")
    if top_k:
        keep("cfg_top_k", pace_mod.top_k(pace))
        out["top_k"] = int(st.number_input("Evidence top-k", min_value=1, max_value=50, key="cfg_top_k"))
        remember("cfg_top_k")
    return out


def evidence_toggle(info: Any) -> bool:
    ev_key = f"cfg_evidence_{info.name}"  # per protocol: RADAR starts with evidence on, the others off
    keep(ev_key, bool(getattr(info, "uses_evidence", False)))
    evidence = st.toggle(
        "Give evidence to the agents",
        key=ev_key,
        help="Put the top-k passages into the agents' prompts, numbered [E1]..[Ek] for citing. "
        "Off: the passages are still retrieved and shown beside the debate, for you only.",
    )
    remember(ev_key)
    return bool(evidence)


# -- claim and examples ---------------------------------------------------------------------------
def _use_example(ex: dict) -> None:
    landing.set_value("claim", ex["text"])  # (set again if a browser that had not drawn it sends the old text)
    st.session_state["example"] = ex


def _shuffle() -> None:
    st.session_state["example_page"] = st.session_state.get("example_page", 0) + 1


def length_note(n: int, limit: int = MAX_CLAIM_CHARS) -> str | None:
    """What the page says under a claim longer than the engine takes (None when it fits)."""
    if n <= limit:
        return None
    return (
        f"**{n:,} characters; a claim may have at most {limit:,}.** The text is kept in the box: shorten it, "
        f"or keep its first {limit:,} characters. Run refuses a longer claim."
    )


def _cut_to_limit(key: str) -> None:
    landing.set_value(key, st.session_state.get(key, "")[:MAX_CLAIM_CHARS])  # (set again if the browser was behind)


def too_long_note(text: str, key: str) -> None:
    """A claim past the limit is kept and told, never cut or dropped without a word.

    Why no `max_chars` on the box: given one, Streamlit's text area takes nothing at all from a paste
    longer than the limit (the box stays empty, "0/4000", no message)."""
    note = length_note(len(text))
    if note:
        c1, c2 = st.columns([5, 1.4], vertical_alignment="center")
        c1.warning(note, icon=":material/content_cut:")
        c2.button(f"Keep the first {MAX_CLAIM_CHARS:,}", key=f"{key}_cut", on_click=_cut_to_limit, args=(key,))


def claim_box(task: str, category: int | None) -> tuple[str, str | None]:
    """The claim text and, when it is an unedited dataset example, its gold label."""
    keep("claim", "")
    claim = st.text_area(
        "Tweet or claim",
        key="claim",
        height=100,
        placeholder="Paste a tweet or a claim, or pick an example below.",
        help=f"At most {MAX_CLAIM_CHARS:,} characters: every agent reads the claim in every prompt.",
    )
    remember("claim")
    too_long_note(claim, "claim")
    try:
        exs = resources.examples(task)
    except Exception:  # noqa: BLE001 - examples are a convenience; the page works without them
        exs = []
    if exs:
        page = st.session_state.get("example_page", 0)
        shown = [exs[(page * 3 + i) % len(exs)] for i in range(3)]
        cols = st.columns([1, 1, 1, 0.28])
        for i, (col, ex) in enumerate(zip(cols, shown)):
            text = ex["text"] if len(ex["text"]) <= 70 else ex["text"][:67] + "…"
            col.button(
                text,
                key=f"ex_{i}",
                on_click=_use_example,
                args=(ex,),
                help=f"{ex['source']}: {ex['text']}",
                width="stretch",
            )
        cols[3].button("🎲", key="ex_more", on_click=_shuffle, help="Other examples")
    missing = examples_missing(task)
    if missing:
        one = len(missing) == 1
        st.caption(
            f"{'Fewer examples' if exs else 'No examples'}: {' and '.join(missing)} "
            f"{'is' if one else 'are'} not on this machine (`python -m debate data fetch` downloads "
            f"{'it' if one else 'them'}; any claim can still be typed in)."
        )
    ex = st.session_state.get("example")
    gold = gold_for(ex, task, category) if ex and ex.get("text") == claim else None
    if ex and ex.get("text") == claim:
        st.caption(f"Example from {ex['source']}" + (" · gold label shown after the verdict" if gold else ""))
    return claim, gold


# -- lineup -----------------------------------------------------------------------------------------
def _validate(lineup: dict, client: Any, protocol: str, params: dict) -> list[dict]:
    from debate.protocols import validate_lineup

    return validate_lineup(lineup, client, protocol, params)


def model_status(lineup: dict, protocol: str, params: dict) -> dict[str, dict]:
    """model spec -> {ok, status, detail}. Checked in the background (resources.off_render): until the
    check answers, the models are "checking" and Run is not held back (the run itself reports a down
    backend); an unparseable spec is reported at once, since that check fails without a network call."""
    if st.session_state.get("_client") is not None:  # tests with an injected client: ask it directly
        rows = _validate(lineup, st.session_state["_client"], protocol, params)
    else:
        key = "status:" + json.dumps([lineup, protocol, params, resources.load_settings()], sort_keys=True, default=str)
        client = resources.get_client()
        rows = resources.off_render({key: lambda: _validate(lineup, client, protocol, params)})[key]
        if isinstance(rows, Exception):
            raise rows
        if rows is None:
            return {}
    return {r["model"]: r for r in rows}


def _lineup_choices() -> dict[str, dict]:
    out = dict(catalog.presets().items())
    try:
        for name, lu in resources.get_store().lineups().items():
            out[f"saved:{name}"] = lu
    except Exception:  # noqa: BLE001
        pass
    return out


def _save_lineup(lineup: dict) -> None:
    name = (st.session_state.get("lineup_name") or "").strip()
    if not name:
        st.session_state["lineup_msg"] = ("error", "Type a name for the lineup first.")
        return
    try:
        resources.get_store().save_lineup(name, {**lineup, "name": name})
    except DebateError as e:  # e.g. a name past MAX_LINEUP_NAME (the box stops typing, not a paste by a script)
        st.session_state["lineup_msg"] = ("error", f"{escape(e.message)} {escape(e.hint)}")
        return
    landing.set_value("cfg_preset", f"saved:{name}")
    st.session_state["lineup_msg"] = ("ok", f"Saved lineup “{escape(name)}”. It is in the preset list now.")


def lineup_editor(protocol: str, params: dict) -> tuple[dict, list[dict], dict[str, dict]]:
    """(lineup, agents, status by model). Each agent's model can be changed; dots show availability."""
    choices = _lineup_choices()
    keep("cfg_preset", "embedded")
    if st.session_state["cfg_preset"] not in choices:
        st.session_state["cfg_preset"] = "embedded"
    preset = st.selectbox(
        "Lineup",
        list(choices),
        key="cfg_preset",
        format_func=lambda k: (
            catalog.preset_title(k.removeprefix("saved:")) + (" (saved)" if k.startswith("saved:") else "")
        ),
    )
    remember("cfg_preset")
    base = choices[preset]
    if base.get("description"):
        st.caption(escape(base["description"]))  # a saved lineup's, or a lineup file's: anyone's text
    base, on_server = server_box(base)  # every seat on one server, or the lineup as it is ("")
    agents = catalog.resolve(base, protocol, params)
    options = sorted(
        {m.spec for m in resources.known_models() if m.name and m.status == "ready"} | {a["model"] for a in agents}
    )
    edits: dict[str, str] = {}
    for a in agents:
        key = f"lu_{preset}{on_server}_{protocol}_{a['agent']}"
        follow_default(key, a["model"])
        keep(key, a["model"])
        c1, c2 = st.columns([2, 3])
        # seat names come from saved lineups and lineup files (anyone's text): escaped like model output
        c1.markdown(
            f"**{escape(a['agent'])}**  \n<span class='meta'>{escape(a['role'])} · T={a['temperature']:g}</span>",
            unsafe_allow_html=True,
        )
        if st.session_state[key] not in options:
            options = options + [st.session_state[key]]
        edits[a["agent"]] = c2.selectbox(
            "model", options, key=key, label_visibility="collapsed", accept_new_options=True
        )
        remember(key)
    lineup = (
        catalog.with_models(base, protocol, params, edits)
        if any(edits[a["agent"]] != a["model"] for a in agents)
        else base
    )
    try:
        status = model_status(lineup, protocol, params)
    except Exception as e:  # noqa: BLE001 - e.g. an unparseable spec typed into a box
        status = {}
        st.error(escape(getattr(e, "message", str(e))) + " " + escape(getattr(e, "hint", "")))
    # specs hold model names a server listed: escaped, as a backtick in one would close a code span
    dots = " ".join(
        f"{DOT.get(status.get(m, {}).get('status', 'checking' if not status else 'error'), '🔴')} {escape(m)}"
        for m in dict.fromkeys(edits.values())
    )
    st.markdown(dots)
    with st.popover("Save this lineup", icon=":material/save:"):
        st.text_input("Name", key="lineup_name", max_chars=MAX_LINEUP_NAME)
        st.button("Save to the library", key="lineup_save", on_click=_save_lineup, args=(lineup,))
        st.download_button(
            "Download as JSON",
            json.dumps(lineup, indent=1),
            file_name=f"{catalog.slug(st.session_state.get('lineup_name') or preset)}.json",
            mime="application/json",
            on_click="ignore",
            key="lineup_download",
        )
    msg = st.session_state.pop("lineup_msg", None)
    if msg:
        (st.success if msg[0] == "ok" else st.error)(msg[1])
    agents = catalog.resolve(lineup, protocol, params)
    return lineup, agents, status


def preparing_line(step: dict | None, now: float | None = None) -> str:
    """The "Preparing" line: what "Ready" waits for (a debate still running, or which model reads its
    prompt, and for how long), so a wait that lasts says why instead of looking stuck."""
    import time

    tail = " Run works at any time: a run started now reads them itself."
    if not step:
        return "Preparing: the models are about to read this debate's opening prompts." + tail
    waited = max(0, int((now or time.time()) - step["since"]))
    if step["what"] == "debate":
        return (
            f"Preparing: waiting for the debate running in this app to end ({waited} s so far); then the models "
            "read this debate's opening prompts." + tail
        )
    model = str(step.get("model") or "").split("@")[0]  # a server's address is not news for the room
    return (
        f"Preparing: {model} is reading this debate's opening prompt (model {step['i']} of {step['n']}, "
        f"{waited} s so far; a model's first use also loads it)." + tail
    )


def warm_status(config: Any, agents: list[dict]) -> None:
    """Says whether the embedded models have already read this debate's opening prompts (then the first
    token comes right after Run). Ticks once a second only while they are reading."""
    if not any(str(a.get("model", "")).startswith("local:") for a in agents):
        return
    first = resources.warm_state(config)
    if first in ("off", "failed"):
        return

    @st.fragment(run_every=None if first == "ready" else 1.0)
    def _status() -> None:
        resources.warm_ahead(config)  # (again: a debate that ended meanwhile moved the models' state on)
        now = resources.warm_state(config)
        if now == "ready":
            st.caption(
                ":material/bolt: Ready: the models have read this debate's opening prompts, so its first "
                "words come right after Run.",
                help="debate/live/warmup.py",
            )
            if first != "ready":
                st.rerun()  # one full run, which stops this ticking
        elif now == "reading":
            st.caption(f":material/hourglass_top: {escape(preparing_line(resources.warm_step()))}")

    _status()
