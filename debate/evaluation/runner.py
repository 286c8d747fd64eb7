"""Batch evaluation: run one protocol over a dataset, item by item, resumable after any kill.

The debate itself is never re-implemented here: each item is one `debate.runner.run_debate` stream,
drained and stored. What this module adds is the batch discipline: bounded concurrency over items
(the ModelClient still bounds each backend), an atomic checkpoint per item, bounded retries of failed
items without aborting the run, a refusal to resume a folder made with other settings, and a stop when
the very first attempts all fail the same way (a wrong model name should not be tried 1,000 times).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from debate.datasets import Dataset, Item, load_dataset
from debate.errors import AuthError, BackendUnavailable, DebateError, InvalidInput, ModelFileError, ModelNotFound
from debate.evaluation.checkpoint import Checkpoint
from debate.evaluation.extract import debate_stats, extract_prediction
from debate.evaluation.sampling import select_items

HOOK_ENV = "DEBATE_EVAL_HOOK"  # "module:function" called with the ModelClient (tests, custom backends)
_FATAL = (InvalidInput, ModelNotFound, BackendUnavailable, AuthError, ModelFileError)
_FATAL_NAMES = {c.__name__ for c in _FATAL}
EVIDENCE_PROTOCOLS = ("radar", "radar-single")
# options that define what a run measures: changing one of them must not resume an existing folder
_IDENTITY = (
    "dataset",
    "task",
    "protocol",
    "lineup",
    "category",
    "params",
    "max_tokens",
    "seed",
    "evidence",
    "top_k",
    "apply_cat2_rule",
    "text_col",
    "label_col",
    "id_col",
)


@dataclass
class EvalOptions:
    dataset: str
    out: str
    protocol: str = "council"
    lineup: str | dict = "embedded"
    category: int | None = None  # CheckThat: 1..3, None = all three in one debate per item
    limit: int | None = None
    sample: int | None = None  # a seeded stratified sample of this many items (debate/evaluation/sampling.py)
    sample_seed: int = 0
    concurrency: int = 2
    params: dict[str, Any] = field(default_factory=dict)
    max_tokens: int = 256
    seed: int = 0
    evidence: bool | None = None
    top_k: int = 20
    task: str | None = None  # override the dataset's task (custom files)
    data_path: str | None = None  # a user's copy of a named dataset
    text_col: str = "text"
    label_col: str | None = "label"
    id_col: str | None = "id"
    retries: int = 2
    item_timeout_s: float | None = 1800.0  # an item still running after this is stopped and counted failed
    apply_cat2_rule: bool = True
    progress: bool = True
    aids: bool = False  # small-model aids (debate/aids.py), as `run --aids` and the app's switch
    sources: str | None = None  # evidence sources ("local,web" or "auto"); None = the local index as before
    questions: int = 0  # questions the judge model writes per claim for the search (0: none, no model call)


@dataclass
class RunSummary:
    out: str
    total: int
    done: int
    failed: int
    ran: int  # items attempted in this invocation
    skipped: int  # already done before this invocation
    interrupted: int  # found `running` (killed) and redone
    wall_s: float
    tokens: int
    metrics: dict | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _resolve_lineup(lineup: str | dict) -> str | dict:
    """A lineup file is read here so its content (not its path) is part of the run's identity."""
    if isinstance(lineup, str) and (lineup.endswith(".json") or os.sep in lineup):
        p = Path(lineup)
        if not p.exists():
            raise InvalidInput(f"Lineup file {p} does not exist.", "Give a preset name (e.g. embedded) or a JSON file.")
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                data.setdefault("name", p.stem)
            return data
        except json.JSONDecodeError as e:
            raise InvalidInput(f"{p}, line {e.lineno}: invalid JSON ({e.msg}).", "Fix the lineup file.") from e
    return lineup


def _preflight(opts: EvalOptions, ds: Dataset, lineup: str | dict) -> None:
    """Every check the engine can make without a model call (protocol, params, task, lineup), on the
    first item, before a run folder exists: a typo must not leave a folder that then refuses the
    corrected command."""
    try:
        from debate.runner import DebateConfig, prepare
    except ImportError:
        return
    prepare(DebateConfig(claim=ds.items[0].text, **_debate_settings(opts, opts.task or ds.task, lineup)))


# the options a run's every debate (the preflight's too) takes as they are, under the same names
_PASSED_ON = ("protocol", "category", "evidence", "top_k", "max_tokens", "seed", "apply_cat2_rule", "aids")


