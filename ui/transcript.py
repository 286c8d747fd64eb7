"""The debate as the viewer shows it: the engine's one transcript view (debate/view.py), named here for
the page code that has always imported it from ui/. Nothing is folded here: the page, the terminal and
the exports render the same `DebateView`.
"""

from __future__ import annotations

from debate.view import PALETTE, DebateView, Section, TurnView, VerdictView, build_view, split_reasoning

__all__ = ["PALETTE", "DebateView", "Section", "TurnView", "VerdictView", "build_view", "split_reasoning"]
