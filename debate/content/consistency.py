"""Do the screens of one debate say the same thing? Statements read from rendered text, and their contradictions.

Every screen and export of a stored debate (the verdict card and bubbles of the Debate and Library pages,
Learn's notes, Present, the Markdown / HTML / terminal transcripts, the JSON export) states the same
facts in its own words: the verdict's label, who voted what as written and as counted, whether a round
reached consensus, whether the first vote was unanimous, how the debate stopped, whether the small-model
aids ran. debate/outcome.py is meant to be the one place they come from; this module checks, from the
rendered *text* alone, that it is: it reads each screen's statements and reports every one that
contradicts another. Reading the text (not the view objects) is the point: a screen that formats the
outcome's words its own way, or reads an event field the outcome does not, is caught where a reader
would catch it.

A statement is (screen, key, value, quote). Keys:

- `verdict` (`verdict#2`… when a screen gives several, as an all-categories CheckThat debate does);
- `consensus:rN` — "reached" / "not reached", from a tally line or from a chair's tag (which states the
  tally it read);
- `counts:rN:written`, `counts:rN:counted` — "NO=1,YES=2" from a tally line, a headline, or the members'
  tags of that round when the screen tags every vote the tally counts; `counts:final:*` from the verdict's
  headline (the last tally), resolved to the last round any screen shows;
- `vote:rN:AGENT:written` / `:counted` — a member's tag ("YES", or "wrote NO, counted as YES");
- `unanimous:first:written` / `:counted` — "yes" / "no", from the "Debate vs. vote" line and Learn's note,
  and derived from the first tally and the first round's tags;
- `status`, `stop_reason`, `rounds`, `aids` ("on" / "off", from the settings line).

Two statements with one key and two values contradict each other. Model text is hostile and may contain
any of these words: it is left out where the markup marks it (Markdown quotes, the HTML's text blocks,
the terminal's turn bodies), and tags are read only where the product draws them (chips, "→" footers,
"— **…**" after a Markdown turn heading).

Pure: text in, statements and contradictions out; imports nothing else of `debate`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser

LABELS = ("HALF-TRUE", "NOT ENOUGH INFO", "TRUE", "FALSE", "YES", "NO", "NEI")
_ALT = "|".join(re.escape(x) for x in LABELS)
_L = r"(?<![\w-])(" + _ALT + r")(?![\w-])"
LABEL = re.compile(_L)
NO_VERDICT = "no verdict"
VOTE_ROLES = ("member",)
CHAIR_ROLES = ("chair", "chairperson")
DECIDERS = ("judge", "baseline")  # the roles whose answer is the verdict as written
TAG_OPEN, TAG_CLOSE = "⟦", "⟧"  # a tag the product draws (a chip, a footer): never model text


@dataclass(frozen=True)
class Statement:
    screen: str
    key: str
    value: str
    quote: str  # the line it was read from (shortened)


@dataclass(frozen=True)
class Contradiction:
    key: str
    said: Statement  # the statement that contradicts
    against: Statement  # the one it contradicts (the reference value's first statement)

    def __str__(self) -> str:
        return (
            f"{self.key}: {self.said.screen} says {self.said.value!r} ({self.said.quote!r}) "
            f"but {self.against.screen} says {self.against.value!r} ({self.against.quote!r})"
        )


# -- text of a screen, as lines a reader sees -----------------------------------------------------------
_BLOCK = {"div", "p", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "table", "section", "main", "hr"}
_MODEL_TEXT = {
    "txt",
    "raw",
    "raw-json",
    "full-text",
    "think",
    "explanation",
    "quote",
    "claim",
    "claim-text",
    "p-claim",
    "p-expl",
    "p-said",
}
_SKIP_TAGS = {"script", "style", "svg", "details", "title", "head"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr", "source"}


class _Flatten(HTMLParser):
    """HTML to lines: block elements break lines, chips become ⟦tags⟧, model text and folded parts are left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[tuple[str, bool, bool]] = []  # (tag, skipping, chip)

    @property
    def skipping(self) -> bool:
        return any(s for _, s, _ in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        if tag in _BLOCK:
            self.out.append("\n")
        if tag in _VOID:
            return
        skip = tag in _SKIP_TAGS or bool(classes & _MODEL_TEXT)
        chip = tag == "span" and "chip" in classes
        if chip and not self.skipping:
            self.out.append(" " + TAG_OPEN)
        self.stack.append((tag, skip, chip))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            t, _, chip = self.stack.pop()
            if chip and not self.skipping:
                self.out.append(TAG_CLOSE + " ")
            if t == tag:
                break
        if tag in _BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(data)


def _looks_html(text: str) -> bool:
    return bool(re.search(r"<(div|span|p|h[1-6]|table|main|br|b|details)\b", text))


def lines_of(text: str) -> list[str]:
    """A screen's text as the lines a reader sees, model text left out and drawn tags marked ⟦…⟧."""
    if _looks_html(text):
        p = _Flatten()
        p.feed(text)
        p.close()
        raw = "".join(p.out).split("\n")
    else:
        raw = text.split("\n")
    out: list[str] = []
    in_turn = False  # the terminal transcript: a turn's body between its "▶" header and its footer
    for line in raw:
        s = re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip()
        st = s.strip()
        if st.startswith(">"):  # a Markdown quote: model text
            continue
        if st.startswith("▶ "):
            in_turn = True
            out.append(st)
            continue
        if in_turn:
            m = re.match(r"^→ (.*?)(?: · (?:cut|shortened|repaired|cites|reasoning).*?)?(?: · \d+\+\d+ tok.*)?$", st)
            if re.search(r"\d+\+\d+ tok · ", st) or m:
                in_turn = False
                if m:
                    out.append(f"{TAG_OPEN}{m.group(1)}{TAG_CLOSE}")
                elif st.startswith(("INVALID", "NO ANSWER")):
                    out.append(f"{TAG_OPEN}invalid{TAG_CLOSE}")
            continue
        st = re.sub(r"^#{1,6}\s+", "", st)
        st = re.sub(r"^(?:- |▶ ?\d+\. |\d+\. )", "", st)  # a list's bullet or number (Learn's list of steps)
        # a Markdown turn heading's tag: "### smol (member, m) — **wrote NO, counted as YES**"
        st = re.sub(
            r"^(\S+ \([^)]*\)) — \*\*(.+?)\*\*", lambda m: f"{m.group(1)} {TAG_OPEN}{m.group(2)}{TAG_CLOSE}", st
        )
        st = re.sub(
            r"^(\S+ \([^)]*\)) — (INVALID answer|no answer \(countdown ended\))",
            rf"\1 {TAG_OPEN}invalid{TAG_CLOSE}",
            st,
        )
        st = st.replace("**", "").replace("__", "")
        st = re.sub(r"\s+", " ", st).strip()
        if st:
            out.append(st)
    return out


# -- reading statements ------------------------------------------------------------------------------
def _counts(d: Mapping[str, int]) -> str:
    return ",".join(f"{k}={d[k]}" for k in sorted(d) if d[k] and k != "invalid")


def _say_counts(say, key: str, d: Mapping[str, int], quote: str) -> None:
    """A tally's counts, and its unreadable votes apart: a line that leaves them out omits, it does not contradict."""
    say(key, _counts(d), quote)
    if "invalid" in d:
        say(key.replace("counts:", "invalid:", 1), d["invalid"], quote)


def _parse_list(s: str) -> dict[str, int]:
    """ "2 YES, 1 NO" -> counts."""
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"(\d+) " + _L, s)}