def _debate_settings(opts: EvalOptions, task: str, lineup: str | dict) -> dict[str, Any]:
    """The DebateConfig fields every debate of the run shares, the preflight's included: the options passed
    on, the task and lineup resolved for the run, and a copy of the protocol's parameters."""
    return {**{k: getattr(opts, k) for k in _PASSED_ON}, "task": task, "lineup": lineup, "params": dict(opts.params)}


def make_client() -> Any:
    """The project's default ModelClient (registry), plus whatever the DEBATE_EVAL_HOOK adds."""
    try:
        from debate.models.registry import default_client

        return default_client()
    except ModuleNotFoundError as e:
        if e.name != "debate.models.registry":
            raise
        from debate.models.client import ModelClient

        return ModelClient()


def _apply_hook(client: Any) -> dict:
    spec = os.environ.get(HOOK_ENV, "").strip()
    if not spec:
        return {}
    mod_name, _, fn_name = spec.partition(":")
    try:
        fn = getattr(importlib.import_module(mod_name), fn_name or "setup")
    except (ImportError, AttributeError) as e:
        raise InvalidInput(f"{HOOK_ENV}={spec!r} cannot be loaded: {e}.", "Write it as package.module:function.") from e
    return fn(client) or {}


def _default_retriever() -> Any:
    try:
        mod = importlib.import_module("debate.retrieval")
    except ModuleNotFoundError:
        return None
    factory = getattr(mod, "default_retriever", None)
    return factory() if factory else None


def _multi_retriever(sources: str) -> Any:
    from debate.retrieval.multi import MultiRetriever
    from debate.retrieval.sources import parse_names

    return MultiRetriever(parse_names(sources))


def _debate_fn() -> Callable:
    from debate.runner import run_debate

    return run_debate


def fingerprint(opts: EvalOptions, ds: Dataset, lineup: Any) -> dict:
    d = {k: getattr(opts, k) for k in _IDENTITY}
    if opts.sample:  # only when set, so folders made before --sample existed still resume
        d.update(sample=opts.sample, sample_seed=opts.sample_seed)
    if opts.aids:  # likewise: a run with the aids is another run; folders made before --aids still resume
        d.update(aids=True)
    if opts.sources:  # likewise: a run with chosen sources is another run
        d.update(sources=opts.sources)
    if opts.questions:  # likewise: searched with the judge model's questions
        d.update(questions=opts.questions)
    d.update(dataset=ds.name, dataset_sha256=ds.fingerprint, task=opts.task or ds.task, lineup=lineup)
    return json.loads(json.dumps(d, sort_keys=True, default=str))


def should_abort(failures: list[tuple[str, str]], successes: int, todo: int) -> bool:
    """Stop the batch when its first attempts all failed with the same configuration-type error."""
    need = min(3, todo)
    if successes or need == 0 or len(failures) < need:
        return False
    head = failures[:need]
    return all(kind in _FATAL_NAMES for kind, _ in head) and len({m for _, m in head}) == 1


class _Deadline:
    """One item's cancel flag: set when the batch is cancelled or when the item's time is up. The engine
    only asks `is_set()` between tokens, so a debate past its deadline stops like a stopped one."""

    def __init__(self, batch: threading.Event, seconds: float | None) -> None:
        self.batch = batch
        self.until = None if seconds is None else time.monotonic() + float(seconds)

    def passed(self) -> bool:
        return self.until is not None and time.monotonic() > self.until

    def is_set(self) -> bool:
        return self.batch.is_set() or self.passed()

    def set(self) -> None:
        self.batch.set()


