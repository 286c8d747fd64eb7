"""What a turn argues, measured on the text alone: copying, sides, refusals, topic, named sources, rebuttals.

Why: a debate can pass every test of form (sentences end, nothing loops, one script) and still not be an
argument a room can follow: a debater repeats the other side's turn word for word, writes both sides'
positions in one turn, refuses, drifts off the claim, or cites a "Texas State Statistical Association"
that no source names. These measures say how often; the benchmark (bench/bench_substance.py) reports them
per protocol, and `unsourced_names` is what the engine marks on the page and names to the judge, the
same way as an unsupported figure.

Every function is pure, one pass over its inputs (word n-grams compared by hash in sets, word scans, no
backtracking patterns), and each text is cut at MAX_CHARS first, so hostile or huge input stays bounded.
Imports nothing of `debate` beyond this package.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from debate.content.score import sources_of
from debate.content.sentences import ends_mid_sentence, shown_text

MAX_CHARS = 20_000  # per text: far beyond any turn's answer budget, a bound on hostile input
COPY_RUN = 12  # a run of this many words from another speaker's earlier turn is a copy
SHARE_N = 5  # ... or this large a share of the turn's 5-grams
COPY_SHARE = 0.5
MIN_SHARE_GRAMS = 4  # a turn with fewer 5-grams is too short to judge by share
OFF_TOPIC_MIN_WORDS = 8  # shorter turns (a bare vote's words) are not judged off-topic
ANSWER_MIN_SHARED = 3  # a rebuttal answers a point: at least this many of the opponent's own words ...
ANSWER_MIN_SHARE = 0.15  # ... and this share of them (words of the claim and stop words left out)

# sides of the debaters' roles: "for" argues the claim, "against" questions it; other roles take no side
SIDE = {
    "proponent": "for",
    "politician": "for",
    "advocate": "for",
    "opponent": "against",
    "scientist": "against",
    "critic": "against",
}
VOTERS = ("member", "chair", "baseline")  # a classification: their words explain a label, not the claim
# turns that are not a speaker's argument: the engine's checks, the judges (measured apart)
NOT_SPEAKING = ("judge", "round-judge", "stop-check", "calibrate", "domain")

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
STOP = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers him his how i if in into is it its itself just me more most my no nor not now of
    off on once only or other our out over own same she should so some such than that the their them then
    there these they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours claim claims statement evidence argument arguments debate
    true false opponent opponents point points however therefore furthermore moreover additionally say says
    said""".split()  # noqa: SIM905
)


def _cap(text: str | None) -> str:
    return (text or "")[:MAX_CHARS]


def words(text: str | None) -> list[str]:
    """Lower-case word tokens (letters, digits, an apostrophe suffix), punctuation dropped."""
    return _WORD.findall(_cap(text).lower())


