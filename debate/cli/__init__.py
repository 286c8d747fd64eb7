"""The command line, one module per area: each exposes `register(subparsers)` and is listed in
debate/__main__.py (models, run/protocols/replay, index, eval, export/fork/robustness).

Top layer: may import anything in the engine; nothing in debate/ imports it.
"""