_WROTE = re.compile(
    r"((?:\d+ wrote (?:"
    + _ALT
    + r")(?:, )?)+)(?:, (\d+) gave no readable vote)?; counted from their probabilities: ([^·—\n⟧]*)"
)
_OF = re.compile(r"(\d+) of (\d+) members voted " + _L + r"(?: \(([^)]*)\))?")
_TALLY = re.compile(r"Votes,? \(?round (\d+)\)?:(.*)")
_CONS = re.compile(r"consensus (\d+)% (?:vs (?:threshold|θ) |\(θ )(\d+)%\)?\W*(not reached|reached|votes stabilised)")
_ONE_VOTE = re.compile(r"^Vote, round (\d+): (\S+) (?:wrote " + _L + r", counted as|changed to) " + _L + r"$")
_CONS_LEARN = re.compile(r"consensus (\d+)% (<|≥) (\d+)%")
# Learn's tally note: "67% of the members agree on one label (the consensus), and the council needs 80% to stop"
_CONS_LEARN_WORDS = re.compile(
    r"(\d+)% of the members agree on one label \(the consensus\), and the council needs (\d+)%"
)
_TURN = re.compile(
    r"^(?:▶\s+)?([^\s()·⟦]+)\s*(?:\(|·)?\s*(member|chairperson|chair|judge|baseline|proponent|opponent)\b[),]?(.*)$"
)
# a bubble whose agent is named for its role draws no role beside it: "chair local:qwen ⟦CONSENSUS …⟧"
_ROLE_AGENT = re.compile(r"^((chairperson|chair|judge|baseline))\s+(?!\()(\S+\s*⟦.*)$")
_CHAIR = re.compile(r"(CONSENSUS (?:NOT )?REACHED)", re.I)
_INVALID = re.compile(r"invalid|no answer|no readable vote|INVALID", re.I)


def _headline_counts(s: str) -> tuple[dict[str, int], dict[str, int]] | None:
    """(written, counted) from a headline: "2 wrote YES, 1 wrote NO; counted from their probabilities: 3 YES"
    or "2 of 3 members voted YES (2 YES, 1 NO)"."""
    m = _WROTE.search(s)
    if m:
        written = {x.group(2): int(x.group(1)) for x in re.finditer(r"(\d+) wrote " + _L, m.group(1))}
        if m.group(2):
            written["invalid"] = int(m.group(2))
        counted = _parse_list(m.group(3))
        return written, counted
    m = _OF.search(s)
    if m:
        k, n, top, inner = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4) or ""
        counted = _parse_list(inner) if inner else {top: k}
        bad = re.search(r"(\d+) invalid", inner)
        if bad:
            counted["invalid"] = int(bad.group(1))
        elif not inner and k != n:
            counted["invalid"] = n - k
        return dict(counted), counted
    return None