def copy_words(text: str | None) -> list[str]:
    """Words as copying is judged: a plural's or possessive's "s" dropped ("narratives" is "narrative"), so a
    copy does not pass for new words by changing an ending (the decode-time guard bans those forms too)."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words(text)]


def _grams(ws: list[str], n: int) -> set[int]:
    return {hash(tuple(ws[i : i + n])) for i in range(len(ws) - n + 1)}


def stems(text: str | None) -> set[str]:
    """Content words, cut to their first 5 letters ("economy"/"economic" meet): what a text is about."""
    return {w[:5] for w in words(text) if w not in STOP and len(w) > 2 and not w.isdigit()}


# -- copying ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Copy:
    longest_run: bool  # a run of COPY_RUN words stands in another speaker's earlier turn
    share: float  # share of the turn's 5-grams found there
    copied: bool


def quoted_grams(quotable: Iterable[str]) -> tuple[set[int], set[int]]:
    """The word runs (COPY_RUN and SHARE_N long) of what may be quoted: built once per debate."""
    allowed_long: set[int] = set()
    allowed_short: set[int] = set()
    for q in quotable:
        qw = copy_words(q)
        allowed_long |= _grams(qw, COPY_RUN)
        allowed_short |= _grams(qw, SHARE_N)
    return allowed_long, allowed_short


def copied(
    text: str, others: Iterable[str], quotable: Iterable[str] = (), allowed: tuple[set[int], set[int]] | None = None
) -> Copy:
    """Whether `text` copies `others` (other speakers' earlier turns): a run of COPY_RUN words, or at least
    COPY_SHARE of its 5-grams. Runs that stand in `quotable` (the claim, the evidence; or `allowed`, their
    quoted_grams) are quoting, not copying, and never count."""
    ws = copy_words(text)
    allowed_long, allowed_short = allowed if allowed is not None else quoted_grams(quotable)
    long_, short = set(), set()
    for o in others:
        ow = copy_words(o)
        long_ |= _grams(ow, COPY_RUN)
        short |= _grams(ow, SHARE_N)
    long_ = long_ - allowed_long
    short = short - allowed_short
    run = any(g in long_ for g in _grams(ws, COPY_RUN))
    mine = [hash(tuple(ws[i : i + SHARE_N])) for i in range(len(ws) - SHARE_N + 1)]
    mine = [g for g in mine if g not in allowed_short]
    share = (sum(g in short for g in mine) / len(mine)) if mine else 0.0
    return Copy(run, round(share, 3), run or (len(mine) >= MIN_SHARE_GRAMS and share >= COPY_SHARE))


LOOSE_N = 4  # a copy with a word swapped every few words keeps runs of this many words between its swaps
LOOSE_SHARE = 0.5  # ... over this share of the turn's words is a copy, swaps or not
LOOSE_MIN_WORDS = 12  # a shorter turn is not judged loosely (a bare vote's few words)


def loose_grams(texts: Iterable[str]) -> set[int]:
    """The LOOSE_N-word runs of `texts` (hashed): what may be quoted, built once per debate."""
    out: set[int] = set()
    for t in texts:
        out |= _grams(copy_words(t), LOOSE_N)
    return out


def loose_share(text: str, sources: Iterable[str], allowed: set[int] | frozenset[int] = frozenset()) -> float:
    """The share of `text`'s words that stand in a run of LOOSE_N words found in `sources` (runs that stand
    in `allowed_quotes`, the claim and the evidence, do not count). Why: the decode-time guard bans an 8-word
    run, and a 0.5B debater routed round it by swapping a word every few words ("a study by Professor
    (opening)"): its 12-word runs and 5-grams are new, and still most of its words sit in 4-word runs of the
    turn it copied. `allowed`: loose_grams of what may be quoted. One pass over the turn's 4-grams (hashes
    in sets)."""
    ws = copy_words(text)
    src = loose_grams(sources) - allowed
    covered = [False] * len(ws)
    for i in range(len(ws) - LOOSE_N + 1):
        if hash(tuple(ws[i : i + LOOSE_N])) in src:
            covered[i : i + LOOSE_N] = [True] * LOOSE_N
    return round(sum(covered) / len(ws), 3) if ws else 0.0


def copied_loosely(text: str, sources: Iterable[str], allowed: set[int] | frozenset[int] = frozenset()) -> bool:
    """A copy with words swapped: over LOOSE_SHARE of a turn of LOOSE_MIN_WORDS words or more in runs of
    LOOSE_N words of `sources` (see loose_share)."""
    return len(copy_words(text)) >= LOOSE_MIN_WORDS and loose_share(text, sources, allowed) > LOOSE_SHARE


# -- sides ----------------------------------------------------------------------------------------------

# "Support position: ... Oppose position: ...", "Arguments for: ... Arguments against: ..." (headings)
_FOR_HEAD = re.compile(
    r"(?:^|\n|\*\*|#)\s*(?:support(?:ing)?|pro|for|in favou?r|arguments? for|proponent)(?: position| side)?\s*\**\s*:",
    re.I,
)
_AGAINST_HEAD = re.compile(
    r"(?:^|\n|\*\*|#)\s*(?:oppos(?:e|ing|ition)|con|against|arguments? against|opponent)(?: position| side)?\s*\**\s*:",
    re.I,
)
_SUBJ = r"(?:the|this|that|his|her|their|your|my opponent's) (?:claim|statement|assertion)"
_SAYS_TRUE = re.compile(
    rf"\b{_SUBJ} (?:is|was|remains) (?:indeed |therefore |clearly |entirely |completely )?"
    r"(?:true|accurate|correct|valid|supported|well[- ]supported|factual|right)\b",
    re.I,
)
_SAYS_FALSE = re.compile(
    rf"\b(?:{_SUBJ} (?:is|was|remains) (?:indeed |therefore |clearly |entirely |completely |also )?"
    r"(?:false|inaccurate|incorrect|untrue|misleading|wrong|debunked|unsupported|not (?:true|accurate|correct|supported))"
    rf"|{_SUBJ} (?:has been|is also|was also) debunked)\b",
    re.I,
)


# what a debater told its side may not write (the protocols' `hold_side`; GenOptions.no_phrases): the claim
# called what the other side says, in the words `_SAYS_TRUE` / `_SAYS_FALSE` read ("the claim is false" from
# the side for it), and the other side's position declared ("I support the claim" from the side against it).
# The embedded backend bans each phrase's last word where the words before it stand, so "the claim is"
# goes on in the speaker's own direction ("the claim is misleading", "the claim is partly true")
_ADVERBS = ("", "indeed ", "therefore ", "clearly ", "entirely ", "completely ")  # as _SAYS_TRUE / _SAYS_FALSE


def _called(adverbs: tuple[str, ...]) -> list[str]:
    return [
        f"{det} {noun} {verb} {adv}"
        for det in ("the", "this", "that")
        for noun in ("claim", "statement", "assertion")
        for verb in ("is", "was", "remains")
        for adv in adverbs
    ]


_TRUE_WORDS = ("true", "accurate", "correct", "valid", "supported", "well supported", "factual", "right")
_FALSE_WORDS = (
    "false", "inaccurate", "incorrect", "untrue", "misleading", "wrong", "debunked", "unsupported", "not true",
    "not accurate", "not correct", "not supported",
)  # fmt: skip
# the claim, statement or assertion, as `_called` names it: a scientist held from "I will support the claim"
# wrote "I will support the statement" in a default debate
_STANCE = tuple(
    f"{head} the {noun}"
    for head in ("i {v}", "i strongly {v}", "i will {v}", "i firmly {v}")
    for noun in ("claim", "statement", "assertion")
)
OTHER_SIDE_PHRASES: dict[str, tuple[str, ...]] = {
    "for": (
        *(f"{c}{w}" for c in _called((*_ADVERBS, "also ")) for w in _FALSE_WORDS),
        *(
            f.format(v=v)
            for f in _STANCE
            for v in ("oppose", "disagree with", "reject", "do not support", "argue against")
        ),
    ),
    "against": (
        *(f"{c}{w}" for c in _called(_ADVERBS) for w in _TRUE_WORDS),
        *(f.format(v=v) for f in _STANCE for v in ("support", "agree with", "accept", "argue for", "endorse")),
    ),
}


# -- sides of a debate about a tweet's category (TurQUaz's single and team debates) ---------------------------
# The proponent argues that the tweet has the category's property (YES), the opponent that it does not (NO).
# A turn says which with the category's verb and object ("contains scientific claims", "references a
# scientific study", "mentions scientific entities"), negated or not ("does not contain any scientific …",
# "contains no scientific …"). Read in the stored single debates: opponents writing "the tweet does contain
# scientific claims" and `The tweet "…" directly references a scientific study`, proponents "the tweet does not
# reference to scientific studies". A verb alone says nothing ("the tweet mentions Denise Nickerson").
CATEGORY_VERBS: dict[int, tuple[str, ...]] = {
    1: ("contain", "make", "present"),
    2: ("refer", "reference", "cite"),
    3: ("mention", "name", "reference"),
}
CATEGORY_OBJECTS: dict[int, tuple[str, ...]] = {
    1: ("scientific", "science"),
    2: ("scientific", "research", "study", "studies", "publication", "publications", "paper", "papers", "journal"),
    3: ("scientific", "science", "scientist", "scientists", "researcher", "researchers", "university"),
}
_FILLERS = ("to", "a", "an", "any", "the", "no", "specific", "several", "some", "clear", "direct", "multiple")
_NEGATIONS = frozenset(
    "not doesn't don't didn't never fails without cannot nor isn't lacks lack no".split()  # noqa: SIM905
)
# what may stand between a verb and its object in a banned phrase: "references a specific scientific study"
# routed round a ban of "references a scientific" on the first try
_BAN_FILLERS = (
    "",
    *(f"{w} " for w in ("to", "a", "an", "the", "several", "specific", "some", "multiple", "clear", "direct")),
    *(f"{a} {b} " for a in ("to", "a", "an", "the") for b in ("specific", "several", "clear", "direct", "multiple")),
    "to a ",
    "to an ",
    "to the ",
)
_BAN_ADVERBS = ("", "indeed ", "clearly ", "also ", "directly ", "explicitly ", "certainly ")


def category_sides(text: str, category: int | None) -> tuple[bool, bool]:
    """(says YES, says NO): whether `text` says, with the category's verb and object, that the tweet has the
    property, or, the verb negated in the three words before it or "no" before the object, that it has not.
    (False, False) for a category without verbs (a custom question). One pass over the words; each verb
    looks at most three words ahead and three back."""
    verbs = CATEGORY_VERBS.get(category or 0)
    if not verbs:
        return False, False
    forms = {f for v in verbs for f in (v, v + "s")} | {"lack", "lacks"}
    objects = set(CATEGORY_OBJECTS[category or 0])
    ws = words(_cap(text).replace("’", "'"))
    yes = no = False
    for i, w in enumerate(ws):
        if w not in forms:
            continue
        negated, j = w.startswith("lack"), i + 1
        while j < len(ws) and j - i <= 3 and ws[j] in _FILLERS:
            negated |= ws[j] == "no"
            j += 1
        if j < len(ws) and ws[j] in objects:
            if negated or _NEGATIONS.intersection(ws[max(0, i - 3) : i]):
                no = True
            else:
                yes = True
    return yes, no


def category_other_side(category: int | None) -> dict[str, tuple[str, ...]]:
    """What a debater of a category debate holding its side may not write (`hold_side`), as OTHER_SIDE_PHRASES
    for claims, in the guard's words: the NO side may not say the tweet has the property ("contains
    scientific", "does contain scientific", "directly references a study": so it writes "does not contain
    scientific"), the YES side may not negate the category's verb ("not contain", "doesn t mention",
    "contains no", "lacks"). Every phrase is one `category_sides` reads as that side's, given its object."""
    verbs, objects = CATEGORY_VERBS.get(category or 0), CATEGORY_OBJECTS.get(category or 0, ())
    if not verbs:
        return {}
    # "references scientific" is banned whatever stands before the verb (`The tweet "…" directly references`);
    # the base form only after "does" (so "does not contain scientific" stays the NO side's to write)
    yes_words = [f"{v}s {f}{o}" for v in verbs for f in _BAN_FILLERS for o in objects] + [
        f"does {a}{v} {f}{o}" for a in _BAN_ADVERBS for v in verbs for f in _BAN_FILLERS for o in objects
    ]
    no_words = (
        [f"{n} {a}{v}" for n in ("not", "doesn t", "don t", "didn t", "fails to") for a in _BAN_ADVERBS for v in verbs]
        + [f"{v}s no" for v in verbs]
        + [f"{t} lacks" for t in ("tweet", "it")]
    )
    return {"for": tuple(dict.fromkeys(no_words)), "against": tuple(dict.fromkeys(yes_words))}


