"""What is being decided: the tasks of both papers, plus a user-written question.

A task gives the protocols everything that differs between a CheckThat category and a half-truth
claim: the phrase that completes "whether a tweet ...", the description (and, for few-shot, the
examples), the allowed labels and how a judge's JSON `"category"` value maps onto them. CheckThat texts
are verbatim from TurQUaz Appendix A.1/A.2; half-truth texts paraphrase RADAR Sections 1 and 4.1 (RADAR
gives no task description because its agents are told only the claim and the label set).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from debate import outcome, plugins
from debate.content.substance import reason_side
from debate.errors import InvalidInput

# Verbatim from TurQUaz A.3-A.5; the last bullet only makes sense for CheckThat, so other tasks drop it.
CHECKTHAT_FOCUS_RULE = "- Focus on science rather than technology, religion, or politics"


@dataclass(frozen=True)
class Labelled:
    """A tweet shown to a model with its label: a paper's hand-written example, or a similar train tweet
    (debate.aids.demos)."""

    text: str
    label: str  # "YES" | "NO"


@dataclass(frozen=True)
class Example(Labelled):
    explanation: str


@dataclass(frozen=True)
class Category:
    number: int
    title: str  # verbatim A.1 title, e.g. "Contain scientific claims"
    name: str  # e.g. "Scientific Claims"
    description: str
    guidelines: str
    examples: tuple[Example, ...] = ()
    yes: str = ""  # what a YES says about the tweet, in the category's own words (verdict sentences)
    no: str = ""

    @property
    def phrase(self) -> str:
        """The title as it completes "whether a tweet ..." in the A.3-A.5 prompts."""
        return self.title[0].lower() + self.title[1:]


def _ex(text: str, label: str, explanation: str) -> Example:
    return Example(text, label, explanation)


CHECKTHAT_CATEGORIES: dict[int, Category] = {
    1: Category(
        1,
        "Contain scientific claims",
        "Scientific Claims",
        "Factual statements about scientific topics, research findings, or scientific phenomena. These "
        "include statements that present scientific facts, research results, or claims about natural "
        "phenomena that can be verified through scientific methods.",
        "Focus on science rather than technology, religion, or politics. Look for specific scientific "
        "facts, research results, or claims about natural phenomena. Tweets may contain @user tags "
        '(anonymized usernames) and "image" indicates attached images.',
        (
            _ex(
                "With our current lifestyle, most of us are sleep deprived, which creates problems like mood "
                "disorders, weakened immunity, weight gain and diabetes. **A review of 16 studies found that "
                "sleeping for less than 6 to 8 hours a night increases the risk of early death by as much as "
                "12%**. image",
                "YES",
                "Presents specific **scientific findings with statistical data** from research studies about "
                "sleep deprivation effects.",
            ),
            _ex(
                "Once again, the tech sector, often associated with a free-market ethos, **falls short of "
                "social research expectations**.",
                "YES",
                "References **social research findings** as factual claims.",
            ),
            _ex(
                "How Employment Can Change the Life of Someone with a Disability "
                "http://www.tennesseeworks.org/how-employment-can-change-the-life-of-someone-with-a-disability"
                "-and-everyone-involved/",
                "YES",
                "Contains **claims about disability research findings** and their impacts.",
            ),
            _ex(
                "Diabetes Research and New Registry Aim to Improve Outcomes https://www.acc.org/latest-in-"
                "cardiology/articles/2015/03/04/16/32/diabetes-research-and-new-registry-aim-to-improve-"
                "outcomes?wt.mc_id=twitter #NCDR",
                "NO",
                "Describes **research activities and initiatives** rather than presenting actual scientific "
                "claims or findings.",
            ),
            _ex(
                "how u treat others will reflect on how u feel",
                "NO",
                "General **life advice without scientific backing** or evidence.",
            ),
        ),
        yes="this tweet contains a scientific claim",
        no="this tweet contains no scientific claim",
    ),
    2: Category(
        2,
        "Reference to scientific studies/publications",
        "References to Scientific Studies/Publications",
        "Direct references to scientific papers, research studies, academic publications, or scholarly articles.",
        "Examine both URL and tweet content carefully. For URLs, check if the domain is a known "
        "academic/scientific source and if the path contains keywords like /articles, /research, /studies, "
        'etc. Keywords like "research," "study," "published," "findings" also indicate scientific '
        "references. Pay equal attention to URLs and tweet content. Category 2 references typically imply "
        "Category 3 entities.",
        (
            _ex(
                "Diabetes Research and New Registry Aim to Improve Outcomes **https://www.acc.org/latest-in-"
                "cardiology/articles**/2015/03/04/16/32/diabetes-research-and-new-registry-aim-to-improve-"
                "outcomes?wt.mc_id=twitter #NCDR",
                "YES",
                "Contains **URL to cardiology articles** (domain: acc.org, path: /articles) and mentions "
                "**research** directly.",
            ),
            _ex(
                "With our current lifestyle, most of us are sleep deprived, which creates problems like mood "
                "disorders, weakened immunity, weight gain and diabetes. **A review of 16 studies** found that "
                "sleeping for less than 6 to 8 hours a night increases the risk of early death by as much as "
                "12%. image",
                "YES",
                'References **"a review of 16 studies"** indicating scientific literature review.',
            ),
            _ex(
                "How can this be unfolding? **https://www.bbc.co.uk/news**/health-53990068",
                "NO",
                "**BBC news link** about health but not specifically referencing scientific studies or publications.",
            ),
            _ex(
                "How Employment Can Change the Life of Someone with a Disability **http://www.tennesseeworks."
                "org**/how-employment-can-change-the-life-of-someone-with-a-disability-and-everyone-involved/",
                "NO",
                "**General informational content** from a non-academic source, not referencing scientific studies.",
            ),
        ),
        yes="this tweet refers to a scientific study or publication",
        no="this tweet refers to no scientific study or publication",
    ),
    3: Category(
        3,
        "Mention any scientific entities",
        "Mentions of Scientific Entities",
        "References to scientific institutions, researchers, scientists, universities, research "
        "organizations, academic conferences, or other entities involved in scientific research.",
        "Look for mentions of scientists, researchers, universities, research institutions, academic "
        "conferences, or scientific organizations. URLs with science-related paths can also indicate "
        "scientific entities. Focus on explicit scientific entities rather than general mentions.",
        (
            _ex(
                "Scientist. Artist. Activist. Coach. Visionary. **Mary Agnes Chase** is just one of the "
                "**Smithsonian** women featured in the new book, ’Smithsonian American Women,’ now available "
                "from @user. http://womenshistory.si.edu #BecauseOfHerStory",
                "YES",
                "Mentions **scientist Mary Agnes Chase** and the **Smithsonian institution** (@user likely "
                "refers to the publisher).",
            ),
            _ex(
                "Concussion ’breathalyser’ proposed **http://www.bbc.co.uk/news/science-environment**/29146654"
                "#sa-ns_mchannel=rss&ns_source=PublicRSS20-sa Published September 11, 2014 at 01:46AM",
                "YES",
                'URL path contains **"science-environment"** indicating scientific context and entities.',
            ),
            _ex(
                "Concerns over Antarctica intensify as visitor numbers surge - Global - **NZ Herald News** "
                "http://www.nzherald.co.nz/world/news/article.cfm?c_id=2&objectid=10871683",
                "NO",
                "**General news about Antarctica** without mentioning specific scientific entities or researchers.",
            ),
        ),
        yes="this tweet mentions scientific entities",
        no="this tweet mentions no scientific entity",
    ),
}

_HALF_TRUE_DESCRIPTION = (
    "TRUE: the claim is accurate and nothing significant is missing. HALF-TRUE: the claim is factually "
    "correct in isolation but misleading because it omits critical context. FALSE: the claim is inaccurate "
    "or contradicted by the evidence."
)
_NEI_DESCRIPTION = " NEI: there is not enough evidence to decide."


@dataclass(frozen=True)
class TaskView:
    """A task resolved for one category (or one custom question): what prompts are filled with."""

    task: str
    labels: tuple[str, ...]
    phrase: str  # completes "whether a tweet ..."
    description: str
    guidelines: str = ""
    examples: tuple[Example, ...] = ()
    category: int | None = None
    focus_rule: str = ""
    tie_label: str = "NO"  # the stated tie rule's fallback (see decisions.majority)
    subject: str = "tweet"  # what the input is called in prompts the task owns (not in verbatim ones)
    extra: dict = field(default_factory=dict)

    @property
    def binary(self) -> bool:
        return self.labels == ("YES", "NO")

    def description_and_guidelines(self, examples: bool = False) -> str:
        """[CATEGORY DESCRIPTION AND GUIDELINES]; with examples for the few-shot prompt (A.2 layout)."""
        parts = [self.description]
        if self.guidelines:
            parts.append(f"Guidelines: {self.guidelines}")
        if examples and self.examples:
            lines = ["Examples: Important parts are highlighted in **bold**."]
            for i, ex in enumerate(self.examples, 1):
                kind = "Positive" if ex.label == "YES" else "Negative"
                lines.append(f'• Example {i} ({kind}): "{ex.text}"\n  Explanation: {ex.explanation}')
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    # -- label wording used by templates -----------------------------------------------------
    @property
    def labels_slash(self) -> str:
        """ "YES/NO" as in `VOTE: [YES/NO]`."""
        return "/".join(self.labels)

    @property
    def labels_or(self) -> str:
        """'"YES" or "NO"' as in the council's JSON format."""
        return " or ".join(f'"{lab}"' for lab in self.labels)

    @property
    def category_values(self) -> str:
        """The judge JSON's "category" value: the paper's `0 or 1` for yes/no tasks."""
        return "0 or 1" if self.binary else self.labels_or

    @property
    def verdict_options(self) -> str:
        """`TRUE / FALSE / HALF-TRUE` as in RADAR's `[VERDICT]:` line."""
        return " / ".join(self.labels)

    @property
    def decision_question(self) -> str:
        """Completes RADAR's "decide whether ...": verbatim for half-truth, adapted for yes/no tasks."""
        if self.binary:
            return f"the tweet {self.phrase} (YES or NO)"
        *head, last = self.labels
        return f"the claim is {', '.join(head)}, or {last}"