def _tally_counts(rest: str) -> dict[str, int]:
    """Counted votes from a tally line without a headline: "YES: 2, NO: 1", "YES 2, NO 1", "⟦YES⟧ ×2"."""
    head = rest.split("consensus")[0]
    c = {m.group(1): int(m.group(2)) for m in re.finditer(_L + r"⟧?\s*(?::|×)?\s*(\d+)", head)}
    bad = re.search(r"invalid\s*×?\s*(\d+)", head)
    if bad:
        c["invalid"] = int(bad.group(1))
    return c


def _vote_tag(t: str) -> tuple[str | None, str | None] | None:
    """(written, counted) from a member's tag text; None when it carries no vote."""
    w = re.search(r"wrote " + _L, t)
    c = re.search(r"(?:counted as|the tally counts|votes) " + _L, t)
    if w or c:
        written = w.group(1) if w else (c.group(1) if c else None)
        return written, (c.group(1) if c else written)
    m = LABEL.search(t)
    if m:
        return m.group(1), m.group(1)
    if _INVALID.search(t):
        return "invalid", "invalid"
    return None


def _unanimous_words(s: str) -> tuple[str | None, str | None] | None:
    """(written, counted) unanimity from a "Debate vs. vote" line or Learn's note on it."""
    low = s.lower()
    if "unanimous at the first vote" in low or "everyone agreed at once" in low:
        if "every member wrote" in low:  # unanimous both ways, on different labels
            return "yes", "yes"
        if "not as written" in low:
            return "no", "yes"
        if "as counted" in low:
            return None, "yes"
        return "yes", "yes"
    if "first vote's majority stood" in low or "ended where the plain vote would have" in low:
        return None, "no"
    return None


def _round_key(rnd: int | str, seg: int) -> str:
    """A round's mark in a key: `r2` in the first debate of a run, `s1r2` in the next category's (an
    all-categories run's tallies start their rounds again at each category)."""
    return f"r{rnd}" if seg == 0 else f"s{seg}r{rnd}"


def _segment_key(name: str, seg: int) -> str:
    """`first` / `final` in a run's first debate, `first1` / `final1`… in the next categories' debates."""
    return name if seg == 0 else f"{name}{seg}"


def _numbered(key: str, n: int) -> str:
    """The n-th statement of a key a screen may give several times: `verdict`, `verdict#2`, …"""
    return key if n <= 1 else f"{key}#{n}"


def _status_word(word: str) -> str:
    """A debate's status as the record names it: a screen's "failed" is the record's "error"."""
    return "error" if word == "failed" else word


def _tally_line_counts(rest: str) -> tuple[dict[str, int] | None, dict[str, int] | None]:
    """(written, counted) from what follows "Votes, round N:": its headline's, else the counts it lists
    (the same as written and as counted)."""
    hc = _headline_counts(rest)
    written, counted = hc if hc else (None, None)
    if counted is None:
        counted = _tally_counts(rest)
        written = dict(counted) if counted else None
    return written, counted


def _learn_consensus(line: str) -> list[str]:
    """ "reached" / "not reached" as Learn's note under a tally states it, in symbols and in words."""
    said = []
    c = _CONS_LEARN.search(line)
    if c:
        said.append("reached" if c.group(2) == "≥" else "not reached")
    cw = _CONS_LEARN_WORDS.search(line)
    if cw:
        said.append("reached" if int(cw.group(1)) >= int(cw.group(2)) else "not reached")
    return said


def _judge_label(rest: str) -> str | None:
    """The label a judge's (or baseline's) tag gives, "invalid" for an unreadable answer, None for neither."""
    wrote = re.search(r"\bwrote " + _L, rest)  # "⟦FALSE⟧ wrote HALF-TRUE, counted as FALSE": the turn wrote HALF-TRUE
    j = wrote or LABEL.search(rest)
    if j:
        return j.group(1)
    return "invalid" if f"{TAG_OPEN}invalid" in rest else None


def _category_labels(line: str, after_heading: bool) -> list[tuple[str, str]]:
    """(category, label) of an all-categories run's answer ("Final verdict: {1: YES, 2: NO}", or the line
    after a bare "Verdict" heading); none unless the line gives several, or one in a dict's form."""
    fin = re.match(r"^(?:VERDICT|Verdict|Final verdict)\b[^:]*:\s*(.*)$", line)
    dict_like = fin.group(1) if fin else (line if after_heading and line.startswith("{") else "")
    pairs = re.findall(r"(?:cat |[\"'])?(\d)[\"']?\s*:\s*⟦?[\"']?" + _L, dict_like)
    if len(pairs) > 1 or (pairs and dict_like.startswith(("{", "cat "))):
        return pairs
    return []


