"""run_debate: the single entry point that turns a DebateConfig into an event stream.

CONTRACT (owned by the engine; the UI, the store, the CLI and batch evaluation rely on it):
    run_debate(config, client, retriever=None, cancel=None) -> Iterator[Event]
- the first event is DebateStarted, the last is always DebateFinished (status completed|stopped|error);
- a failure becomes an ErrorEvent followed by DebateFinished(status="error"), never an exception
  escaping mid-stream (an invalid config raises InvalidInput *before* the first event);
- `seq` is assigned here, 0-based and gap-free; `t` is seconds since start;
- `cancel` is a threading.Event: when set, the debate stops between tokens with status "stopped".

Around the protocol the runner adds what every protocol shares: evidence retrieval (before the debate),
the CheckThat "all categories" loop with its visible cat2 => cat3 post-step, and the totals.
"""

from __future__ import annotations

import ast
import threading
import time
import uuid
from collections.abc import Generator, Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from debate import moderation
from debate.errors import Cancelled, DebateError, InvalidInput
from debate.events import (
    DebateFinished,
    DebateStarted,
    ErrorEvent,
    Event,
    EvidenceProgress,
    EvidenceRetrieved,
    Moderator,
    PhaseStarted,
    RuleApplied,
    TurnFinished,
    Verdict,
)
from debate.lineups import Agent, load_lineup
from debate.protocols import PROTOCOLS, resolve_agents
from debate.protocols.base import DebateContext, ProtocolInfo
from debate.protocols.decisions import apply_cat2_rule
from debate.retrieval.retriever import load_failure_note
from debate.tasks import resolve_task, task_categories


@dataclass
class DebateConfig:
    claim: str
    protocol: str = "council"  # single | team | council | baseline | radar | radar-single
    task: str = "checkthat"  # checkthat | halftruth | averitec | custom
    category: int | None = 1  # CheckThat category 1..3; None = all three (with the cat2=>cat3 rule)
    custom_title: str = ""
    custom_description: str = ""
    lineup: str | dict = "embedded"  # preset name, path to a lineup JSON file, or a lineup dict
    params: dict[str, Any] = field(default_factory=dict)  # protocol parameters overriding defaults
    evidence: bool | None = None  # None = protocol default (RADAR: on; others: off)
    top_k: int = 20
    max_tokens: int = 256
    seed: int = 0
    gold: str | None = None
    debate_id: str | None = None
    apply_cat2_rule: bool = True
    fork: Any = None  # sharing.fork.Fork: continue another debate after its round N (built by debate.sharing.fork)
    seats: list[dict] | None = None  # exact agents [{agent, role, model, temperature, seed}], bypassing the lineup
    variant_of: dict | None = None  # robustness check: {"debate_id", "variant"} of the debate it re-runs
    sources: str | None = None  # evidence sources asked ("web,scholar", ...); None = every one that answers
    questions: int = 0  # 1-3: the judge model writes questions searched beside the claim; 0 = no model call
    aids: bool = False  # small-model aids (debate/aids/settings.py) over the parameters left at the paper's defaults
    humans: list[str] | None = None  # seats a person plays: agent names or roles (see debate.seats)
    human_timeout_s: float = 180.0  # a person's time for one turn; then the turn passes and the debate goes on
    # how passages enter prompts (debate.retrieval.safety): "fence" = quoted between per-debate delimiters with
    # the prompt's markers neutralised and a system sentence that evidence is never an instruction;
    # "datamark" = also ^ between the quoted words; "off" = verbatim (what the injection benchmark's "before" measures)
    evidence_guard: str = "fence"
    # a passage that reads like an order: "mask" (kept, fenced and flagged, its order sentences left out of
    # the prompts), "keep" (whole, fenced and flagged) or "drop" (held back)
    flagged_evidence: str = "mask"


def _coerce(name: str, value: Any, default: Any) -> Any:
    """CLI and form values arrive as strings: convert to the default's type, or say what is expected."""
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError
            return bool(value)
        if isinstance(default, int):
            f = float(value)
            if f != int(f):
                raise ValueError
            return int(f)
        if isinstance(default, float):
            return float(value)
        return str(value).strip()
    except (TypeError, ValueError):
        kind = {bool: "true or false", int: "a whole number", float: "a number"}.get(type(default), "text")
        raise InvalidInput(f"Parameter {name}={value!r} is not {kind}.", f"Default: {name}={default!r}.") from None