def reason_side(reason: str, category: int | None = None) -> str | None:
    """The label a judge's reason argues by its own words, when it argues one only: YES or NO in a CheckThat
    category's verb and object ("the tweet contains several scientific claims"), else TRUE or FALSE by how
    it calls the claim ("the claim is accurate"); None when it says neither or both."""
    if category in CATEGORY_VERBS:
        yes, no = category_sides(reason, category)
        return "YES" if yes and not no else "NO" if no and not yes else None
    t = _cap(reason)
    true, false = bool(_SAYS_TRUE.search(t)), bool(_SAYS_FALSE.search(t))
    return "TRUE" if true and not false else "FALSE" if false and not true else None


def side_trouble(text: str, role: str, category: int | None = None) -> str:
    """ "both" when one turn argues both sides (both positions as headings, or the claim called both true and
    false); "other" when a speaker with a side (SIDE[role]) calls the claim only what the other side says;
    "" otherwise (and always for a role with no side, e.g. a journalist or a voter). With a CheckThat
    `category` (a debate about a tweet's category, not a claim's truth) the sides are read in the
    category's verbs (`category_sides`): "the tweet does contain …" from the opponent is the other side."""
    t = _cap(text)
    if _FOR_HEAD.search(t) and _AGAINST_HEAD.search(t):
        return "both"
    if category in CATEGORY_VERBS:
        says_true, says_false = category_sides(t, category)
    else:
        says_true, says_false = bool(_SAYS_TRUE.search(t)), bool(_SAYS_FALSE.search(t))
    if says_true and says_false:
        return "both"
    side = SIDE.get(role)
    if side == "for" and says_false or side == "against" and says_true:
        return "other"
    return ""


