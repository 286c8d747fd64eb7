"""The debate viewer: navigation over thin pages; nothing else lives here.

Debate, Library and Models are always there; pages added by later features (Compare, Evaluate, Learn,
Adjudicate) appear in the menu as soon as their file exists.
"""

from pathlib import Path

import streamlit as st

from ui import presenter
from ui.style import apply_style

st.set_page_config(page_title="Debate viewer", page_icon="assets/logo.svg", layout="wide")
apply_style()

HERE = Path(__file__).parent
OPTIONAL = [
    ("pages/compare.py", "Compare", ":material/compare_arrows:"),
    ("pages/evaluate.py", "Evaluate", ":material/analytics:"),
    ("pages/learn.py", "Learn", ":material/school:"),
    ("pages/present.py", "Present", ":material/slideshow:"),
    ("pages/poll.py", "Poll", ":material/how_to_vote:"),
    ("pages/adjudicate.py", "Adjudicate", ":material/gavel:"),
]

pages = [
    st.Page("pages/debate.py", title="Debate", icon=":material/forum:", default=True),
    st.Page("pages/library.py", title="Library", icon=":material/library_books:"),
]
pages += [st.Page(path, title=title, icon=icon) for path, title, icon in OPTIONAL if (HERE / path).exists()]
pages.append(st.Page("pages/models.py", title="Models", icon=":material/memory:"))
if presenter.needed():  # reachable beyond loopback: the presenter's passcode first, and no other page,
    # except for a signed-in member of the labelling team, who gets the Adjudicate page alone
    if presenter.annotator() is not None:
        pages = [st.Page("pages/adjudicate.py", title="Adjudicate", icon=":material/gavel:", default=True)]
    else:
        pages = [st.Page(presenter.sign_in_page, title="Presenter sign-in", default=True)]
st.navigation(pages, position="hidden" if len(pages) == 1 else "sidebar").run()
