"""Planning a question before retrieving for it (DESIGN.md, "Answering v4b").

The plan says how wide the question reaches (LOCAL: one scene; MID: a few
sections; GLOBAL: the whole book) and splits it into up to three parts, each
searched on its own, with anchors (literal phrases of the question, like
"little brown book") and whether the part asks for several instances ("three
times", "each master").

The model may plan (schema-constrained JSON, with the structural and
characters cards), but its plan is guarded in code: an anchor must be made
of the question's own words, no section may be named, and a plan that fails
the guard is replaced by one made by code from the question itself (clauses,
quoted phrases, rare words, names found in the characters card). Which path
made each plan is counted.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass, field

import Stemmer

LOCAL, MID, GLOBAL = "LOCAL", "MID", "GLOBAL"
MAX_PARTS = 3
STOPWORDS = {
    "a", "an", "the", "and", "or", "but", "of", "in", "on", "at", "to", "for", "with", "by", "from", "as", "is", "are",
    "was", "were", "be", "been", "being", "do", "does", "did", "has", "have", "had", "what", "which", "who", "whom",
    "whose", "when", "where", "why", "how", "that", "this", "these", "those", "it", "its", "he", "she", "they", "his",
    "her", "their", "him", "them", "i", "you", "we", "my", "your", "our", "not", "no", "so", "than", "then", "there",
    "into", "about", "after", "before", "over", "under", "between", "through", "during", "again", "each", "every",
    "all", "any", "both", "some", "such", "same", "other", "another", "one", "two", "three", "first", "last", "later",
    "earlier", "time", "times", "way", "ways", "does", "come", "comes", "came", "make", "makes", "made", "take",
    "takes", "took", "book", "novel", "story", "chapter", "chapters", "scene", "scenes", "moment", "end", "begin",
    "beginning", "ending", "reader", "narrator", "mean", "means", "meaning", "role", "part", "parts", "role",
    "happen", "happens", "happened", "show", "shows", "change", "changes", "use", "uses", "used", "turn", "turns",
    "up", "out", "down", "off", "would", "could", "should", "will", "can", "may", "might", "must", "own", "also",
    "just", "only", "very", "more", "most", "much", "many", "what's", "whats", "if", "while", "until", "since",
    "afterwards", "afterward", "finally", "eventually",
}
# Small words inside a name: "the Ghost of Christmas Past", "the King of Ruritania".
NAME_JOINERS = {"of", "de", "du", "von", "van", "la", "le"}


def capitalised_as_a_name(text: str) -> bool:
    """Whether each word is capitalised, small words inside a name aside ("Ghost of Christmas Past",
    "Tarzan of the Apes")."""
    name = text.split()
    return bool(name) and all(word[:1].isupper() or (0 < place < len(name) - 1 and joins_a_name(name, place))
                              for place, word in enumerate(name))


def joins_a_name(name: list[str], place: int) -> bool:
    """Whether the word at `place` is a small word inside a name: "of", "de", "the" after "of"."""
    return name[place] in NAME_JOINERS or name[place] == "the" and place > 0 and name[place - 1] == "of"


_SEVERAL = re.compile(r"\b(three|four|five|several|twice|each|every|all the|how many|times|both|list|recur\w*|"
                      r"repeated\w*|again and again|more than once|successive|series)\b", re.I)
_COUNTS = {"three", "four", "five"}


def asks_for_several(clause: str) -> bool:
    """Whether a clause asks for several instances; a number word written
    with a capital inside it is a name ("the old gentleman's visit to Three
    Chimneys"), not a count."""
    return any(not (match.group()[0].isupper() and match.start() > 0 and match.group().lower() in _COUNTS)
               for match in _SEVERAL.finditer(clause))


_GLOBAL = re.compile(r"\b(whole book|the book|the novel|throughout|across the|recurring|structure|arranged|"
                     r"framing|frame|opens? and clos\w+|from beginning to end|overall|as a whole|motif|theme)\b", re.I)
# Words of a question that spans the story rather than one scene of it: "How does X develop from A to B?",
# "What does the narrator later learn...?", "How does the stranding echo...?". Read by the digest alone:
# retrieval's scope is as `scope_of` says.
_SPANS = re.compile(r"\b(?:develop\w*|evolv\w*|echo\w*|mirror\w*|lead|leads|led\s+to|later|earlier|afterwards"
                    r"|finally|eventually|ending|the\s+end|chang\w+|shift\w*|trace|throughout|different"
                    r"|over\s+the\s+course|runs?\s+through|sets?\s+off|turns?\s+into|recur\w*|reappear\w*"
                    r"|plays?\s+out|years|comes?\s+to|again|twice|both|first\b.*\bthen|anticipat\w*|foreshadow\w*"
                    r"|contrast\w*|compar\w*"
                    r"|from\b.{3,60}\bto\b.{3,60}(?:,|\?$))\b", re.I)
_CLAUSE_SPLIT = re.compile(r"\s*(?:,\s*and\s+|;\s*|\?\s+|\s+and\s+(?=(?:what|how|why|who|which|where|when)\b)|"
                           r",\s*(?=(?:and\s+)?(?:what|how|why|who|which|where|when|then|later|afterwards|finally)\b)|"
                           r"\s+and\s+(?=(?:later|then|afterwards|finally)\b))", re.I)


@dataclass
class PlanPart:
    text: str
    anchors: list[str] = field(default_factory=list)
    several: bool = False
    names: list[str] = field(default_factory=list)  # other names of people the part mentions


@dataclass
class Plan:
    question: str
    scope: str
    parts: list[PlanPart]
    path: str  # "model" or "code"
    rare_words: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why the model's plan was not used

    def as_dict(self) -> dict:
        return {"question": self.question, "scope": self.scope, "path": self.path, "rare_words": self.rare_words,
                "rejected": self.rejected,
                "parts": [{"text": p.text, "anchors": p.anchors, "several": p.several, "names": p.names}
                          for p in self.parts]}


PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "scope": {"type": "string", "enum": [LOCAL, MID, GLOBAL]},
        "parts": {"type": "array", "minItems": 1, "maxItems": MAX_PARTS, "items": {
            "type": "object",
            "properties": {
                "question": {"type": "string", "maxLength": 200},
                "anchors": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 60}},
                "several": {"type": "boolean"},
                "people": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 40}},
            },
            "required": ["question", "anchors", "several"],
        }},
    },
    "required": ["scope", "parts"],
}


