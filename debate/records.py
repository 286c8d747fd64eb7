"""Dataclasses kept as JSON objects (a model call in the response cache, a hard case in a queue file).

`from_dict` keeps only the keys the class declares: a file written by a later version, or edited by
hand, may carry others, and reading it must not fail on them.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, TypeVar

R = TypeVar("R", bound="Record")


class Record:
    """Mix into a @dataclass: `to_dict()` and `from_dict(d)`, the one ignoring keys it does not know."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]  # every subclass is a dataclass

    @classmethod
    def from_dict(cls: type[R], d: dict[str, Any]) -> R:
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]  # every subclass is a dataclass
        return cls(**{k: v for k, v in d.items() if k in names})