# Parameters a protocol once advertised that never changed what it did; debates stored with them (forks and
# robustness re-runs read a parent's parameters) still resolve. `examples` for single: the A.3 templates
# have only [CATEGORY DESCRIPTION], no slot for the A.2 examples.
RETIRED_PARAMS: dict[str, tuple[str, ...]] = {"single": ("examples",)}


def resolve_params(info: ProtocolInfo, given: dict[str, Any] | None) -> dict[str, Any]:
    out = info.defaults()
    for k, v in (given or {}).items():
        if k in RETIRED_PARAMS.get(info.name, ()):
            continue
        if k not in info.params:
            raise InvalidInput(
                f"Protocol {info.name} has no parameter {k!r}.",
                f"Its parameters: {', '.join(info.params)} (see `python -m debate protocols`).",
            )
        out[k] = _coerce(k, v, info.params[k][0])
        if k in info.choices and out[k] not in info.choices[k]:
            raise InvalidInput(
                f"Parameter {k}={v!r} is not allowed for {info.name}.",
                f"Choose one of: {', '.join(map(str, info.choices[k]))}.",
            )
    for k in ("rounds", "stop_samples", "max_concurrency", "members", "team_size"):
        if k in out and int(out[k]) < 0:
            raise InvalidInput(f"Parameter {k} cannot be negative.", f"Default: {info.params[k][0]}.")
    for k in ("theta", "tau_c"):
        if k in out and not 0.0 <= float(out[k]) <= 1.0:
            raise InvalidInput(f"Parameter {k} must be between 0 and 1.", f"Default: {info.params[k][0]}.")
    return out


# A claim goes into every prompt of every agent (RADAR's with 20 evidence passages beside it). Tweets have
# at most 280 characters and the datasets' claims a few hundred; 4,000 characters (about 1,000 tokens)
# leaves a 4,096-token window room for the template, the debate and the answer.
MAX_CLAIM_CHARS = 4_000


@dataclass
class Prepared:
    config: DebateConfig
    info: ProtocolInfo
    params: dict[str, Any]
    lineup: dict
    agents: list
    categories: list
    evidence_on: bool


def prepare(config: DebateConfig) -> Prepared:
    """Every check that can fail before a model is called; raises InvalidInput with a hint."""
    if not isinstance(config.claim, str) or not config.claim.strip():
        raise InvalidInput("The claim is empty.", "Paste a tweet or a claim to debate.")
    if len(config.claim) > MAX_CLAIM_CHARS:
        raise InvalidInput(
            f"The claim is {len(config.claim):,} characters long; a claim may have at most {MAX_CLAIM_CHARS:,}.",
            "Paste the claim itself (a tweet, a statement), not a whole article: every agent reads it in every prompt.",
        )
    info = PROTOCOLS.get((config.protocol or "").strip().lower())
    if info is None:
        raise InvalidInput(f"Unknown protocol {config.protocol!r}.", f"Use one of: {', '.join(PROTOCOLS)}.")
    if config.max_tokens < 1:
        raise InvalidInput("max_tokens must be at least 1.", "Use e.g. 256.")
    if config.top_k < 1:
        raise InvalidInput("top_k must be at least 1.", "RADAR uses 20.")
    from debate.retrieval.questions import check_count

    config.questions = check_count(config.questions)
    from debate.retrieval import safety

    if config.evidence_guard not in safety.GUARDS:
        raise InvalidInput(
            f"Unknown evidence guard {config.evidence_guard!r}.",
            f"Use one of: {', '.join(safety.GUARDS)} (default {safety.DEFAULT_GUARD}).",
        )
    if config.flagged_evidence not in safety.FLAGGED_POLICIES:
        raise InvalidInput(
            f"Unknown choice {config.flagged_evidence!r} for passages that read like an order.",
            f"Use one of: {', '.join(safety.FLAGGED_POLICIES)} (default {safety.DEFAULT_FLAGGED}).",
        )
    params = resolve_params(info, config.params)
    categories = task_categories(config.task, config.category)
    if categories == [None] and config.category is not None:  # a task without sections: none is recorded
        config = replace(config, category=None)
    for c in categories:
        resolve_task(config.task, c, config.custom_title, config.custom_description)
    if config.seats:  # a fork's or a robustness variant's seats, exactly as given
        lineup = {"name": config.lineup if isinstance(config.lineup, str) else config.lineup.get("name", "")}
        try:
            agents = [
                Agent(
                    **{
                        k: a[k]
                        for k in (
                            "agent",
                            "role",
                            "model",
                            "temperature",
                            "seed",
                            "k_demos",
                            "demo_skip",
                            "neighbours",
                            "explain",
                        )
                        if k in a
                    }
                )
                for a in config.seats
            ]
        except TypeError as e:
            raise InvalidInput(
                f"A seat of the lineup is incomplete ({e}).", "Each seat needs agent, role and model."
            ) from None
    else:
        lineup = load_lineup(config.lineup)
        agents = resolve_agents(lineup, info.name, params)
    if config.humans:
        agents = seat_people(agents, config.humans)
    try:
        timeout_ok = 1 <= float(config.human_timeout_s) <= 3600
    except (TypeError, ValueError):
        timeout_ok = False
    if not timeout_ok:
        raise InvalidInput(
            f"A person's time per turn must be between 1 and 3600 seconds, not {config.human_timeout_s!r}.",
            "The default is 180 s.",
        )
    if config.aids:
        from debate.aids import settings as aids

        params = aids.apply(params, info.defaults(), aids.overrides(info.name, config.task, categories, agents))
    evidence_on = info.uses_evidence if config.evidence is None else bool(config.evidence)
    return Prepared(config, info, params, lineup, agents, categories, evidence_on)