# Letters of the Latin alphabet, with accents ("Léon", "Thénardier"; not "×" or "÷").
LETTER = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
# A word of a question, with its apostrophes and hyphens.
WORD_PATTERN = rf"[{LETTER}][{LETTER}'\-]*"


def words(text: str) -> list[str]:
    return re.findall(WORD_PATTERN, text)


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w.lower().strip("'") not in STOPWORDS and len(w) > 2]


# A stemmer is not safe to share between threads (PyStemmer's documentation);
# answers and the app's background work stem at the same time.
_stemmers = threading.local()


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A word's Snowball (Porter2) stem, as the word index stems it
    ("lived", "live" -> "live"; "horses" -> "hors"): whether two texts share a word."""
    english = getattr(_stemmers, "english", None)
    if english is None:
        english = _stemmers.english = Stemmer.Stemmer("english", 0)  # no cache of its own: this one's is shared
    return english.stemWord(word.lower().strip("'"))


# ------------------------------------------------------------ the code planner


def code_plan(question: str, characters: list[dict] | None = None, rarity=None) -> Plan:
    """A plan made from the question alone: its clauses as parts, its quoted
    phrases and multi-word noun groups as anchors, its rare words, and the
    other names of the people it mentions."""
    question = " ".join(question.split())
    clauses = [c.strip(" ,;?") for c in _CLAUSE_SPLIT.split(question) if c and len(content_words(c)) >= 2]
    if not clauses:
        clauses = [question.strip(" ?")]
    clauses = _merge_clauses(clauses)
    parts = [PlanPart(text=clause, anchors=anchors_of(clause), several=asks_for_several(clause),
                      names=names_in(clause, characters)) for clause in clauses]
    rare = rare_words(question, rarity) if rarity else []
    return Plan(question=question, scope=scope_of(question, parts), parts=parts, path="code", rare_words=rare)


def _merge_clauses(clauses: list[str]) -> list[str]:
    while len(clauses) > MAX_PARTS:
        shortest = min(range(len(clauses) - 1), key=lambda i: len(clauses[i]) + len(clauses[i + 1]))
        clauses[shortest:shortest + 2] = [f"{clauses[shortest]}, {clauses[shortest + 1]}"]
    return clauses


def scope_of(question: str, parts: list[PlanPart]) -> str:
    if _GLOBAL.search(question):
        return GLOBAL
    if len(parts) > 1 or any(part.several for part in parts):
        return MID
    return LOCAL


def about_one_scene(plan: Plan) -> bool:
    """Whether a plan is for a question about one scene: one part, asking
    for no several instances, of LOCAL scope, and none of the words of a
    question spanning the story (`_SPANS`). Of the development set's 54
    one-part LOCAL questions, all cross-chapter, 44 have such words; of
    GutenQA's 254 on our books, each made from one passage, 17."""
    return (plan.scope == LOCAL and len(plan.parts) == 1 and not plan.parts[0].several
            and not _SPANS.search(plan.question))


# Quoted phrases. A single quote counts only outside a word, so the
# apostrophes of "John's ... boy's" do not quote "s angry retort about a boy".
QUOTED = re.compile(r"[\"\u201c]([^\"\u201d]{3,60})[\"\u201d]"
                    r"|(?<![A-Za-z])[\u2018']([^\u2019']{3,60})[\u2019'](?![A-Za-z])")


def anchors_of(text: str) -> list[str]:
    """Quoted phrases, and runs of two to four content words ("door knocker",
    "little brown book") as the question writes them."""
    anchors = [(double or single).strip() for double, single in QUOTED.findall(text)]
    run: list[str] = []
    for token in words(text) + [""]:
        lowered = token.lower().strip("'")
        if token and lowered not in STOPWORDS and len(token) > 1:
            run.append(token.strip("'\u2018\u2019"))
            continue
        if 2 <= len(run) <= 4:
            anchors.append(" ".join(run))
        elif len(run) > 4:
            anchors.append(" ".join(run[-3:]))
        run = []
    seen, unique = set(), []
    for anchor in anchors:
        if anchor.lower() not in seen:
            seen.add(anchor.lower())
            unique.append(anchor)
    return unique[:4]