def _cost_facts(line: str) -> list[tuple[str, int]]:
    """What a debate cost, as its closing line states it: tokens (or prompt+completion), model calls, cache hits."""
    facts = []
    t = re.search(r"([\d,]+)\+([\d,]+) tokens", line) or re.search(r"([\d,]+)() tokens", line)
    if t:
        facts.append(("tokens", int(t.group(1).replace(",", "")) + int(t.group(2).replace(",", "") or 0)))
    for key, pat in (("model_calls", r"([\d,]+) model calls"), ("cache_hits", r"([\d,]+) cache hits")):
        m = re.search(pat, line)
        if m:
            facts.append((key, int(m.group(1).replace(",", ""))))
    return facts


def _ending_facts(line: str, after_heading: bool) -> list[tuple[str, object]]:
    """How the debate ended, from a closing line ("Finished: …", "══ completed …", "completed · N model
    calls"), the line after a "Debate completed" heading (`after_heading`) or the page's counters."""
    facts: list[tuple[str, object]] = []
    f = re.match(r"^Finished: (\w+) \((.*?)\)", line) or re.match(
        r"^══ (completed|stopped|failed|error)(?:: (.+?))? · \d+ model calls", line
    )
    if f:
        reason = f.group(2) or ""
        facts += [
            ("status", _status_word(f.group(1))),
            ("stop_reason", "" if reason in ("", "done") else reason.strip()),
        ]
        facts += _cost_facts(line)
    f = re.match(r"^(completed|stopped|failed|error) · [\d,]+ model calls", line)
    if f:
        facts += [("status", _status_word(f.group(1))), *_cost_facts(line)]
    if after_heading:
        f = re.match(r"^(\d+) rounds?, .*? s(?:; (.*))?\.$", line)
        if f:
            facts += [("rounds", f.group(1)), ("stop_reason", (f.group(2) or "").strip()), *_cost_facts(line)]
    f = re.match(r"^(Tokens|Model calls|Cache hits): ([\d,]+)$", line)  # the page's counters
    if f:
        facts.append((f.group(1).lower().replace(" ", "_"), int(f.group(2).replace(",", ""))))
    return facts


def _reading_facts(line: str) -> list[tuple[str, str]]:
    """A verdict's two readings, as debate.outcome.Reading's note gives them."""
    facts = []
    cal = re.search(r"Calibrated reading: " + _L, line)
    if cal:
        facts.append(("verdict:calibrated", cal.group(1)))
    both = re.search(r"wrote " + _L + r"; the calibration gives " + _L, line)
    if both:
        facts += [("verdict:written", both.group(1)), ("verdict:calibrated", both.group(2))]
    return facts


def _aids(line: str) -> str | None:
    """ "on" / "off" from the settings line, None from any other line."""
    if re.search(r"small-model aids on\b|small-model aids' values in effect", line):
        return "on"
    if re.search(r"small-model aids off\b", line):
        return "off"
    return None


_Vote = tuple[str | None, str | None, str]  # a member's tag: (written, counted, its line)


