"""Learn's step-through keeps the step's new content in view.

The controls and the step's note sit in the sidebar, so they never scroll away; after Previous or Next the
main area is scrolled to what the step added: the newest turn or tally line of the transcript, the verdict
card, the evidence or the claim. Streamlit's own HTML runs no script; a zero-height component's frame (same
origin) can reach the page, as the Debate page's scroll after Run does (ui/live_view.py). The script waits
for the step's elements (a rerun marks the old ones stale) and tries for a few seconds.
"""

from __future__ import annotations

import json

# Which element shows a step of each kind; anything else is the newest line of the transcript.
TARGETS = {
    "verdict": ".verdict-card",
    "vote_comparison": ".verdict-card",
    "attribution": ".verdict-card",
    "finished": ".verdict-card",
    "evidence": ".evidence, .ev-sources",
    "debate_started": "[data-testid='stMain'] .claim-card",
}
NEWEST = ".turn, .tally, .round-title"

FOLLOW_JS = """<script>
(() => { const doc = window.parent.document; const want = %(selector)s; const newest = %(newest)s;
  let tries = 0;
  const fresh = (sel) => [...doc.querySelectorAll(sel)].filter(el => el.closest("[data-testid='stMain']")
      && !el.closest('[data-stale="true"]') && el.offsetParent !== null);
  const go = () => { const busy = doc.querySelector('[data-testid="stApp"][data-test-script-state="running"]');
    let els = busy ? [] : fresh(want || newest);
    if (!busy && want && !els.length && tries > 20) els = fresh(newest);
    const el = want && els.length && els[0].matches(want) ? els[0] : els[els.length - 1];
    if (el) { let box = el.parentElement;
      while (box && !(box.scrollHeight > box.clientHeight && /(auto|scroll)/.test(getComputedStyle(box).overflowY)))
        box = box.parentElement;
      const r = el.getBoundingClientRect(); const h = window.parent.innerHeight;
      const by = r.height > h - 140 ? r.top - 80 : r.bottom - h + 60;  // the whole element, else its top
      if (r.top < 70 || r.bottom > h - 10) { if (box) box.scrollBy({top: by}); else el.scrollIntoView(); }
      doc.body.dataset.learnFollowed = %(step)s; return; }
    if (++tries < 60) setTimeout(go, 100); };
  setTimeout(go, 50); })();
</script>"""


def follow_js(kind: str, step: int) -> str:
    """The script that scrolls to step `step` (of kind `kind`); the step's number makes each script new,
    so Streamlit mounts it again after every click."""
    return FOLLOW_JS % {
        "selector": json.dumps(TARGETS.get(kind, "")),
        "newest": json.dumps(NEWEST),
        "step": json.dumps(str(step)),
    }


def follow_step(kind: str, step: int) -> None:
    """Scroll the main area to what step `step` added (call it last on the page, after the transcript)."""
    import streamlit.components.v1 as components

    components.html(follow_js(kind, step), height=0)