def _checkthat(category: int | None, custom_title: str, custom_description: str) -> TaskView:
    if category not in CHECKTHAT_CATEGORIES:
        raise InvalidInput(
            f"CheckThat has no category {category!r}.",
            "Use category 1 (scientific claim), 2 (reference to a study) or 3 "
            "(scientific entities), or leave it empty to run all three.",
        )
    c = CHECKTHAT_CATEGORIES[category]
    return TaskView(
        "checkthat",
        ("YES", "NO"),
        c.phrase,
        c.description,
        c.guidelines,
        c.examples,
        category=category,
        focus_rule=CHECKTHAT_FOCUS_RULE,
        tie_label="NO",
        extra={"title": c.title, "name": c.name},
    )


def _truth(task: str) -> Callable[[int | None, str, str], TaskView]:
    """Half-truth, or AVeriTeC with NEI: RADAR's labels (Sections 1 and 4.1)."""
    nei = task == "averitec"

    def resolve(category: int | None, custom_title: str, custom_description: str) -> TaskView:
        labels = ("TRUE", "FALSE", "HALF-TRUE") + (("NEI",) if nei else ())
        desc = _HALF_TRUE_DESCRIPTION + (_NEI_DESCRIPTION if nei else "")
        phrase = "is true, false, half-true" + (
            ", or not verifiable with the evidence (NEI)" if nei else " (misleading by omission)"
        )
        return TaskView(task, labels, phrase, desc, tie_label="HALF-TRUE", subject="claim")

    return resolve