class _ScreenReader:
    """One screen's statements, read line by line in the order a reader meets them.

    A line's meaning can hang on what came before it (a member's tag on the tally that follows, a bare
    "Verdict" heading on the next line, rounds that start again at the next category's debate): that
    is the state kept here. What one line states by itself is read by the pure functions above."""

    def __init__(self, screen: str) -> None:
        self.screen = screen
        self.out: list[Statement] = []
        self.pending: dict[str, _Vote] = {}  # member votes since the last tally
        self.first_round_votes: list[_Vote] = []
        self.open_turn: tuple[str, str] | None = None
        self.last_round: int | None = None
        self.first_round: int | None = None
        self.seg = 0  # which debate of an all-categories run the tallies belong to (their rounds start again at each)
        self.verdicts = 0
        self.last_judge: tuple[str, str] | None = None  # the last judge's tag: (label, line)
        self.comparisons = 0
        self.prev = ""
        self.expect = ""  # what the next line states: "verdict" (after a bare "Verdict" heading), "finished" (Learn)

    def say(self, key: str, value: object, quote: str) -> None:
        self.out.append(Statement(self.screen, key, str(value), quote[:160]))

    def say_all(self, facts: Iterable[tuple[str, object]], quote: str) -> None:
        for key, value in facts:
            self.say(key, value, quote)

    def read(self, line: str) -> None:
        """One line's statements; the steps in this order, a step that takes the whole line ends it."""
        if self._one_vote(line) or self._listed(line) or self._tally(line):
            return
        if self.last_round is not None and self.prev.startswith("Votes, round"):
            for value in _learn_consensus(line):
                self.say(f"consensus:{_round_key(self.last_round, self.seg)}", value, line)
        if self._turn(line) or self._stop_check(line):
            return
        self._stop_words(line)
        if self._category_answer(line) or self._category_answers(line) or self._verdict(line):
            return
        self._headline(line)
        self._comparison(line)
        self._unanimity(line)
        self.say_all(_ending_facts(line, self.expect == "finished"), line)
        if self._debate_heading(line):
            return
        self.say_all(_reading_facts(line), line)
        aids = _aids(line)
        if aids:
            self.say("aids", aids, line)
        self.expect = ""
        self.prev = line

    def close(self) -> list[Statement]:
        """What the whole screen states: the last judge's label, and a first round whose tags differ."""
        if self.last_judge is not None:
            self.say("judge:last", *self.last_judge)
        # the first round's tags: two different votes are never unanimous
        ws = {w for w, _, _ in self.first_round_votes if w}
        cs = {c for _, c, _ in self.first_round_votes if c}
        if self.first_round is not None:
            q = f"the members' tags of round {self.first_round}"
            if len(ws) > 1:
                self.say("unanimous:first:written", "no", q)
            if len(cs) > 1:
                self.say("unanimous:first:counted", "no", q)
        return self.out

    def _one_vote(self, line: str) -> bool:
        """One vote with its round (a table's row: Learn's dynamics, the CSV)."""
        one = _ONE_VOTE.match(line)
        if not one:
            return False
        rnd, agent = one.group(1), one.group(2)
        if one.group(3):
            self.say(f"vote:r{rnd}:{agent}:written", one.group(3), line)
        self.say(f"vote:r{rnd}:{agent}:counted", one.group(4), line)
        return True

    def _listed(self, line: str) -> bool:
        """The Library's row: its verdict and status."""
        listed = re.match(r"^Listed: verdict (.+?) · status (\w+)$", line)
        if not listed:
            return False
        self.say("answer", listed.group(1), line)  # the run's answer: its last verdict, whatever came before
        self.say("status", listed.group(2), line)
        return True

    def _tally(self, line: str) -> bool:
        """A tally, "Votes, round N: …": its consensus and counts, then the members' tags of its round."""
        m = _TALLY.search(line)
        if not m or "members voted" in line[: m.start()]:
            return False
        rnd, rest = int(m.group(1)), m.group(2)
        if self.last_round is not None and rnd <= self.last_round:  # the rounds start again: the next category's
            self.seg += 1
        rk = _round_key(rnd, self.seg)
        self.last_round = rnd
        self.first_round = rnd if self.first_round is None else min(self.first_round, rnd)
        c = _CONS.search(rest)
        if c:
            self.say(f"consensus:{rk}", "reached" if c.group(3) == "reached" else "not reached", line)
        written, counted = _tally_line_counts(rest)
        if counted:
            _say_counts(self.say, f"counts:{rk}:counted", counted, line)
        if written:
            _say_counts(self.say, f"counts:{rk}:written", written, line)
        self._round_tags(rnd, rk, sum((counted or {}).values()))
        self.pending = {}
        self.prev = line
        return True

    def _round_tags(self, rnd: int, rk: str, total: int) -> None:
        """The members' tags since the last tally, as votes of this round; their counts when they are all of
        the tally's votes."""
        if not self.pending:
            return
        for agent, (w, cnt, q) in self.pending.items():
            if w is not None:
                self.say(f"vote:{rk}:{agent}:written", w, q)
            if cnt is not None:
                self.say(f"vote:{rk}:{agent}:counted", cnt, q)
        if total and len(self.pending) == total:
            tag_w = Counter(w for w, _, _ in self.pending.values() if w)
            tag_c = Counter(c for _, c, _ in self.pending.values() if c)
            q = f"the members' tags of round {rnd}"
            _say_counts(self.say, f"counts:{rk}:written", tag_w, q)
            _say_counts(self.say, f"counts:{rk}:counted", tag_c, q)
        if rnd == self.first_round and self.seg == 0:
            self.first_round_votes = list(self.pending.values())

    def _turn(self, line: str) -> bool:
        """A turn: its tag, a member's vote or a chair's status (a tag alone on its line belongs to the open turn)."""
        t = _TURN.match(line) or _ROLE_AGENT.match(line)
        if t:
            agent, role, rest = t.group(1), t.group(2), t.group(3)
        elif line.startswith(TAG_OPEN) and self.open_turn is not None:
            (agent, role), rest = self.open_turn, line
        else:
            return False
        is_tagged = TAG_OPEN in rest or re.match(r"^\)?:?\s*(votes|wrote|decides|answers)\b", rest.strip()) is not None
        learn_chair = re.match(r"^\)?:\s*consensus (not )?reached\s*$", rest.strip(), re.I)
        if t and not is_tagged and not learn_chair and line.startswith("▶"):
            self.open_turn = (agent, role)
        elif role in CHAIR_ROLES and (TAG_OPEN in rest or learn_chair):
            self._chair(rest, line)
            self.open_turn = None
        elif role in DECIDERS and is_tagged:
            label = _judge_label(rest)
            if label is not None:
                self.last_judge = (label, line)
            self.open_turn = None
        elif role in VOTE_ROLES and is_tagged:
            v = _vote_tag(rest)
            if v is not None:
                self.pending[agent] = (v[0], v[1], line)
            self.open_turn = None
        self.prev = line
        return True

    def _chair(self, rest: str, line: str) -> None:
        """A chair's tag: consensus reached or not, in the round of the tally it read (else the last one)."""
        ch = _CHAIR.search(rest)
        if not ch:
            return
        r = re.search(r"the tally it read \(round (\d+)\)", rest)
        rnd = int(r.group(1)) if r else self.last_round
        if rnd is not None:
            self.say(f"consensus:{_round_key(rnd, self.seg)}", ch.group(1).lower().replace("consensus ", ""), line)

    def _stop_check(self, line: str) -> bool:
        """A stop check (RADAR): its decision and preliminary verdict; a bare heading leaves them to the next line."""
        sc = re.match(r"^Stop check,? \(?(?:after )?round (\d+)\b(.*)$", line)
        if not sc:
            return False
        d = re.search(r"→ (CONTINUE|STOP|continue|stop)\b", sc.group(2))
        if d:
            self.say(f"stop:r{sc.group(1)}", d.group(1).lower(), line)
            p = re.search(r"preliminary(?: verdict)? ⟦?" + _L, sc.group(2))
            if p:
                self.say(f"stop:r{sc.group(1)}:preliminary", p.group(1), line)
        elif not sc.group(2).strip():
            self.expect, self.prev = f"stop:r{sc.group(1)}", line
            return True
        return False

    def _stop_words(self, line: str) -> None:
        """The line after a bare stop check heading, in words."""
        if not self.expect.startswith("stop:r"):
            return
        if "RADAR stops early" in line:
            self.say(self.expect, "stop", line)
            p = re.search(r"preliminary verdict is " + _L, line)
            if p:
                self.say(f"{self.expect}:preliminary", p.group(1), line)
        elif "the debate goes on" in line:
            self.say(self.expect, "continue", line)

    def _category_answer(self, line: str) -> bool:
        """An all-categories run's answer for one category, after the task's rule."""
        one_cat = re.match(r"^Final verdict, category (\d+): " + _L, line)
        if not one_cat:
            return False
        self.say(f"final:cat{one_cat.group(1)}", one_cat.group(2), line)
        return True

    def _category_answers(self, line: str) -> bool:
        """An all-categories run's answer: its label per category."""
        pairs = _category_labels(line, self.expect == "verdict")
        if not pairs:
            return False
        for k, lab in pairs:
            self.say(f"final:cat{k}", lab, line)
        self.expect, self.prev = "", line
        return True

    def _say_verdict(self, label: str, line: str) -> None:
        self.verdicts += 1
        self.say(_numbered("verdict", self.verdicts), label, line)

    def _verdict(self, line: str) -> bool:
        """The verdict, on its line or on the line after a bare "Verdict" heading (which takes its whole line)."""
        vm = re.match(r"^(?:VERDICT|Verdict)(?: · category \d+| \(category \d+\))?:?\s*⟦?" + _L + "(?! VALID)", line)
        if self.expect == "verdict" and not vm:
            vm = re.match(r"^⟦?" + _L, line)
            if vm is None and re.match(r"^⟦?no verdict|NO VALID ANSWER", line, re.I):
                self._say_verdict(NO_VERDICT, line)
        elif line in ("Verdict", "Verdict ⟦no verdict⟧") or re.match(r"^(?:VERDICT|Verdict)\b.*NO VALID ANSWER", line):
            if "no verdict" in line or "NO VALID ANSWER" in line:
                self._say_verdict(NO_VERDICT, line)
            else:
                self.expect = "verdict"
                self.prev = line
                return True
        if vm:
            self._say_verdict(vm.group(1), line)
            cat = re.match(r"^(?:VERDICT · category |Verdict \(category )(\d+)", line)
            if cat:
                self.say(f"verdict:cat{cat.group(1)}", vm.group(1), line)
        return False

    def _headline(self, line: str) -> None:
        """The verdict's headline (the last tally), wherever it is said outside a tally line."""
        hc = _headline_counts(line)
        if hc:
            fk = _segment_key("final", self.seg)
            _say_counts(self.say, f"counts:{fk}:written", hc[0], line)
            _say_counts(self.say, f"counts:{fk}:counted", hc[1], line)

    def _comparison(self, line: str) -> None:
        """The debate against its first vote: what the plain vote said, what the debate said."""
        vs = re.search(r"changed the outcome: " + _L + " → " + _L, line)
        plain = re.search(r"(?:would have said|plain majority of the [^:\]]+:|the tie rule gives to) " + _L, line)
        # each debate's comparison counts, also one that names no label ("unanimous at the first vote"):
        # a run of several categories holds one per category, in order
        self.comparisons += (
            1 if line.startswith(("Debate vs. vote:", "Debate vs. vote (", "Without any discussion")) else 0
        )
        if not (vs or plain):
            return
        k = _numbered("vs", self.comparisons)
        if vs:
            self.say(f"{k}:vote", vs.group(1), line)
            self.say(f"{k}:debate", vs.group(2), line)
        if plain:
            self.say(f"{k}:vote", plain.group(1), line)

    def _unanimity(self, line: str) -> None:
        """Whether the first vote was unanimous, as written and as counted, in words."""
        u = _unanimous_words(line)
        if u:
            uk = _segment_key("first", self.seg)
            if u[0]:
                self.say(f"unanimous:{uk}:written", u[0], line)
            if u[1]:
                self.say(f"unanimous:{uk}:counted", u[1], line)

    def _debate_heading(self, line: str) -> bool:
        """Learn's "Debate completed" heading: the status, and the next line says how it finished."""
        f = re.match(r"^Debate (completed|stopped|error|failed)$", line)
        if not f:
            return False
        self.say("status", _status_word(f.group(1)), line)
        self.expect = "finished"
        self.prev = line
        return True


