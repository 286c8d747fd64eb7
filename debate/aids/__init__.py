"""Small-model aids: what makes the packaged 0.5B / 135M models' verdicts worth showing, one switch.

settings.py is the switch (which parameters it sets); demos.py picks similar CheckThat train tweets as
demonstrations (by meaning, or by shared words through lexical.py's TF-IDF index); calibration.py (pure)
holds the fitted thresholds (fitted_thresholds.json) and class weights. Aids layer: below the protocols,
which use it; may import only the foundation and the parts (models, prompts, retrieval, datasets), never a
protocol or the runner.
"""
