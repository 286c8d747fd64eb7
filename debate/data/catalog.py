"""Every dataset file the project reads, with its pinned SHA-256 and size, its licence, and what works
without it.

Why pinned sums: a fetched file is used only if it is byte for byte the file the aids were fitted on
and the tests were written against; a changed mirror, a captive portal's page or a cut download is
refused instead of silently giving other examples or other scores. The sums were computed from
unchanged copies of the published files (the AVeriTeC dev.json as downloaded, and LIAR's train.tsv and
valid.tsv as extracted from liar_dataset.zip), so for LIAR they are the sums of the extracted files,
not of the zip (the zip is only a container, opened and dropped).

CheckThat! 2025 Task 4a is CC BY 4.0 and ships in the repository (data/); AVeriTeC (CC BY-NC 4.0) and
LIAR (research use only) may not be redistributed here, so they are fetched from their publishers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DataFile:
    rel: str  # path under a data folder, e.g. "liar/train.tsv"
    sha256: str
    size: int
    member: str = ""  # inside the source's archive, when the source is one (LIAR's zip)


@dataclass(frozen=True)
class Source:
    name: str  # what `data fetch NAME` takes
    title: str
    licence: str
    files: tuple[DataFile, ...]
    shipped: bool  # in the repository's data/ folder
    url: str = ""  # where `data fetch` downloads from (empty: shipped, nothing to fetch)
    url_env: str = ""  # environment variable that replaces `url` (a mirror, or a test's stand-in)
    archive: str = ""  # "zip" when `url` is an archive holding the files as `member`s
    attribution: str = ""
    needed_by: str = ""  # the features that read it
    without: str = ""  # what happens when it is missing (everything else works)


CHECKTHAT = Source(
    name="checkthat",
    title="CheckThat! 2025 Task 4a (train, dev, test)",
    licence="CC BY 4.0",
    shipped=True,
    files=(
        DataFile(
            "checkthat2025_4a/ct_train.tsv", "3e6e7f3742fa8cc02619e9eecb7f56fcbc544d7671d1cc17a3efe943b3c24fa5", 239775
        ),
        DataFile(
            "checkthat2025_4a/ct_dev.tsv", "cd59a3f39a13eb96de08e47b0c36463ccade5595e888b6d528946102ed7bbaff", 26225
        ),
        DataFile(
            "checkthat2025_4a/ct_test.tsv", "6e4e75d7c867abacb93ed70ba4c3a1a8e110f7bb8b5c5eee3b361e97341fd517", 57320
        ),
    ),
    attribution="derived from SciTweets (Hafid et al., CIKM 2022); CLEF CheckThat! Lab 2025 Task 4a",
    needed_by="the small-model aids' demonstrations (train), tweet examples (dev), eval on checkthat-*",
    without="shipped in data/checkthat2025_4a/: missing only from a damaged clone (restore it with git)",
)

AVERITEC = Source(
    name="averitec",
    title="AVeriTeC dev",
    licence="CC BY-NC 4.0",
    shipped=False,
    files=(DataFile("averitec/dev.json", "499793726b4a5406780928a3d9dedc48d6dd53de778f22437d129cacdb08e300", 1785475),),
    url="https://huggingface.co/chenxwh/AVeriTeC/resolve/main/data/dev.json",
    url_env="DEBATE_DATA_URL_AVERITEC",
    attribution="Schlichtkrull, Guo & Vlachos, AVeriTeC, NeurIPS 2023 Datasets and Benchmarks",
    needed_by="the local evidence index's default corpus, claim examples, eval on averitec-dev(-3)",
    without=(
        "the local evidence index has no local corpus (debates use the online sources when the "
        "network allows, or none); claim examples come from LIAR alone; `eval --dataset "
        "averitec-dev` cannot run"
    ),
)

LIAR = Source(
    name="liar",
    title="LIAR (train, valid)",
    licence="research use only",
    shipped=False,
    archive="zip",
    files=(
        DataFile(
            "liar/train.tsv",
            "23ef8cb7ff57b25c941100d0744039cebc595d65a67ea190f72b330a658d8c36",
            2408165,
            member="train.tsv",
        ),
        DataFile(
            "liar/valid.tsv",
            "8dd3d7ed1a11e78ed7df090c9eddb0f91147f895850c78d49dd7b4e88fd09a16",
            301556,
            member="valid.tsv",
        ),
    ),
    url="https://www.cs.ucsb.edu/~william/data/liar_dataset.zip",
    url_env="DEBATE_DATA_URL_LIAR",
    attribution='William Yang Wang, "Liar, Liar Pants on Fire", ACL 2017',
    needed_by="claim examples (valid), eval on liar-*, refitting the RADAR judge's class weights (train)",
    without=(
        "claim examples come from AVeriTeC alone; `eval --dataset liar-valid|liar-train` cannot run; "
        "RADAR's fitted class weights are committed values and still apply"
    ),
)

SOURCES: dict[str, Source] = {s.name: s for s in (CHECKTHAT, AVERITEC, LIAR)}


def file_for(rel: str) -> tuple[Source, DataFile] | None:
    """The catalogue entry of a data file by its relative path, None for a file the catalogue does not
    know (a user's own file under DEBATE_SHARED_DATA)."""
    for s in SOURCES.values():
        for f in s.files:
            if f.rel == rel:
                return s, f
    return None


def sha256_of(path: Path) -> str:
    """The file's SHA-256, read in blocks (the datasets' fingerprints and the pinned sums alike)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