def seat_people(agents: list[Agent], who: list[str]) -> list[Agent]:
    """The agents with the named seats played by a person: each name is an agent's name (e.g. "qwen-a",
    "pro-2") or a role (e.g. "opponent", "judge", "member": every agent with that role)."""
    from dataclasses import replace as _replace

    from debate.seats import PERSON_SPEC

    wanted = [w.strip() for w in who if str(w).strip()]
    for w in wanted:
        if not any(w in (a.agent, a.role) for a in agents):
            seats_ = ", ".join(dict.fromkeys([a.agent for a in agents] + [a.role for a in agents]))
            raise InvalidInput(f"This debate has no seat {w!r} for a person to take.", f"Its seats: {seats_}.")
    return [_replace(a, model=PERSON_SPEC) if a.agent in wanted or a.role in wanted else a for a in agents]


def run_debate(
    config: DebateConfig, client, retriever=None, cancel: threading.Event | None = None
) -> Generator[Event, None, None]:
    prepared = prepare(config)  # raises before the first event
    return _stream(prepared, client, retriever, cancel)


def _parse_gold_labels(gold: str | None) -> dict[str, str] | None:
    """CheckThat gold for all categories: "[1.0, 0.0, 1.0]", "1,0,1" or "YES,NO,YES"."""
    if not gold:
        return None
    text = gold.strip()
    try:
        vals = ast.literal_eval(text) if text.startswith("[") else [x.strip() for x in text.split(",")]
    except (ValueError, SyntaxError):
        return None
    if len(vals) != 3:
        return None
    out = {}
    for i, v in enumerate(vals, 1):
        s = str(v).strip().upper()
        out[str(i)] = "YES" if s in ("1", "1.0", "YES", "TRUE") else "NO" if s in ("0", "0.0", "NO", "FALSE") else None
    return {k: v for k, v in out.items() if v} if all(out.values()) else None


