"""The note shown when the evidence index could not be loaded: plain words, no code marks, no folders of
this machine (a room's screen shows it as text)."""

from __future__ import annotations

from debate.errors import InvalidInput
from debate.retrieval.averitec import missing
from debate.retrieval.retriever import load_failure_note


def test_the_index_note_is_plain_and_names_no_local_folder():
    no_index = InvalidInput(
        "There is no index named 'mine' in /tmp/pytest-of-root/home/indexes.",
        "Build it: `python -m debate index build --corpus PATH --name mine`",
    )
    for error in (no_index, missing(), OSError("[Errno 2] No such file: '/tmp/x/indexes/faiss.bin'")):
        note = load_failure_note(error)
        assert note.startswith("The evidence index could not be loaded, so no passages are shown.")
        assert "`" not in note and "/tmp" not in note and "searched" not in note, note
    assert load_failure_note(no_index).endswith("There is no index named 'mine'.")
