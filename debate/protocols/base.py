"""What every protocol stands on: the debate context, one model turn, and concurrent turns.

A protocol is a generator function `run(ctx)` that yields events. It asks for turns with
`results = yield from ctx.turns([TurnSpec, ...])`: the specs run concurrently in worker threads (the
ModelClient still serialises calls per local model), their TurnStarted events come first in spec order,
then token deltas interleave as they arrive through one queue, and only the generator's own thread ever
yields. When every call of a batch is answered from the response cache the batch runs in order in the
generator's thread, so a cached rerun gives the identical event stream. Cancellation (the user's event or
an internal abort after a failure) is checked between tokens.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from debate import prompts, seats
from debate.aids import calibration as cal
from debate.content.echo import echoed_format
from debate.content.figures import unsupported
from debate.content.script import script_of
from debate.content.sentences import PROSE_KEYS, ends_mid_sentence, find_loop, last_full_sentence
from debate.content.substance import (
    OTHER_SIDE_PHRASES,
    REFUSAL_OPENINGS,
    REFUSAL_PHRASES,
    SIDE,
    category_other_side,
    unsourced_names,
)
from debate.errors import Cancelled, DebateError, InvalidInput, MemberFailed
from debate.events import (
    Event,
    HumanAsked,
    HumanTimedOut,
    PhaseStarted,
    TokenDelta,
    TranscriptShortened,
    TurnFinished,
    TurnStarted,
    Verdict,
    VoteComparison,
)
from debate.lineups import Agent, seats_from_roles
from debate.models.base import ChatStream, GenOptions, Message, ModelResult
from debate.models.client import ModelClient
from debate.models.human import ticket
from debate.models.spec import ModelSpec
from debate.models.stopping import JSON_RESERVE
from debate.protocols import prompting
from debate.protocols.decisions import against_vote, normalise_probs
from debate.protocols.parsing import ParseResult, parse_citations, split_think
from debate.protocols.prompting import Said, order_of
from debate.protocols.prompting import Slot as Slot  # the protocols take it from here
from debate.retrieval import safety
from debate.tasks import TaskView

Param = tuple[Any, str]  # (default, description)
T = TypeVar("T")
# a step of a protocol: yields events and returns its value, taken with `value = yield from step(...)`
# (typed as a bare Iterator[Event], `msgs = ctx.prompt(...)` without `yield from` would pass unnoticed)
Steps = Generator[Event, None, T]

SHARED_EVIDENCE_REF = " (given at the start of this conversation, before your instructions)"


@dataclass(frozen=True)
class ProtocolInfo:
    """A protocol as the registry (debate/protocols/__init__.py) knows it: everything the command line, the
    pages and the runner read about it comes from here."""

    name: str
    title: str
    one_line: str
    # the seats, in speaking order: without `seating`, one agent per role, drawn from the lineup by
    # debate.lineups.seats_from_roles (the lineup's entry for the role, its judge or chair, else a member)
    roles: tuple[str, ...]
    params: dict[str, Param]
    run: Callable[[DebateContext], Iterator[Event]] | None = None
    uses_evidence: bool = False  # evidence on by default (RADAR)
    choices: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # allowed values of string/int params
    # seats that depend on the parameters (a council of N members, two teams): (lineup, params) -> agents
    seating: Callable[[dict[str, Any], dict[str, Any]], list[Agent]] | None = None
    # its prompt templates: debate/prompts/NAME.toml for a protocol of this package (found by name), or
    # this file for one of another package (registered with it)
    prompt_file: Path | None = None
    # pairs of roles that argue opposite sides: the robustness check swaps their models (position bias)
    sides: tuple[tuple[str, str], ...] = ()

    def defaults(self) -> dict[str, Any]:
        return {k: v[0] for k, v in self.params.items()}

    def seat(self, lineup: dict[str, Any], params: dict[str, Any] | None = None) -> list[Agent]:
        """The agents this protocol uses with `lineup`, in speaking order, each with a unique name."""
        if self.seating is not None:
            return self.seating(lineup, params or {})
        return seats_from_roles(lineup, self.roles, params)


@dataclass
class TurnSpec:
    agent: Agent
    phase: str
    round: int
    messages: list[Message]
    prompt_id: str
    parse: Callable[[str], ParseResult] | None = None  # None: free text, always valid
    answer_format: str = ""  # shown in the repair prompt
    labels: tuple[str, ...] = ()  # scored with logprobs where the backend can
    temperature: float | None = None  # overrides the agent's (RADAR samples)
    seed: int | None | Literal["agent"] = "agent"  # "agent" = the agent's own seed
    max_tokens: int | None = None
    repair: bool = True  # False for sampled answers: an unreadable sample simply counts as invalid
    schema: dict[str, Any] | None = None  # JSON schema the repair call is constrained to, where the backend can
    schema_format: str = ""  # the answer format shown in a constrained repair prompt
    constrain: bool = False  # also constrain the first answer to `schema` (where the backend can)
    # the label is counted by P(labels[0]) >= threshold (fitted on train): a schema that writes text after
    # the label then decodes that label (GenOptions.label_threshold), and `confidence` is the calibrated one
    threshold: float | None = None
    # the answer's key that names its label; "" = the enum key of `schema` (`[VERDICT]:`, `"vote": `)
    label_key: str = ""
    label_spellings: tuple[str, ...] = ()  # how the labels are written at label_key (GenOptions.label_spellings)
    turn_id: str = ""


@dataclass
class DebateContext:
    config: Any  # runner.DebateConfig
    client: ModelClient
    agents: list[Agent]
    params: dict[str, Any]
    _task: TaskView | None = None  # the task of the category being debated (the task property)
    passages: list[dict[str, Any]] = field(default_factory=list)
    evidence_on: bool = False
    evidence_none_fit: bool = False  # passages were found but none reached the relevance floor
    cancel: threading.Event | None = None
    abort: threading.Event = field(default_factory=threading.Event)
    model_calls: int = 0
    cache_hits: int = 0
    rounds: int = 0
    moderator_notes: list[str] = field(default_factory=list)  # said so far; every later prompt carries them
    replay: list[dict[str, Any]] = field(default_factory=list)  # a fork's parent turns still to re-emit, in order
    memo: dict[Any, Any] = field(
        default_factory=dict
    )  # per-debate values every turn shares (e.g. chosen demonstrations)
    debate_id: str = ""  # where a person's answers for this debate are posted (debate.seats)
    # the first answers (agent -> label) a plain vote would have counted; set by the protocol, read after
    # its Verdict to show the debate against that vote (None: the protocol has no first answers to count)
    first_votes: dict[str, str | None] | None = None
    first_written: dict[str, str | None] | None = None  # the labels the first voters wrote, where counted otherwise
    first_basis: str = "first votes"
    said: list[str] = field(default_factory=list)  # every finished turn's text so far (a figure's sources)
    # figures the engine itself put in the agents' prompts (a council's threshold and vote shares): sources too
    given: list[str] = field(default_factory=list)
    # (agent, figure or named source) no source gave, in order: named to the judge
    unsupported: list[tuple[str, str]] = field(default_factory=list)
    _turn_no: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # each turn's engine-written opening (`begun`), decided once: the options, the stream and the record read it
    _begun: dict[str, str] = field(default_factory=dict)

    # -- lookups ------------------------------------------------------------------------------
    def p(self, name: str) -> Any:
        return self.params[name]

    @property
    def task(self) -> TaskView:
        """The task of the category being debated: the runner sets it before a protocol runs, so a
        protocol reads it without a None check (typed so that mypy holds every protocol to that)."""
        if self._task is None:
            raise DebateError("No task is set for this debate.", "Set ctx.task before running a protocol.")
        return self._task

    @task.setter
    def task(self, value: TaskView) -> None:
        self._task = value

    def role(self, role: str) -> Agent:
        for a in self.agents:
            if a.role == role:
                return a
        raise KeyError(f"no agent with role {role!r}")

    def with_role(self, role: str) -> list[Agent]:
        return [a for a in self.agents if a.role == role]

    @property
    def claim(self) -> str:
        claim: str = self.config.claim
        return claim

    @property
    def script(self) -> str | None:
        """The script every answer is decoded in: the claim's ("LATIN" for the English tasks), so an
        English debate is not answered in Chinese; None for a claim in another script."""
        if "script" not in self.memo:
            self.memo["script"] = script_of(self.claim)
        script: str | None = self.memo["script"]
        return script

    def is_person(self, agent: Agent) -> bool:
        """A person plays this seat (its backend waits for their words instead of generating)."""
        try:
            return self.client.backend_for(ModelSpec.parse(agent.model)).person
        except Exception:  # noqa: BLE001 - an unknown backend fails at its call with its own clear message
            return False

    def stopping(self) -> bool:
        return self.abort.is_set() or (self.cancel is not None and self.cancel.is_set())

    # -- prompt material ----------------------------------------------------------------------
    def evidence_text(self) -> str:
        """Passages numbered as agents must cite them: [E1] ... [Ek], each fenced as quoted data
        (debate.retrieval.safety; `evidence_guard` "off" sends them verbatim, as before the guard)."""
        if not self.passages:
            if self.evidence_none_fit:  # retrieval found passages, none about this claim: say so, do not pad
                return (
                    "\n(no retrieved passage is about this claim: none passed the relevance check, so there "
                    "is no evidence to cite; judge from the claim and the arguments alone)"
                )
            return "\n(no evidence retrieved)"
        return safety.fence_passages(self.passages, self.fence_key(), self.guard(), self.flagged_policy())

    def guard(self) -> str:
        """How passages enter prompts: "fence" (default), "datamark" or "off" (the config's evidence_guard)."""
        g = str(getattr(self.config, "evidence_guard", safety.DEFAULT_GUARD) or safety.DEFAULT_GUARD)
        return g if g in safety.GUARDS else safety.DEFAULT_GUARD

    def flagged_policy(self) -> str:
        """What prompts do with a passage that reads like an order: "mask" (default: its order sentences
        left out), "keep" (whole, fenced and flagged); "drop" held it back before it got here."""
        f = str(getattr(self.config, "flagged_evidence", safety.DEFAULT_FLAGGED) or safety.DEFAULT_FLAGGED)
        return f if f in safety.FLAGGED_POLICIES else safety.DEFAULT_FLAGGED

    def fence_key(self) -> str:
        """This debate's delimiter key (from the claim and the passages: a re-run sends the same prompt)."""
        ids = tuple(id(p) for p in self.passages)
        cached = self.memo.get("fence_key")
        if cached is None or cached[0] != ids:
            cached = (ids, safety.fence_key(self.claim, self.passages))
            self.memo["fence_key"] = cached
        return cached[1]

    def carries_evidence(self, values: dict[str, Any], lead: str = "") -> bool:
        """Does a prompt built from `values` (or led by `lead`) quote the passages? Then its system text
        says they are data (safety.SYSTEM_NOTE)."""
        if not (self.evidence_on and self.passages) or self.guard() == "off":
            return False
        block = self.evidence_text()
        return bool(lead) or any(isinstance(v, str) and block in v for v in values.values())

    def tweet(self) -> str:
        """The claim as the TurQUaz templates' [TWEET TEXT]; with evidence when switched on for them."""
        if not self.evidence_on:
            return self.claim
        return f"{self.claim}\n\nEvidence (retrieved passages; cite them as [E#]):{self.evidence_text()}"

    def task_values(self) -> dict[str, Any]:
        t = self.task
        assert t is not None
        return {
            "category_title": t.phrase,
            "category_description": t.description,
            "category_description_and_guidelines": t.description_and_guidelines(
                examples=bool(self.params.get("examples", False))
            ),
            "focus_rule": t.focus_rule,
            "labels_slash": t.labels_slash,
            "labels_or": t.labels_or,
            "category_values": t.category_values,
            "tweet": self.tweet(),
            "claim": self.claim,
            "decision_question": t.decision_question,
            "verdict_options": t.verdict_options,
            "evidence": self.evidence_text(),
        }

    # -- prompt assembly (debate/protocols/prompting.py): every agent's messages are built here ------
    def context_budget(self, agent: Agent, max_tokens: int | None = None) -> int | None:
        """Characters a whole prompt for `agent` may have: `max_context_chars` if set, else what the
        model's context window (backends that report one: `context_window(model)` per model, or `n_ctx`)
        leaves for the prompt; None = no limit."""
        explicit = int(self.params.get("max_context_chars", 0) or 0)
        n_ctx = None
        if explicit <= 0:
            try:
                spec = ModelSpec.parse(agent.model)
                backend = self.client.backend_for(spec)
                n_ctx = backend.context_window(spec.model)
            except Exception:  # noqa: BLE001 - an unknown backend fails later with its own clear message
                n_ctx = None
        return prompting.budget_chars(n_ctx, int(max_tokens or self.config.max_tokens), explicit)

    def prompt(
        self,
        agent: Agent,
        system_id: str | None,
        user_id: str,
        values: dict[str, Any],
        slots: dict[str, Slot] | None = None,
        *,
        phase: str = "",
        round: int = 0,
        history: list[Message] | None = None,
        addendum: str = "",
        max_tokens: int | None = None,
    ) -> Generator[Event, None, list[Message]]:
        """`messages = yield from ctx.prompt(...)`: the template filled with the whole debate (`slots`),
        shortened only when the model's context cannot hold it — then a TranscriptShortened event says so."""
        slots = slots or {}
        lead = self._shared_evidence(values, history)
        if lead:
            values = {**values, "evidence": SHARED_EVIDENCE_REF}

        note = safety.system_note(self.fence_key(), self.guard()) if self.carries_evidence(values, lead) else ""

        def build(s: dict[str, Slot]) -> list[Message]:
            msgs = prompting.assemble(system_id, user_id, values, s, history=history, addendum=addendum)
            msgs = prompting.lead_with(lead, msgs) if lead else msgs
            return prompting.note_in_system(note, msgs) if note else msgs

        budget = self.context_budget(agent, max_tokens)
        if budget is not None:  # room for the lines the engine adds when the turn is sent (`_instructions`)
            budget -= sum(len(line) + 2 for line in self._engine_lines(agent, True))
            budget -= len(moderator_block(self.moderator_notes)) + 2 if self.moderator_notes else 0
        msgs, report = prompting.fit(build, slots, budget)
        if report is not None:
            yield shortened(agent, phase, round, user_id, report)
        return msgs

    def _shared_evidence(self, values: dict[str, Any], history: list[Message] | None) -> str:
        """With `shared_evidence` on, the claim and the passages as the first words of the prompt: the
        same tokens for every role and phase, so the backend evaluates them once per model. Only where
        the template would carry this very pool (not a content-free calibration prompt, not a memory)."""
        if not (
            self.params.get("shared_evidence")
            and self.evidence_on
            and not history
            and values.get("evidence") == self.evidence_text()
        ):
            return ""
        return f"Claim: {self.claim}\n\nEvidence (retrieved passages; cite them as [E#]):{self.evidence_text()}"

    def step(self, text: str) -> str:
        """The Alg. 1/2 step string as an engine line after the template, only when `step_instruction` is
        on: the paper says those strings only explain the prompt, so by default nothing is added."""
        return prompts.render("engine.step", step=text) if self.params.get("step_instruction") else ""

    # -- re-reading a finished prompt (which passages a verdict rests on) ------------------------------
    @contextlib.contextmanager
    def passages_left(self, passages: list[dict[str, Any]]) -> Iterator[None]:
        """Prompts built inside quote only `passages` (each keeps its id), under this debate's own fence key:
        the prompt then differs from the verdict's only where a passage is missing, so llama.cpp reuses the
        evaluation of everything before it."""
        key, kept = self.fence_key(), self.passages
        self.passages = list(passages)
        self.memo["fence_key"] = (tuple(id(p) for p in self.passages), key)
        try:
            yield
        finally:
            self.passages = kept
            self.memo.pop("fence_key", None)

    def reread_label_probs(self, spec: TurnSpec, answer: str = "") -> dict[str, float] | None:
        """The label probabilities of `spec`'s prompt. With `answer` (the model's own answer up to where it
        wrote its label, `labelprobs.answer_before_label`; the backend `supports_prefill`): read where that
        answer goes on, so the label is read after the model's own reasoning, as it was written. Without: read
        where the label is written with the answer decoded under a one-key JSON schema (the label is the first
        thing written). Either way a re-read costs the prompt's evaluation and a token or a few. No turn
        events, no text: nothing a later prompt reads. Not counted among the debate's model calls (the
        attribution says its own time)."""
        key = label_key_of(spec) or "verdict"
        backend = self.client.backend_for(ModelSpec.parse(spec.agent.model))
        if answer and backend.supports_prefill:
            go_on = GenOptions(
                temperature=0.0,
                seed=0,
                max_tokens=1,
                labels=tuple(spec.labels),
                label_first=True,
                label_spellings=tuple(spec.label_spellings),
                prefill=answer,
            )
            return self.client.chat(spec.agent.model, self._instructions(spec), go_on).result().label_probs
        schema = {
            "type": "object",
            "properties": {key: {"type": "string", "enum": list(spec.labels)}},
            "required": [key],
        }
        opts = GenOptions(
            temperature=0.0,
            seed=0,
            max_tokens=16,
            labels=tuple(spec.labels),
            json_schema=schema if backend.supports_json_schema else None,
            stop_after_json=True,
            label_key=key,
            label_spellings=tuple(spec.label_spellings),
        )
        return self.client.chat(spec.agent.model, self._instructions(spec), opts).result().label_probs

    def regenerated_label_probs(self, spec: TurnSpec) -> dict[str, float] | None:
        """The label probabilities of `spec`'s turn run again whole: the model writes its answer anew over this
        prompt (its reasoning included) with the turn's own options, and the probabilities are read where
        that answer writes its label. Where a passage moved a verdict through the reasoning it inspired, only
        a re-run without it shows the verdict without it. The cost is a whole answer per re-run. No events,
        not counted among the debate's model calls (the attribution says its own time)."""
        schema = self._first_schema(spec)
        opts = self._options(spec, schema, self._first_min_tokens(spec))
        return self.client.chat(spec.agent.model, self._instructions(spec), opts).result().label_probs

    # -- events the protocols build -------------------------------------------------------------
    def phase(self, phase: str, round: int = 0, title: str = "", note: str = "") -> PhaseStarted:
        return PhaseStarted(
            phase=phase,
            round=round,
            title=title or phase.capitalize(),
            category=self._task.category if self._task else None,
            note=note,
        )

    def verdict(
        self,
        label: str | None,
        explanation: str,
        source: str,
        confidence: float | None = None,
        probs: dict[str, float] | None = None,
        written: str | None = None,
        aid: str = "",
        basis: str = "probability",
        basis_note: str = "",
        votes_for: int | None = None,
        voters: int | None = None,
        reading: str = "",
        calibrated: str | None = None,
        calibrated_confidence: float | None = None,
    ) -> Verdict:
        """The verdict event; `written`/`aid`: the label the model wrote and the aid that gave `label`
        instead (kept only when they differ, so a sink that sees them knows a label was overruled);
        `basis` (+ `basis_note`, `votes_for` of `voters`): what `confidence` is (events.Verdict);
        `reading` ("written" | "calibrated") with `calibrated` (+ its probability): which label is the
        answer and, under the written reading, the aid's label kept as a second opinion (debate.outcome)."""
        overruled = written is not None and label is not None and written != label
        cats = self._categories()  # a category decided only as input to a rule has no gold of its own
        gold = self.config.gold if self._task and len(cats) == 1 and self._task.category == cats[0] else None
        return Verdict(
            label=label,
            explanation=explanation,
            source=source,
            confidence=confidence,
            category=self._task.category if self._task else None,
            gold=gold,
            probs=probs,
            written_label=written if overruled else None,
            aid=aid if overruled or calibrated is not None else "",
            reading=reading,
            calibrated_label=calibrated,
            calibrated_confidence=calibrated_confidence,
            basis=basis if confidence is not None else "",
            basis_note=basis_note,
            votes_for=votes_for,
            voters=voters,
            correct=(None if gold is None or label is None else label == str(gold).strip().upper()),
        )

    def sides_as_votes(self) -> None:
        """Single and team debates: each debater's first answer is the side it was told to argue (the
        proponent the positive label; the opponent the other one on a yes/no task, no label otherwise)."""
        t = self.task
        assert t is not None
        neg = t.labels[1] if t.binary and len(t.labels) > 1 else None
        self.first_votes = {
            a.agent: (t.labels[0] if a.role == "proponent" else neg)
            for a in self.agents
            if a.role in ("proponent", "opponent")
        }
        self.first_basis = "assigned sides"

    def vote_comparison(self, v: Verdict) -> VoteComparison | None:
        """The debate's verdict `v` against the plain majority of the first answers, if the protocol set them."""
        if self.first_votes is None or self._task is None:
            return None
        d = against_vote(self.first_votes, self.task.labels, self.task.tie_label, v.label, v.gold)
        differ = self.first_written is not None and self.first_written != self.first_votes
        return VoteComparison(category=v.category, basis=self.first_basis, counted_otherwise=differ, **d)

    def _categories(self) -> list[int | None]:
        from debate.tasks import task_categories

        return task_categories(self.config.task, self.config.category)

    # -- turns --------------------------------------------------------------------------------
    def turn(self, spec: TurnSpec) -> Generator[Event, None, TurnFinished]:
        """`finished = yield from ctx.turn(spec)`."""
        results = yield from self.turns([spec])
        return results[0]

    def turns(self, specs: list[TurnSpec]) -> Generator[Event, None, list[TurnFinished]]:
        """Run specs concurrently; `finished_list = yield from ctx.turns(specs)` (in spec order)."""
        if not specs:
            return []
        if self.stopping():
            raise Cancelled("The debate was stopped.")
        for s in specs:
            with self._lock:
                self._turn_no += 1
                s.turn_id = s.turn_id or f"t{self._turn_no}"
        if self.replay:
            return (yield from self._replayed(specs))
        specs = [replace(s, messages=self._instructions(s)) for s in specs]
        streams = [self._chat(s, s.messages, self._first_schema(s), self._first_min_tokens(s)) for s in specs]
        for s in specs:
            yield TurnStarted(
                turn_id=s.turn_id,
                agent=s.agent.agent,
                role=s.agent.role,
                model=s.agent.model,
                phase=s.phase,
                round=s.round,
                prompt_id=s.prompt_id,
                human=self.is_person(s.agent),
            )
        if all(st.cached for st in streams):
            out = []
            for s, st in zip(specs, streams):
                out.append((yield from self._execute(s, st)))
            return out
        return (yield from self._concurrent(specs, streams))

    def _instructions(self, spec: TurnSpec) -> list[Message]:
        """The lines the engine adds after a turn's template: the moderator's notes; for a free-text
        argument, the length it should keep (`answer_sentences`, set by the live-demo pace: a small model
        asked for three sentences finishes them inside a 128-token budget); for a judge, the figures the
        debaters stated and the sources they named that no claim, evidence or earlier turn gave."""
        msgs = with_moderator(spec.messages, self.moderator_notes)
        return with_lines(msgs, self._engine_lines(spec.agent, spec.parse is None))

    def _engine_lines(self, agent: Agent, free_text: bool) -> list[str]:
        """`_instructions`' lines for this agent (`prompt` leaves room for them in the context window)."""
        lines = []
        n = int(self.params.get("answer_sentences", 0) or 0)
        if n > 0 and free_text and not self.is_person(agent):
            words = told_words(int(self.config.max_tokens))
            lines.append(prompts.render("engine.length", n=str(n), s="" if n == 1 else "s", words=str(words)))
        side = (
            SIDE.get(agent.role) if self.params.get("state_side") and free_text and not self.is_person(agent) else None
        )
        if side and self.task.binary:
            # a debate about a tweet's category (TurQUaz), not a claim's truth: the side in the paper's words
            lines.append(prompts.render(f"engine.side_{side}_category", category_title=self.task.phrase))
        elif side:
            lines.append(prompts.render(f"engine.side_{side}"))
        if agent.role == "judge" and self.unsupported:
            with self._lock:
                figs = "; ".join(f"{fig} ({who})" for who, fig in dict.fromkeys(self.unsupported))
            lines.append(prompts.render("engine.unsupported_figures", figures=figs[:1000]))
        return lines

    def _remember(self, finished: TurnFinished) -> None:
        """A finished turn's text is a source for later turns' figures and names; its own unsupported ones
        are noted for the judge."""
        with self._lock:
            self.said.append(finished.text)
            self.unsupported.extend((finished.agent, f) for f in finished.unsupported_figures)
            self.unsupported.extend((finished.agent, n) for n in finished.unsourced_names)

    def figure_sources(self) -> list[str]:
        """What a turn's figures may come from: the claim, the passages the agents read, earlier turns, and
        the numbers the engine itself showed the agents (a council's threshold and vote shares)."""
        passages = [str(p.get("text") or "") for p in self.passages] if self.evidence_on else []
        with self._lock:
            return [self.claim, *passages, *self.said, *self.given]

    def _replayed(self, specs: list[TurnSpec]) -> Generator[Event, None, list[TurnFinished]]:
        """A fork re-emits its parent's turns up to the fork point instead of calling models: the
        protocol's own code rebuilds its state from them, so there is no second orchestration path."""
        out = []
        for s in specs:
            rec = self.replay.pop(0) if self.replay else None
            if (
                rec is None
                or rec.get("role") != s.agent.role
                or rec.get("phase") != s.phase
                or int(rec.get("round", 0)) != s.round
            ):
                got = f"{rec.get('role')} {rec.get('phase')} round {rec.get('round')}" if rec else "nothing"
                raise InvalidInput(
                    f"The fork does not line up with its parent: the protocol asks for "
                    f"{s.agent.role} {s.phase} round {s.round}, the parent has {got}.",
                    "Keep the parent's protocol, roles and member count up to the fork round, "
                    "or fork from an earlier round.",
                )
            yield TurnStarted(
                turn_id=s.turn_id,
                agent=s.agent.agent,
                role=s.agent.role,
                model=rec.get("model", ""),
                phase=s.phase,
                round=s.round,
                prompt_id=rec.get("prompt_id", s.prompt_id),
                human=bool(rec.get("human")),
            )
            names = {f.name for f in fields(TurnFinished) if f.name not in ("seq", "t")}
            data = {k: v for k, v in rec.items() if k in names}
            data.update(turn_id=s.turn_id, agent=s.agent.agent, replayed=True)
            finished = TurnFinished(**data)
            self._remember(finished)
            yield finished
            out.append(finished)
        return out

    def _concurrent(
        self, specs: list[TurnSpec], streams: list[ChatStream]
    ) -> Generator[Event, None, list[TurnFinished]]:
        q: queue.Queue[tuple[str, Any]] = queue.Queue()
        results: list[TurnFinished | None] = [None] * len(specs)
        limit = threading.BoundedSemaphore(max(1, int(self.params.get("max_concurrency", 8) or 8)))

        def work(i: int) -> None:
            try:
                with limit:
                    gen = self._execute(specs[i], streams[i])
                    while True:
                        try:
                            ev = next(gen)
                        except StopIteration as stop:
                            results[i] = stop.value
                            break
                        q.put(("event", ev))
                q.put(("done", i))
            except BaseException as e:  # noqa: BLE001 - handed to the generator thread, which re-raises it
                q.put(("error", e))

        threads = [
            threading.Thread(target=work, args=(i,), daemon=True, name=f"turn-{s.turn_id}") for i, s in enumerate(specs)
        ]
        for t in threads:
            t.start()
        pending = len(threads)
        try:
            while pending:
                try:
                    kind, item = q.get(timeout=0.05)
                except queue.Empty:
                    if self.stopping():
                        raise Cancelled("The debate was stopped.") from None
                    continue
                if kind == "event":
                    yield item
                elif kind == "done":
                    pending -= 1
                else:
                    # a member's failure is the debate's end, reported as itself: raised at once, before the
                    # abort it causes could be read as the user's Stop (the others stop at their next token)
                    pending -= 1
                    raise item
        finally:
            if pending:
                self.abort.set()
            for t in threads:
                t.join(timeout=2.0)
        return cast("list[TurnFinished]", results)  # each worker set its result before it said "done"

    def _chat(
        self, spec: TurnSpec, messages: list[Message], json_schema: dict[str, Any] | None = None, min_tokens: int = 0
    ) -> ChatStream:
        opts = self._options(spec, json_schema, min_tokens)
        a = spec.agent
        # a person's turn goes to the person backend with its seat's ticket (debate.seats) as the model name
        person = self.is_person(a)
        model = ModelSpec("human", ticket(self.debate_id, spec.turn_id)) if person else a.model
        try:
            stream = self.client.chat(model, messages, opts)
        except DebateError as e:  # e.g. a backend that cannot be set up for this member's spec
            raise MemberFailed(a.agent, a.model, e) from e
        with self._lock:
            self.model_calls += not person  # a person's turn is not a model call
            self.cache_hits += int(stream.cached)
        return stream

    def _options(self, spec: TurnSpec, json_schema: dict[str, Any] | None, min_tokens: int) -> GenOptions:
        """The generation options of `spec`'s turn: the same for the turn itself and for a re-run of it
        (`regenerated_label_probs`), so a re-run over the same prompt is the turn's own answer again."""
        a = spec.agent
        seed = a.seed if spec.seed == "agent" else spec.seed
        leads = label_leads(json_schema, spec.labels)
        return GenOptions(
            temperature=a.temperature if spec.temperature is None else spec.temperature,
            seed=seed,
            max_tokens=max(min_tokens, int(spec.max_tokens or self.config.max_tokens)),
            labels=tuple(spec.labels),
            json_schema=json_schema,
            stop_after_json=spec.schema is not None,  # a JSON answer ends when it closes
            label_first=leads,
            label_threshold=spec.threshold if leads or label_only(json_schema, spec.labels) else None,
            script=self.script,
            prefill=self.begun(spec),
            label_key=label_key_of(spec) if spec.labels else "",
            label_spellings=tuple(spec.label_spellings) if spec.labels else (),
            **self._own_words(spec, json_schema),
        )

    def _own_words(self, spec: TurnSpec, json_schema: dict[str, Any] | None) -> dict[str, Any]:
        """GenOptions fields that keep an answer its own and its length kind: an argument in words may not
        copy a run of an earlier turn, another speaker's or its own, nor recite what it was told (`_told`), while the claim,
        the evidence and the moderator's notes it may quote (`no_copy`); it may not refuse (`no_refusal`); and
        an argument or a JSON answer under a grammar may finish its sentence past the budget (`budget_grace`).
        Backends that cannot do these ignore them (GenOptions)."""
        out: dict[str, Any] = {}
        if spec.parse is None and not self.is_person(spec.agent):
            refusals = bool(self.params.get("no_refusal", True))
            phrases = (REFUSAL_PHRASES if refusals else ()) + self._other_side(spec.agent)
            if phrases:
                out.update(no_phrases=phrases, no_openings=REFUSAL_OPENINGS if refusals else ())
        if spec.parse is None and self.params.get("no_copy", True):
            # the speaker's own turns too: a 0.5B proponent's two rebuttals and its closing were its opening
            # again, word for word, in 10 single debates of the held-out sweep (the room reads one turn four times)
            with self._lock:
                others = tuple(dict.fromkeys(t for t in self.said if t.strip()))
            others += self._told(spec)
            if others:
                passages = [str(p.get("text") or "") for p in self.passages] if self.evidence_on else []
                quotable = (self.claim, *passages, *self.moderator_notes)
                out.update(no_copy=others, quotable=tuple(q for q in quotable if q.strip()))
        grace = int(self.params.get("budget_grace", GRACE_TOKENS) or 0)
        if grace > 0 and (spec.parse is None or json_schema is not None):
            # a JSON answer's reason is closed JSON_RESERVE tokens before its cap (room for the label): without
            # them added it had 16 tokens to end its sentence, and a judge's one long sentence was cut
            out["grace_tokens"] = grace + (JSON_RESERVE if json_schema is not None else 0)
        return out

    def _other_side(self, agent: Agent) -> tuple[str, ...]:
        """What a debater told its side (state_side) may not write with `hold_side`: the claim called what the
        other side says, or the other side's position declared (debate.content.substance.OTHER_SIDE_PHRASES).
        On 30 held-out RADAR debates at the app's defaults the benchmark's side test found 22 of 180 turns that
        did (readers, turn by turn: 87): a scientist's closing that opened "I strongly disagree with the claim"
        and ended "this claim is supported", a politician's rebuttal "I agree. The claim is false"."""
        if not (self.params.get("hold_side") and self.params.get("state_side")):
            return ()
        side = SIDE.get(agent.role)
        if not side:
            return ()
        if self.task.binary:
            # a debate about a tweet's category: the sides in the category's verbs ("the tweet does contain
            # scientific claims" from a 0.5B opponent); a custom question has no such verbs, so nothing
            category = self.task.category if self.task.task == "checkthat" else None
            return category_other_side(category).get(side, ())
        return OTHER_SIDE_PHRASES.get(side, ())

    def begun(self, spec: TurnSpec) -> str:
        """The words a debater's argument begins with, written by the engine (`open_side`): its side and its
        phase's move ("I oppose the claim.", "My opponent is wrong: the claim does not hold."), which the model
        goes on from. Told its side in a line after the template (state_side), and even held to it (hold_side),
        a 0.5B debater still wrote the other side's case in about half its turns as read blind; what it writes
        after its own declared side is read in that side's direction more often (docs/content-benchmark.md).
        "" where there is no side, no such phase, or a backend that cannot continue an answer already begun.
        Decided once per turn: the generation options, the streamed text and the recorded turn all read it."""
        if not spec.turn_id:  # not a turn of the debate's record (nothing to keep it under)
            return self._opening_words(spec)
        with self._lock:
            known = self._begun.get(spec.turn_id)
        if known is None:
            known = self._opening_words(spec)
            with self._lock:
                self._begun[spec.turn_id] = known
        return known

    def _opening_words(self, spec: TurnSpec) -> str:
        """`begun`'s decision: the side's and the phase's words from the engine's templates."""
        if not (self.params.get("open_side") and self.params.get("state_side")) or spec.parse is not None:
            return ""
        side = SIDE.get(spec.agent.role)
        if not side or spec.phase not in ("opening", "rebuttal", "closing") or self.is_person(spec.agent):
            return ""
        if not self.client.backend_for(ModelSpec.parse(spec.agent.model)).supports_prefill:
            return ""
        if self.task.binary:
            # a debate about a tweet's CheckThat category: the side in the category's words, the category this
            # phase argues; a custom question has no such words, so nothing
            category = self.task.category if self.task.task == "checkthat" else None
            if category not in (1, 2, 3):
                return ""
            stance = prompts.render(f"engine.stance_{side}_c{category}").strip()
            lower = stance[:1].lower() + stance[1:]
            return prompts.render(f"engine.begin_{spec.phase}_category", stance=stance, stance_lower=lower).strip()
        return prompts.render(f"engine.begin_{side}_{spec.phase}").strip()

    def _told(self, spec: TurnSpec) -> tuple[str, ...]:
        """What the speaker was told rather than given to argue from: its system text and the engine's lines
        after the template (its side, its length). A 135M debater wrote its side line back as its turn ("Your
        side in this debate: you argue AGAINST the claim…") in 12 of 90 scientist turns, and recited its
        system prompt as an opening; runs of them are refused as a copy is."""
        system = [str(m.get("content") or "") for m in spec.messages if m.get("role") == "system"]
        return tuple(t for t in (*system, *self._engine_lines(spec.agent, True)) if t.strip())

    def _first_schema(self, spec: TurnSpec) -> dict[str, Any] | None:
        """A TurnSpec with constrain=True is decoded under its JSON schema from the first token (small
        models then always give a readable label, and its probability is read at a forced position)."""
        if not (spec.constrain and spec.schema is not None):
            return None
        backend = self.client.backend_for(ModelSpec.parse(spec.agent.model))
        return spec.schema if backend.supports_json_schema else None

    def _first_min_tokens(self, spec: TurnSpec) -> int:
        """A constrained first answer with a free-text field gets the repair's budget at least: cut
        short inside its reason, it would never reach the label (and cost a repair call)."""
        if self._first_schema(spec) is None:
            return 0
        props = (spec.schema or {}).get("properties") or {}
        return REPAIR_MIN_TOKENS if any("enum" not in v for v in props.values()) else 0

    def _drain(self, stream: ChatStream, spec: TurnSpec, emit_tokens: bool) -> Generator[Event, None, ModelResult]:
        """The stream's answer, its tokens shown as they come; an answer the engine began (`begun`) is
        shown and returned with its opening words first."""
        begun = self.begun(spec)
        if begun and emit_tokens:
            yield TokenDelta(turn_id=spec.turn_id, agent=spec.agent.agent, text=begun)
        it = iter(stream)
        try:
            for piece in it:
                if self.stopping():
                    raise Cancelled("The debate was stopped.")
                if emit_tokens:
                    yield TokenDelta(turn_id=spec.turn_id, agent=spec.agent.agent, text=piece)
        finally:
            if not stream.done:  # stopped early: release the model lock now, not at GC
                it.close()
                stream.close()
        res = stream.result()
        return replace(res, text=begun + res.text) if begun else res

    def _person_turn(self, spec: TurnSpec, stream: ChatStream) -> Generator[Event, None, TurnFinished]:
        """A seat a person plays: ask them (what the role's prompt shows, the answer it needs, the countdown),
        wait on the seat through the person backend's stream, and record their words as the turn. The
        answer was checked with `spec.parse` when it was submitted, so it reads here; no repair is asked."""
        a = spec.agent
        timeout = float(getattr(self.config, "human_timeout_s", None) or seats.DEFAULT_TIMEOUT_S)
        seat = seats.open_seat(
            seats.Seat(
                debate_id=self.debate_id,
                turn_id=spec.turn_id,
                agent=a.agent,
                role=a.role,
                phase=spec.phase,
                round=spec.round,
                prompt=seats.prompt_text(spec.messages),
                timeout_s=timeout,
                parse=spec.parse,
                answer_format=seats.for_person(tuple(spec.labels), spec.parse, spec.answer_format),
                labels=tuple(spec.labels),
                stopping=self.stopping,
            )
        )
        try:
            yield HumanAsked(
                turn_id=spec.turn_id,
                agent=a.agent,
                role=a.role,
                phase=spec.phase,
                round=spec.round,
                prompt=seat.prompt,
                answer_format=seat.answer_format,
                timeout_s=timeout,
            )
            res = yield from self._drain(stream, spec, emit_tokens=True)
        finally:
            seats.close(seat)
        if self.stopping():
            raise Cancelled("The debate was stopped.")
        base: dict[str, Any] = dict(
            turn_id=spec.turn_id,
            agent=a.agent,
            role=a.role,
            model=a.model,
            phase=spec.phase,
            round=spec.round,
            prompt_id=spec.prompt_id,
            human=True,
            latency_s=round(res.latency_s, 4),
        )
        if seat.answer is None:
            msg = (
                f"No answer from the person playing {a.agent} within {timeout:g} s: the turn passed and the "
                "debate went on."
            )
            yield HumanTimedOut(
                turn_id=spec.turn_id,
                agent=a.agent,
                role=a.role,
                phase=spec.phase,
                round=spec.round,
                timeout_s=timeout,
                refused=seat.refused,
                message=msg,
            )
            finished = TurnFinished(
                **base,
                text=f"(No answer: the person playing the {a.role} let the time run out.)",
                valid=False,
                parsed={"label": None, "error": msg, "timed_out": True},
            )
        else:
            parsed, label = None, None
            if spec.parse is not None:
                pr = spec.parse(res.text)
                parsed, label = {**pr.data, "method": pr.method, "refused": seat.refused}, pr.label
            finished = TurnFinished(
                **base,
                text=res.text,
                parsed=parsed,
                label=label,
                valid=spec.parse is None or label is not None,
                citations=parse_citations(res.text),
                completion_tokens=res.completion_tokens,
                ttft_s=None,
            )
        yield finished
        return finished

    def _repair_prompt(
        self, spec: TurnSpec, answer: str, fmt: str, constrained: bool
    ) -> Generator[Event, None, list[Message]]:
        """`messages = yield from ...`: the repair prompt (prompting.repair), fitted to the window for the
        repair's own answer budget; a TranscriptShortened event says when the echoed answer was cut."""
        tokens = max(REPAIR_MIN_TOKENS if constrained else 0, int(spec.max_tokens or self.config.max_tokens))
        msgs, report = prompting.repair(spec.messages, answer, fmt, self.context_budget(spec.agent, tokens))
        if report is not None:
            yield shortened(spec.agent, f"{spec.phase} repair", spec.round, "engine.repair", report)
        return msgs

    def _execute(self, spec: TurnSpec, stream: ChatStream) -> Generator[Event, None, TurnFinished]:
        """One turn; a backend's failure is raised as MemberFailed, naming the member and its model."""
        try:
            if self.is_person(spec.agent):
                finished = yield from self._person_turn(spec, stream)
            else:
                finished = yield from self._turn(spec, stream)
            self._remember(finished)
            return finished
        except (Cancelled, MemberFailed):
            raise
        except DebateError as e:
            raise MemberFailed(spec.agent.agent, spec.agent.model, e) from e

    def _whole(self, spec: TurnSpec, stream: ChatStream) -> Generator[Event, None, ModelResult]:
        """The answer, asked once more (silently) when the stream closed before the model finished: a
        cut-off `{"vote": "YES", "explan` is not a vote. Still cut off, it is returned as is and marked."""
        res = yield from self._drain(stream, spec, emit_tokens=True)
        if res.finish_reason == "incomplete":
            again = yield from self._drain(
                self._chat(spec, spec.messages, self._first_schema(spec), self._first_min_tokens(spec)),
                spec,
                emit_tokens=False,
            )
            if again.finish_reason != "incomplete" or len(again.text) > len(res.text):
                again.latency_s += res.latency_s
                res = again
        return res

    def _turn(self, spec: TurnSpec, stream: ChatStream) -> Generator[Event, None, TurnFinished]:
        res = yield from self._whole(spec, stream)
        begun = self.begun(spec)
        answer, reasoning = split_think(res.text)
        full, how = "", ""
        if spec.parse is None:  # an argument in words: it ends at a whole sentence, before any loop
            answer, how = ends_well(answer, res.finish_reason == "length")
            full = split_think(res.text)[0] if how else ""
        ptok, ctok, lat = res.prompt_tokens, res.completion_tokens, res.latency_s
        reused = res.prompt_reused_tokens
        cached, probs, label_at = res.cached, res.label_probs, res.label_at
        parsed: dict[str, Any] | None = None
        label, valid, repaired = None, True, False
        if res.finish_reason == "incomplete":  # the server closed the stream twice before the end
            valid, parsed = False, {"label": None, "error": CUT_OFF}
        elif spec.parse is not None:
            pr = spec.parse(res.text)
            if not pr.ok and spec.repair and self.params.get("repair", True):
                backend = self.client.backend_for(ModelSpec.parse(spec.agent.model))
                constrained = spec.schema is not None and backend.supports_json_schema
                fmt = spec.schema_format if constrained else spec.answer_format
                msgs = yield from self._repair_prompt(spec, answer or res.text or "", fmt, constrained)
                # a constrained repair writes its short reason before the label: give it room for both
                rep = yield from self._drain(
                    self._chat(
                        spec, msgs, spec.schema if constrained else None, REPAIR_MIN_TOKENS if constrained else 0
                    ),
                    spec,
                    emit_tokens=False,
                )
                ptok, ctok, lat = ptok + rep.prompt_tokens, ctok + rep.completion_tokens, lat + rep.latency_s
                reused += rep.prompt_reused_tokens
                cached, probs, label_at = cached and rep.cached, rep.label_probs, rep.label_at
                pr2 = spec.parse(rep.text) if rep.finish_reason != "incomplete" else ParseResult(None)
                parsed = {"repair_text": rep.text}
                if pr2.ok:
                    pr, repaired = pr2, True
            if pr.ok:
                parsed = {**pr.data, **(parsed or {}), "method": pr.method}
                label = pr.label
            else:
                valid = False
                parsed = {**(parsed or {}), "label": None, "error": "answer could not be read"}
        if valid and parsed is not None and answer.lstrip().startswith("{"):  # a JSON answer: its words are shown
            # under a grammar a text value that stops mid-sentence was cut (its maxLength), as by a budget
            cut = res.finish_reason == "length" or self._first_schema(spec) is not None
            parsed, how, full = prose_ends_well(parsed, cut)
        confidence = None
        sources = self.figure_sources()  # what a figure or a named source may come from
        norm = normalise_probs(probs, spec.labels) if spec.labels else None
        if norm is not None and spec.threshold is not None and len(spec.labels) == 2:
            # the threshold becomes 0.5 (prior (t, 1 - t)): the counted label never shows the lower confidence
            norm = cal.contextual(
                norm, {spec.labels[0]: spec.threshold, spec.labels[1]: 1 - spec.threshold}, spec.labels
            )
        if norm is not None and label is not None:
            confidence = round(norm.get(label, 0.0), 6)
        finished = TurnFinished(
            turn_id=spec.turn_id,
            agent=spec.agent.agent,
            role=spec.agent.role,
            model=spec.agent.model,
            phase=spec.phase,
            round=spec.round,
            text=answer,
            reasoning=reasoning,
            parsed=parsed,
            label=label,
            confidence=confidence,
            valid=valid,
            repaired=repaired,
            citations=parse_citations(res.text),
            prompt_tokens=ptok,
            prompt_reused_tokens=reused,
            completion_tokens=ctok,
            latency_s=round(lat, 4),
            ttft_s=None if res.ttft_s is None else round(res.ttft_s, 4),
            cached=cached,
            prompt_id=spec.prompt_id,
            label_probs=probs,
            label_at=label_at or None,
            cut_off_at=res.completion_tokens if res.finish_reason == "length" else None,
            shortened=how,
            full_text=full,
            unsupported_figures=[f.text for f in unsupported(answer, sources)][:20],
            unsourced_names=list(dict.fromkeys(n.text for n in unsourced_names(answer, sources)))[:20],
            echoed_format=echoed_format(answer, format_text(spec)),
            begun=begun if begun and answer.startswith(begun) else "",
        )
        yield finished
        return finished


def format_text(spec: TurnSpec) -> str:
    """What the turn was told to write, without what it was told about: its template, its system text and
    its answer formats (not the filled prompt, which quotes the other agents' answers)."""
    tpl = prompts.templates().get(spec.prompt_id)
    system = [str(m.get("content") or "") for m in spec.messages if m.get("role") == "system"]
    return "\n".join([tpl.text if tpl else "", *system, spec.answer_format, spec.schema_format])


def ends_well(text: str, budget_ended: bool) -> tuple[str, str]:
    """(the text a turn keeps, why it was shortened: "" | "loop" | "sentence"). A turn that repeats itself
    keeps what came before the repeat; one the budget ended mid-sentence ends at its last full sentence
    (and one with no full sentence stays as written, marked as cut)."""
    how = ""
    loop = find_loop(text)
    if loop is not None and text[: loop[0]].strip():
        text, how = text[: loop[0]].rstrip(), "loop"
    if (budget_ended or how) and ends_mid_sentence(text):
        whole = last_full_sentence(text)
        if whole and whole != text.rstrip():
            text, how = whole, how or "sentence"
    return text, how


def prose_ends_well(parsed: dict[str, Any], budget_ended: bool) -> tuple[dict[str, Any], str, str]:
    """(parsed with its words ended well, why: "" | "loop" | "sentence", those words as written). A JSON
    answer's label is decoded before its words, so a summary that loops until the budget still carries a
    readable status or vote; what it says is kept up to the repeat, as an argument in words is."""
    for key in PROSE_KEYS:
        said = parsed.get(key)
        if isinstance(said, str) and said.strip():
            kept, how = ends_well(said, budget_ended)
            if how:
                return {**parsed, key: kept}, how, said
            break
    return parsed, "", ""


def with_lines(messages: list[Message], lines: list[str]) -> list[Message]:
    """The prompt with engine lines appended to its last user message (as the moderator's notes are)."""
    if not lines:
        return messages
    if isinstance(messages, prompting.Prompt):
        return messages.then(lambda msgs: with_lines(msgs, lines))
    block = "\n\n".join(lines)
    msgs = [dict(m) for m in messages]
    for m in reversed(msgs):
        if m.get("role") == "user":
            m["content"] = f"{m.get('content', '')}\n\n{block}"
            return msgs
    return msgs + [{"role": "user", "content": block}]


def shortened(agent: Agent, phase: str, round: int, prompt_id: str, report: prompting.FitReport) -> TranscriptShortened:
    """The event that tells who read a shortened prompt, and how much of it."""
    return TranscriptShortened(
        agent=agent.agent,
        phase=phase,
        round=round,
        prompt_id=prompt_id,
        budget_chars=report.budget_chars,
        original_chars=report.original_chars,
        final_chars=report.final_chars,
        condensed=report.condensed,
        omitted=report.omitted,
        reason=report.reason,
    )


def with_moderator(messages: list[Message], notes: list[str]) -> list[Message]:
    """The prompt with the moderator's notes appended to its last user message, marked as the
    moderator's (template engine.moderator). The one hook every protocol's prompts pass through
    (DebateContext.turns), so steering a debate needs no change in the protocols themselves."""
    if not notes:
        return messages
    return with_lines(messages, [moderator_block(notes)])


def moderator_block(notes: list[str]) -> str:
    """The moderator's notes as they are appended to a prompt (its fit leaves room for them)."""
    return prompts.render("engine.moderator", notes="\n".join(f"- {n}" for n in notes))


def entries(turns: list[TurnFinished], prefix: Callable[[TurnFinished], str]) -> tuple[Said, ...]:
    """Earlier turns as prompt entries; `prefix(turn)` names the speaker as the template's transcript does."""
    return tuple(Said(t.text, prefix(t), order_of(t.turn_id, i)) for i, t in enumerate(turns))


GRACE_TOKENS = 40  # past the budget, tokens an answer may use to finish its sentence (a few dozen: one sentence)
WORDS_PER_TOKEN = 0.55  # words asked per token of budget: English runs ~0.75 words a token for these tokenizers,
# and small models asked for N words write up to ~30 % more


def told_words(max_tokens: int) -> int:
    """The length in words an argument is asked to keep for its token budget (128 tokens: about 70 words)."""
    return max(10, int(max_tokens * WORDS_PER_TOKEN) // 10 * 10)


COMMON_PARAMS: dict[str, Param] = {
    "repair": (True, "Retry an unreadable answer once with a repair prompt before marking it invalid."),
    "max_context_chars": (
        0,
        "Most characters of one prompt. 0 = the whole debate, shortened (oldest turns "
        "condensed, an event says so) only when the model's context window cannot hold it.",
    ),
    "max_concurrency": (8, "Most turns run at once (each local model still answers one request at a time)."),
    "no_copy": (
        True,
        "An argument may not repeat a run of 8 words of an earlier turn (another speaker's or its own); the "
        "claim, the evidence and the moderator's notes may be quoted (embedded models only).",
    ),
    "no_refusal": (
        True,
        'An argument may not open with a refusal ("I cannot…", "I\'m sorry…", "As an AI…") nor write one later '
        '("I cannot provide…"): the phrase\'s last word is banned where the words before it stand (embedded '
        "models only).",
    ),
    "hold_side": (
        False,
        'With state_side: a debater with a side may not call the claim what the other side says ("the claim is '
        'false" from the side for it) nor declare the other side\'s position ("I support the claim" from the '
        "side against it); in a debate about a CheckThat tweet's category, the opponent may not say the tweet "
        'has it ("contains scientific claims", "directly references a study") nor the proponent that it has '
        'not ("does not contain"); embedded models only.',
    ),
    "open_side": (
        False,
        "With state_side: each argument of a debater with a side begins with its side's opening words, written "
        'by the engine ("I oppose the claim.", "My opponent is wrong: the claim does not hold."; in a debate about '
        'a tweet\'s category, "The tweet contains no scientific claim."), '
        "and the model goes on from them; shown as the engine's on the page. Backends that continue an answer "
        "already begun only (the embedded one).",
    ),
    "state_side": (
        False,
        "Tell each debater with a side which side it argues, in a line after the paper's template (the "
        "Politician, Advocate and Proponent for the claim; the Scientist, Critic and Opponent against it; "
        "in a debate about a tweet's category, YES and NO in the paper's role sentence). "
        "The papers: off; the small-model aids turn it on for RADAR and the single and team debates.",
    ),
    "budget_grace": (
        GRACE_TOKENS,
        "Tokens past the answer budget an argument may use to finish its sentence, and a judge to end its "
        "reason and write its label (embedded models only). 0 = cut at the budget.",
    ),
    "answer_sentences": (
        0,
        "Ask each argument (free-text turn) for at most this many sentences. 0 = the papers' "
        "prompts, no length asked; the live-demo pace asks for 3, which fits its answer budget.",
    ),
}


CUT_OFF = "the answer was cut off: the server closed the stream before the model finished (asked twice)"
REPAIR_TEXT_CHARS = 160  # about 40 tokens: a reason that leaves room for the label in a short answer budget
REPAIR_MIN_TOKENS = 64  # the constrained repair's budget at least: reason + label + JSON fit in it
# a judge's constrained reason: room for a sentence or two (~90 tokens, its label still inside a 128-token
# budget and its grace); the local backend closes it at its first sentence end past a quarter of this
# (KindEnd), the grammar's cap would cut it mid-word: at 240 a judge's one long sentence was cut there
JUDGE_REASON_CHARS = 400


def params(own: dict[str, Param]) -> dict[str, Param]:
    return {**own, **COMMON_PARAMS}


def label_key_of(spec: TurnSpec) -> str:
    """The key after which the turn writes its label: the spec's own, else its schema's enum property
    (the same key the paper's line format uses: `[VERDICT]:` for `"verdict"`)."""
    if spec.label_key:
        return spec.label_key
    for k, v in ((spec.schema or {}).get("properties") or {}).items():
        if "enum" in v:
            return str(k)
    return ""


def label_leads(schema: dict[str, Any] | None, labels: tuple[str, ...] | list[str]) -> bool:
    """The schema decodes the label first and free text after it (vote-first answers): the label's
    probabilities are then read at its own position, not wherever the text later says "no"."""
    props = list(((schema or {}).get("properties") or {}).values())
    return len(props) > 1 and bool(labels) and set(props[0].get("enum") or ()) == set(labels)


def label_only(schema: dict[str, Any] | None, labels: tuple[str, ...] | list[str]) -> bool:
    """The schema's one field is the label (a vote given without words): with a fitted threshold the label
    written is then the one the threshold picks, so the vote a page shows is the vote the tally counts (a
    council's SmolLM2 member wrote NO at P(YES) 0.37 and was counted YES against its category-3 threshold, 0.31)."""
    props = list(((schema or {}).get("properties") or {}).values())
    return len(props) == 1 and bool(labels) and set(props[0].get("enum") or ()) == set(labels)


def json_answer(
    key: str,
    labels: tuple[str, ...],
    text_key: str | None = "explanation",
    numeric: bool = False,
    text_chars: int = REPAIR_TEXT_CHARS,
) -> dict[str, Any]:
    """TurnSpec fields for a constrained repair: a schema with a short free-text field first and then
    `key` in `labels` (0/1 for the paper's yes/no judge JSON), plus the format line shown to the model.

    Why this shape: measured on CheckThat dev with 64-token answers, a repair shown as
    `{"category": 1 or 0, "explanation": "..."}` was answered with the first option almost every time
    (118 of 122 repaired Qwen2.5-Coder-0.5B verdicts were YES, every direct one NO). The reason now comes first,
    so the label is decoded after the model has restated its argument; it is short so the label still
    fits in the token budget; and the options are shown as a placeholder, not as an answer to copy."""
    values: list[Any] = [1, 0] if numeric else list(labels)
    props: dict[str, Any] = {}
    shown = "<1 for yes, 0 for no>" if numeric else "<one of " + ", ".join(f'"{v}"' for v in values) + ">"
    example = "{"
    if text_key:
        props[text_key] = {"type": "string", "maxLength": int(text_chars)}
        example += f'"{text_key}": "<your reason in one short sentence>", '
    props[key] = {"type": "integer" if numeric else "string", "enum": values}
    example += f'"{key}": {shown}' + "}"
    schema = {"type": "object", "properties": props, "required": list(props)}
    out: dict[str, Any] = {"schema": schema, "schema_format": example}
    if numeric:  # the digits stand for the labels at the key: their probabilities are the labels'
        out["label_spellings"] = tuple(str(v) for v in values)
    return out
