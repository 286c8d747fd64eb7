"""eval-table: README tables come from the runs' metrics, ours beside the papers' rows."""

from __future__ import annotations

from debate.evaluation.summary import beside_papers, runs_table


def _ct(name: str, protocol: str, f1: float) -> dict:
    return {
        "dataset": "checkthat-dev",
        "categories": {
            "2": {
                "n": 32,
                "accuracy": 0.75,
                "macro_f1": f1,
                "f1": {"YES": 0.5, "NO": 0.8},
                "invalid": 1,
                "confusion": {"gold_labels": ["YES", "NO"], "matrix": [[4, 2], [6, 20]]},
            }
        },
        "coverage": {"done": 32},
        "debate": {
            "rounds_mean": 1.25,
            "early_stop_rate": 0.0,
            "tokens_mean": 5123.4,
            "wall_s_mean": 41.6,
            "labels_direct": {"NO": 20},
            "labels_repaired": {"YES": 11, "NO": 1},
        },
        "run": {
            "name": name,
            "protocol": protocol,
            "lineup": "embedded",
            "category": 2,
            "sample": 40,
            "sample_seed": 0,
            "limit": 32,
            "params": {"rounds": 2},
        },
    }


def test_runs_table_rows():
    liar = {
        "dataset": "liar-valid",
        "accuracy": 0.5,
        "macro_f1": 0.4,
        "f1": {"TRUE": 0.0, "FALSE": 0.7},
        "invalid": 0,
        "coverage": {"done": 18},
        "debate": {"rounds_mean": 0.5, "early_stop_rate": 0.5, "tokens_mean": 9000, "wall_s_mean": 60},
        "run": {"name": "liar-x", "protocol": "radar", "lineup": {"name": "mine"}, "params": {}},
    }
    lines = runs_table([_ct("ct-c", "council", 0.6543), liar]).splitlines()
    assert lines[0].count("|") == lines[1].count("|") == lines[2].count("|") == lines[3].count("|")
    assert lines[2] == (
        "| `ct-c` | checkthat-dev cat 2, stratified sample of 40 (seed 0), first 32 | council "
        '{"rounds": 2} | 32 | 0.750 | 0.654 | YES 0.50 / NO 0.80 | 1 | 12/32: YES 11, NO 1 | 1.25 | 0.00 | 5,123 | 42 | '
        "0.448 |"
    )
    # always NO on 6 YES / 26 NO: F1(NO) = 2*26/(26+32) = 0.897, F1(YES) = 0, macro 0.448
    assert (
        "| `liar-x` | liar-valid, all | radar {} | 18 | 0.500 | 0.400 |" in lines[3]
        and "| – |" in lines[3]
        and lines[3].endswith("| – |")
    )


def test_beside_papers_uses_the_category_column_and_same_protocol_rows():
    out = beside_papers([_ct("ct-c", "council", 0.6543), _ct("ct-b", "baseline", 0.3)]).splitlines()
    council, baseline = out[2], out[3]
    assert "| 0.654 |" in council and "| 0.8634 |" in council  # TurQUaz council, cat 2 column
    assert "0.6823–0.7834" in baseline and "Qwen3 (8B) 0.7834" in baseline  # the six single models, cat 2
    team = _ct("t", "team", 0.5)
    team["run"]["category"] = 3
    assert "0.8357–0.8401" in beside_papers([team])