class _ItemFailed(Exception):
    def __init__(self, kind: str, message: str, hint: str = "", events: list[dict] | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.hint, self.events = kind, message, hint, events or []


def run_eval(
    opts: EvalOptions,
    *,
    client: Any = None,
    retriever: Any = None,
    debate_fn: Callable | None = None,
    cancel: threading.Event | None = None,
    on_progress: Callable[[dict], None] | None = None,
) -> RunSummary:
    """Run (or resume) a batch evaluation into `opts.out`; returns a summary with the metrics.

    `cancel` (a threading.Event) stops the batch cleanly: debates in flight stop between tokens and
    stay pending for the next resume. `on_progress` gets {done, failed, total, tokens} after each item
    (for a page's progress bar); the command line shows a tqdm bar instead.
    """
    cancel = cancel or threading.Event()

    t0 = time.perf_counter()
    ds = _load(opts)
    lineup = _resolve_lineup(opts.lineup)
    _preflight(opts, ds, lineup)
    out = Path(opts.out)
    cp = Checkpoint(out)
    with closing(cp):
        items = _open_run(cp, opts, ds, lineup)
        interrupted = cp.reset_interrupted()
        ids = [it.id for it in items]
        todo = cp.todo(ids)
        skipped = len(ids) - len(todo)
        if not todo:
            return _finish(out, cp, ids, ran=0, skipped=skipped, interrupted=interrupted, t0=t0)
        run_item = _item_runner(opts, ds, lineup, out, cancel, client=client, retriever=retriever, debate_fn=debate_fn)
        by_id = {it.id: it for it in items}
        return _execute(opts, cp, out, ids, todo, by_id, run_item, skipped, interrupted, t0, cancel, on_progress)


def _load(opts: EvalOptions) -> Dataset:
    """The dataset, with the options that depend on it checked before anything is written."""
    ds = load_dataset(
        opts.dataset,
        path=opts.data_path,
        task=opts.task,
        text_col=opts.text_col,
        label_col=opts.label_col,
        id_col=opts.id_col,
    )
    problem = _option_problem(opts, ds)
    if problem is not None:
        raise problem
    return ds


def _option_problem(opts: EvalOptions, ds: Dataset) -> InvalidInput | None:
    """What is wrong with the options for this dataset (a category it has not, a count below 1), if anything."""
    if opts.category is not None and (not ds.categories or str(opts.category) not in ds.categories):
        return InvalidInput(
            f"--category {opts.category} does not apply to dataset {ds.name}.",
            "Categories 1-3 exist only for the CheckThat datasets; omit --category otherwise.",
        )
    if opts.concurrency < 1 or any(v is not None and v < 1 for v in (opts.limit, opts.sample)):
        return InvalidInput("--concurrency, --limit and --sample must be at least 1.", "Use positive numbers.")
    return None


def _dataset_meta(opts: EvalOptions, ds: Dataset) -> dict:
    """The dataset as the run folder records it (for its reports and the Evaluate page)."""
    return {
        "name": ds.name,
        "task": opts.task or ds.task,
        "labels": list(ds.labels),
        "categories": list(ds.categories),
        "has_gold": ds.has_gold,
        "path": ds.path,
        "format": ds.format,
    }


def _open_run(cp: Checkpoint, opts: EvalOptions, ds: Dataset, lineup: str | dict) -> list[Item]:
    """The run folder checked against these options (or made for them), and the selected items added to it."""
    cp.check_config(fingerprint(opts, ds, lineup))
    cp.set_meta("options", {**asdict(opts), "lineup": lineup})
    cp.set_meta("dataset", _dataset_meta(opts, ds))
    items = select_items(
        ds.items, limit=opts.limit, sample=opts.sample, sample_seed=opts.sample_seed, category=opts.category
    )
    cp.add_items((it.id, n, it.text, it.gold) for n, it in enumerate(items))
    cp.set_meta("selected", len(items))
    return items


def _wants_evidence(opts: EvalOptions) -> bool:
    """Evidence when asked for, and by default for the protocols that read it."""
    return bool(opts.evidence or (opts.evidence is None and opts.protocol in EVIDENCE_PROTOCOLS))


def _search_sources(opts: EvalOptions) -> str | None:
    """The sources of a several-source search, or None for the local index alone (as before --sources).
    Questions need the several-source search (the local index alone, when no source was chosen)."""
    if opts.sources or opts.questions:
        return opts.sources or ("local" if opts.questions else "")
    return None


def _pick_retriever(opts: EvalOptions, retriever: Any, hook: dict) -> Any:
    """The retriever given, else the hook's, else the one the options ask for (None: no evidence)."""
    if retriever is None:
        retriever = hook.get("retriever")
    if retriever is None and _wants_evidence(opts):
        sources = _search_sources(opts)
        retriever = _multi_retriever(sources) if sources is not None else _default_retriever()
    return retriever


def _item_runner(
    opts: EvalOptions,
    ds: Dataset,
    lineup: str | dict,
    out: Path,
    cancel: threading.Event,
    *,
    client: Any,
    retriever: Any,
    debate_fn: Callable | None,
) -> _ItemRunner:
    """What runs each item: the model client (and what the DEBATE_EVAL_HOOK adds), the debate and the retriever."""
    if client is None:
        client = make_client()
    hook = _apply_hook(client)
    debate_fn = debate_fn or hook.get("run_debate") or _debate_fn()
    retriever = _pick_retriever(opts, retriever, hook)
    return _ItemRunner(
        opts, opts.task or ds.task, lineup, out.name, ds.categories, client, retriever, debate_fn, cancel
    )


def _display_gold(gold: Any, category: int | None) -> Any:
    """The gold label shown beside the verdict (display only; the engine reads "YES,NO,YES" for all categories)."""
    if isinstance(gold, dict):
        return gold.get(str(category)) if category is not None else ",".join(gold.values())
    return gold


def _item_config(opts: EvalOptions, item: Item, *, task: str, lineup: str | dict, debate_id: str) -> Any:
    """One item's debate, as the run's options set it."""
    from debate.runner import DebateConfig

    return DebateConfig(
        claim=item.text,
        **_debate_settings(opts, task, lineup),
        gold=_display_gold(item.gold, opts.category),
        debate_id=debate_id,
        sources=opts.sources,
        questions=opts.questions,
    )


def _drain(debate_fn: Callable, cfg: Any, client: Any, retriever: Any, deadline: _Deadline) -> list[dict]:
    """The debate's events, token deltas left out (they are rebuilt from turn_finished; the store stays small).
    An exception becomes _ItemFailed, with the events so far."""
    events: list[dict] = []
    try:
        for ev in debate_fn(cfg, client, retriever, deadline):
            if ev.type != "token":
                events.append(ev.to_dict())
    except DebateError as e:
        raise _ItemFailed(type(e).__name__, e.message, e.hint, events) from e
    except Exception as e:
        raise _ItemFailed(type(e).__name__, str(e) or repr(e), "", events) from e
    return events


def _item_failure(events: list[dict], stats: dict, timed_out: bool, timeout_s: float | None) -> _ItemFailed | None:
    """Why a drained debate does not count as done (its time ran out, it did not complete), or None."""
    if timed_out:
        return _ItemFailed(
            "ItemDeadline",
            f"the item was still running after {timeout_s:g} s and was stopped",
            "Lower --max-tokens or the rounds, or raise --item-timeout.",
            events,
        )
    if stats["status"] != "completed":
        err: dict[str, Any] = next((e for e in reversed(events) if e.get("type") == "error"), {})
        return _ItemFailed(
            err.get("error") or "DebateNotCompleted",
            err.get("message") or f"debate ended with status {stats['status']!r}",
            err.get("hint", ""),
            events,
        )
    return None


@dataclass(frozen=True)
class _ItemRunner:
    """Runs one item (in a worker thread): (events, prediction, stats), or _ItemFailed with the events so far."""

    opts: EvalOptions
    task: str
    lineup: str | dict
    run_name: str
    categories: Any
    client: Any
    retriever: Any
    debate_fn: Callable
    cancel: threading.Event

    def __call__(self, item: Item) -> tuple[list[dict], Any, dict]:
        cfg = _item_config(
            self.opts, item, task=self.task, lineup=self.lineup, debate_id=f"eval-{self.run_name}-{item.id}"
        )
        deadline = _Deadline(self.cancel, self.opts.item_timeout_s)
        events = _drain(self.debate_fn, cfg, self.client, self.retriever, deadline)
        stats = debate_stats(events)
        failure = _item_failure(events, stats, deadline.passed() and not self.cancel.is_set(), self.opts.item_timeout_s)
        if failure is not None:
            raise failure
        pred = extract_prediction(events, self.categories, self.opts.category)
        return events, pred, stats


def _execute(
    opts: EvalOptions,
    cp: Checkpoint,
    out: Path,
    ids: list[str],
    todo: list[str],
    by_id: dict[str, Item],
    run_item: Callable,
    skipped: int,
    interrupted: int,
    t0: float,
    cancel: threading.Event,
    on_progress: Callable[[dict], None] | None,
) -> RunSummary:
    from tqdm import tqdm

    bar = tqdm(
        total=len(ids),
        initial=skipped,
        desc=out.name,
        unit="item",
        file=sys.stderr,
        disable=not opts.progress,
        dynamic_ncols=True,
    )
    batch = _Batch(opts, cp, todo, by_id, run_item, cancel, on_progress, bar, total=len(ids))
    with ThreadPoolExecutor(max_workers=opts.concurrency, thread_name_prefix="eval") as pool:
        batch.run(pool)
    bar.close()
    summary = _finish(out, cp, ids, ran=batch.ran, skipped=skipped, interrupted=interrupted, t0=t0)
    if batch.abort is not None:
        raise batch.abort
    return summary


def _progress(counts: dict[str, int], total: int, tokens: int) -> dict:
    """What on_progress is told after each item."""
    return {"done": counts.get("done", 0), "failed": counts.get("failed", 0), "total": total, "tokens": tokens}


class _Batch:
    """One invocation's items: at most `concurrency` in flight, failed ones queued again up to `retries`
    times, each one's end recorded in the checkpoint, and a stop when the first attempts all fail alike.
    Only the main thread touches this state; the workers run `run_item`."""

    def __init__(
        self,
        opts: EvalOptions,
        cp: Checkpoint,
        todo: list[str],
        by_id: dict[str, Item],
        run_item: Callable,
        cancel: threading.Event,
        on_progress: Callable[[dict], None] | None,
        bar: Any,
        *,
        total: int,
    ) -> None:
        self.opts, self.cp, self.by_id, self.run_item = opts, cp, by_id, run_item
        self.cancel, self.on_progress, self.bar, self.total = cancel, on_progress, bar, total
        self.todo = len(todo)
        self.queue: Iterator[str] = iter(todo)
        self.retry_queue: list[str] = []
        self.tries: dict[str, int] = {}
        self.failures: list[tuple[str, str]] = []
        self.successes = 0
        self.tokens = 0
        self.ran = 0
        self.abort: DebateError | None = None
        self.running: dict[Future, str] = {}

    def run(self, pool: ThreadPoolExecutor) -> None:
        self._fill(pool)
        while self.running:
            try:
                finished, _ = wait(list(self.running), return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:
                self.cancel.set()  # debates in flight stop between tokens; they stay `running` -> redone on resume
                self.bar.close()
                raise
            for fut in finished:
                self._settle(fut)
            self._fill(pool)

    def _fill(self, pool: ThreadPoolExecutor) -> None:
        while self.abort is None and len(self.running) < self.opts.concurrency and self._submit_next(pool):
            pass

    def _submit_next(self, pool: ThreadPoolExecutor) -> bool:
        if self.cancel.is_set():
            return False
        iid = self.retry_queue.pop(0) if self.retry_queue else next(self.queue, None)
        if iid is None:
            return False
        self.cp.mark_running(iid)  # committed before work starts: a kill now leaves it `running`
        self.tries[iid] = self.tries.get(iid, 0) + 1
        self.running[pool.submit(self.run_item, self.by_id[iid])] = iid
        return True

    def _settle(self, fut: Future) -> None:
        iid = self.running.pop(fut)
        self.ran += self.tries[iid] == 1
        try:
            events, pred, stats = fut.result()
        except _ItemFailed as f:
            self._failed(iid, f)
            return
        self._done(iid, events, pred, stats)

    def _failed(self, iid: str, f: _ItemFailed) -> None:
        if self.cancel.is_set():  # stopped by the user, not a failure: leave it for the resume
            self.cp.conn.execute("UPDATE items SET status='pending' WHERE item_id=?", (iid,))
            return
        self.failures.append((f.kind, f.message))
        if self.tries[iid] <= self.opts.retries and self.abort is None:
            self.retry_queue.append(iid)
            self.cp.conn.execute(
                "UPDATE items SET status='pending', error=? WHERE item_id=?",
                (f"{f.kind}: {f.message}", iid),
            )
        else:
            self.cp.finish(
                iid,
                status="failed",
                error=f"{f.kind}: {f.message} {f.hint}".strip(),
                events=f.events,
                stats=debate_stats(f.events),
            )
            self.bar.update(1)
        if should_abort(self.failures, self.successes, self.todo):
            self.abort = DebateError(
                f"Stopping the batch: the first attempts all failed with {f.kind}: {f.message}",
                f.hint or "Fix the lineup or the backend, then re-run the same command to resume.",
            )
            self.retry_queue.clear()

    def _done(self, iid: str, events: list[dict], pred: Any, stats: dict) -> None:
        self.successes += 1
        self.tokens += int(stats.get("tokens", 0))
        self.cp.finish(iid, status="done", prediction=pred, events=events, stats=stats)
        self.bar.update(1)
        counts = self.cp.counts()
        self.bar.set_postfix(
            tokens=self.tokens,
            fail=counts.get("failed", 0),
            s_per_item=f"{stats.get('wall_s', 0):.1f}",
            refresh=False,
        )
        if self.on_progress:
            self.on_progress(_progress(counts, self.total, self.tokens))


def _finish(
    out: Path, cp: Checkpoint, ids: list[str], *, ran: int, skipped: int, interrupted: int, t0: float
) -> RunSummary:
    from debate.evaluation.report import write_reports

    counts = cp.counts()
    metrics = write_reports(out)
    tokens = int((metrics or {}).get("debate", {}).get("tokens_total", 0))
    return RunSummary(
        out=str(out),
        total=len(ids),
        done=counts.get("done", 0),
        failed=counts.get("failed", 0),
        ran=ran,
        skipped=skipped,
        interrupted=interrupted,
        wall_s=time.perf_counter() - t0,
        tokens=tokens,
        metrics=metrics,
    )