def statements(screen: str, text: str) -> list[Statement]:
    """Every statement one screen's text makes (see the module's doc for the keys)."""
    if screen.startswith("json"):
        return json_statements(screen, text)
    reader = _ScreenReader(screen)
    for line in lines_of(text):
        reader.read(line)
    return reader.close()


# -- the JSON export: the record itself, read field by field (not through debate.outcome) ----------------
def _verdict_facts(e: dict, n: int) -> list[tuple[str, str, str]]:
    """(key, value, quote) of the JSON export's n-th verdict event."""
    label = e.get("label")
    if label is None and e.get("labels"):  # an all-categories run's answer: a label per category
        return [(f"final:cat{k}", lab, "verdict event (every category)") for k, lab in e["labels"].items() if lab]
    out = [(_numbered("verdict", n), label or NO_VERDICT, "verdict event")]
    if e.get("category") is not None and label:
        # a category's answer after the task's rule is the run's final answer for it, beside the verdict of
        # that category's own debate (the rule may have changed it)
        kind = "final" if e.get("source") == "categories" else "verdict"
        out.append((f"{kind}:cat{e['category']}", label, "verdict event"))
    if e.get("calibrated_label") and e.get("calibrated_label") != label:
        out.append(("verdict:calibrated", e["calibrated_label"], "verdict event"))
    if e.get("written_label") and e.get("written_label") != label and e.get("source") != "majority":
        out.append(("verdict:written", e["written_label"], "verdict event"))
    return out