# -- refusal, topic ---------------------------------------------------------------------------------------

_REFUSAL = re.compile(
    r"\b(?:I(?:'m| am) (?:sorry|afraid),? but I (?:can(?:no|')t|am unable|won't)"
    r"|I(?: can(?:no|')t|(?:'m| am)(?: not able| unable) to| won't| will not| must decline to"
    r"| (?:do not|don't) have the (?:capability|ability) to) "
    r"(?:provide|give|answer|help|assist|comply|fulfil|fulfill|engage|take part|participate|discuss|offer"
    r"|supply|respond|perform)"
    r"|as an? (?:AI|artificial intelligence|intelligent AI|chatbot|(?:AI )?language model|AI assistant),? I)",
    re.I,
)


# what a debater may never write (GenOptions.no_phrases, the protocols' `no_refusal`): the openings of the
# refusals `refuses` finds, as word sequences; the embedded backend bans each one's last word where the words
# before it stand, so "I cannot provide an answer" becomes "I cannot" + whatever else the model writes ("I
# cannot agree with my opponent" stays allowed: a debater may disagree)
_REFUSING = ("i cannot", "i can t", "i am unable to", "i m unable to", "i won t", "i will not", "i must decline to")
_DECLINED = (
    "provide", "give", "answer", "help", "assist", "comply", "fulfil", "fulfill", "engage", "participate",
    "discuss", "offer", "take part", "supply", "respond",
)  # fmt: skip
REFUSAL_PHRASES: tuple[str, ...] = (
    *(f"{who} {what}" for who in _REFUSING for what in _DECLINED),
    "i m sorry but",
    "i am sorry but",
    "i m afraid but",
    "i regret to inform",
    "as an ai",
)
# what a debater may not open its turn with (GenOptions.no_openings): a refusal opens the answer, and
# anchored there the ban needs no list of every verb ("I cannot respond", "I cannot supply" were the 0.5B
# models' way round the phrases above); later in a turn "I cannot agree" stays a debater's to write
REFUSAL_OPENINGS: tuple[str, ...] = (
    "i cannot", "i can t", "i am unable", "i m unable", "i am not able", "i m not able", "i won t", "i will not",
    "i must decline", "i m sorry", "i am sorry", "i m afraid", "i apologize", "i regret", "sorry", "unfortunately i",
    "i do not have the", "i don t have the", "as an ai", "as an artificial", "as an intelligent", "as a language",
    "as a chatbot", "as an assistant",
)  # fmt: skip