class _Stream:
    """One debate's stream, phase by phase: `started` (the config and lineup), the protocol's events with
    the fork mark and moderator notes at each boundary (`body`), a fatal error as an event (`failure`),
    and `closing` (a fork that diverged, notes that arrived too late, `debate_finished`). `stamp` gives
    every event its sequence number and time."""

    def __init__(self, pp: Prepared, client, cancel: threading.Event | None) -> None:
        self.pp, self.cfg, self.cancel = pp, pp.config, cancel
        self.t0 = time.perf_counter()
        self.seq = 0
        self.ctx = DebateContext(
            config=pp.config,
            client=client,
            agents=pp.agents,
            params=pp.params,
            evidence_on=pp.evidence_on,
            cancel=cancel,
        )
        self.fork = pp.config.fork
        self.debate_id = pp.config.debate_id or uuid.uuid4().hex[:12]
        self.ctx.debate_id = self.debate_id
        self.pending: list[tuple[str, str]] = []  # (note, source) not yet applied
        if self.fork is not None:
            self.ctx.replay = [dict(t) for t in self.fork.turns]
            self.pending += [(n, "fork") for n in self.fork.notes]
        self.totals = {"prompt": 0, "completion": 0}
        self.status, self.stop_reason = "completed", ""
        self.final_label: str | None = None
        self.forked = self.fork is None

    def stamp(self, ev: Event) -> Event:
        ev.seq, ev.t = self.seq, round(time.perf_counter() - self.t0, 4)
        self.seq += 1
        return ev

    def started(self) -> Event:
        cfg, pp, fork = self.cfg, self.pp, self.fork
        settings = {
            k: v for k, v in asdict(cfg).items() if k not in ("claim", "lineup", "gold", "debate_id", "fork", "seats")
        }
        settings.update(params=pp.params, lineup_name=pp.lineup.get("name", ""), evidence_on=pp.evidence_on)
        return self.stamp(
            DebateStarted(
                debate_id=self.debate_id,
                protocol=pp.info.name,
                task=cfg.task,
                category=cfg.category,
                claim=cfg.claim,
                lineup=[a.to_dict() for a in pp.agents],
                settings=settings,
                seed=cfg.seed,
                gold=cfg.gold,
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                forked_from=None if fork is None else {"debate_id": fork.parent_id, "round": fork.round},
            )
        )

    def boundary(self, ev: Event) -> Iterator[Event]:
        """At a round or phase boundary past the fork point: mark the fork, then apply pending notes."""
        fork, ctx = self.fork, self.ctx
        if not self.forked:
            self.forked = True
            yield self.stamp(
                PhaseStarted(
                    phase="fork",
                    round=fork.round,
                    title=f"Fork of debate {fork.parent_id} after round {fork.round}",
                    note="Everything above was replayed from the parent debate; from here on the models answer anew.",
                )
            )
        self.pending.extend((n, "live") for n in moderation.take(self.debate_id))
        is_phase = isinstance(ev, PhaseStarted)
        while self.pending:
            note, source = self.pending.pop(0)
            if is_phase:
                ctx.moderator_notes.append(note)
            yield self.stamp(
                Moderator(
                    text=note,
                    round=getattr(ev, "round", ctx.rounds),
                    phase=getattr(ev, "phase", ""),
                    source=source,
                    seen=is_phase,
                )
            )

    def body(self, retriever) -> Iterator[Event]:
        """The protocol's events, counted and stamped, until it ends, is stopped or fails."""
        body = _body(self.pp, self.ctx, retriever)
        try:
            for ev in body:
                if isinstance(ev, (PhaseStarted, Verdict)) and not self.ctx.replay:
                    yield from self.boundary(ev)
                if isinstance(ev, TurnFinished) and not ev.replayed:
                    self.totals["prompt"] += ev.prompt_tokens
                    self.totals["completion"] += ev.completion_tokens
                elif isinstance(ev, Verdict):
                    self.final_label = ev.label
                yield self.stamp(ev)
                if self.cancel is not None and self.cancel.is_set():
                    raise Cancelled("The debate was stopped.") from None
        except Cancelled:
            self.status, self.stop_reason = "stopped", "stopped by the user"
        except DebateError as e:
            yield self.failure(e)
        except Exception as e:  # noqa: BLE001 - a bug: still end the stream cleanly, with enough to report it
            yield self.failure(e)
        finally:
            body.close()

    def failure(self, e: Exception) -> Event:
        """The fatal error event that ends the debate: a DebateError as it says, anything else as a bug."""
        if isinstance(e, DebateError):
            self.status, self.stop_reason = "error", e.message
            return self.stamp(
                ErrorEvent(
                    error=getattr(e, "error_name", type(e).__name__),
                    message=e.message,
                    hint=e.hint,
                    agent=getattr(e, "agent", ""),
                    model=getattr(e, "model", ""),
                    backend=getattr(e, "backend", ""),
                    fatal=True,
                )
            )
        self.status, self.stop_reason = "error", f"{type(e).__name__}: {e}"
        return self.stamp(
            ErrorEvent(
                error=type(e).__name__,
                message=str(e) or type(e).__name__,
                hint="This is a bug in the debate engine; please report it with the events file.",
                fatal=True,
            )
        )

    def closing(self) -> Iterator[Event]:
        fork, ctx = self.fork, self.ctx
        if fork is not None and ctx.replay and self.status == "completed":
            yield self.stamp(
                ErrorEvent(
                    error="ForkDiverged",
                    fatal=False,
                    message=f"The fork ended before round {fork.round}: its parameters changed a decision "
                    f"the parent made earlier ({len(ctx.replay)} of the parent's turns were not reached).",
                    hint="Fork with the parent's parameters, or from an earlier round.",
                )
            )
        self.pending.extend((n, "live") for n in moderation.take(self.debate_id))
        for note, source in self.pending:  # arrived after the last prompt: kept, marked as read by no agent
            yield self.stamp(Moderator(text=note, round=ctx.rounds, source=source, seen=False))
        yield self.stamp(
            DebateFinished(
                status=self.status,
                stop_reason=self.stop_reason,
                label=self.final_label if self.status == "completed" else None,
                rounds=ctx.rounds,
                prompt_tokens=self.totals["prompt"],
                completion_tokens=self.totals["completion"],
                model_calls=ctx.model_calls,
                cache_hits=ctx.cache_hits,
                wall_s=round(time.perf_counter() - self.t0, 4),
            )
        )