def json_statements(screen: str, text: str) -> list[Statement]:
    """Statements of the JSON export ({"debate", "events"} or a bare list of events), from its raw fields."""
    data = json.loads(text)
    events = data.get("events", []) if isinstance(data, dict) else data
    out: list[Statement] = []
    say = lambda key, value, quote: out.append(Statement(screen, key, str(value), quote))
    turns: list[dict] = []
    verdicts = 0
    comparisons = 0
    last_judge = None
    last_round: int | None = None
    seg = 0
    for e in events:
        t = e.get("type")
        if t == "turn_finished":
            turns.append(e)
            if str(e.get("role") or "") in DECIDERS:
                last_judge = (e.get("label") if e.get("valid", True) else None) or "invalid"
        elif t == "stop_check":
            say(f"stop:r{int(e.get('round') or 0)}", e.get("decision") or "continue", "stop_check event")
            if e.get("preliminary_verdict"):
                say(f"stop:r{int(e.get('round') or 0)}:preliminary", e["preliminary_verdict"], "stop_check event")
        elif t == "votes_tallied":
            rnd = int(e.get("round") or 0)
            first_of_segment = last_round is None or rnd <= last_round
            if last_round is not None and rnd <= last_round:
                seg += 1
            last_round = rnd
            rk = _round_key(rnd, seg)
            q = f"votes_tallied round {rnd}"
            say(f"consensus:{rk}", "reached" if e.get("reached") else "not reached", q)
            counted = Counter("invalid" if v is None else v for v in (e.get("votes") or {}).values())
            counted["invalid"] += 0
            _say_counts(say, f"counts:{rk}:counted", counted, q)
            latest = {
                str(x.get("agent")): x
                for x in turns
                if x.get("phase") == "vote"
                and int(x.get("round") or 0) == rnd
                and str(x.get("role") or "").lower() not in CHAIR_ROLES
            }
            written: Counter[str] = Counter()
            for agent, v in (e.get("votes") or {}).items():
                turn = latest.get(agent)
                w = (turn.get("label") if turn.get("valid", True) else None) if turn else v
                written["invalid" if w is None else w] += 1
                say(f"vote:{rk}:{agent}:written", "invalid" if w is None else w, q)
                say(f"vote:{rk}:{agent}:counted", "invalid" if v is None else v, q)
            written["invalid"] += 0
            _say_counts(say, f"counts:{rk}:written", written, q)
            if first_of_segment:
                uk = _segment_key("first", seg)
                for which, c in (("written", written), ("counted", counted)):
                    one = len([k for k in c if c[k] and k != "invalid"]) == 1 and not c["invalid"]
                    say(f"unanimous:{uk}:{which}", "yes" if one else "no", q)
            turns = []
        elif t == "verdict":
            verdicts += 1
            for key, value, quote in _verdict_facts(e, verdicts):
                say(key, value, quote)
        elif t == "vote_comparison":
            comparisons += 1
            k = _numbered("vs", comparisons)
            if e.get("vote_label"):
                say(f"{k}:vote", e["vote_label"], "vote_comparison event")
            if e.get("changed") and e.get("debate_label"):
                say(f"{k}:debate", e["debate_label"], "vote_comparison event")
        if t == "vote_comparison" and e.get("basis", "first votes") == "first votes":
            uk = _segment_key("first", seg)
            if e.get("outcome") == "unanimous":
                say(f"unanimous:{uk}:counted", "yes", "vote_comparison event")
            elif e.get("outcome") == "stood":
                say(f"unanimous:{uk}:counted", "no", "vote_comparison event")
        elif t == "finished":
            say("status", e.get("status"), "finished event")
            say("stop_reason", e.get("stop_reason") or "", "finished event")
            say("rounds", int(e.get("rounds") or 0), "finished event")
            tokens = int(e.get("prompt_tokens") or 0) + int(e.get("completion_tokens") or 0)
            say("tokens", tokens, "finished event")
            say("model_calls", int(e.get("model_calls") or 0), "finished event")
            say("cache_hits", int(e.get("cache_hits") or 0), "finished event")
    if last_judge is not None:
        say("judge:last", last_judge, "the last judge turn")
    final = [e for e in events if e.get("type") == "verdict"]
    if final and final[-1].get("label") is not None:  # what the run answered: the store's (the Library's) verdict
        say("answer", final[-1]["label"], "the last verdict event")
    return out


