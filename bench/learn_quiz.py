"""A reader's quiz on Learn: can someone who has not read the papers answer five questions about a debate
from Learn's screens alone?

    python bench/learn_quiz.py make DEBATES_DIR OUT_PREFIX   # packets (Learn's text + questions), key
    python bench/learn_quiz.py grade OUT_PREFIX              # grade OUT_PREFIX-answers.json against the key
    python bench/learn_quiz.py scripted DEBATES_DIR          # the five debates on scripted models

`make` reads DEBATES_DIR/NAME.jsonl (events as `python -m debate run --events` writes them) for NAME in
council, single, team, radar, radar-single, stores them in a temporary DEBATE_HOME, steps Learn through
each one with Streamlit's AppTest and keeps, per step, what the screen shows that the step before did not
(the sidebar's note, its "How is this computed?" detail, the new transcript lines). It writes:

- OUT_PREFIX-packet.md: for each debate, the Learn text and the five questions, no key: what the reader
  is given;
- OUT_PREFIX-key.json: each question's answer in words, derived from the events alone (debate.outcome,
  debate.teaching), and the facts a correct answer must name (groups of alternatives, all groups needed).

`grade` reads OUT_PREFIX-answers.json ({debate: [five answers]}) and writes OUT_PREFIX-grading.json/.md: per
answer, the facts found and missed, and the score. The facts are matched as words (case-insensitive), a
first pass that a person should read over (the .md shows each answer beside its key); it also reports,
as a check of the packets themselves, how many keys' facts the Learn text states at all.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

NAMES = ("council", "single", "team", "radar", "radar-single")
QUESTIONS = (
    "Why did the debate stop when it did?",
    "Who changed their vote, and in which round? (Say 'nobody' if no one did, or if nobody voted.)",
    "What decided the verdict (who, or which rule), and what was the verdict?",
    "What threshold(s) decided when the debate could stop, and what were their values? (Say 'none' if it had none.)",
    "What did the evidence say: how many passages were found, did the debaters see them, and what did the "
    "closest one say?",
)
NOBODY = ["nobody", "no one", "none", "no member", "did not change", "no vote", "didn't change", "no-one"]


# -- the key, from the events ------------------------------------------------------------------------------
def _num(x: float) -> list[str]:
    """A threshold as a reader may write it: 0.8, 0.80, 80%."""
    return sorted({f"{x:g}", f"{x:.2f}", f"{x * 100:.0f}%"})


def _why_stopped(events: list[dict]) -> tuple[str, list[list[str]]]:
    last = next((e for e in reversed(events) if e.get("type") in ("votes_tallied", "stop_check")), None)
    if last is None:
        return "Every round the protocol prescribes was held; it has no early stop.", [
            ["all", "every", "fixed", "prescribed", "set number", "no early", "planned", "end of"]
        ]
    if last["type"] == "stop_check":
        if last.get("decision") == "stop":
            return f"A stop check after round {last.get('round')} found it settled: it stopped early.", [
                ["stop check", "early", "settled", "stopped"]
            ]
        return "No stop check passed both signals, so every round was held and the judge decided.", [
            ["all", "every", "no stop check", "never", "ran out", "closing", "not settled", "below"]
        ]
    th = f"{float(last.get('threshold') or 0):.0%}"
    if last.get("reached"):
        return f"Enough members agreed ({float(last['consensus_share']):.0%} ≥ {th}).", [
            ["agree", "consensus", "enough", "threshold"]
        ]
    if last.get("stabilised"):
        return "The votes stopped changing (stabilised) before consensus.", [
            ["stabil", "stopped changing", "unchanged"]
        ]
    return f"The discussion rounds ran out before {th} agreed; the majority decided.", [
        ["ran out", "no rounds", "rounds left", "maximum", "last round", "all rounds", "no more rounds", "limit"]
    ]


def _who_changed(events: list[dict]) -> tuple[str, list[list[str]]]:
    from debate.teaching.steps import debate_dynamics

    changes = debate_dynamics(events)["changes"]
    if not changes:
        return "Nobody changed their vote.", [NOBODY]
    words = "; ".join(f"{c['agent']} in round {c['round']} ({c['from']} → {c['to']})" for c in changes)
    return words, [[str(c["agent"])] for c in changes] + [[f"round {c['round']}" for c in changes]]


def _decided(events: list[dict]) -> tuple[str, list[list[str]]]:
    v = next((e for e in events if e.get("type") == "verdict"), {})
    label, source = str(v.get("label") or v.get("labels")), str(v.get("source") or "")
    who = {
        "majority": ("the members' majority vote", ["majority", "vote"]),
        "judge": ("the judge", ["judge"]),
        "round-judge": ("the round judge's preliminary verdict (early stop)", ["round judge", "preliminary"]),
    }.get(source, (source, [source]))
    return f"{who[0]}: {label}", [who[1], [label]]


def _threshold(events: list[dict]) -> tuple[str, list[list[str]]]:
    tally = next((e for e in events if e.get("type") == "votes_tallied"), None)
    if tally is not None:
        th = float(tally.get("threshold") or 0)
        return f"Consensus threshold {th:.0%} of the members on one label.", [_num(th)]
    check = next((e for e in events if e.get("type") == "stop_check"), None)
    if check is not None:
        ts, tc = float(check.get("tau_s") or 0), float(check.get("tau_c") or 0)
        return f"Two: the stop agent's margin needs {ts:g}, the round judge's confidence {tc:g}.", [_num(ts), _num(tc)]
    return "None: the debate runs its set rounds and the judge decides.", [
        ["none", "no threshold", "no stop", "did not have", "didn't have", "not have", "there was no", "no such"]
    ]


def _evidence(events: list[dict]) -> tuple[str, list[list[str]]]:
    ev = next((e for e in events if e.get("type") == "evidence"), None)
    if ev is None or not (ev.get("passages") or []):
        return "No evidence: no passage was retrieved (or none about the claim).", [
            ["no evidence", "none", "no passage", "0 passages", "zero", "no retriev", "without evidence"]
        ]
    ps = ev["passages"]
    top = " ".join(str(ps[0].get("text") or "").split())[:200]
    seen = ev.get("in_prompts", True)
    groups = [[str(len(ps))], ["yes", "saw", "see", "shown", "cited", "numbered"] if seen else ["not", "didn't"]]
    return f"{len(ps)} passages, {'seen' if seen else 'not seen'} by the debaters; the closest: “{top}”", groups


def key_of(events: list[dict]) -> list[dict]:
    out = []
    for q, f in zip(QUESTIONS, (_why_stopped, _who_changed, _decided, _threshold, _evidence)):
        answer, facts = f(events)
        out.append({"question": q, "answer": answer, "facts": facts})
    return out


# -- Learn's screens as text --------------------------------------------------------------------------
def _plain(s: str) -> str:
    s = re.sub(r"<br\s*/?>|</div>|</p>|</li>|</tr>", "\n", s)
    s = html.unescape(re.sub(r"<[^>]+>", " ", s))
    return "\n".join(" ".join(line.split()) for line in s.splitlines() if line.strip())


def _blocks(at) -> list[str]:
    """The texts on screen, in order; what sits in a collapsed expander is labelled with it ("How is this
    computed?"), and a fork's form (a tool, not the debate's story) is left out."""
    inside: dict[str, str] = {}
    for x in at.expander:
        for m in list(x.markdown) + list(x.caption) + list(x.info) + list(x.warning) + list(x.error):
            inside[str(m.value)] = str(x.label)
    els = list(at.markdown) + list(at.caption) + list(at.info) + list(at.warning) + list(at.error)
    out = [f"[{p.proto.text}]" for p in at.get("progress")]
    for m in els:
        label = inside.get(str(m.value), "")
        if label.startswith("Fork from") or label == "All steps":
            continue
        t = _plain(str(m.value or ""))
        if not t or re.match(r"^1\. .*\n2\. ", t):  # the "All steps" list: the titles again
            continue
        out.append(f"(under “{label}”) {t}" if label else t)
    return out


def learn_text(store_home: Path, debate_id: str) -> list[str]:
    """Per step, what Learn's screen shows that the step before did not."""
    from streamlit.testing.v1 import AppTest

    from debate.store import DebateStore
    from debate.teaching import steps as teaching

    n = len(teaching.steps(DebateStore(store_home / "debates.sqlite").event_dicts(debate_id)))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.switch_page("pages/learn.py").run()
    at.selectbox(key="learn_debate").set_value(debate_id).run()
    seen: set[str] = set()
    pages = []
    for k in range(n):
        at.session_state["learn_step"] = k
        at.run()
        if at.exception:
            raise RuntimeError(f"Learn failed at step {k + 1} of {debate_id}: {at.exception[0].message}")
        new = [b for b in _blocks(at) if b not in seen]
        seen.update(new)
        pages.append("\n".join(new))
    return pages


def make(debates: Path, prefix: Path) -> None:
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)  # AppTest's "missing ScriptRunContext", per step
    home = Path(tempfile.mkdtemp(prefix="learn-quiz-"))
    os.environ["DEBATE_HOME"] = str(home)
    from debate.events import event_from_dict
    from debate.store import DebateStore

    store = DebateStore(home / "debates.sqlite")
    packet, key = ["# Learn quiz: what the reader is given\n"], {}
    intro = (
        "Below are the screens of a debate viewer's *Learn* page, step by step, as text, for five debates. "
        "Answer the five questions after each debate from this text alone, in a sentence or two each.\n"
    )
    packet.append(intro)
    for name in NAMES:
        path = debates / f"{name}.jsonl"
        if not path.exists():
            print(f"missing {path}: skipped", file=sys.stderr)
            continue
        events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        started = events[0]
        did = f"quiz-{name}"
        store.create_debate(
            {"claim": started.get("claim"), "protocol": started.get("protocol"), "task": started.get("task")}, did
        )
        store.append_events(did, [event_from_dict(e) for e in events if e.get("type") != "token"])
        store.release(did)
        pages = learn_text(home, did)
        packet.append(f"\n## Debate “{name}”\n")
        for k, text in enumerate(pages, 1):
            packet.append(f"### Step {k}\n\n{text}\n")
        packet.append(f"\n### Questions on debate “{name}”\n")
        packet += [f"{i}. {q}" for i, q in enumerate(QUESTIONS, 1)]
        key[name] = {"items": key_of(events), "learn_text": "\n".join(pages)}
    Path(f"{prefix}-packet.md").write_text("\n".join(packet) + "\n", encoding="utf-8")
    Path(f"{prefix}-key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False), encoding="utf-8")
    stated = sum(_found(item["facts"], data["learn_text"])[0] for data in key.values() for item in data["items"])
    total = sum(len(d["items"]) for d in key.values())
    print(f"wrote {prefix}-packet.md and -key.json; the Learn text states the key's facts for {stated} of {total}")


# -- grading ------------------------------------------------------------------------------------------
def _found(facts: list[list[str]], text: str) -> tuple[bool, list[list[str]]]:
    low = text.lower()
    missed = [g for g in facts if not any(alt.lower() in low for alt in g)]
    return not missed, missed


def grade(prefix: Path) -> dict:
    key = json.loads(Path(f"{prefix}-key.json").read_text(encoding="utf-8"))
    answers = json.loads(Path(f"{prefix}-answers.json").read_text(encoding="utf-8"))
    rows, md = (
        [],
        ["# Learn quiz: grading\n", "| debate | # | right | answer | key | missed |", "|---|---|---|---|---|---|"],
    )
    for name, data in key.items():
        given = answers.get(name) or []
        for i, item in enumerate(data["items"]):
            a = given[i] if i < len(given) else ""
            ok, missed = _found(item["facts"], a)
            rows.append({"debate": name, "q": i + 1, "right": ok, "answer": a, "key": item["answer"], "missed": missed})
            cell = lambda s: str(s).replace("|", "/").replace("\n", " ")
            md.append(
                f"| {name} | {i + 1} | {'✔' if ok else '✘'} | {cell(a)} | {cell(item['answer'])} | {cell(missed)} |"
            )
    score = sum(r["right"] for r in rows)
    md.insert(1, f"Score: **{score} of {len(rows)}** (facts matched as words; read the rows over)\n")
    out = {"score": score, "of": len(rows), "rows": rows}
    Path(f"{prefix}-grading.json").write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    Path(f"{prefix}-grading.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    print(f"score {score} of {len(rows)}")
    return out


# -- the five debates, when the embedded models cannot run them in time ---------------------------------
PASSAGES = [
    "The Bureau of Labor Statistics reported an unemployment rate of 3.4 percent in January 2023, the lowest since May 1969.",
    "Unemployment rose to 3.9 percent by the end of 2023 as more people looked for work.",
    "Economists note that the labour force participation rate in 2023 stayed below its pre-pandemic level.",
]


class _Passages:
    """Three fixed passages about the RADAR claim (the real runner's retrieval step, no index needed)."""

    name = "quiz-passages"

    def search(self, query: str, k: int = 20) -> list[dict]:
        return [
            {
                "id": f"E{i}",
                "text": t,
                "score": 0.9 - i / 10,
                "source": "https://www.bls.gov/",
                "title": f"BLS note {i}",
            }
            for i, t in enumerate(PASSAGES[:k], 1)
        ]


def _reply(kind_of: dict):
    """A scripted model answering by what the prompt asks for; `kind_of` maps a prompt kind to a function of
    (the call's number for this model, the options)."""
    from collections import Counter

    calls: Counter = Counter()

    def reply(messages, options) -> str:
        u = messages[-1]["content"]
        kind = (
            "stop"
            if "DECISION: CONTINUE or STOP" in u
            else "verdict"
            if "[VERDICT]:" in u
            else "chair"
            if "You are the Chairperson" in u
            else "vote"
            if '{"vote":' in u
            else "judge"
            if '{"category":' in u
            else "argue"
        )
        key = (kind, 0 if kind == "stop" else getattr(options, "seed", 0))  # the stop agent's samples: one count
        calls[key] += 1
        return kind_of[kind](calls[key], options) if kind != "argue" else kind_of[kind](calls[key], options, u)

    return reply


def scripted_debates(out: Path) -> None:
    """The five debates on the real runner with scripted models (distinct words, one member changing its
    vote, a RADAR stop check that stops after round 1), for when the embedded models cannot run in time."""
    from debate.models.client import ModelClient
    from debate.models.scripted import ScriptedBackend
    from debate.runner import DebateConfig, run_debate

    out.mkdir(parents=True, exist_ok=True)
    tweet = (
        "A new Stanford study of 200,000 adults finds that walking 8,000 steps a day halves the risk of early death."
    )
    claim = "Unemployment fell to 3.4 percent in 2023, the lowest rate since 1969."
    vote = lambda v, why: json.dumps({"vote": v, "explanation": why})
    member = {
        0: lambda n, o: vote("YES", "It reports a study's finding about health."),
        1: lambda n, o: vote(
            "NO" if n == 1 else "YES",
            "It is only an opinion." if n == 1 else "The others are right: it states a study's result.",
        ),
        2: lambda n, o: vote("YES", "A measurable claim about walking and death risk."),
    }
    kinds = {
        "vote": lambda n, o: member[int(getattr(o, "seed", 0) or 0) % 3](n, o),
        "chair": lambda n, o: json.dumps(
            {
                "status": "CONSENSUS NOT REACHED",
                "summary": "Two say the tweet reports a study; one calls it an opinion.",
            }
        ),
        "judge": lambda n, o: json.dumps(
            {"category": 1, "explanation": "The proponent showed it reports a measurable study result."}
        ),
        "argue": lambda n, o, u: (
            "The 3.4 percent low of January 2023 is real [E1], but the rate rose to 3.9 percent by the year's end [E2]."
            if "Unemployment" in u
            else f"Point {n}: the tweet names a study, its size and a measured result, so it makes a scientific claim."
            if int(getattr(o, "seed", 0) or 0) % 2 == 0
            else f"Point {n}: a tweet that only relays a headline, with no link to the paper, may be opinion."
        ),
        "stop": lambda n, o: "DECISION: STOP" if n > 3 else "DECISION: CONTINUE",
        "verdict": lambda n, o: (
            "[REASON]: The 3.4 percent low is real [E1] but the year ended at 3.9 percent [E2].\n[VERDICT]: HALF-TRUE"
        ),
    }
    client = ModelClient({"scripted": ScriptedBackend(default=_reply(kinds))})
    members = [{"name": n, "model": "scripted:m", "seed": i} for i, n in enumerate(("Ana", "Ben", "Cy", "Dee"))]
    lineup = {
        "name": "quiz",
        "members": members[:3],
        "judge": {"name": "judge", "model": "scripted:j"},
        "chair": {"name": "chair", "model": "scripted:c"},
    }
    runs = {
        "council": ("council", "checkthat", 1, tweet, {"rounds": 2}, False),
        "single": ("single", "checkthat", 1, tweet, {"rounds": 1}, False),
        "team": ("team", "checkthat", 1, tweet, {"rounds": 1}, False),
        "radar": ("radar", "halftruth", None, claim, {"rounds": 2, "stop_method": "samples"}, True),
        "radar-single": ("radar-single", "halftruth", None, claim, {}, True),
    }
    for name, (proto, task, cat, text, params, evidence) in runs.items():
        lu = dict(lineup, members=members) if proto == "team" else lineup
        cfg = DebateConfig(
            claim=text,
            protocol=proto,
            task=task,
            category=cat,
            lineup=lu,
            params=params,
            max_tokens=64,
            evidence=evidence,
        )
        events = [
            e.to_dict()
            for e in run_debate(cfg, client, retriever=_Passages() if evidence else None)
            if e.type != "token"
        ]
        (out / f"{name}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    print(f"wrote the five debates to {out}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(Path(sys.argv[2]), Path(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "scripted":
        scripted_debates(Path(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "grade":
        grade(Path(sys.argv[2]))
    else:
        sys.exit(__doc__)
