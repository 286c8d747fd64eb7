"""Page-wide look: the app's stylesheet, loaded once per script run."""

from __future__ import annotations

from functools import lru_cache

import streamlit as st

from debate.config import ASSETS


@lru_cache(maxsize=1)
def _css() -> str:
    return (ASSETS / "style.css").read_text(encoding="utf-8")


def apply_style() -> None:
    st.html(f"<style>{_css()}</style>")
