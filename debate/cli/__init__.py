"""The `python -m debate` subcommands, one module per area."""
