"""The default evidence corpus: AVeriTeC dev evidence answers (Schlichtkrull et al., NeurIPS 2023,
CC BY-NC 4.0), pooled over all 500 claims.

Only annotators' evidence answers and their source URLs are used. `justification` is written from
the fact-check article and would hand a model the verdict, so it is never read here. Boolean answers
("Yes"/"No") mean nothing out of context; their `boolean_explanation` (text from the source) is the
evidence instead. "No answer could be found" answers are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

from debate.data import locate
from debate.errors import InvalidInput
from debate.retrieval.corpus import Document

NAME = "averitec-dev"
LICENCE = "CC BY-NC 4.0"
ATTRIBUTION = (
    "AVeriTeC (Schlichtkrull, Guo & Vlachos, NeurIPS 2023 Datasets and Benchmarks), dev split "
    "evidence answers, CC BY-NC 4.0"
)


REL = "averitec/dev.json"


class NoLocalCorpus(InvalidInput):
    """AVeriTeC dev is not on this machine, so the default local index has nothing to hold. Features
    that search it say "no local corpus" and go on without local evidence."""


def dev_path() -> Path | None:
    """Where AVeriTeC dev is found (debate.data.locate's search order), None when nowhere."""
    return locate.find(REL)


def missing() -> NoLocalCorpus:
    what, fix = locate.missing_message(REL)
    return NoLocalCorpus(
        "No local corpus: " + what, fix + " Or build your own index: `python -m debate index build --corpus PATH`."
    )


def load_claims(path: Path | None = None) -> list[dict]:
    path = path or dev_path()
    if path is None:
        raise missing()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"The corpus file {path} does not exist.", "Check the path.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InvalidInput(f"Cannot read {path}: {e}.", "Restore the original AVeriTeC dev.json.") from None
    if not isinstance(data, list):
        raise InvalidInput(f"{path} is not a list of claims.", "Restore the original AVeriTeC dev.json.")
    return data


def evidence_text(answer: dict) -> str:
    if answer.get("answer_type") == "Unanswerable":
        return ""
    if answer.get("answer_type") == "Boolean":
        return (answer.get("boolean_explanation") or "").strip()
    return (answer.get("answer") or "").strip()


def claim_documents(claim_id: int, claim: dict) -> list[Document]:
    docs = []
    for qi, q in enumerate(claim.get("questions") or []):
        for ai, a in enumerate(q.get("answers") or []):
            text = evidence_text(a)
            if not text:
                continue
            docs.append(
                Document(
                    doc_id=f"averitec-dev/{claim_id}/q{qi}a{ai}",
                    text=text,
                    source=(a.get("source_url") or "").strip(),
                    meta={"claim_id": claim_id, "answer_type": a.get("answer_type", "")},
                )
            )
    return docs


def documents(path: Path | None = None) -> list[Document]:
    """One document per evidence answer; the claim's index in dev.json is its provenance."""
    return [d for i, c in enumerate(load_claims(path)) for d in claim_documents(i, c)]
