"""The audience server: the only part of the app a room's phones reach.

Why a separate process: the presenter's Streamlit app holds every stored debate, the settings and the
controls that run models; exposing it to a room's Wi-Fi exposes all of that. `debate audience` (cli/audience.py)
runs a small Starlette app under uvicorn (server.py; Streamlit ships both) on its own port that serves two kinds of page and nothing else:

- a poll, at /p/TOKEN: the claim, one vote per phone and stage (a signed cookie), and the results once
  the presenter shows them;
- a seat, at /s/TOKEN: a person's own seat in one debate, where they read what their role's prompt shows
  and type their turn.

Both links carry an opaque token (links.py), never a debate's id; a token names one poll or one seat.
Votes go into the people store (debate.store.people), the same SQLite file the presenter's Poll and Present
pages read; a typed turn goes into a seat inbox (links.py) that the presenter's process hands to the waiting
seat (relay.py), so the turn is checked by the same parser as one typed on the Debate page.

Services layer: may import the store, the seats and everything below; never the live path, the CLI or the pages.
"""