def _custom(category: int | None, custom_title: str, custom_description: str) -> TaskView:
    title = (custom_title or "").strip()
    if not title:
        raise InvalidInput(
            "A custom question needs a title.",
            "Write what the tweet should be judged for, e.g. 'is about climate change'.",
        )
    desc = (custom_description or "").strip() or title
    return TaskView("custom", ("YES", "NO"), title[0].lower() + title[1:], desc, tie_label="NO", extra={"title": title})


# -- the registry: every list of tasks derives from it --------------------------------------------------
_TRUTH_WORDS = {
    "TRUE": "the claim is true",
    "FALSE": "the claim is false",
    "HALF-TRUE": "the claim is half-true: correct in itself, but misleading because it leaves out context",
    "NEI": "there is not enough evidence to decide",
}


@dataclass(frozen=True)
class TaskInfo:
    """A task as the registry holds it: what a picker shows, the labels its verdicts take, and how it is
    resolved into the TaskView the prompts are filled with. Declared up front (not read off a resolved
    view) so that lists, label pickers and exports know a task's labels without a category or a title."""

    name: str  # what --task and the stored debate say
    title: str  # what a picker shows
    labels: tuple[str, ...]  # every label a verdict of the task can take
    resolve: Callable[[int | None, str, str], TaskView]  # (category, custom title, custom description) -> view
    categories: tuple[int, ...] = ()  # sections a run may have; a run that names none has every one
    words: dict[str, str] = field(default_factory=dict)  # label -> what it says ("the claim is false")

    @property
    def truth(self) -> bool:
        """Decided as true or false (RADAR's judge's labels), not as yes or no."""
        return "TRUE" in self.labels