def refuses(text: str) -> bool:
    """The turn declines to answer ("I cannot provide an answer to this question…", "As an AI, I…")."""
    return bool(_REFUSAL.search(_cap(text)))


def off_topic(text: str, claim: str) -> bool:
    """A turn of at least OFF_TOPIC_MIN_WORDS words that shares not one content word with the claim."""
    if len(words(text)) < OFF_TOPIC_MIN_WORDS:
        return False
    mine = stems(claim)
    return bool(mine) and not (stems(text) & mine)


# -- rebuttals --------------------------------------------------------------------------------------------


def answers_point(text: str, opponent: str, claim: str) -> bool:
    """A rebuttal answers a point the other side made: it shares at least ANSWER_MIN_SHARED content words
    of the opponent's previous turn that are not the claim's, and at least ANSWER_MIN_SHARE of them.
    (A copy shares them all: the caller counts a copied rebuttal as not answering.)"""
    theirs = stems(opponent) - stems(claim)
    if not theirs:
        return False
    shared = len(theirs & stems(text))
    return shared >= ANSWER_MIN_SHARED and shared / len(theirs) >= ANSWER_MIN_SHARE


# -- judges -------------------------------------------------------------------------------------------------


def reason_ends(reason: str) -> bool:
    """The judge's written reason is there and ends with a full sentence."""
    r = _cap(reason).strip()
    return bool(r) and not ends_mid_sentence(r)


def same_label(written: str | None, shown: str | None) -> bool:
    """The label the judge wrote is the verdict the card shows (case and spacing aside)."""
    return bool(written) and _label(written) == _label(shown)


def _label(s: str | None) -> str:
    return re.sub(r"[\s_]+", "-", str(s or "").strip().upper())


# -- named sources --------------------------------------------------------------------------------------------