def rare_words(question: str, rarity) -> list[str]:
    """The question's words that few passages of this book contain (but some do)."""
    scored = []
    for word in {w.lower() for w in content_words(question)}:
        score = rarity(word)
        if score is not None:
            scored.append((score, word))
    return [word for _, word in sorted(scored)[:4]]


def names_in(text: str, characters: list[dict] | None) -> list[str]:
    """Other names of each character the text mentions by any of theirs."""
    if not characters:
        return []
    found: list[str] = []
    lowered = text.lower()
    for character in characters:
        names = [character.get("name", "")] + list(character.get("also_called", []))
        names = [n for n in names if n]
        if any(re.search(rf"\b{re.escape(n.lower())}\b", lowered) for n in names):
            found.extend(n for n in names if not re.search(rf"\b{re.escape(n.lower())}\b", lowered))
    return list(dict.fromkeys(found))[:6]


# ------------------------------------------------------------ the model planner


def model_plan(generator, question: str, structure_text: str, characters: list[dict] | None, rarity=None,
               cancel=None) -> Plan:
    """Ask the model for a plan and guard it; the code plan when it fails."""
    from ..llm.types import ChatMessage, GenerationOptions

    people = "; ".join(
        f"{c['name']}{' (also ' + ', '.join(c.get('also_called', [])) + ')' if c.get('also_called') else ''}"
        for c in (characters or [])[:12])
    messages = [
        ChatMessage("system", "You plan how to search a book for the answer to a reader's question. Answer in JSON."),
        ChatMessage("user", f"About the book:\n{structure_text[:1500]}\n\nPeople: {people or 'unknown'}\n\n"
                            f"Question: {question}\n\nSplit the question into at most three parts to look up "
                            "separately. For each part give the sub-question, anchors (exact words from the "
                            "question worth finding literally), whether it asks for several instances, and the "
                            "people it is about. Also say the scope: LOCAL (one scene), MID (a few chapters) or "
                            "GLOBAL (the whole book)."),
    ]
    completion = generator.complete(messages, GenerationOptions(max_tokens=260, temperature=0.0, json_schema=PLAN_SCHEMA,
                                                                truncation="truncate-longest-end"), cancel)
    plan = guard_plan(completion.data, question, characters, rarity)
    return plan


def guard_plan(data, question: str, characters: list[dict] | None, rarity=None) -> Plan:
    """Keep what the question supports; fall back to the code plan otherwise."""
    fallback = code_plan(question, characters, rarity)
    if not isinstance(data, dict) or not isinstance(data.get("parts"), list) or not data["parts"]:
        fallback.rejected.append("no usable plan")
        return fallback
    own = {w.lower() for w in words(question)}
    parts, rejected = [], []
    proposed = rejected_anchors = 0
    seen_texts: set[str] = set()
    for item in data["parts"][:MAX_PARTS]:
        text = " ".join(str(item.get("question", "")).split())
        if text.lower() in seen_texts:
            rejected.append("repeated part")
            continue
        seen_texts.add(text.lower())
        if re.search(r"\b(chapter|stave|section|part|volume|book)\s+([0-9]+|[IVXLC]+|[a-z]+-?[a-z]*)\b", text, re.I) \
                and not re.search(r"\b(chapter|stave|section|volume)\b", question, re.I):
            rejected.append("named a section")
            continue
        part_words = {w.lower() for w in content_words(text)}
        # A part is a piece of the question, in its words (a small model misspells or wanders).
        if not part_words or len(part_words & own) < 0.8 * len(part_words):
            rejected.append("part not in the question's words")
            continue
        anchors = []
        for anchor in item.get("anchors", []):
            proposed += 1
            anchor_words = [w.lower() for w in words(str(anchor))]
            if anchor_words and all(w in own for w in anchor_words) and anchor.lower() in question.lower():
                anchors.append(" ".join(str(anchor).split()))
            else:
                rejected_anchors += 1
                rejected.append(f"anchor not in the question: {anchor}")
        parts.append(PlanPart(text=text, anchors=anchors or anchors_of(text), several=bool(item.get("several")),
                              names=names_in(text + " " + " ".join(item.get("people", [])), characters)))
    unusable = (not parts
                or (proposed and rejected_anchors * 2 > proposed)
                or (len(parts) == 1 and len(fallback.parts) > 1
                    and {w.lower() for w in content_words(parts[0].text)} >= {w.lower() for w in content_words(question)}))
    if unusable:
        fallback.rejected.extend(rejected or ["the model did not split the question"])
        return fallback
    scope = data.get("scope") if data.get("scope") in (LOCAL, MID, GLOBAL) else scope_of(question, parts)
    return Plan(question=" ".join(question.split()), scope=scope, parts=parts, path="model",
                rare_words=fallback.rare_words, rejected=rejected)
