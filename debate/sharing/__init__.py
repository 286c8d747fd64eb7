"""Sharing a debate with other people: exports, forks, families, robustness, presentation playback."""
