"""The papers' published numbers, and when one of our runs is comparable to them.

TurQUaz (CLEF CheckThat! 2025, Table 2): CheckThat 4a *dev* split, 7-14B Ollama models; per category
"F1" is the task's macro-F1 over YES/NO. RADAR: PolitiFact-Hidden (not public here; LIAR statements
are PolitiFact claims too, but a different split and label source), AVeriTeC 4-class (Table 4). RADAR's
tables are reproduced only where the text states the numbers; single-agent rows are derived from the
stated gains (e.g. "+19.3 accuracy"). Percent values are stored as fractions.
"""

from __future__ import annotations

TURQUAZ_TABLE2 = [  # (method, protocol, macro_f1, cat1, cat2, cat3)
    ("Council Debate", "council", 0.8634, 0.8756, 0.8634, 0.8512),
    ("Team Debate (Different Teams)", "team", 0.8423, 0.8234, 0.8634, 0.8401),
    ("Team Debate (Same Teams)", "team", 0.8312, 0.8123, 0.8456, 0.8357),
    ("Single Debate (o4-mini vs Claude-4)", "single", 0.8545, 0.8234, 0.8923, 0.8478),
    ("Single Debate (DeepSeek-R1 vs Qwen3)", "single", 0.8145, 0.7834, 0.8391, 0.8210),
    ("Single Debate (Gemma3 vs Phi4)", "single", 0.7923, 0.7634, 0.8156, 0.7980),
    ("Qwen3 (8B)", "baseline", 0.7389, 0.7123, 0.7834, 0.7212),
    ("DeepSeek-R1 (8B)", "baseline", 0.7345, 0.7634, 0.7234, 0.7167),
    ("Phi4 (14B)", "baseline", 0.7298, 0.7012, 0.7345, 0.7537),
    ("Gemma3 (12B)", "baseline", 0.7234, 0.7234, 0.7345, 0.7123),
    ("Llama3.1 (8B)", "baseline", 0.6834, 0.6612, 0.6934, 0.6956),
    ("Mistral (7B)", "baseline", 0.6723, 0.6501, 0.6823, 0.6845),
]

# (setting, method, protocol, accuracy, macro_f1, note)
RADAR_RESULTS = [
    ("PolitiFact-Hidden, retrieved evidence, GPT-4o-mini", "RADAR multi", "radar", 0.777, 0.633, "Table 2"),
    (
        "PolitiFact-Hidden, retrieved evidence, GPT-4o-mini",
        "RADAR single",
        "radar-single",
        0.584,
        0.510,
        "derived: multi minus the stated +19.3 acc / +12.3 F1",
    ),
    ("PolitiFact-Hidden, full evidence, GPT-4o-mini", "RADAR multi", "radar", 0.836, 0.708, "Table 2"),
    (
        "PolitiFact-Hidden, full evidence, GPT-4o-mini",
        "RADAR single",
        "radar-single",
        0.687,
        0.624,
        "derived: multi minus the stated +14.9 acc / +8.4 F1",
    ),
    (
        "PolitiFact-Hidden, LLaMA3-8B, early stopping",
        "RADAR multi (adaptive stop)",
        "radar",
        0.773,
        0.632,
        "Table 5: ~15% fewer tokens than 3 fixed rounds",
    ),
    ("PolitiFact-Hidden, LLaMA3-8B, 3 fixed rounds", "RADAR multi (no early stop)", "radar", 0.772, 0.623, "Table 5"),
    ("AVeriTeC dev, 4 classes, retrieved evidence", "RADAR multi", "radar", 0.778, 0.577, "Table 4"),
]


def comparable(dataset: str, protocol: str, category: int | None) -> dict:
    """Rows of the papers to show beside a run, with how comparable they are."""
    if dataset == "checkthat-dev":
        rows = [
            {
                "source": "TurQUaz Table 2 (CheckThat 4a dev)",
                "method": m,
                "protocol": p,
                "macro_f1": f,
                "cat1": c1,
                "cat2": c2,
                "cat3": c3,
                "same_protocol": p == protocol,
            }
            for m, p, f, c1, c2, c3 in TURQUAZ_TABLE2
        ]
        note = (
            "Same split and metric as TurQUaz Table 2; the paper used 7-14B models (Ollama, Q4), "
            "this run uses the lineup named above."
        )
        if category is not None:
            note += f" Only category {category} was run: compare the cat{category} column."
        return {"comparable": True, "note": note, "rows": rows}
    if dataset == "averitec-dev":
        return {
            "comparable": True,
            "note": "RADAR Table 4: AVeriTeC 4-class, top-20 retrieved passages, "
            "GPT-4o-mini; our retrieval corpus and backbones differ.",
            "rows": [_radar_row(r, protocol) for r in RADAR_RESULTS if r[0].startswith("AVeriTeC")],
        }
    if dataset.startswith("liar") or dataset == "averitec-dev-3":
        return {
            "comparable": False,
            "note": "RADAR reports PolitiFact-Hidden, not this dataset: the same kind "
            "of task (TRUE / HALF-TRUE / FALSE), shown for scale only.",
            "rows": [_radar_row(r, protocol) for r in RADAR_RESULTS if r[0].startswith("PolitiFact")],
        }
    return {"comparable": False, "note": "No published numbers for this dataset.", "rows": []}


def _radar_row(r: tuple, protocol: str) -> dict:
    setting, method, proto, acc, f1, note = r
    return {
        "source": f"RADAR ({setting})",
        "method": method,
        "protocol": proto,
        "accuracy": acc,
        "macro_f1": f1,
        "note": note,
        "same_protocol": proto == protocol,
    }