ENTRY_POINT_GROUP = "debate.tasks"
BUILT_IN: tuple[TaskInfo, ...] = (
    TaskInfo("checkthat", "CheckThat 2025 4a (tweets)", ("YES", "NO"), _checkthat, tuple(CHECKTHAT_CATEGORIES)),
    TaskInfo(
        "halftruth",
        "Half-truth (TRUE / HALF-TRUE / FALSE)",
        ("TRUE", "FALSE", "HALF-TRUE"),
        _truth("halftruth"),
        words={k: v for k, v in _TRUTH_WORDS.items() if k != "NEI"},
    ),
    TaskInfo(
        "averitec", "AVeriTeC (+ NEI)", ("TRUE", "FALSE", "HALF-TRUE", "NEI"), _truth("averitec"), words=_TRUTH_WORDS
    ),
    TaskInfo("custom", "Custom question", ("YES", "NO"), _custom),
)
TASKS: dict[str, TaskInfo] = {info.name: info for info in BUILT_IN}


class _Titles(Mapping[str, str]):
    """name -> title of every registered task (the pickers' options), read from TASKS at each look-up: a view,
    so a task registered, or taken out again, is listed (or not) with nothing to keep in step."""

    def __getitem__(self, name: str) -> str:
        return TASKS[name].title

    def __iter__(self) -> Iterator[str]:
        return iter(TASKS)

    def __len__(self) -> int:
        return len(TASKS)


TASK_TITLES: Mapping[str, str] = _Titles()
# entry points that could not be loaded: name -> why
FAILED: dict[str, str] = {}


def register(info: TaskInfo) -> TaskInfo:
    """Adds a task to the registry: the command line's --task, the pages' task pickers and every label list
    then offer it."""
    if not isinstance(info, TaskInfo):
        raise InvalidInput(
            f"A task must be registered as a TaskInfo, not a {type(info).__name__}.",
            "Point the entry point at the module's INFO (e.g. my_pkg.satire:INFO).",
        )
    if info.name in TASKS and TASKS[info.name] is not info:
        raise InvalidInput(f"A task named {info.name!r} is already registered.", "Give yours another name.")
    if not info.name or info.name != info.name.strip().lower() or not info.labels:
        raise InvalidInput(f"Task {info.name!r} needs a lower-case name and its labels.", "Set INFO's name and labels.")
    TASKS[info.name] = info
    return info


def _load_entry_points() -> None:
    """Registers every task other installed packages declare; one that fails is logged and left out."""
    plugins.load_entry_points(ENTRY_POINT_GROUP, "task", TASKS, register, FAILED)


def names() -> tuple[str, ...]:
    return tuple(TASKS)


def get(task: str) -> TaskInfo:
    info = TASKS.get((task or "").strip().lower())
    if info is None:
        raise InvalidInput(f"Unknown task {task!r}.", f"Use one of: {', '.join(TASKS)}.")
    return info


def is_truth(task: str) -> bool:
    """Whether the task's verdicts are TRUE / FALSE (...) rather than YES / NO; False for an unknown name."""
    info = TASKS.get(task or "")
    return bool(info and info.truth)


def task_labels(task: str) -> tuple[str, ...]:
    """The labels a verdict of the task can take; YES / NO for a name the registry does not know (an older
    stored debate's)."""
    info = TASKS.get(task or "")
    return info.labels if info else ("YES", "NO")


def resolve_task(
    task: str, category: int | None = None, custom_title: str = "", custom_description: str = ""
) -> TaskView:
    """One task view; raises InvalidInput with a hint for unknown tasks/categories or an empty custom title."""
    return get(task).resolve(category, custom_title, custom_description)


def task_categories(task: str, category: int | None) -> list[int | None]:
    """Which category sections a run has: a task with categories and none chosen runs them all (CheckThat's
    three)."""
    cats = TASKS[task].categories if task in TASKS else ()
    if not cats:
        return [None]
    return list(cats) if category is None else [category]


