"""The debate engine: model backends, protocols as event streams, retrieval, storage.

Nothing in this package imports Streamlit, so the engine runs the same from the command line,
in batch evaluation and behind the web app. At this level only the core (events, tasks, lineups, runner,
transcript, config, errors, ...); each concern has its package, and debate/layers.py says what may import what.
"""

__version__ = "0.1.0"
