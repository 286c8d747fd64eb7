"""RADAR (role-anchored, evidence-grounded debate) and RADAR-single.

Flow (RADAR Sec. 3.3, App. A): opening, up to R rebuttal rounds, closing, then the judge's
[REASON]/[VERDICT]. Every prompt is the App. A template for its role and phase, with the whole evidence
pool (each template has {evidence}) and the opponent's latest argument where the template has a slot for
it. The paper's templates are self-contained, so by default a debater has no other memory
(`debater_memory`); with it on, each debater keeps its own conversation, and `repeat_evidence` off then
refers to the evidence after the first prompt instead of repeating it. Roles: expertise (Politician,
Scientist; + Journalist who speaks first in every round, its argument appended to the Politician's and
Scientist's prompts, for 3 debaters; + a domain expert whose domain an LLM infers, for 4) or position
(Advocate, Critic). The judge, the round judge and the stop agent read every argument so far (shortened
only when a model's context window cannot hold it, see prompting.py).

Adaptive early stopping (A.2): after the opening and after each rebuttal round the stop agent answers
CONTINUE/STOP and the round judge (the judge prompt over the debate so far) gives a preliminary verdict.
margin = P(STOP) - P(CONTINUE); confidence = P(preliminary verdict); stop when margin >= τs and
confidence >= τc (debate.protocols.decisions). Probabilities come from the backend's label probabilities
(method "logprobs") or, when it has none, from vote shares of n answers sampled at temperature > 0 with
distinct seeds (method "samples"). On a stop the preliminary verdict is final (on_stop="verdict") or
the debate skips to closing statements and the final judge (on_stop="closing").

RADAR-single (Sec. 4.1: "identical architecture, prompts, and retrieval but without inter-agent
interaction"; the paper shows no more): `single_mode` one-debater (default: one debater's opening and
closing, the judge's Agent B slot says there is none), independent (both debaters open and close without
reading each other; no rebuttals) or judge (the judge alone over the claim and the evidence).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Literal, TypeVar

from debate import prompts
from debate.aids import calibration as cal
from debate.errors import DebateError
from debate.events import Attribution, AttributionProgress, Event, StopCheck, TurnFinished, Verdict
from debate.lineups import Agent, Seating
from debate.models.spec import ModelSpec
from debate.protocols.base import (
    JUDGE_REASON_CHARS,
    DebateContext,
    ProtocolInfo,
    Slot,
    Steps,
    TurnSpec,
    entries,
    json_answer,
    label_key_of,
    params,
)
from debate.protocols.decisions import majority, normalise_probs, shares, should_stop, stop_margin, verdict_confidence
from debate.protocols.parsing import ParseResult, parse_domain, parse_json_object, parse_stop, parse_verdict
from debate.retrieval import attribution as at
from debate.retrieval import safety

ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}
EVIDENCE_ABOVE = " (the same evidence as given above)"
NAMES = {
    "politician": "Politician",
    "scientist": "Scientist",
    "journalist": "Journalist",
    "expert": "Domain expert",
    "advocate": "Advocate",
    "critic": "Critic",
}


class Debate:
    """State of one RADAR debate: who said what, per agent conversation histories."""

    def __init__(self, ctx: DebateContext, debaters: list[Agent]) -> None:
        self.ctx = ctx
        self.position = any(a.role in ("advocate", "critic") for a in debaters)
        self.debaters = debaters
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.args: dict[str, list[TurnFinished]] = {a.role: [] for a in debaters}  # by role, in order
        self.closing: dict[str, TurnFinished] = {}
        self.domain = ""

    # -- prompts ------------------------------------------------------------------------------
    def system_id(self, role: str) -> str:
        if self.position:
            return "radar.position.system.debater"
        return f"radar.expertise.system.{role}"

    def user_id(self, role: str, phase: str) -> str:
        if self.position:
            return f"radar.position.{role}.{phase}"
        if role in ("politician", "scientist"):
            return f"radar.expertise.{phase}"
        return f"radar.{role}.{phase}"

    def spec(self, agent: Agent, phase: str, rnd: int) -> Steps[TurnSpec]:
        """`spec = yield from d.spec(...)`: the App. A template of this role and phase."""
        role = agent.role
        memory = bool(self.ctx.p("debater_memory"))
        history = self.history.get(agent.agent) if memory else None
        evidence = self.ctx.evidence_text()
        if history and not self.ctx.p("repeat_evidence"):
            evidence = EVIDENCE_ABOVE
        other = {"politician": "scientist", "scientist": "politician"}.get(role, "")
        vals = {
            "claim": self.ctx.claim,
            "evidence": evidence,
            "role_name": role,
            "opponent_name": other,
            "domain_inferred": self.domain or "general",
        }
        latest = {
            "poli_argument": "politician",
            "sci_argument": "scientist",
            "jour_argument": "journalist",
            "politician_rebuttal": "politician",
            "scientist_rebuttal": "scientist",
        }
        if role in ("advocate", "critic"):
            latest["oppo_argument"] = "critic" if role == "advocate" else "advocate"
        if role in ("politician", "scientist"):
            latest["con_argument"] = other
        uid = self.user_id(role, phase)
        used = set(prompts.get(uid).variables)
        slots = {k: self.latest(r) for k, r in latest.items() if k in used}
        addendum = ""
        if role in ("politician", "scientist") and self.args.get("journalist"):
            # A.1(b): the journalist speaks first in each round and its response is made available to the
            # politician and the scientist; their templates have no slot for it, so it follows the template
            addendum = prompts.render("engine.journalist_context", jour_argument=self.latest("journalist").render())
        system_id = None if history else self.system_id(role)
        msgs = yield from self.ctx.prompt(
            agent, system_id, uid, vals, slots, phase=phase, round=rnd, history=history, addendum=addendum
        )
        if memory and not history:
            self.history[agent.agent] = msgs[:1]
        return TurnSpec(agent, phase, rnd, msgs, uid)

    def latest(self, role: str) -> Slot:
        """A role's latest argument (opening or rebuttal; a journalist's closing counts in its round)."""
        said = self.args.get(role) or []
        if role == "journalist" and role in self.closing:  # it closes first: the others read its closing
            said = said + [self.closing[role]]
        return Slot(entries(said[-1:], lambda t: ""), empty="(no argument yet)")

    def record(self, specs: list[TurnSpec], done: list[TurnFinished]) -> None:
        for s, t in zip(specs, done):
            if self.ctx.p("debater_memory"):
                self.history[s.agent.agent] = s.messages + [{"role": "assistant", "content": t.text}]
            if s.phase == "closing":
                self.closing[s.agent.role] = t
            else:
                self.args[s.agent.role].append(t)

    def speak(self, agents: list[Agent], phase: str, rnd: int) -> Steps[list[TurnFinished]]:
        specs = []
        for a in agents:
            specs.append((yield from self.spec(a, phase, rnd)))
        done = yield from self.ctx.turns(specs)
        self.record(specs, done)
        return done

    # -- the judge's view of the debate ---------------------------------------------------------
    def judge_slots(self, partial: bool, lone: str = "(no second debater: single-agent setting)") -> dict[str, Slot]:
        """The A.1 judge template's six slots, with every argument given so far (the round judge of A.2(b)
        reads "the arguments accumulated up to that point"). Extra debaters follow Agent B as Agent C/D."""
        roles = [a.role for a in self.debaters]
        a_role, b_role = (roles[0] if roles else None), (roles[1] if len(roles) > 1 else None)
        missing = "(not yet given)" if partial else "(none)"

        def said(role: str | None, phase: str) -> list[TurnFinished]:
            if role is None:
                return []
            if phase == "closing":
                return [self.closing[role]] if role in self.closing else []
            return [t for t in self.args.get(role, []) if t.phase == phase]

        def slot(role: str | None, phase: str, extras: list[str], empty: str) -> Slot:
            def prefix(t: TurnFinished) -> str:
                who = "" if t.role == role else f"Agent {'CD'[roles.index(t.role) - 2]} ({NAMES[t.role]}): "
                first = t is said(t.role, phase)[0]
                lead = who if first else ""
                return lead + (f"Round {t.round}: " if phase == "rebuttal" else "")

            turns = said(role, phase) + [t for r in extras for t in said(r, phase)]
            return Slot(entries(turns, prefix), sep="\n", empty=empty)

        extras = roles[2:]
        out = {}
        for key, phase in (("open", "opening"), ("rebuttal", "rebuttal"), ("close", "closing")):
            out[f"advocate_{key}"] = slot(a_role, phase, [], missing if a_role else lone)
            out[f"critic_{key}"] = slot(b_role, phase, extras, missing if b_role else lone)
        return out

    def judge_spec(
        self, judge: Agent, phase: str, rnd: int, partial: bool, lone: str | None = None, content_free: bool = False
    ) -> Steps[TurnSpec]:
        """The judge's turn; with `content_free` the same prompt with the claim, the evidence and every
        argument replaced by "N/A" (Zhao et al.'s content-free input: what the prompt alone favours)."""
        t = self.ctx.task
        kind = "position" if self.position else "expertise"
        uid = f"radar.{kind}.judge"
        slots = self.judge_slots(partial, *([lone] if lone else []))
        values = self.ctx.task_values()
        if content_free:
            values.update(claim=cal.CONTENT_FREE, tweet=cal.CONTENT_FREE, evidence=cal.CONTENT_FREE)
            slots = {k: Slot(empty=cal.CONTENT_FREE) for k in slots}
        msgs = yield from self.ctx.prompt(
            judge, f"radar.{kind}.system.judge", uid, values, slots, phase=phase, round=rnd
        )
        return TurnSpec(
            judge,
            phase,
            rnd,
            msgs,
            uid,
            parse=lambda s: parse_verdict(s, t.labels),
            labels=t.labels,
            answer_format=f"[REASON]: your justification\n[VERDICT]: {t.verdict_options}",
            constrain=self.ctx.p("judge_answer") == "constrained",
            **json_answer("verdict", t.labels, "reason", text_chars=JUDGE_REASON_CHARS),
        )

    def final_verdict(self, judge: Agent, rnd: int, lone: str | None = None) -> Iterator[Event]:
        """The judge's verdict; with judge_calibration=fitted its label probabilities times the class weights
        fitted on train, with contextual divided by those of the content-free prompt (small models lean on
        one label whatever the debate said); either way the card says which, and when it overrode the text."""
        t = self.ctx.task
        j = yield from self.ctx.turn((yield from self.judge_spec(judge, "judge", rnd, partial=False, lone=lone)))
        written = (j.parsed or {}).get("explanation", "") if j.valid else "The judge's answer could not be read."
        label, conf, probs, notes, how_note, aid = j.label, j.confidence, None, [], "", ""
        basis, basis_note = "probability", ""
        how = self.ctx.p("judge_calibration")
        if how == "fitted":
            key = cal.judge_key(judge.model, t.task, self.ctx.config.protocol, str(self.ctx.p("judge_answer")))
            entry = cal.fitted_weights(key)
            if entry is None:
                notes.append(
                    f"Uncalibrated: class weights not available for {key} (none fitted on a train "
                    "split), the judge's written label is used."
                )
            else:
                probs = cal.weighted(j.label_probs, entry["weights"], t.labels) if j.valid else None
                how_note = (
                    "Class weights fitted on "
                    + str(entry.get("fitted_on", "train"))
                    + " ("
                    + ", ".join(f"{k} ×{v:g}" for k, v in entry["weights"].items())
                    + ")."
                )
                aid = (
                    "class weights fitted on "
                    + str(entry.get("fitted_on", "train"))
                    + ": "
                    + ", ".join(f"{k} ×{v:g}" for k, v in entry["weights"].items() if v != 1)
                )
                basis_note = "class weights fitted on " + str(entry.get("fitted_on", "train"))
        elif how == "contextual":
            yield self.ctx.phase(
                "calibrate",
                rnd,
                "Content-free judge",
                "The judge prompt with the claim, the evidence and every argument replaced by "
                f'"{cal.CONTENT_FREE}": its label probabilities are the prompt\'s own bias, '
                "divided out of the verdict's.",
            )
            cf = yield from self.ctx.turn(
                (yield from self.judge_spec(judge, "calibrate", rnd, partial=False, lone=lone, content_free=True))
            )
            probs = cal.contextual(j.label_probs, cf.label_probs, t.labels) if j.valid else None
            how_note = (
                "Contextually calibrated (content-free prior "
                + ", ".join(f"{k} {v:.2f}" for k, v in (cal.normalised(cf.label_probs, t.labels) or {}).items())
                + ")."
            )
            aid = "contextual calibration: divided by the content-free prompt's probabilities"
            basis_note = "contextual calibration (divided by the content-free prompt's probabilities)"
        if how != "none" and probs is None and not notes:
            notes.append("No label probabilities could be read, so the written verdict stands uncalibrated.")
        # the verdict is the label the judge wrote unless the person chose the calibrated reading; the
        # calibration's label is kept beside it as a second opinion (debate.outcome.reading)
        chosen = bool(self.ctx.p("calibrated_reading"))
        cal_label = max(probs, key=lambda k: probs[k]) if probs else None
        if cal_label is not None and chosen and probs is not None:
            label, conf, basis = cal_label, probs[cal_label], "calibrated"
            notes.append(how_note)
            if j.label is not None and label != j.label:
                notes.append(f"The judge wrote {j.label}; its calibrated probabilities give {label}.")
        if written and notes and written.rstrip()[-1:] not in ".!?…\"')":
            written = written.rstrip() + "…"  # an explanation cut by the answer budget, then the aid's notes
        verdict = self.ctx.verdict(
            label,
            " ".join(x for x in [written, *notes] if x),
            "judge",
            round(conf, 6) if conf is not None else None,
            probs={k: round(v, 6) for k, v in probs.items()} if probs and chosen else None,
            written=j.label if probs is not None and chosen else None,
            aid=aid,
            basis=basis,
            basis_note=basis_note if basis == "calibrated" else "",
            reading="calibrated" if chosen and cal_label is not None else "written",
            calibrated=cal_label,
            calibrated_confidence=round(probs[cal_label], 6) if cal_label is not None and probs is not None else None,
        )
        yield verdict
        yield from attribute(self.ctx, self, judge, "judge", rnd, verdict, lone=lone, answer=j.full_text or j.text)

    def summary(self) -> Slot:
        """ "Rounds completed so far" for the stop agent: every argument, in the order given."""
        turns = sorted(
            (t for a in self.debaters for t in self.args[a.role]),
            key=lambda t: int(t.turn_id[1:]) if t.turn_id[1:].isdigit() else 0,
        )
        return Slot(
            entries(
                turns, lambda t: f"{NAMES[t.role]} ({'opening' if t.phase == 'opening' else f'rebuttal {t.round}'}): "
            ),
            empty="(none yet)",
        )


R = TypeVar("R")


def _quietly(gen: Steps[R]) -> R:
    """The value a `yield from` generator returns, its events dropped (a re-read's prompt may be shortened
    to fit the context as the verdict's was; that was said once, at the verdict)."""
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        value: R = stop.value
        return value


def attribute(
    ctx: DebateContext,
    d: Debate,
    judge: Agent,
    phase: str,
    rnd: int,
    verdict: Verdict,
    partial: bool = False,
    lone: str | None = None,
    answer: str = "",
) -> Iterator[Event]:
    """After the verdict is out: the judge's label probabilities read again over every passage and with
    each passage left out, as AttributionProgress events while it runs and one Attribution at the end
    (debate.retrieval.attribution says what the readings mean). The verdict event has already been yielded,
    so the page shows it before the first re-read starts.

    Where the verdict is the label the judge wrote in `answer` and its backend can continue an answer, each
    re-read continues the judge's own answer up to that label: a small judge that writes its label after its
    reasoning often gives another label when asked for the label first (the 0.5B judge said HALF-TRUE that
    way whatever was left out, while it wrote TRUE), and then no passage could be named. The reasoning stays
    as written, so a re-read measures what a passage does to the label given that reasoning; a passage
    that moved the verdict through the reasoning alone is not caught this way (the method field says which
    reading was made)."""
    if not (ctx.p("attribution") and ctx.evidence_on and ctx.passages) or verdict.label is None:
        return
    labels = tuple(ctx.task.labels)
    policy = str(ctx.p("contested"))
    threshold = float(ctx.p("attribution_threshold"))
    base: dict[str, Any] = {"label": verdict.label, "source": verdict.source, "threshold": threshold, "policy": policy}
    backend = ctx.client.backend_for(ModelSpec.parse(judge.model))
    if ctx.is_person(judge) or not backend.supports_logprobs:
        who = (
            "a person gives the verdict"
            if ctx.is_person(judge)
            else f"the judge's backend ({judge.model}) gives no label probabilities"
        )
        yield Attribution(status="unavailable", note=who, **base)
        return
    t0 = time.perf_counter()
    passages = list(ctx.passages)
    total = len(passages) + 1
    first = _quietly(d.judge_spec(judge, phase, rnd, partial=partial, lone=lone))
    key, spellings = label_key_of(first) or "verdict", first.label_spellings
    before = at.continued_answer(answer, verdict.label, labels, key, spellings) if backend.supports_prefill else None
    yield AttributionProgress(
        done=0, total=total, note="The judge re-reads the evidence with each passage left out in turn…"
    )

    regenerate = str(ctx.p("attribution_reading")) == "regenerate"

    def read(kept: list[dict[str, Any]]) -> dict[str, float] | None:
        with ctx.passages_left(kept):
            spec = _quietly(d.judge_spec(judge, phase, rnd, partial=partial, lone=lone))
            if regenerate:
                return ctx.regenerated_label_probs(spec)
            return ctx.reread_label_probs(spec, before or "")

    try:
        full = read(passages)
        yield AttributionProgress(done=1, total=total, note="read over every passage")
        without: dict[str, dict[str, float] | None] = {}
        for i, p in enumerate(passages):
            if ctx.stopping():
                return
            without[str(p.get("id"))] = read(passages[:i] + passages[i + 1 :])
            yield AttributionProgress(done=i + 2, total=total, passage=str(p.get("id")))
    except DebateError as e:
        yield Attribution(status="failed", note=e.message, seconds=round(time.perf_counter() - t0, 3), **base)
        return
    if at.normalised(full, labels) is None:
        yield Attribution(
            status="unavailable",
            note="the backend returned no label probabilities for the re-read",
            seconds=round(time.perf_counter() - t0, 3),
            **base,
        )
        return
    rows, rests = at.leave_one_out(verdict.label, full, without, labels, threshold)
    claim_lang = safety.language_of(ctx.claim)
    reasons = at.contested_reasons(rows, passages, claim_lang, policy)
    yield Attribution(
        status="done",
        probs={k: round(v, 4) for k, v in (at.normalised(full, labels) or {}).items()},
        without=rows,
        rests_on=rests,
        contested=bool(reasons),
        contested_reasons=reasons,
        claim_lang=claim_lang,
        method=_reading_said(regenerate, bool(before)),
        seconds=round(time.perf_counter() - t0, 3),
        **base,
    )


def _reading_said(regenerate: bool, continued: bool) -> str:
    """The attribution's `method`: how each passage was left out (the card and the exports say it)."""
    if regenerate:
        return (
            "the judge answered again with one passage left out, reasoning included, its label probabilities "
            "read where that answer wrote its verdict"
        )
    if continued:
        return (
            "the judge's prompt re-read with one passage left out, its label probabilities read where its own "
            "answer wrote the verdict (the reasoning kept as written)"
        )
    return (
        "the judge's prompt re-read with one passage left out, its label probabilities read where "
        "the verdict is written (decoded label-first)"
    )


def _method(ctx: DebateContext, agents: list[Agent]) -> str:
    choice = str(ctx.p("stop_method"))
    if choice != "auto":
        return choice
    for a in agents:
        backend = ctx.client.backend_for(ModelSpec.parse(a.model))
        if not backend.supports_logprobs:
            return "samples"
    return "logprobs"


def stop_check(
    ctx: DebateContext, d: Debate, rnd: int, upcoming: str
) -> Steps[tuple[bool, ParseResult | TurnFinished | None, str | None, float, int | None]]:
    """One early-stopping check; returns (stop, preliminary TurnFinished-or-None, label, confidence, the
    number of sampled round-judge answers `confidence` is a share of, or None when it is a probability)."""
    t = ctx.task
    stop_agent, judge = ctx.role("stop-agent"), ctx.role("judge")
    method = _method(ctx, [stop_agent, judge])
    yield ctx.phase(
        "stop-check",
        rnd,
        f"Stop check after {'the opening' if rnd == 0 else f'round {rnd}'}",
        f"Stop agent (CONTINUE/STOP) and round judge (preliminary verdict), method: {method}.",
    )
    vals = {"claim": ctx.claim, "evidence": ctx.evidence_text(), "upcoming_round": upcoming}
    stop_msgs = yield from ctx.prompt(
        stop_agent, None, "radar.stop_agent", vals, {"summary": d.summary()}, phase="stop-check", round=rnd
    )
    round_judge = yield from d.judge_spec(judge, "round-judge", rnd, partial=True)

    def stop_spec(
        temp: float | None = None, seed: int | None | Literal["agent"] = "agent", repair: bool = True
    ) -> TurnSpec:
        return TurnSpec(
            stop_agent,
            "stop-check",
            rnd,
            stop_msgs,
            "radar.stop_agent",
            parse=parse_stop,
            labels=("STOP", "CONTINUE"),
            answer_format="DECISION: CONTINUE or STOP",
            temperature=temp,
            seed=seed,
            repair=repair,
            **json_answer("decision", ("CONTINUE", "STOP"), None),
        )

    def judge_spec(
        temp: float | None = None, seed: int | None | Literal["agent"] = "agent", repair: bool = True
    ) -> TurnSpec:
        return replace(round_judge, temperature=temp, seed=seed, repair=repair)

    detail: dict[str, Any] = {"upcoming_round": upcoming}
    nj = 0
    stop_probs = verdict_probs = None
    prelim: ParseResult | TurnFinished | None = None
    label = None
    if method == "logprobs":
        st, jt = yield from ctx.turns([stop_spec(temp=0.0), judge_spec(temp=0.0)])
        stop_probs = normalise_probs(st.label_probs, ("STOP", "CONTINUE"))
        verdict_probs = normalise_probs(jt.label_probs, t.labels)
        label, prelim = jt.label, jt
        if stop_probs is None or verdict_probs is None:
            detail["fallback"] = "the backend returned no label probabilities; sampled instead"
            method = "samples"
    if method == "samples":
        n, temp = max(1, int(ctx.p("stop_samples"))), float(ctx.p("stop_temperature"))
        # a person's answer is their decision, not a sample: a seat a person plays is asked once
        ns, nj = (1 if ctx.is_person(stop_agent) else n), (1 if ctx.is_person(judge) else n)
        base = int(ctx.config.seed) * 1000 + rnd * 100
        specs = [stop_spec(temp, base + i, False) for i in range(ns)] + [
            judge_spec(temp, base + 50 + i, False) for i in range(nj)
        ]
        done = yield from ctx.turns(specs)
        stop_probs = shares([x.label for x in done[:ns]], ("STOP", "CONTINUE"))
        verdict_probs = shares([x.label for x in done[ns:]], t.labels)
        votes = {x.turn_id: x.label for x in done[ns:]}
        label, _ = majority(votes, t.labels, t.tie_label, tie_rule="default")
        prelim = next((x for x in done[ns:] if x.label == label), None)
        detail["samples"] = n if ns == nj else {"stop-agent": ns, "judge": nj}
        detail["temperature"] = temp
    label, conf = verdict_confidence(verdict_probs or {}, label)
    margin = stop_margin(stop_probs or {})
    tau_s, tau_c = float(ctx.p("tau_s")), float(ctx.p("tau_c"))
    stop = should_stop(margin, conf, tau_s, tau_c)
    detail.update(stop_probs=stop_probs, verdict_probs=verdict_probs)
    yield StopCheck(
        round=rnd,
        stop_margin=round(margin, 6),
        verdict_confidence=round(conf, 6),
        tau_s=tau_s,
        tau_c=tau_c,
        decision="stop" if stop else "continue",
        preliminary_verdict=label,
        method=method,
        detail=detail,
    )
    n_samples = nj if method == "samples" else None
    return stop, prelim, label, conf, n_samples


def infer_domain(ctx: DebateContext, d: Debate, expert: Agent) -> Iterator[Event]:
    yield ctx.phase("domain", 0, "Domain inference", "RADAR 4-debater setting: an LLM names the claim's domain.")
    agent = Agent("domain-inference", "domain-inference", expert.model, 0.0, expert.seed)

    def parse(s: str) -> ParseResult:
        dom = parse_domain(s) or str((parse_json_object(s) or {}).get("domain", "")).strip() or None
        return ParseResult(dom, {"domain": dom}, "line") if dom else ParseResult(None)

    msgs = yield from ctx.prompt(agent, None, "radar.domain.inference", {"claim": ctx.claim}, phase="domain")
    t = yield from ctx.turn(
        TurnSpec(
            agent,
            "domain",
            0,
            msgs,
            "radar.domain.inference",
            parse=parse,
            answer_format="DOMAIN: <one word>",
            schema_format='{"domain": "..."}',
            schema={
                "type": "object",
                "required": ["domain"],
                "properties": {"domain": {"type": "string", "maxLength": 40}},
            },
        )
    )
    d.domain = t.label if t.valid and t.label is not None else "general knowledge"


def run(ctx: DebateContext) -> Iterator[Event]:
    debaters = [a for a in ctx.agents if a.role in NAMES]
    d = Debate(ctx, debaters)
    judge = ctx.role("judge")
    journalist = [a for a in debaters if a.role == "journalist"]
    others = [a for a in debaters if a.role != "journalist"]
    if any(a.role == "expert" for a in debaters):
        yield from infer_domain(ctx, d, next(a for a in debaters if a.role == "expert"))
    max_rounds, early = int(ctx.p("rounds")), bool(ctx.p("early_stop"))

    def round_of_speech(phase: str, rnd: int) -> Iterator[Event]:
        if journalist:  # speaks first in every round; the others then see its argument
            yield from d.speak(journalist, phase, rnd)
        yield from d.speak(others, phase, rnd)

    yield ctx.phase(
        "opening",
        0,
        "Opening statements",
        "Each debater assesses the claim over the same evidence passages from its role"
        + (" (the journalist first)." if journalist else "; both speak at once."),
    )
    yield from round_of_speech("opening", 0)
    for r in range(max_rounds + 1):
        if early:
            upcoming = f"{ORDINAL.get(r + 1, str(r + 1))} rebuttal" if r < max_rounds else "closing"
            stop, prelim, label, conf, n_samples = yield from stop_check(ctx, d, r, upcoming)
            if stop and str(ctx.p("on_stop")) == "verdict":
                expl = (prelim.parsed or {}).get("explanation", "") if isinstance(prelim, TurnFinished) else ""
                verdict = ctx.verdict(
                    label,
                    expl or "Stopped early on the round judge's preliminary verdict.",
                    "round-judge",
                    conf,
                    basis="samples" if n_samples else "probability",
                    votes_for=round(conf * n_samples) if n_samples else None,
                    voters=n_samples,
                )
                yield verdict
                said = (prelim.full_text or prelim.text) if isinstance(prelim, TurnFinished) else ""
                yield from attribute(ctx, d, judge, "round-judge", r, verdict, partial=True, answer=said)
                return
            if stop:
                break
        if r == max_rounds:
            break
        ctx.rounds = r + 1
        yield ctx.phase(
            "rebuttal", r + 1, f"Rebuttal round {r + 1}", "Each debater answers the other side's latest argument."
        )
        yield from round_of_speech("rebuttal", r + 1)
    yield ctx.phase(
        "closing",
        ctx.rounds,
        "Closing statements",
        "Each debater sums up its final position" + (" (the journalist first)." if journalist else "."),
    )
    yield from round_of_speech("closing", ctx.rounds)
    yield ctx.phase("judge", ctx.rounds, "Judge's verdict", "The judge weighs the debate and the evidence.")
    yield from d.final_verdict(judge, ctx.rounds)


def run_single(ctx: DebateContext) -> Iterator[Event]:
    mode = str(ctx.p("single_mode"))
    debaters = [a for a in ctx.agents if a.role in NAMES]
    d = Debate(ctx, debaters)
    lone = None
    if mode == "judge":
        lone = "(no debate: single-agent setting, the judge alone reads the claim and the evidence)"
    elif mode == "independent":
        yield ctx.phase(
            "opening",
            0,
            "Opening statements",
            "Each debater assesses the claim over the evidence; neither reads the other.",
        )
        yield from d.speak(debaters, "opening", 0)
        yield ctx.phase("closing", 0, "Closing statements", "Each sums up; still no agent reads another.")
        yield from d.speak(debaters, "closing", 0)
    else:
        lone = "(no second debater: single-agent setting)"
        yield ctx.phase("opening", 0, "Opening statement", "One agent assesses the claim over the evidence alone.")
        yield from d.speak(debaters, "opening", 0)
        yield ctx.phase("closing", 0, "Closing statement", "The same agent sums up; no other agent is heard.")
        yield from d.speak(debaters, "closing", 0)
    yield ctx.phase("judge", 0, "Judge's verdict", "The judge decides from what the single-agent setting said.")
    yield from d.final_verdict(ctx.role("judge"), 0, lone)


_SHARED = {
    "roles": (
        "expertise",
        "expertise: Politician / Scientist (+Journalist, +domain expert); position: "
        "Advocate / Critic (RADAR Sec. 5.1).",
    ),
    "repeat_evidence": (
        True,
        "The full evidence in every prompt (every App. A template has {evidence}); off "
        "(only with debater_memory): once, then '(the same evidence as given above)'.",
    ),
    "shared_evidence": (
        False,
        "The claim and the evidence pool lead every prompt (ahead of the role's system "
        "text; the template's {evidence} then points there), so llama.cpp reuses their "
        "evaluation across roles, rounds and the judge. The paper's layout: off.",
    ),
    "debater_memory": (
        False,
        "Each debater keeps its own conversation (its earlier prompts and answers). The "
        "paper's templates are self-contained and say nothing of memory: off.",
    ),
    "judge_answer": (
        "paper",
        "paper: the judge writes [REASON] and [VERDICT] freely (repaired under a JSON schema "
        "when unreadable); constrained: decoded under that schema from the first token, so "
        "a small model always gives a readable verdict and its label probabilities.",
    ),
    "judge_calibration": (
        "none",
        "none: the judge's verdict; contextual: its label probabilities divided by "
        "those of the same prompt with everything replaced by 'N/A' (Zhao et al. "
        "2021), one more judge call (the same for every claim, so cached); fitted: "
        "multiplied by class weights fitted on LIAR train (eval-fit-threshold). Either gives a "
        "calibrated reading, shown beside the verdict as a second opinion where it differs.",
    ),
    "calibrated_reading": (
        False,
        "Off: the verdict is the label the judge wrote, and a calibration's label is shown beside it "
        "as a second opinion. On: the calibrated label is the verdict (the card says what the judge "
        "wrote).",
    ),
    "attribution": (
        False,
        "After the verdict, the judge's label probabilities read again with each passage left out: the "
        "card names the passages the verdict rests on (not in the paper; it never delays the verdict). "
        "Off by default: on the packaged 0.5B judge the label-first re-read disagrees with the label it "
        "wrote, so it names nothing, and its re-reads take the CPU the next debate needs.",
    ),
    "attribution_reading": (
        "continue",
        "continue: each re-read continues the judge's own answer up to its verdict (the reasoning kept as "
        "written; a prompt's evaluation and one token each). regenerate: the judge answers again, reasoning "
        "included, with each passage left out (a whole answer each): it also names a passage that moved the "
        "verdict through the reasoning it inspired.",
    ),
    "attribution_threshold": (
        at.THRESHOLD,
        "The verdict rests on a passage whose removal changes it or lowers its probability by more than this.",
    ),
    "contested": (
        at.DEFAULT_POLICY,
        "suspicious: a verdict that one passage alone decides is contested when that passage is flagged, in "
        "another language than the claim or far less relevant than the others; strict: whenever one passage "
        "alone decides it; off: never.",
    ),
}
_SHARED_CHOICES = {
    "judge_answer": ("paper", "constrained"),
    "judge_calibration": ("none", "contextual", "fitted"),
    "contested": at.POLICIES,
    "attribution_reading": at.READINGS,
}


def seating(lineup: dict[str, Any], params: dict[str, Any], single: bool = False) -> list[Agent]:
    """The debaters of the role set (2-4 expertise roles, or advocate and critic), the judge, the stop
    agent; RADAR-single: one debater (or the pair, or none) and the judge."""
    s = Seating(lineup)
    mode = str(params.get("single_mode", "one-debater"))
    if single and mode == "judge":
        return [s.seat(s.role("judge", s.judge), "judge", "judge")]
    if single and mode != "independent":
        agent = s.seat(s.role("single", s.member(0)), str(params.get("role", "scientist")), "agent")
        return [agent, s.seat(s.role("judge", s.judge), "judge", "judge")]
    position = str(params.get("roles", "expertise")) == "position"
    n = 2 if position or single else int(params.get("debaters", 2))
    order = ["advocate", "critic"] if position else ["politician", "scientist", "journalist", "expert"][:n]
    out = [s.seat(s.role(r, s.member(i)), r, r) for i, r in enumerate(order)]
    out.append(s.seat(s.role("judge", s.judge), "judge", "judge"))
    if single:  # independent: the pair of debaters, no stop agent
        return out
    return out + [s.seat(s.role("stop", s.judge), "stop-agent", "stop-agent")]


def _single_seating(lineup: dict[str, Any], params: dict[str, Any]) -> list[Agent]:
    return seating(lineup, params, single=True)


INFO = ProtocolInfo(
    name="radar",
    title="RADAR (role-anchored debate over evidence)",
    one_line="Role-anchored debaters argue over retrieved evidence; a judge gives [VERDICT]; adaptive early stop.",
    roles=("politician", "scientist", "journalist", "expert", "advocate", "critic", "judge", "stop-agent"),
    sides=(("politician", "scientist"), ("advocate", "critic")),
    params=params(
        {
            **_SHARED,
            "debaters": (
                2,
                "Expertise roles only: 2 (Politician, Scientist), 3 (+Journalist, speaks first), "
                "4 (+domain expert, domain inferred by an LLM). The paper's best is 2 (Sec. 5.4).",
            ),
            "rounds": (3, "Maximum rebuttal rounds (Sec. 4.1: up to three)."),
            "early_stop": (True, "Adaptive early stopping after the opening and each rebuttal round (App. A.2)."),
            "tau_s": (0.5, "τs: stop when P(STOP) - P(CONTINUE) >= τs (our choice; the paper tunes it on dev)."),
            "tau_c": (0.8, "τc: and the round judge's verdict probability >= τc (our choice; tune on dev)."),
            "stop_method": (
                "auto",
                "auto: label probabilities where the backend has them, else samples; or 'logprobs' / 'samples'.",
            ),
            "stop_samples": (3, "Samples per signal for the 'samples' method."),
            "stop_temperature": (0.7, "Temperature of those samples (distinct seeds make them reproducible)."),
            "on_stop": (
                "verdict",
                "verdict: the round judge's preliminary verdict is final; closing: skip to the "
                "closing statements and the final judge.",
            ),
        }
    ),
    run=run,
    uses_evidence=True,
    seating=seating,
    choices={
        "roles": ("expertise", "position"),
        "debaters": (2, 3, 4),
        "stop_method": ("auto", "logprobs", "samples"),
        "on_stop": ("verdict", "closing"),
        **_SHARED_CHOICES,
    },
)

SINGLE_INFO = ProtocolInfo(
    name="radar-single",
    title="RADAR-single (one agent, no interaction)",
    one_line="One agent gives its opening and closing over the evidence with RADAR's prompts; the judge decides.",
    roles=("agent", "judge"),
    params=params(
        {
            **_SHARED,
            "single_mode": (
                "one-debater",
                "The paper says only 'identical architecture, prompts, and retrieval "
                "but without inter-agent interaction'. one-debater: one agent's "
                "opening and closing; independent: both debaters open and close "
                "without reading each other; judge: the judge alone.",
            ),
            "role": (
                "scientist",
                "one-debater: which role's prompts the agent uses (politician, scientist, advocate, critic).",
            ),
        }
    ),
    run=run_single,
    uses_evidence=True,
    seating=_single_seating,
    choices={
        "roles": ("expertise", "position"),
        "role": ("politician", "scientist", "advocate", "critic"),
        "single_mode": ("one-debater", "independent", "judge"),
        **_SHARED_CHOICES,
    },
)
