"""Debates passed on and varied: the files a stored debate is exported as (exports.py: JSON, CSV, the
Markdown transcript of markdown.py), a self-contained offline HTML file (html.py) — both transcripts
rendered from the one view, debate/view.py — forks that continue a
stored debate after round N (fork.py), robustness variants with re-seated agents (robustness.py) and the
family tree of forks and variants, read from the events (family.py), and recorded playback for a room,
beat by beat (playback.py).

Services layer: may import the runner and everything below it; never the CLI, teaching or adjudication.
"""
