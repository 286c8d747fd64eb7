"""`python -m debate eval ...` and its companions: eval-report, eval-compare, eval-calibrate, datasets.

    python -m debate eval --dataset checkthat-dev --protocol council --lineup embedded --category 2 \
        --limit 20 --concurrency 2 --out runs/ct-dev-council-cat2
Re-running the same command resumes the run in that folder.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from debate.cli.run import AIDS_HELP
from debate.cli.server import add_server_args
from debate.errors import InvalidInput


def _kv(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param {text!r}: write key=value (value as JSON or text).")
    k, v = text.split("=", 1)
    try:
        val: object = json.loads(v)
    except json.JSONDecodeError:
        val = v
    return k.strip(), val


def register(sub: argparse._SubParsersAction) -> None:
    _add_eval(sub)
    _add_report(sub)
    _add_compare(sub)
    _add_calibrate(sub)
    _add_fit_threshold(sub)
    _add_table(sub)
    _add_targets(sub)
    d = sub.add_parser("datasets", help="list the named evaluation datasets")
    d.set_defaults(func=cmd_datasets)


def _add_eval(sub: argparse._SubParsersAction) -> None:
    """`eval`: its options in the order its help lists them."""
    p = sub.add_parser(
        "eval",
        help="run (or resume) a batch evaluation over a dataset",
        description="Run a protocol over a dataset with a checkpoint per item; "
        "re-run the same command to resume after a stop or a crash.",
    )
    _add_dataset_options(p)
    _add_model_options(p)
    _add_sample_options(p)
    _add_generation_options(p)
    _add_evidence_options(p)
    _add_item_options(p)
    _add_file_options(p)
    p.set_defaults(func=cmd_eval)


def _add_dataset_options(p: argparse.ArgumentParser) -> None:
    """Which dataset: a named split or a file of one's own."""
    p.add_argument(
        "--dataset",
        required=True,
        help="checkthat-train|checkthat-dev|checkthat-test|averitec-dev|"
        "averitec-dev-3|liar-valid|liar-train, or your own file: a CheckThat 4a TSV, AVeriTeC JSON or LIAR "
        "TSV (recognised by content, used like the named splits) or any .csv/.tsv/.jsonl",
    )
    p.add_argument("--data-path", help="your own copy of a named dataset's file")


def _add_model_options(p: argparse.ArgumentParser) -> None:
    """Which protocol, on which models (a lineup, or every seat on one server)."""
    p.add_argument("--protocol", default="council", help="single|team|council|baseline|radar|radar-single")
    p.add_argument("--lineup", default="embedded", help="lineup preset name or JSON file")
    add_server_args(p)


def _add_sample_options(p: argparse.ArgumentParser) -> None:
    """Which items of the dataset, judged as which task."""
    p.add_argument("--task", help="engine task for a custom file (checkthat|halftruth|averitec|custom)")
    p.add_argument("--category", type=int, choices=(1, 2, 3), help="CheckThat category (default: all three)")
    p.add_argument("--limit", type=int, help="only the first N items (of the sample, with --sample)")
    p.add_argument(
        "--sample",
        type=int,
        help="a seeded stratified sample of N items: each label keeps its "
        "share of the split, and the same --sample-seed picks the same items for every protocol",
    )
    p.add_argument("--sample-seed", type=int, default=0)


def _add_generation_options(p: argparse.ArgumentParser) -> None:
    """How many items at once, and the protocol's parameters, answer length and seed for each."""
    p.add_argument("--concurrency", type=int, default=2, help="items in flight at once (default 2)")
    p.add_argument(
        "--param",
        action="append",
        type=_kv,
        default=[],
        metavar="K=V",
        help="protocol parameter, repeatable (e.g. --param rounds=1 --param tau_s=0.9)",
    )
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)