def _stream(pp: Prepared, client, retriever, cancel: threading.Event | None) -> Generator[Event, None, None]:
    s = _Stream(pp, client, cancel)
    yield s.started()
    yield from s.body(retriever)
    yield from s.closing()


def _evidence(pp: Prepared, ctx: DebateContext, retriever, for_prompts: bool = True) -> Iterator[Event]:
    """Retrieve the passages. With `for_prompts` False they are only shown beside the debate (the
    viewer shows evidence for every claim) and the agents' prompts stay exactly as without evidence."""
    cfg = pp.config
    if retriever is None:
        ctx.evidence_on = False
        yield PhaseStarted(
            phase="evidence", title="Evidence", note="No retriever is configured: the debate runs without evidence."
        )
        return
    query = cfg.claim
    if cfg.task == "checkthat":  # tweets: the words of URL paths carry the topic of a bare link
        from debate.retrieval import tweet_query

        query = tweet_query(cfg.claim) or cfg.claim
    gathered, written = None, None
    try:
        if hasattr(retriever, "gather") and for_prompts:  # several sources: the page shows their states as they come
            written = yield from _questions(pp, ctx, cfg.questions)
            gathered = yield from _gather_showing_progress(retriever, query, cfg.top_k, written, ctx)
            found = gathered.passages
        elif hasattr(retriever, "gather"):
            gathered = retriever.gather(query, k=cfg.top_k)
            found = gathered.passages
        else:
            found = retriever.search(query, k=cfg.top_k)
    except DebateError as e:
        if isinstance(e, Cancelled):
            raise
        yield ErrorEvent(error=type(e).__name__, message=e.message, hint=e.hint, fatal=False)
        yield PhaseStarted(
            phase="evidence", title="Evidence", note="Retrieval failed: the debate runs without evidence."
        )
        return
    from debate.retrieval import safety

    flagged = safety.flag_passages([dict(p) if isinstance(p, dict) else {"text": str(p)} for p in found or []])
    dropped = [d for d in flagged if d.get("flags")] if cfg.flagged_evidence == "drop" else []
    if cfg.evidence_guard != "off":
        for d in flagged:  # how many sentences the prompts leave out (the panel and exports say so)
            if any(d is x for x in dropped) or not safety.masks(d, cfg.flagged_evidence):
                continue
            text, n = safety.mask_passage(str(d.get("text", "")))
            if n:
                d["masked"] = n
                if safety.nothing_left(text):  # all orders or ratings, no evidence: held back, as with "drop"
                    dropped.append(d)
    held = {id(d) for d in dropped}
    passages = []
    for i, d in enumerate((d for d in flagged if id(d) not in held), 1):
        if d.get("id") and d["id"] != f"E{i}":
            d.setdefault("orig_id", d["id"])
        d["id"] = f"E{i}"  # numbered as cited in prompts, whatever the retriever called them
        passages.append(d)
    for i, d in enumerate(dropped, 1):
        if d.get("id"):
            d.setdefault("orig_id", d["id"])
        d["id"] = f"X{i}"  # held back: never in a prompt, so never citable
    if for_prompts:
        ctx.passages = passages
    extra = {}
    if gathered is not None:
        extra = {
            "floor": gathered.floor,
            "rejected": gathered.rejected,
            "sources": gathered.sources,
            "note": gathered.note,
        }
        if for_prompts and gathered.nothing_fits:
            ctx.evidence_none_fit = True
    if written is not None and (written.questions or written.note):
        extra.update(questions=written.questions, questions_note=written.note, questions_model=written.model)
    if dropped:
        extra["dropped"] = dropped
    yield EvidenceRetrieved(
        query=query,
        passages=passages,
        in_prompts=for_prompts,
        corpus=str(getattr(retriever, "name", "") or getattr(retriever, "corpus", "") or ""),
        **extra,
    )


