"""The set-up every page that starts a debate shares (Debate, Compare): task, pace, aids, parameters,
answer budget, and the DebateConfig they make.

Why one place: two pages that ran the same claim and lineup gave opposite verdicts because one of them
had no pace or aids switch and did not say what it ran. The widgets here keep the same keys on every
page (cfg_*, p_<protocol>_<name>), so a set-up chosen on one page is the set-up of the next; under
every debate, ui.render.render_ran says what it ran, read from its stored events.

Two rules live here because they are about what the person sees:
- RADAR decides TRUE / FALSE / HALF-TRUE: picking it switches a yes/no task to half-truth, and picking
  another protocol switches back to the task the person had (`follow_protocols`).
- With the small-model aids on, the parameter widgets show the values that will run (`settle_aids`):
  an aid's value replaces the paper's default in the widget, and goes back when the aids are off; a
  value the person chose is never touched (the engine's rule, debate/aids.py).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debate.aids import settings as aids_mod
from debate.runner import DebateConfig
from debate.tasks import TRUE_FALSE_PROTOCOLS, is_truth, task_categories
from ui import catalog, landing, widgets
from ui.keep import keep, remember

BEFORE_RADAR = "setup:task_before_radar"  # the yes/no task the person had before RADAR switched it
SWITCH_NOTE = "setup:switch_note"
PENDING = "setup:aids_pending"  # widget values to set before the widgets are drawn (next run)
AIDED = "setup:aided"  # widget key -> the value the aids put there
UNLANDED = "setup:aids_unlanded"  # widget key -> its value before the aids changed it, until it shows the change


def follow_protocols(protocols: list[str]) -> None:
    """A widget callback: RADAR among the protocols -> a true/false task; none any more -> the task the
    person had before. Runs before the page is drawn, so the task widget shows the switched value."""
    landing.redo_lost()  # decide on the task the page showed, not on a stale one the browser sent back
    task = st.session_state.get("cfg_task", st.session_state.get("keep:cfg_task", "checkthat"))
    radar = [p for p in protocols if p in TRUE_FALSE_PROTOCOLS]
    if radar and not is_truth(task):
        st.session_state[BEFORE_RADAR] = task
        landing.set_value("cfg_task", "halftruth")  # made again if the browser's stale state undoes it
        st.session_state[SWITCH_NOTE] = (
            "halftruth",
            (
                f"{catalog.protocols()[radar[0]].title} decides TRUE / FALSE / HALF-TRUE, so the task switched to "
                f"{catalog.TASKS['halftruth']} (it switches back when you pick another protocol)."
            ),
        )
    elif not radar and BEFORE_RADAR in st.session_state and is_truth(task):
        back = st.session_state.pop(BEFORE_RADAR)
        landing.set_value("cfg_task", back)
        st.session_state[SWITCH_NOTE] = (
            back,
            f"Back to {catalog.TASKS.get(back, back)}: the protocol decides by the task's own labels.",
        )


def follow_protocol_widget(key: str) -> None:
    """on_change of a single protocol picker (the Debate page's radio)."""
    follow_protocols([st.session_state.get(key, "")])


def protocol_picker() -> tuple[str, Any]:
    """The Debate page's protocol radio; picking RADAR (or leaving it) switches the task (`follow_protocols`)."""
    infos = catalog.protocols()
    if not infos:
        st.error("The debate engine offers no protocols yet.")
        st.stop()
    names = list(infos)
    keep("cfg_protocol", names[0])
    if st.session_state["cfg_protocol"] not in names:
        st.session_state["cfg_protocol"] = names[0]
    name = st.radio(
        "Protocol",
        names,
        key="cfg_protocol",
        format_func=lambda n: infos[n].title,
        captions=[infos[n].one_line for n in names],
        on_change=follow_protocol_widget,
        args=("cfg_protocol",),
    )
    remember("cfg_protocol")
    return name, infos[name]


def switch_note() -> None:
    """Say, where the task is chosen, that picking a protocol switched it (until the task changes again)."""
    task, note = st.session_state.get(SWITCH_NOTE) or (None, "")
    if note and st.session_state.get("cfg_task") == task:
        st.info(note, icon=":material/swap_horiz:")
    elif note:  # the person chose another task since: it is theirs, no switching back over it
        st.session_state.pop(SWITCH_NOTE, None)
        st.session_state.pop(BEFORE_RADAR, None)


def apply_pending() -> None:
    """Values `settle_aids` decided on the last run: set before the widgets are drawn."""
    for key, value in st.session_state.pop(PENDING, {}).items():
        landing.set_value(key, value)  # set again if the browser's stale state undoes it


def settle_aids(protocol: str, info: Any, task: dict, agents: list, on: bool) -> bool:
    """Make the parameter widgets show the values that will run with the aids on (or off). Returns True
    when a widget must change: the caller reruns the page once, and `apply_pending` sets them."""
    try:
        cats = task_categories(task["task"], task["category"])
    except Exception:  # noqa: BLE001 - an invalid task is reported where it is chosen
        cats = []
    want = aids_mod.overrides(protocol, task["task"], cats, agents) if on else {}
    defaults = info.defaults()
    aided: dict = st.session_state.setdefault(AIDED, {})
    unlanded: dict = st.session_state.setdefault(UNLANDED, {})
    pending: dict = {}
    prefix = f"p_{protocol}_"
    mine = {key[len(prefix) :] for key in (*aided, *unlanded) if key.startswith(prefix)}
    for k in set(aids_mod.AIDS.get(protocol, {})) | mine:
        key = f"p_{protocol}_{k}"
        if k not in defaults:
            continue
        cur = st.session_state.get(key, st.session_state.get(f"keep:{key}", defaults[k]))
        # A change the widget still does not show was lost: a browser that sent its widgets before it drew
        # the new value sends the old one back, and the browser's widget state wins over the script's. Such
        # a change is made again; once the widget showed it, any value there is the person's choice.
        lost = key in unlanded and cur == unlanded.pop(key)
        ours = (key in aided and cur == aided[key]) or lost  # still the value the aids put there
        if k in want and (cur == defaults[k] or ours):
            target = want[k]
            aided[key] = target
        elif ours:  # the aids are off, or no longer apply here: the paper's value again
            target = defaults[k]
            aided.pop(key, None)
        else:
            aided.pop(key, None)
            continue
        if target != cur:
            pending[key] = target
            unlanded[key] = cur
    if pending:  # (several protocols settle in one run on Compare: add to what others left)
        st.session_state[PENDING] = {**st.session_state.get(PENDING, {}), **pending}
    return bool(pending)


def aided_notes(protocol: str, info: Any) -> dict[str, str]:
    """parameter -> a help note for each widget the aids set: says so, with the paper's value."""
    defaults = info.defaults()
    prefix = f"p_{protocol}_"
    return {
        key[len(prefix) :]: f"Set by the small-model aids (paper: {defaults.get(key[len(prefix) :])}). "
        "Switch the aids off for the paper's value."
        for key, v in st.session_state.get(AIDED, {}).items()
        if key.startswith(prefix) and defaults.get(key[len(prefix) :], v) != v
    }


def config(
    claim: str, protocol: str, task: dict, lineup: Any, params: dict, gen: dict, aids: bool, gold: str | None = None
) -> DebateConfig:
    """The DebateConfig of a set-up, the same on every page."""
    return DebateConfig(
        claim=claim.strip(),
        protocol=protocol,
        task=task["task"],
        category=task["category"],
        custom_title=task["custom_title"],
        custom_description=task["custom_description"],
        lineup=lineup,
        params=params,
        evidence=gen.get("evidence"),
        top_k=gen["top_k"],
        max_tokens=gen["max_tokens"],
        gold=gold,
        aids=aids,
        sources=gen.get("sources"),
        questions=int(gen.get("questions") or 0),
        flagged_evidence=str(gen.get("flagged_evidence") or "mask"),
    )


def protocol_params(protocol: str, info: Any, pace: str) -> dict:
    """A protocol's parameters: widgets.params_editor, showing the values the aids put there (and saying so)."""
    apply_pending()
    return widgets.params_editor(protocol, info, pace, notes=aided_notes(protocol, info))


def run_params(protocol: str, info: Any, params: dict) -> dict:
    """The parameters to send: a value the aids put into a widget goes as the paper's default, so the engine
    applies the aids itself, per lineup (Compare's columns may seat other models than the widgets assumed)."""
    aided = st.session_state.get(AIDED, {})
    defaults = info.defaults()
    return {
        k: (defaults[k] if aided.get(f"p_{protocol}_{k}", object()) == v and k in defaults else v)
        for k, v in params.items()
    }