_load_entry_points()


# -- what a verdict says, in the task's terms ---------------------------------------------------------
# Every sink (verdict card, Present, Learn, Library, the exports) words a verdict with these functions,
# so a CheckThat YES never reads as "true" on one screen and as "contains a claim" on another.
TRUE_FALSE_PROTOCOLS = ("radar", "radar-single")  # RADAR's judge decides TRUE / FALSE / HALF-TRUE


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """A field of an event or of its dict (sinks hold either)."""
    if obj is None:
        return default
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def verdict_sentence(task: str, category: int | None, label: str | None, custom_title: str = "") -> str:
    """One plain sentence for a label in the task's own terms, e.g. "YES — this tweet contains a scientific
    claim" (CheckThat category 1) or "FALSE — the claim is false" (half-truth)."""
    if label is None:
        return "No verdict — no readable answer"
    lab = str(label).strip().upper()
    if task == "checkthat" and category in CHECKTHAT_CATEGORIES and lab in ("YES", "NO"):
        c = CHECKTHAT_CATEGORIES[category]
        return f"{lab} — {c.yes if lab == 'YES' else c.no}"
    info = TASKS.get(task)
    if info is not None and lab in info.words:
        return f"{lab} — {info.words[lab]}"
    if lab in _TRUTH_WORDS and task != "checkthat":  # a stored verdict that does not say its task
        return f"{lab} — {_TRUTH_WORDS[lab]}"
    if lab in ("YES", "NO"):
        title = (custom_title or "").strip().rstrip("?")
        if task == "custom" and title:
            return f"{lab} — to “does the text {title[0].lower() + title[1:]}?” the answer is {lab.lower()}"
        return f"{lab} — the answer is {lab.lower()}"
    return str(label)


def verdict_sentences(verdict: Any, started: Any = None) -> list[str]:
    """The sentence for a stored verdict (one per category when all three CheckThat categories ran).

    `started` is the debate's debate_started event (or its dict): it says the task, and for a custom
    question its title; without it the verdict's own category is used and the task guessed from it."""
    settings = _get(started, "settings") or {}
    task = _get(started, "task") or ("checkthat" if _get(verdict, "category") or _get(verdict, "labels") else "")
    title = settings.get("custom_title", "") if isinstance(settings, dict) else ""
    labels = _get(verdict, "labels")
    if isinstance(labels, dict) and labels and _get(verdict, "source") == "categories":
        return [
            f"Category {k}: {verdict_sentence(task, int(k) if str(k).isdigit() else None, v, title)}"
            for k, v in labels.items()
        ]
    return [verdict_sentence(task, _get(verdict, "category"), _get(verdict, "label"), title)]


def override_note(verdict: Any) -> str:
    """The one sentence beside a verdict's label when its readings disagree (debate.outcome.reading):
    the calibration's label as a second opinion ("Calibrated reading: FALSE (class weights fitted on LIAR
    train) — a second opinion; …"), that the calibrated reading was chosen and what the model wrote, or a
    council's counted majority against its written one. Empty when nothing disagrees."""
    return outcome.reading(verdict).note()


_OPPOSITE = {"YES": "NO", "NO": "YES", "TRUE": "FALSE", "FALSE": "TRUE"}


def reason_note(verdict: Any, started: Any = None) -> str:
    """The sentence beside a judge's verdict whose own reason argues the opposite label ("The judge's reason
    argues YES; the label it wrote is NO."): a 0.5B single-debate judge wrote "The tweet contains several
    scientific claims" and then NO (P 0.51), and the card stated NO under a reason for YES without a word.
    Read in the reason's words (debate.content.substance.reason_side: a CheckThat category's verb and
    object, or the claim called true or false); only opposite labels count (HALF-TRUE beside "the claim is
    false" is not apart). Empty for votes, a baseline's sentence (decoded to argue its label), all three
    categories at once, and when the reason takes no side or both."""
    if str(_get(verdict, "source") or "") not in ("judge", "round-judge"):
        return ""
    task = _get(started, "task") or ("checkthat" if _get(verdict, "category") else "")
    category = _get(verdict, "category")
    if task == "checkthat" and category is None:
        return ""
    written = outcome.reading(verdict).written
    side = reason_side(str(_get(verdict, "explanation") or ""), category if task == "checkthat" else None)
    if not written or side is None or _OPPOSITE.get(str(written)) != side:
        return ""
    return f"The judge's reason argues {side}; the label it wrote is {written}."