def _questions(pp: Prepared, ctx: DebateContext, n: int):
    """`written = yield from _questions(...)`: the judge model's questions for the search (none when
    n is 0: the default makes no model call)."""
    from debate.retrieval import questions as qmod

    if n <= 0:
        return None
    judge = next((a for a in pp.agents if a.role == "judge"), None)
    model = judge.model if judge is not None else str((pp.lineup.get("judge") or {}).get("model") or "")
    if not model or model.startswith("human"):
        return qmod.Written(note="No judge model to write questions: the claim alone was searched.")
    yield EvidenceProgress(stage="questions", note=f"The judge model ({model}) writes {n} question(s) for the search…")
    written = qmod.write(ctx.client, model, pp.config.claim, n, ctx.stopping)
    with ctx._lock:
        ctx.model_calls += 1
        ctx.cache_hits += int(written.cached)
    return written


def _gather_showing_progress(retriever, query: str, k: int, written, ctx: DebateContext):
    """`gathered = yield from ...`: the retriever's gather in a thread, each change of a source's state
    yielded as an EvidenceProgress event (the page shows "searching…" with them) while it runs."""
    import queue

    updates: queue.Queue = queue.Queue()
    box: dict = {}
    questions = list(written.questions) if written is not None else []

    def work() -> None:
        try:
            box["gathered"] = retriever.gather(query, k=k, questions=questions or None, progress=updates.put)
        except BaseException as e:  # noqa: BLE001 - re-raised in the debate's thread below
            box["error"] = e
        finally:
            updates.put(None)

    threading.Thread(target=work, name="evidence-gather", daemon=True).start()
    last = None
    while True:
        try:
            states = updates.get(timeout=0.25)
        except queue.Empty:
            if ctx.stopping():
                raise Cancelled("The debate was stopped.") from None
            continue
        if states is None:
            break
        summary = [(x.get("name"), x.get("state"), x.get("passages")) for x in states]
        if summary != last:
            last = summary
            done = all(x.get("state") != "waiting" for x in states)
            yield EvidenceProgress(stage="ranking" if done else "searching", sources=states, questions=questions)
    if "error" in box:
        raise box["error"]
    return box["gathered"]


EVIDENCE_AFTER_S = 20.0  # how long a finished debate waits (status "running") for a still-loading index


def _ready(retriever) -> bool:
    """Can the retriever answer at once (index and embedder loaded)? Objects without the notion are."""
    return bool(getattr(retriever, "searchable", True))


def _body(pp: Prepared, ctx: DebateContext, retriever) -> Generator[Event, None, None]:
    cfg = pp.config
    if cfg.fork is not None and cfg.fork.evidence is not None:  # a fork argues over its parent's passages
        ev = EvidenceRetrieved(**{k: v for k, v in cfg.fork.evidence.items() if k not in ("seq", "t", "type")})
        if ev.in_prompts and ctx.evidence_on:
            ctx.passages = list(ev.passages)
        yield ev
    elif ctx.evidence_on:
        yield from _evidence(pp, ctx, retriever)
    elif retriever is not None:
        # Shown beside the debate only: it must never delay a model call (people wait for those). The search runs in a
        # thread (in the app the embedder answers from an idle-priority process, which a busy CPU can
        # hold up for seconds); its passages are shown as soon as they come, and a debate that ends
        # first waits a bounded time for them (the CPU is free then).
        later = _LaterEvidence(pp, ctx, retriever)
        try:
            yield from later.take(wait_s=0.1)  # an index already loaded answers at once: shown first
            for said in _protocol_body(pp, ctx):
                yield said
                yield from later.take()
            if not later.emitted and not ctx.stopping():
                got = list(later.take(wait_s=EVIDENCE_AFTER_S))
                yield from got or [
                    PhaseStarted(
                        phase="evidence",
                        title="Evidence",
                        note="The evidence index was still loading: no passages are shown for this debate (the "
                        "next one will have them).",
                    )
                ]
        finally:
            later.stop.set()
        return
    yield from _protocol_body(pp, ctx)