# the last word of an institution's or a publication's name
INSTITUTION = frozenset(
    """Association Associations Institute Institutes Institution University College Bureau Department Agency
    Organization Organisation Council Center Centre Centers Centres Foundation Society Commission
    Administration Survey Journal Office Ministry Board Laboratory Laboratories Committee Federation
    Corporation Academy Authority Observatory Coalition Alliance League Fund Bank Reserve Institut Gazette
    Tribune Times Post Herald Monitor Census Poll""".split()  # noqa: SIM905
)
# a news outlet or pollster cited by its one-word name ("sources, including the BBC, The Guardian"): a 0.5B
# politician's "supported by evidence from the BBC, The Guardian and various political figures" named them on
# a claim whose evidence named neither, and no run of capitalised words ending in an institution's word saw it
OUTLETS = frozenset(
    """BBC CNN MSNBC NPR PBS Reuters AFP Bloomberg Politico Axios Guardian Telegraph Economist Forbes Newsweek
    Breitbart Gallup Pew Lancet Snopes PolitiFact""".split()  # noqa: SIM905
)
TITLES = frozenset("Dr Dr. Prof Prof. Professor Doctor Sir Dame".split())  # noqa: SIM905
_CUE = re.compile(
    r"(?:according to|(?:study|survey|report|poll|analysis|research|data|paper|article|review) "
    r"(?:by|from|of|conducted by|published by)|published (?:in|by)|conducted by|reported by|cited by|"
    r"(?:researchers?|scientists?|economists?|experts?|analysts?) (?:at|from))\s+(?:the\s+)?$",
    re.I,
)
CONNECT = frozenset("of for and on the de & in at".split())  # noqa: SIM905
NOT_NAMES = frozenset(
    """The A An This That These Those However Moreover Furthermore Additionally Therefore Thus Also In On At
    For According While Although Because Since As If When Our Their Its My Your His Her We They It I Yes No
    Support Oppose Position Agent Claim Evidence Sender Round Opening Closing Rebuttal Reason Verdict TRUE
    FALSE HALF-TRUE YES NO Politician Scientist Journalist Judge Critic Advocate Proponent Opponent First
    Second Third Finally Overall Firstly Secondly Lastly Both Neither Many Some Most Former Recent Current
    Local Several Other Previous""".split()  # noqa: SIM905
)
_TOKEN = re.compile(r"\S+")
_OPEN = "\"'([{“‘*"
_CLOSE = "\"')]}”’*,;:!?"


@dataclass(frozen=True)
class Name:
    start: int
    end: int
    text: str


def _is_cap(w: str) -> bool:
    return bool(w) and w[0].isupper() and w not in NOT_NAMES


def named_sources(text: str) -> list[Name]:
    """The named sources `text` cites, in order: an institution or publication (a run of capitalised
    words ending in a word such as Association, Institute, University, Bureau, Journal, Survey: "The Texas
    State Statistical Association"; a news outlet or pollster by its one-word name, "the BBC"), a titled
    person ("Dr. Jane Smith"), or any capitalised name right after a source cue ("according to Gallup", "a
    study by John Smith", "published in Nature").
    A word scan: each token is looked at once."""
    t = _cap(text)
    toks = []  # (start, end, word without surrounding punctuation or 's, ends a phrase, opens a bracket or quote)
    for m in _TOKEN.finditer(t):
        raw = m.group(0)
        core = raw.lstrip(_OPEN).rstrip(_CLOSE)  # str methods: linear, whatever the punctuation
        core = core[:-2] if core[-2:] in ("'s", "’s") else core
        if not core:
            continue
        lead = raw.find(core)
        s = m.start() + max(lead, 0)
        stop = bool(re.search(r"[,;:!?\")\]}”’]$|['’]s$", raw)) or (
            raw.endswith(".") and not re.fullmatch(r"(?:[A-Z]\.)+|[A-Z][a-z]{0,3}\.", core)
        )
        core = core.rstrip(".").rstrip(_CLOSE) if stop else core  # `"White Office".`: the mark, then the quote
        toks.append((s, s + len(core), core, stop, raw[0] in _OPEN))
    out: list[Name] = []
    i, n = 0, len(toks)
    while i < n:
        s, w = toks[i][0], toks[i][2]
        if not _is_cap(w) and w not in TITLES:
            i += 1
            continue
        # a run of capitalised words, connectors allowed inside; a phrase end closes it
        j, last = i, i
        while j < n:
            wj = toks[j][2]
            if j > i and toks[j][4]:
                break  # "Association (APA)": a bracket or a quote begins something else
            if _is_cap(wj) or wj in TITLES:
                last = j
            elif wj.lower() not in CONNECT or j == i:
                break
            elif wj.lower() in ("and", "&") and toks[last][2] in INSTITUTION:
                break  # "the Census Bureau and the CDC": two names
            elif wj.lower() == "the" and toks[j - 1][2].lower() not in ("of", "for", "on", "in", "at"):
                break  # "the" only inside a name's "of the"
            if toks[j][3]:
                break
            j += 1
        run = toks[i : last + 1]
        caps = [x for x in run if _is_cap(x[2]) or x[2] in TITLES]
        before = t[max(0, s - 60) : s]
        titled = run[0][2] in TITLES and len(caps) >= 2
        institution = len(caps) >= 2 and any(x[2] in INSTITUTION for x in caps)
        institution = institution or (len(caps) == 1 and caps[0][2] in OUTLETS)
        cued = bool(_CUE.search(before)) and not (len(caps) == 1 and caps[0][2].lower() in STOP)
        if titled or institution or cued:
            out.append(Name(run[0][0], run[-1][1], t[run[0][0] : run[-1][1]]))
        i = last + 1
    return out