def _add_evidence_options(p: argparse.ArgumentParser) -> None:
    """What evidence each item gets: how many passages, from which sources, searched with which questions."""
    from debate.retrieval.sources import names as source_names

    p.add_argument("--top-k", type=int, default=20)
    p.add_argument(
        "--sources",
        default=None,
        metavar="NAMES",
        help=f"evidence sources, comma-separated: {','.join(source_names())}, or auto (all that answer); "
        "default: the local index alone, ranked as before (reproducible runs)",
    )
    p.add_argument(
        "--questions",
        type=int,
        default=0,
        metavar="N",
        help="0-3 questions the lineup's judge model writes per claim, searched beside it (AVeriTeC / "
        "RADAR style; one more model call per item). Default 0: the claim alone, no model call",
    )
    ev = p.add_mutually_exclusive_group()
    ev.add_argument("--evidence", dest="evidence", action="store_true", default=None)
    ev.add_argument("--no-evidence", dest="evidence", action="store_false")


def _add_item_options(p: argparse.ArgumentParser) -> None:
    """How an item's answer is read (the cat2 rule, the aids), and how a failing item is tried again."""
    p.add_argument("--no-cat2-rule", action="store_true", help="do not apply cat2 positive => cat3 positive")
    p.add_argument("--aids", action=argparse.BooleanOptionalAction, default=False, help=AIDS_HELP)
    p.add_argument("--retries", type=int, default=2, help="extra attempts for a failing item (default 2)")
    p.add_argument(
        "--item-timeout",
        type=float,
        default=1800.0,
        help="seconds one item may run before it is stopped and counted failed (default 1800)",
    )


def _add_file_options(p: argparse.ArgumentParser) -> None:
    """A custom file's columns, and where the run is written."""
    p.add_argument("--text-col", default="text")
    p.add_argument("--label-col", default="label")
    p.add_argument("--id-col", default="id")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--out", required=True, help="run folder, e.g. runs/ct-dev-council")


