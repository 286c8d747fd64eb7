"""A fitted-values file of the test's own (thresholds, class weights), so tests never touch the packaged one."""

from __future__ import annotations

import pytest

from debate.aids import calibration as cal


@pytest.fixture()
def fitted(tmp_path, monkeypatch):
    """An empty fitted-values file of the test's own; returns a function that adds an entry."""
    path = tmp_path / "fitted.json"
    monkeypatch.setattr(cal, "FITTED_PATH", path)
    cal._fitted.cache_clear()
    yield lambda key, entry: cal.save_fitted(key, entry, path)
    cal._fitted.cache_clear()