def _norm(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", _cap(text).lower())) + " "


def _initials(name: str) -> str:
    return "".join(w[0] for w in re.findall(r"[A-Za-z]+", name) if w[0].isupper())


def unsourced_names(text: str, sources: Iterable[str]) -> list[Name]:
    """The named sources of `text` that none of `sources` (the claim, the evidence) names: the whole name
    appears in none of them (without a leading "the"), nor its initials as a word ("CDC"), nor, for a name
    written as initials, a name in the sources with those initials."""
    found = named_sources(text)
    if not found:
        return []
    src = [_cap(s) for s in sources]
    hay = "".join(_norm(s) for s in src)
    acronyms: set[str] = set(re.findall(r"\b[A-Z]{2,8}\b", " ".join(src)))
    for s in src:
        acronyms |= {_initials(x.text) for x in named_sources(s)}
    out = []
    for f in found:
        key = re.sub(r"^ (?:the )?(?:u s |us |uk |u k )?", " ", _norm(f.text))
        if key.strip() and key in hay:
            continue
        ini = f.text if f.text.isupper() and " " not in f.text else _initials(f.text)
        if len(ini) >= 2 and ini in acronyms:
            continue
        out.append(f)
    return out


# -- a debate's turns, from its events ----------------------------------------------------------------------

TURN_MEASURES = (
    "copied",
    "copied_loosely",
    "repeats_own",
    "side_trouble",
    "refusal",
    "off_topic",
    "unsourced_name",
    "unmarked_name",
    "hit_budget",
)
REBUTTAL_MEASURES = ("answers_point",)
JUDGE_MEASURES = ("reason_ends", "label_is_verdict")


def _judge_row(judge: dict, verdict: dict) -> dict:
    """A deciding judge's row: whether its reason ends, and whether the label it wrote is the verdict shown."""
    written = verdict.get("written_label") or judge.get("label")
    reason = shown_text(str(judge.get("text") or ""), judge.get("parsed"), bool(judge.get("valid", True)))
    parsed = p if isinstance(p := judge.get("parsed"), dict) else {}
    reason = str(parsed.get("explanation") or "") or reason
    return {
        "agent": judge.get("agent") or "",
        "model": judge.get("model") or "",
        "reason_ends": reason_ends(reason),
        "label_is_verdict": same_label(written, verdict.get("label")),
        "written": written,
        "shown": verdict.get("label"),
    }


def score_substance(events: list[dict], prompts: Iterable[str] = ()) -> dict[str, list[dict]]:
    """A debate's substance, from its events: {"turns": one row per speaking turn (a model's argument or
    vote, not a judge's or the engine's checks), "rebuttals": one row per rebuttal (a sided speaker's turn
    in the rebuttal phase, after the other side spoke), "judges": one row per deciding judge's turn}.
    People's turns and a fork's replayed turns are not the models' writing and are left out.

    A turn copies only what it could have read: the turns finished before it started (its turn_started
    event; without one, the turns of other steps — another phase or round). `prompts` (the templates'
    text, the task's definitions) may be quoted like the claim and the evidence: members that repeat
    their category's definition did not copy one another."""
    claim, passages = sources_of(events)
    quotable = [claim, *passages]
    started = next((e for e in events if e.get("type") == "debate_started"), {})
    # a debate about a tweet's CheckThat category: its sides are read in the category's verbs, the category
    # its phase is about (a category-3 debate argues category 2 first: the cat2 => cat3 rule)
    checkthat = started.get("task") == "checkthat"
    category = started.get("category") if checkthat else None
    prompts = tuple(prompts)
    allowed = quoted_grams([*quotable, *prompts])
    allowed_loose = loose_grams([*quotable, *prompts])
    # (agent, role, shown text, phase, round) of every earlier speaking turn, in the order they finished
    spoken: list[tuple[str, str, str, str, object]] = []
    read_at: dict[str, int] = {}  # turn_id -> how many speaking turns had finished when it started
    out: dict[str, list[dict]] = {"turns": [], "rebuttals": [], "judges": []}
    last_judge: dict | None = None
    marked: set[str] = set()  # the names the engine marked on the page so far (a debate recorded before: none)
    for e in events:
        kind = e.get("type")
        if kind == "verdict" and last_judge is not None:
            out["judges"].append(_judge_row(last_judge, e))
            last_judge = None
        if kind == "phase_started" and checkthat and e.get("category") is not None:
            category = e.get("category")
        if kind == "turn_started":
            read_at[str(e.get("turn_id"))] = len(spoken)
        if kind != "turn_finished" or e.get("human") or e.get("replayed"):
            continue
        role, phase, agent = str(e.get("role") or ""), str(e.get("phase") or ""), str(e.get("agent") or "")
        if role == "judge" and phase == "judge":
            last_judge = e
        if role == "judge" or phase in NOT_SPEAKING:
            continue
        text = shown_text(str(e.get("text") or ""), e.get("parsed"), bool(e.get("valid", True)))
        begun = str(e.get("begun") or "")
        if begun and text.startswith(begun):
            # the words the engine wrote (open_side) are not the model's: each measure reads what the model
            # wrote after them (an opening of the side plus a quote of the claim is neither a copy nor a side)
            text = text[len(begun) :].lstrip()
        tid = str(e.get("turn_id"))
        step = (phase, e.get("round"))
        heard = spoken[: read_at[tid]] if tid in read_at else [s for s in spoken if s[3:] != step]
        cp = copied(text, [s[2] for s in heard if s[0] != agent], allowed=allowed)
        own = copied(text, [s[2] for s in heard if s[0] == agent], allowed=allowed)
        names = unsourced_names(text, quotable)
        marked |= {str(n) for n in e.get("unsourced_names") or []}
        out["turns"].append(
            {
                "role": role,
                "agent": agent,
                "model": e.get("model") or "",
                "phase": phase,
                "words": len(text.split()),
                # a chair's summary is made of the members' words: quoting them is its task
                "copied": None if role == "chair" else cp.copied,
                "copy_share": cp.share,
                # the same, with words swapped every few words (what routes round the 8-word guard)
                "copied_loosely": None
                if role == "chair"
                else copied_loosely(text, [s[2] for s in heard if s[0] != agent], allowed_loose),
                # its own earlier turn again (a rebuttal that is the speaker's opening once more)
                "repeats_own": None if role == "chair" else own.copied,
                "side_trouble": bool(side_trouble(text, role, category)),
                "refusal": refuses(text),
                # a vote explains a category ("the tweet cites a study"), not the claim's subject
                "off_topic": None if role in VOTERS else off_topic(text, claim),
                "unsourced_name": bool(names),
                "names": list(dict.fromkeys(n.text for n in names))[:10],
                # a name no claim or evidence gives, never marked (on this turn, or on an earlier one that said it)
                "unmarked_name": any(n.text not in marked for n in names),
                "hit_budget": e.get("cut_off_at") is not None,
            }
        )
        side = SIDE.get(role)
        if side and phase == "rebuttal":
            opp = [s[2] for s in heard if SIDE.get(s[1]) not in (None, side)]
            if opp:
                out["rebuttals"].append(
                    {
                        "role": role,
                        "agent": agent,
                        "model": e.get("model") or "",
                        "answers_point": answers_point(text, opp[-1], claim) and not cp.copied,
                    }
                )
        spoken.append((agent, role, text, phase, e.get("round")))
    return out