_OWN = {
    "judge": "the judge's own",
    "round-judge": "the round judge's own",
    "baseline": "the model's own",
    "single-agent": "the model's own",
}


def verdict_number(verdict: Any) -> str:
    """The verdict's number in words that say what it is, for every sink (card, exports, Learn, Present):
    votes as votes ("3 of 3 members voted YES"), a probability as P(label) with its basis ("P(FALSE) 0.92
    after class weights fitted on LIAR train", "P(YES) 0.67, the judge's own"). Never a bare "confidence":
    a council's 1.00 is a unanimous vote, not a certainty. Verdicts recorded before `basis` existed are
    read by their source (a majority's number was always its vote share)."""
    label, conf = _get(verdict, "label"), _get(verdict, "confidence")
    if conf is None or not label:
        return ""
    try:
        c = float(conf)
    except (TypeError, ValueError):
        return ""
    label = str(label)
    basis, source = str(_get(verdict, "basis") or ""), str(_get(verdict, "source") or "")
    k, n = _get(verdict, "votes_for"), _get(verdict, "voters")
    if basis == "votes" or (not basis and source == "majority"):
        if isinstance(k, int) and isinstance(n, int) and n > 0:
            return f"{k} of {n} members voted {label}"
        return f"every member voted {label}" if c >= 1 - 1e-9 else f"{c:.0%} of the members voted {label}"
    if basis == "samples":
        if isinstance(k, int) and isinstance(n, int) and n > 0:
            return f"{k} of {n} sampled answers of the round judge gave {label}"
        return f"{c:.0%} of the round judge's sampled answers gave {label}"
    note = str(_get(verdict, "basis_note") or "")
    if basis == "calibrated" or (not basis and _get(verdict, "aid")):
        how = note or str(_get(verdict, "aid") or "").split(":")[0] or "calibration"
        return f"P({label}) {c:.2f} after {how}"
    if not basis and _get(verdict, "probs"):  # an older calibrated verdict that kept the written label
        return f"P({label}) {c:.2f}, calibrated"
    return f"P({label}) {c:.2f}, {_OWN.get(source, 'the model' + chr(39) + 's own')}"


def turn_number(turn: Any) -> str:
    """A turn's number: the probability the model itself gave the label it wrote, "P(YES) 0.52"."""
    label, conf = _get(turn, "label"), _get(turn, "confidence")
    if conf is None or not label:
        return ""
    try:
        return f"P({label}) {float(conf):.2f}"
    except (TypeError, ValueError):
        return ""


def stop_confidence_words(check: Any) -> str:
    """A stop check's verdict number named by its method: "P(FALSE) 0.83" when read from the round judge's
    label probabilities, "sample share of FALSE 0.67" when it is the share of sampled answers."""
    c = _get(check, "verdict_confidence")
    try:
        c = float(c or 0.0)
    except (TypeError, ValueError):
        c = 0.0
    lab = str(_get(check, "preliminary_verdict") or "the verdict")
    if str(_get(check, "method") or "") == "samples":
        return f"sample share of {lab} {c:.2f}"
    return f"P({lab}) {c:.2f}"


def shortened_mark(how: str) -> str:
    """The mark under a turn the engine shortened (TurnFinished.shortened; its full text is in full_text)."""
    return {
        "sentence": "✂ shortened to its last full sentence (the answer budget ran out mid-sentence)",
        "loop": "✂ stopped where it began to repeat itself; the text before the repeat is kept",
    }.get(how, "")


def echoed_mark(placeholder: str) -> str:
    """The mark under a turn that copied its answer format's placeholder (TurnFinished.echoed_format)."""
    head = placeholder if len(placeholder) <= 60 else placeholder[:57].rstrip() + "…"
    return f"⚠ copied the answer format's placeholder (“{head}”) instead of giving a reason"


def cut_off_mark(tokens: int | None, shortened: str = "") -> str:
    """The mark at the end of an answer the token budget ended mid-way, or that the engine shortened (every
    sink says it alike)."""
    if shortened:
        return shortened_mark(shortened)
    return f"✂ cut off at {tokens} tokens (the answer budget)" if tokens else ""
