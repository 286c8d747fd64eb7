"""Learn's step-through keeps the step's new content in view.

The controls and the step's note stay at the top of the page (a sticky container), so they never scroll
away; after Previous or Next the page is scrolled so that what the step added sits just under them: the newest turn or tally line of the transcript, the verdict
card, the evidence or the claim. Streamlit's own HTML runs no script; a one-pixel inline frame (same
origin, ui.page_script) can reach the page, as the Debate page's scroll after Run does (ui/live_view.py). The script waits
until the run is over and no element is stale, scrolls, and looks again until the element stays in place
(the sticky bar moves as the page scrolls), for a few seconds at most; then it marks the page's body with
the step's number (`data-learn-followed`), which the browser test waits for.
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
    "debate_started": ".claim-card:not(.learn-note)",
}
NEWEST = ".turn, .tally, .round-title"

FOLLOW_JS = """<script>
(() => { const doc = window.parent.document; const want = %(selector)s; const newest = %(newest)s;
  let tries = 0, placed = 0;
  const fresh = (sel) => [...doc.querySelectorAll(sel)].filter(el => el.closest("[data-testid='stMain']")
      && !el.closest('[data-stale="true"]') && el.offsetParent !== null);
  const go = () => { const app = doc.querySelector('[data-testid="stApp"]');
    const busy = (app && app.dataset.testScriptState !== 'notRunning') || doc.querySelector('[data-stale="true"]');
    let els = busy ? [] : fresh(want || newest);
    if (!busy && want && !els.length && tries > 20) els = fresh(newest);
    const el = want && els.length && els[0].matches(want) ? els[0] : els[els.length - 1];
    if (el) { let box = el.parentElement;
      while (box && !(box.scrollHeight > box.clientHeight && /(auto|scroll)/.test(getComputedStyle(box).overflowY)))
        box = box.parentElement;
      const r = el.getBoundingClientRect(); const h = window.parent.innerHeight;
      const bar = doc.querySelector('.st-key-learn_controls');
      const under = bar ? bar.getBoundingClientRect().bottom + 8 : 70;
      const by = r.height > h - under - 20 ? r.top - under : r.bottom - h + 20;  // the whole element, else its top
      if (r.top < under - 1 || r.bottom > h + 1) { if (box) box.scrollBy({top: by}); else el.scrollIntoView(); }
      else if (++placed >= 2) { doc.body.dataset.learnFollowed = %(step)s; return; }  // in place twice: done
    }
    if (++tries < 80) setTimeout(go, 100); };
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
    from ui.page_script import run_in_page

    run_in_page(follow_js(kind, step))
