"""Explaining debates to people: a step-through of a stored debate with notes and vote dynamics
(steps.py, pure over event dicts) and each protocol's flow diagram, traced by running the protocol on a
scripted backend (flow.py).

Review layer: may import the runner, evaluation checkpoints and everything below them; never the CLI.
"""