def _add_report(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("eval-report", help="rewrite metrics.json and report.html of a run folder")
    r.add_argument("run")
    r.set_defaults(func=cmd_report)


def _add_compare(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("eval-compare", help="paired comparison of two runs (bootstrap CI, McNemar)")
    c.add_argument("run_a", help="a run folder, or several of one dataset joined by commas (pooled, each item once)")
    c.add_argument(
        "run_b", help="another run (or runs, as for run_a), or `constant`: the constant-label floor on run A's items"
    )
    c.add_argument("--n-boot", type=int, default=2000)
    c.set_defaults(func=cmd_compare)


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    k = sub.add_parser("eval-calibrate", help="RADAR early-stop grid search over a run's recorded scores")
    k.add_argument("run")
    k.add_argument("--objective", default="accuracy", choices=("accuracy", "macro_f1"))
    k.add_argument("--tolerance", type=float, default=0.0, help="accept this much less quality for fewer tokens")
    k.set_defaults(func=cmd_calibrate)


def _add_fit_threshold(sub: argparse._SubParsersAction) -> None:
    f = sub.add_parser(
        "eval-fit-threshold",
        help="fit the baseline's P(YES) threshold on a CheckThat train run, or a RADAR judge's class weights on a LIAR train run",
    )
    f.add_argument("runs", nargs="+", help="baseline runs on --dataset checkthat-train, one category each")
    f.add_argument(
        "--write",
        action="store_true",
        help="store in debate/aids/fitted_thresholds.json (used by --param calibration=threshold)",
    )
    f.set_defaults(func=cmd_fit_threshold)


def _add_table(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("eval-table", help="markdown tables of runs, and of runs beside the papers' numbers")
    t.add_argument("runs", nargs="+")
    t.set_defaults(func=cmd_table)


def _add_targets(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser(
        "eval-targets",
        help="the council's targets on CheckThat dev: against its best member, "
        "the k-NN reference, its own first vote and always-NO, pooled over categories, with "
        "paired bootstrap CIs and the least-similar third of the tweets",
    )
    g.add_argument(
        "runs",
        nargs="+",
        help="council runs, one per CheckThat category (e.g. runs/ct1-dev-... runs/ct2-dev-... runs/ct3-dev-...)",
    )
    g.add_argument("--k", type=int, default=8, help="nearest train tweets for the k-NN reference and the slice")
    g.add_argument(
        "--train-sample",
        type=int,
        default=40,
        help="stratified CheckThat train sample the k-NN threshold is fitted on (seed 0)",
    )
    g.add_argument("--n-boot", type=int, default=2000)
    g.set_defaults(func=cmd_targets)


def cmd_eval(args: argparse.Namespace) -> int:
    from debate.evaluation.runner import EvalOptions, run_eval
    from debate.retrieval.questions import check_count

    check_count(args.questions)  # before the dataset and the models load

    lineup = args.lineup
    from debate.cli.server import on_server

    if args.server:  # every seat on one server, its names checked before the first item
        from debate.models.registry import default_client

        lineup = on_server(args, args.lineup, default_client(cache=False))
    elif args.model_map:
        on_server(args, lineup, None)  # says that --model-map needs --server
    opts = EvalOptions(
        dataset=args.dataset,
        out=args.out,
        protocol=args.protocol,
        lineup=lineup,
        category=args.category,
        limit=args.limit,
        sample=args.sample,
        sample_seed=args.sample_seed,
        concurrency=args.concurrency,
        params=dict(args.param),
        max_tokens=args.max_tokens,
        seed=args.seed,
        evidence=args.evidence,
        top_k=args.top_k,
        task=args.task,
        data_path=args.data_path,
        text_col=args.text_col,
        label_col=args.label_col or None,
        id_col=args.id_col or None,
        retries=args.retries,
        item_timeout_s=args.item_timeout,
        apply_cat2_rule=not args.no_cat2_rule,
        progress=not args.no_progress,
        aids=args.aids,
        sources=args.sources,
        questions=args.questions,
    )
    s = run_eval(opts)
    _print_summary(s.to_dict())
    return 0 if s.failed == 0 else 1


def _print_summary(s: dict) -> None:
    m = s.get("metrics") or {}
    print(
        f"run {s['out']}: {s['done']}/{s['total']} done, {s['failed']} failed "
        f"(this time: {s['ran']} run, {s['skipped']} already done, {s['interrupted']} resumed after a stop), "
        f"{s['wall_s']:.1f}s, {s['tokens']} tokens"
    )
    if m.get("categories"):
        for c, sc in m["categories"].items():
            split = (
                f"  ({sc['split_excluded']} with annotators split, left out of F1)" if sc.get("split_excluded") else ""
            )
            print(
                f"  category {c}: macro-F1 {sc['macro_f1']:.4f}  F1(YES) {sc['f1_positive']:.4f}  "
                f"acc {sc['accuracy']:.4f}  n={sc['n']}{split}"
            )
    if m.get("macro_f1") is not None:
        print(f"  macro-F1 {m['macro_f1']:.4f}  accuracy {m['accuracy']:.4f}")
    if m.get("split_excluded") and not m.get("categories"):
        print(f"  {m['split_excluded']} decisions with annotators split, left out of F1")
    d = m.get("debate") or {}
    if d.get("items"):
        print(
            f"  rounds {d['rounds_mean']:.2f}  early-stop {d['early_stop_rate']:.2f}  "
            f"tokens/item {d['tokens_mean'] or 0:.0f}  s/item {d['wall_s_mean'] or 0:.1f}"
        )
    from debate.evaluation.report import reading_lines, vote_lines

    for line in vote_lines(m.get("vote")) + reading_lines(m.get("readings")):
        print(f"  {line}")
    print(f"  report: {Path(s['out']) / 'report.html'}")


def cmd_report(args: argparse.Namespace) -> int:
    from debate.evaluation.report import write_reports

    m = write_reports(args.run)
    print(json.dumps({k: m.get(k) for k in ("dataset", "macro_f1", "accuracy", "coverage")}, indent=2))
    print(f"wrote {Path(args.run) / 'metrics.json'} and {Path(args.run) / 'report.html'}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from debate.evaluation.browse import compare

    if args.run_b == "constant":
        from debate.evaluation.browse import pooled
        from debate.evaluation.fit import constant_rows
        from debate.evaluation.metrics import compare_runs

        rows, ds = pooled(args.run_a)
        res = compare_runs(rows, constant_rows(rows, list(ds.get("categories") or [])), ds, n_boot=args.n_boot)
    else:
        res = compare(args.run_a, args.run_b, n_boot=args.n_boot)
    if not res.get("n_items"):
        raise InvalidInput(f"{args.run_a} and {args.run_b} share no finished items.", "Run both on the same items.")
    lo, hi = res["ci"]
    mc = res["mcnemar"]
    print(f"A={args.run_a}  B={args.run_b}  on {res['n_items']} shared items")
    print(f"macro-F1 A-B = {res['macro_f1_diff']:+.4f}  {res['ci_level']:.0%} bootstrap CI [{lo:+.4f}, {hi:+.4f}]")
    print(
        f"McNemar: A right/B wrong {mc['a_only_correct']}, B right/A wrong {mc['b_only_correct']}, "
        f"p = {mc['p_value']:.4g}"
    )
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from debate.evaluation.calibrate import calibrate, jsonable, stop_rounds_table
    from debate.evaluation.checkpoint import read_meta, read_rows

    rows = read_rows(args.run)
    labels = list((read_meta(args.run, "dataset") or {}).get("labels") or [])
    res = calibrate(rows, labels, objective=args.objective, tolerance=args.tolerance)
    if not res.get("chosen"):
        raise InvalidInput(
            f"{args.run}: {res.get('note', 'nothing to calibrate')}.",
            "Record a RADAR run with early stopping off (e.g. --param tau_s=2 --param tau_c=2).",
        )
    out = Path(args.run) / "calibration.json"
    out.write_text(json.dumps(jsonable(res), indent=2))
    c = res["chosen"]
    print("trade-off curve (tokens/item -> accuracy, macro-F1):")
    for p in res["frontier"]:
        print(
            f"  τs={p['tau_s']!s:>6} τc={p['tau_c']!s:>6}  {p['tokens_mean']:8.0f}  "
            f"{p['accuracy']:.4f}  {p['macro_f1']:.4f}  stop rate {p['stop_rate']:.2f}"
        )
    print(
        f"chosen: τs={c['tau_s']} τc={c['tau_c']}  accuracy {c['accuracy']:.4f}  macro-F1 {c['macro_f1']:.4f}  "
        f"tokens/item {c['tokens_mean']:.0f}  stops per round {stop_rounds_table(rows, c['tau_s'], c['tau_c'])}"
    )
    print(f"wrote {out}")
    return 0


def cmd_fit_threshold(args: argparse.Namespace) -> int:
    from debate.aids.calibration import save_fitted
    from debate.evaluation.fit import fit_run

    for run in args.runs:
        key, entry = fit_run(run)
        if "weights" in entry:
            print(f"{key}: class weights {entry['weights']}  train macro-F1 {entry['train_macro_f1']}  n={entry['n']}")
        else:
            print(
                f"{key}: threshold {entry['threshold']}  train macro-F1 {entry['train_macro_f1']}  n={entry['n']} "
                f"({entry['positives']} YES)"
            )
        if args.write:
            save_fitted(key, entry)
    if args.write:
        print("wrote debate/aids/fitted_thresholds.json")
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    from debate.evaluation.browse import load_metrics
    from debate.evaluation.summary import beside_papers, runs_table

    ms = [load_metrics(r, fresh=True) for r in args.runs]
    print(runs_table(ms))
    print()
    print(beside_papers(ms))
    return 0


def cmd_targets(args: argparse.Namespace) -> int:
    from debate.evaluation.targets import collect, render

    for run in args.runs:
        if not (Path(run) / "checkpoint.sqlite").is_file():
            raise InvalidInput(
                f"{run} is not a run folder (no checkpoint.sqlite).",
                "Give the --out folders of `python -m debate eval --protocol council` runs.",
            )
    print(render(collect(args.runs, k=args.k, train_sample=args.train_sample), n_boot=args.n_boot))
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    from debate.datasets import list_datasets

    for d in list_datasets():
        where = "" if d["path"] else "  (not on this machine: python -m debate data fetch)"
        print(f"{d['name']:16} {d['task']:10} {'/'.join(d['labels']):28} {d['about']}{where}")
    return 0