# -- contradictions ------------------------------------------------------------------------------------
def _resolve(stmts: list[Statement]) -> list[Statement]:
    """`counts:final:*` (a verdict's headline) to the last round any screen tallies in its debate, and each
    debate's first-round unanimity from its first tally (an all-categories run holds one debate per category,
    its keys marked s1, s2, … after the first)."""
    rounds: dict[str, list[int]] = {}  # segment mark ("" for the first) -> its rounds
    for s in stmts:
        m = re.match(r"counts:(s\d+)?r(\d+):", s.key)
        if m:
            rounds.setdefault(m.group(1) or "", []).append(int(m.group(2)))
    out = []
    for s in stmts:
        m = re.match(r"(counts|invalid):final(\d*):(.*)$", s.key)
        if m:
            seg = f"s{m.group(2)}" if m.group(2) else ""
            if rounds.get(seg):
                key = f"{m.group(1)}:{seg}r{max(rounds[seg])}:{m.group(3)}"
                s = Statement(s.screen, key, s.value, s.quote)
        out.append(s)
    several = {s.screen for s in out if s.key.startswith("verdict#")}
    for s in list(out):  # "the discussion changed the outcome: NO → YES": YES is the verdict
        if s.key == "vs:debate" and s.screen not in several:
            out.append(Statement(s.screen, "verdict", s.value, s.quote))
    for seg, rs in rounds.items():
        first = f"{seg}r{min(rs)}"
        for s in list(out):
            # two labels in the first tally: not unanimous (one label says nothing: a line may leave out
            # an unreadable vote; the JSON states unanimity itself)
            if s.key in (f"counts:{first}:written", f"counts:{first}:counted") and s.value.count("=") > 1:
                which = s.key.rsplit(":", 1)[1]
                out.append(Statement(s.screen, f"unanimous:first{seg[1:]}:{which}", "no", s.quote))
    return out


def contradictions(stmts: Iterable[Statement], reference: str = "json") -> list[Contradiction]:
    """Every statement whose value differs from its key's reference value: the reference screen's when it
    states the key, else the value most statements give (ties: the first said)."""
    by_key: dict[str, list[Statement]] = {}
    for s in _resolve(list(stmts)):
        by_key.setdefault(s.key, []).append(s)
    out: list[Contradiction] = []
    for key, ss in by_key.items():
        ref_vals = [s.value for s in ss if s.screen == reference]
        if ref_vals:
            ref = ref_vals[0]
        else:
            counts = Counter(s.value for s in ss)
            ref = max(counts, key=lambda v: (counts[v], -[s.value for s in ss].index(v)))
        anchor = next(s for s in ss if s.value == ref)
        out += [Contradiction(key, s, anchor) for s in ss if s.value != ref]
    return out


def check(screens: Mapping[str, str]) -> list[Contradiction]:
    """The contradictions among the screens of one debate: {screen name: its rendered text}."""
    return contradictions(s for name, text in screens.items() for s in statements(name, text))
