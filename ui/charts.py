"""Plotly figures for the debate: vote tallies per round and RADAR's stop checks.

Both are drawn (empty) as soon as a debate that will need them starts, because the first plotly chart
on a page stalls rendering while plotly's JavaScript loads; drawing it early keeps tokens flowing.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

COLORS = {
    "YES": "#2E9D57",
    "TRUE": "#2E9D57",
    "NO": "#D64545",
    "FALSE": "#D64545",
    "HALF-TRUE": "#E8A33D",
    "NEI": "#8C8C8C",
    "invalid": "#C9C9C9",
}
_EXTRA = ("#4C78A8", "#B279A2", "#72B7B2", "#9D755D")


def _layout(fig: go.Figure, height: int = 260) -> go.Figure:
    fig.update_layout(
        height=height,
        margin=dict(l=8, r=8, t=28, b=8),
        barmode="stack",
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0, title=None),
        plot_bgcolor="rgba(0,0,0,0)",
        paper_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def tally_figure(tallies: list[Any]) -> go.Figure:
    """Stacked vote counts per round, with the consensus share (right axis) against the threshold."""
    fig = go.Figure()
    rounds = [f"R{t.round}" for t in tallies]
    labels: list[str] = []
    for t in tallies:
        for k in t.counts or {}:
            if k not in labels:
                labels.append(k)
    for i, label in enumerate(labels):
        fig.add_bar(
            x=rounds,
            y=[(t.counts or {}).get(label, 0) for t in tallies],
            name=label,
            marker_color=COLORS.get(label.upper(), _EXTRA[i % len(_EXTRA)]),
        )
    invalid = [sum(1 for v in (t.votes or {}).values() if v is None) for t in tallies]
    if any(invalid):
        fig.add_bar(x=rounds, y=invalid, name="invalid", marker_color=COLORS["invalid"])
    if tallies:
        fig.add_scatter(
            x=rounds,
            y=[t.consensus_share for t in tallies],
            name="consensus",
            yaxis="y2",
            mode="lines+markers",
            line=dict(color="#333", width=2),
        )
        fig.add_scatter(
            x=rounds,
            y=[t.threshold for t in tallies],
            name="threshold",
            yaxis="y2",
            mode="lines",
            line=dict(color="#999", dash="dash"),
        )
    fig.update_layout(
        yaxis=dict(title="votes", rangemode="tozero", dtick=1),
        yaxis2=dict(title="consensus", overlaying="y", side="right", range=[0, 1.05], tickformat=".0%", showgrid=False),
        xaxis=dict(type="category"),
    )
    if not tallies:
        fig.add_annotation(
            text="waiting for the first votes…",
            showarrow=False,
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
            font=dict(color="#888"),
        )
    return _layout(fig)


def stop_figure(checks: list[Any]) -> go.Figure:
    """RADAR: stop margin and verdict confidence per round against τs and τc; stop when both clear."""
    fig = go.Figure()
    rounds = [f"R{c.round}" for c in checks]
    if checks:
        fig.add_bar(x=rounds, y=[c.stop_margin for c in checks], name="stop margin", marker_color="#4C78A8")
        fig.add_bar(
            x=rounds,
            y=[c.verdict_confidence for c in checks],
            name="P(verdict) (or sample share)",
            marker_color="#F58518",
        )
        fig.add_scatter(
            x=rounds,
            y=[c.tau_s for c in checks],
            name="τs",
            mode="lines+markers",
            line=dict(color="#4C78A8", dash="dash"),
        )
        fig.add_scatter(
            x=rounds,
            y=[c.tau_c for c in checks],
            name="τc",
            mode="lines+markers",
            line=dict(color="#F58518", dash="dash"),
        )
    else:
        fig.add_annotation(
            text="the first stop check comes after the opening round",
            showarrow=False,
            x=0.5,
            y=0.5,
            xref="paper",
            yref="paper",
            font=dict(color="#888"),
        )
    low = min([0.0] + [c.stop_margin for c in checks])  # P(STOP) - P(CONTINUE) can be negative
    fig.update_layout(yaxis=dict(range=[min(-0.05, low - 0.05) if low < 0 else 0, 1.05]), xaxis=dict(type="category"))
    _layout(fig)
    fig.update_layout(barmode="group")
    return fig


def confusion_figure(jv: dict) -> go.Figure:
    """Judge (columns) against the adjudicated gold (rows), counts in the cells."""
    fig = go.Figure(
        go.Heatmap(
            z=jv["matrix"],
            x=jv["columns"],
            y=jv["labels"],
            colorscale="Blues",
            text=jv["matrix"],
            texttemplate="%{text}",
            showscale=False,
        )
    )
    fig.update_layout(
        title="Judge vs adjudicated gold",
        xaxis_title="judge",
        yaxis_title="final label",
        yaxis={"autorange": "reversed"},
    )
    return _layout(fig, 320)


def calibration_figure(cal: dict) -> go.Figure:
    """Reliability diagram: per confidence bin, the judge's mean confidence against its accuracy."""
    bins = cal["bins"]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated", line={"dash": "dot", "color": "#999"})
    )
    fig.add_trace(
        go.Scatter(
            x=[b["confidence"] for b in bins],
            y=[b["accuracy"] for b in bins],
            mode="lines+markers+text",
            name="judge",
            text=[f"n={b['n']}" for b in bins],
            textposition="top center",
        )
    )
    fig.update_layout(
        title="Calibration of the judge's confidence",
        xaxis_title="confidence",
        yaxis_title="share correct",
        xaxis={"range": [0, 1]},
        yaxis={"range": [0, 1.05]},
    )
    return _layout(fig, 320)