class _LaterEvidence:
    """Display-only passages, searched in a thread once the retriever is ready."""

    def __init__(self, pp: Prepared, ctx: DebateContext, retriever) -> None:
        self.stop = threading.Event()
        self.done = threading.Event()
        self.events: list[Event] = []
        self.emitted = False

        def run() -> None:
            try:
                while not _ready(retriever):
                    failed = getattr(retriever, "error", None)
                    if failed is not None:  # the app's background load failed: say so, do not wait
                        self.events = [
                            PhaseStarted(
                                phase="evidence",
                                title="Evidence",
                                note=load_failure_note(failed),
                            )
                        ]
                        return
                    if self.stop.wait(0.2):
                        return
                self.events = list(_evidence(pp, ctx, retriever, for_prompts=False))
            except Exception as e:  # noqa: BLE001 - a viewer's extra: the debate goes on without it
                self.events = [
                    PhaseStarted(
                        phase="evidence",
                        title="Evidence",
                        note=f"Retrieval failed ({type(e).__name__}): no passages are shown.",
                    )
                ]
            finally:
                self.done.set()

        threading.Thread(target=run, name="evidence-for-viewer", daemon=True).start()

    def take(self, wait_s: float = 0.0) -> Iterator[Event]:
        """The passages' events once, when they are ready (waiting at most `wait_s`)."""
        if self.emitted or not self.done.wait(wait_s):
            return
        self.emitted = True
        yield from self.events


def _protocol_body(pp: Prepared, ctx: DebateContext) -> Iterator[Event]:
    cfg = pp.config
    categories = list(pp.categories)
    # TurQUaz Sec. 1: "category 2 positive => category 3 positive". Category 3 alone cannot apply it, so
    # with the rule on (the paper's setting) category 2 is decided first; --no-cat2-rule scores 3 alone.
    rule_input = cfg.task == "checkthat" and cfg.apply_cat2_rule and categories == [3]
    if rule_input:
        categories = [2, 3]
    multi = len(categories) > 1
    labels: dict[str, str | None] = {}
    rounds = 0
    for c in categories:
        ctx.task = resolve_task(cfg.task, c, cfg.custom_title, cfg.custom_description)
        ctx.rounds = 0
        ctx.first_votes = None
        if multi:
            note = (
                "Decided first because the rule 'category 2 positive => category 3 positive' (TurQUaz) needs "
                "it; switch the rule off (--no-cat2-rule) to score category 3 alone."
                if rule_input and c == 2
                else "Each category is decided by its own debate."
            )
            yield PhaseStarted(
                phase="category", category=c, title=f"Category {c}: {ctx.task.extra.get('title', '')}", note=note
            )
        run = pp.info.run
        assert run is not None  # protocols.register refuses a protocol without one
        for ev in run(ctx):
            if isinstance(ev, Verdict) and multi:
                labels[str(c)] = ev.label
            yield ev
            if isinstance(ev, Verdict) and (cmp := ctx.vote_comparison(ev)) is not None:
                yield cmp
        rounds = max(rounds, ctx.rounds)
    ctx.rounds = rounds
    if not multi:
        return
    after = dict(labels)
    if cfg.apply_cat2_rule:
        after, changed = apply_cat2_rule(labels)
        yield RuleApplied(
            rule="category 2 positive => category 3 positive (TurQUaz Sec. 3)",
            before=dict(labels),
            after=after,
            changed=changed,
        )
    if rule_input:  # the run asked for category 3: its label after the rule is the answer
        gold3 = None if cfg.gold is None else str(cfg.gold).strip().upper()
        yield Verdict(
            label=after["3"],
            labels=after,
            category=3,
            source="categories",
            explanation="; ".join(f"category {k}: {v or 'invalid'}" for k, v in after.items()),
            gold=cfg.gold,
            correct=None if gold3 is None or after["3"] is None else after["3"] == gold3,
        )
        return
    gold = _parse_gold_labels(cfg.gold)
    yield Verdict(
        label=None,
        labels=after,
        source="categories",
        explanation="; ".join(f"category {k}: {v or 'invalid'}" for k, v in after.items()),
        gold=cfg.gold,
        correct=None if gold is None else gold == after,
    )
