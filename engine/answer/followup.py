"""Follow-up questions. After "Who is Marley?", a reader asks "What becomes of
him in the end?": searched on its own words, "him" finds any man of the book.
A follow-up is asked as the reader wrote it with the earlier question's
subject put beside its first pronoun ("What becomes of him (Marley) in the
end?"), so the plan, the ranking and the answer's prompt know who "him" is,
and the answer shows how the question was taken. The subject is what the
earlier question names: its quoted phrases, its names (capitalised words, or
any of the characters card's names, however typed); where it names nothing,
the earlier question itself, quoted.

A capable model's answer to the earlier question goes with it: the answer's
prompt carries it (what was said before, not only who was meant), and where
the earlier question asked who did something ("Who warns Scrooge?"), the
people its answer names are the subject first: "What happens to him?" is
about the one who warned, as often as about Scrooge."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .counting import SAYING
from .definitions import look_up_question, looks_up, word_asked
from .named import chapter_reference
from .planning import LETTER, NAME_JOINERS, QUOTED, STOPWORDS, WORD_PATTERN, words
from .selection import about_question

# A question using one of these and naming nobody refers to someone named before.
PERSONAL_PRONOUNS = {"he", "him", "his", "himself", "she", "her", "hers", "herself", "they", "them", "their",
                     "theirs", "themselves"}
# Where the subject is put when the question has no personal pronoun ("What
# does it mean?" asked as a follow-up on purpose).
_OTHER_REFERENCES = {"it", "its", "this", "that", "these", "those", "there"}
MAX_SUBJECTS = 3
# The earlier answer in a follow-up's prompt: a capable model's is about 120 words.
EARLIER_ANSWER_WORDS = 160
# "Who warns Scrooge?" asks for someone the answer names; "Who is Marley?" names him.
_ASKS_WHO = re.compile(r"^\W*(?:who|whom|whose)\b(?:\s+(is|was|are|were)\b)?", re.I)
_CITATION = re.compile(r"\s*\[[^\[\]]{1,80}\]")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+)[\"'\u201c\u2018(]*$")


@dataclass(frozen=True)
class Earlier:
    """The question a follow-up follows, as it was taken, and the answer a
    capable model gave it ("" for a small model's draft or none)."""

    question: str
    answer: str = ""


def as_earlier(after: str | Earlier | None) -> Earlier | None:
    """`after` as given to the engine (an earlier question, or one with its
    answer); None where it is blank."""
    if after is None:
        return None
    earlier = after if isinstance(after, Earlier) else Earlier(after)
    return earlier if earlier.question.strip() else None


def leans_on_earlier(question: str) -> bool:
    """Whether a question refers to someone it does not name ("Why does he
    leave?"), so that on its own it is a question about anyone: a personal
    pronoun, and no name nor quoted phrase of its own; or whether it is
    the earlier question cut short ("And Louisa?", "What about chapter 6?")."""
    if _ELLIPSIS.match(question) and len(words(question)) <= _ELLIPSIS_WORDS:
        return True
    if not any(word.lower() in PERSONAL_PRONOUNS for word in words(question)):
        return False
    return not QUOTED.search(question) and not _capitalised_names(question)


def subjects_of(question: str, characters: list[dict] | None = None) -> list[str]:
    """What a question is about, as far as its words say: its quoted phrases,
    its names (runs of capitalised words, less a sentence's first word unless
    the characters card knows it) and the card's names however typed."""
    card = _card_names(characters)
    found = [(double or single).strip() for double, single in QUOTED.findall(question)]
    found += _capitalised_names(question, card)
    lowered = question.lower()
    for name in card:
        if re.search(rf"\b{re.escape(name.lower())}\b", lowered):
            found.append(name)
    unique: list[str] = []
    for subject in found:  # one of each, the longest ("Jacob Marley", not "Marley" as well)
        if not any(_key(subject) in _key(kept) for kept in unique):
            unique = [kept for kept in unique if _key(kept) not in _key(subject)] + [subject]
    return unique[:MAX_SUBJECTS]


def follow_up_question(question: str, earlier: str | Earlier, characters: list[dict] | None = None) -> str:
    """The question as planned and answered when it follows `earlier`: the
    earlier question's subject beside its first pronoun, else before its
    question mark."""
    question = " ".join(question.split())
    earlier = as_earlier(earlier) or Earlier("")
    instead = asked_again_of(question, earlier.question, characters)
    if instead:
        return instead
    subjects = _followed_subjects(earlier, characters)
    if subjects and all(re.search(rf"\b{re.escape(subject)}\b", question, re.I) for subject in subjects):
        # Named already, in whatever case: "how does kerchak die" after "Who is Kerchak?" had become "how does
        # kerchak die (Kerchak)", which no kind of question read as asking how he dies.
        return question
    asked = " ".join(earlier.question.split()).rstrip(" ?")
    gloss = ", ".join(subjects) if subjects else f"after \u201c{asked}\u201d"
    for wanted in (PERSONAL_PRONOUNS, _OTHER_REFERENCES):
        for match in re.finditer(WORD_PATTERN, question):
            if match.group().lower() in wanted:
                return f"{question[:match.end()]} ({gloss}){question[match.end():]}"
    if question.endswith("?"):
        return f"{question[:-1].rstrip()} ({gloss})?"
    return f"{question} ({gloss})"


# A pronoun glossed with the one subject it means: "his (Marley)", "she (Anne)".
_GLOSSED = re.compile(r"\b(?P<pronoun>he|him|his|she|her|hers|they|them|their|theirs)\s+\((?P<subject>[^(),]+)\)"
                      r"(?P<next>\s+[\w'\u2019]+)?", re.I)
_POSSESSIVES = {"his", "hers", "their", "theirs"}
# Words after "her" that make it the object, not the possessive: "What happens to her (Anne) in the end?"
_AFTER_AN_OBJECT = STOPWORDS | {"in", "at", "on", "to", "from", "with", "by", "for", "about", "after", "before",
                                "when", "while", "and", "or", "so", "again", "most", "first", "last", "later"}


def unglossed(question: str) -> str:
    """A follow-up as if asked plainly, its pronoun's gloss in its place:
    "How many times is he (Marley) mentioned?" -> "How many times is
    Marley mentioned?", "What was his (Marley) job?" -> "What was Marley's
    job?": how the book's facts and the kinds of answer are read from it.
    As it is where a pronoun means several ("him (Marley, Scrooge)")."""
    def plain(found: re.Match) -> str:
        pronoun, subject, after = found.group("pronoun").lower(), found.group("subject"), found.group("next") or ""
        possessive = pronoun in _POSSESSIVES or pronoun == "her" and after.strip() != "" \
            and after.strip().lower() not in _AFTER_AN_OBJECT
        return f"{subject}'s{after}" if possessive else f"{subject}{after}"
    return _GLOSSED.sub(plain, question)


def asked_again_of(question: str, earlier: str, characters: list[dict] | None) -> str | None:
    """For "And Louisa?", "What about chapter 6?" after "How many times is
    Anne mentioned?" or "What is chapter 5 called?": the earlier question
    asked again of the new name or chapter ("How many times is Louisa
    mentioned?"); None for any other follow-up. A name or quoted phrase
    takes the place of the earlier question's first one, a chapter the
    place of the chapter it named, a word the word whose meaning it asked."""
    elliptical = _ELLIPSIS.match(question)
    if elliptical is None:
        return None
    new = elliptical.group("new").strip()
    earlier = " ".join(earlier.split())
    # "And gig?" after "What does crupper mean?": the new word's meaning.
    if word_asked(earlier, lambda _word: False) is not None and (word := looks_up(new)) is not None:
        return look_up_question(word)
    old_chapter, new_chapter = chapter_reference(earlier), chapter_reference(new)
    if new_chapter is not None and new_chapter.group() == new and old_chapter is not None:
        return f"{earlier[:old_chapter.start()]}{new}{earlier[old_chapter.end():]}"
    named = subjects_of(f"about {new}", characters)  # not a sentence's first word: a name
    # "And Marley's?" after "What is Scrooge's first name?": the name in place of the name, its "'s" kept.
    bare = re.sub(r"(?<=\w)['\u2019]s$", "", new)
    if len(named) != 1 or named[0] != bare.strip("\"'\u201c\u201d\u2018\u2019"):
        return None
    if QUOTED.fullmatch(new):  # words quoted take the place of words quoted, not of a name
        said = QUOTED.search(earlier)
        if said is not None:
            inner = said.span(1) if said.group(1) is not None else said.span(2)
            return f"{earlier[:inner[0]]}{named[0]}{earlier[inner[1]:]}"
        # 'And "bah"?' after "How often does Scrooge say humbug?" (it had asked how often bah says it).
        said = SAYING.search(earlier)
        return f"{earlier[:said.start('what')]}{new}{earlier[said.end('what'):]}" if said else None
    new = named[0]  # a quoted phrase without its marks: it takes the place of the earlier one's words
    for subject in subjects_of(earlier, characters):
        found = re.search(rf"(?<![{LETTER}]){re.escape(subject)}(?![{LETTER}])", earlier)
        if found is not None:
            return f"{earlier[:found.start()]}{new}{earlier[found.end():]}"
    return None


# "And Louisa?", "What about chapter 6?", "How about Mary?": the earlier question, of someone or somewhere else.
_ELLIPSIS_WORDS = 8  # "And what about the Ghost of Christmas Past?"
_ELLIPSIS = re.compile(r"^\W*(?:and\s+(?:what|how)\s+about|what\s+about|how\s+about|and)\s+(?P<new>.+?)[\s?.!]*$",
                       re.I)


def _followed_subjects(earlier: Earlier, characters: list[dict] | None) -> list[str]:
    """Whom a follow-up's pronoun most likely means: what the earlier question
    names, after the people its answer named where it asked who did
    something, or who someone it did not name was."""
    subjects = subjects_of(earlier.question, characters)
    asks_who = _ASKS_WHO.match(earlier.question)
    if not earlier.answer or not asks_who or (asks_who.group(1) and subjects):
        return subjects
    answered = [name for name in subjects_of(_CITATION.sub("", earlier.answer), characters)
                if not any(_key(name) in _key(asked) or _key(asked) in _key(name) for asked in subjects)]
    return (answered[:2] + subjects)[:MAX_SUBJECTS]


def follows_record(earlier: str | Earlier, taken_as: str) -> dict:
    """What is kept with the answer: the question it followed, how it was
    taken, and the earlier answer its prompt carried (where there was one)."""
    earlier = as_earlier(earlier) or Earlier("")
    record = {"question": " ".join(earlier.question.split()), "taken_as": taken_as}
    if earlier.answer:
        record["answer"] = earlier.answer
    return record


def earlier_of(result: dict) -> Earlier:
    """A kept answer as a follow-up to it reads it: its question as
    `earlier_question` says, and its answer where a capable model wrote it
    in full (a small model's draft under the digest, a stopped or failed
    answer, is not worth carrying), without its citations, about 120 words."""
    answer = ""
    if result.get("lead") == "answer" and not result.get("cancelled") and not result.get("model_error"):
        answer_words = _CITATION.sub("", result.get("answer") or "").split()
        answer = " ".join(answer_words[:EARLIER_ANSWER_WORDS]) + (" \u2026" if len(answer_words) > EARLIER_ANSWER_WORDS
                                                                   else "")
    return Earlier(earlier_question(result), answer.strip())


def earlier_question(result: dict) -> str:
    """A kept answer's question as a follow-up to it should read it: as it was
    taken (a follow-up's subject put in), with the passage it was about."""
    asked = (result.get("follows") or {}).get("taken_as") or result.get("question", "")
    focus = result.get("focus")
    return about_question(asked, focus["text"]) if focus else asked


def _key(text: str) -> str:
    return re.sub(r"[^a-z]+", " ", text.lower()).strip()


def _card_names(characters: list[dict] | None) -> list[str]:
    names: list[str] = []
    for character in characters or []:
        names += [name for name in [character.get("name", "")] + list(character.get("also_called", [])) if name]
    return names


def _capitalised_names(text: str, known: list[str] = ()) -> list[str]:
    """Runs of capitalised words, as the text writes them ("Mr. Darcy"), that
    are not a sentence's plain first word (a possessive one is a name:
    "Marley's ghost: ..."), nor a question word or the like ("Why", "I")."""
    known_lower = {name.lower() for name in known}
    names: list[str] = []
    run: list[re.Match] = []

    def close() -> None:
        if run:
            names.append(re.sub(r"['\u2019]s$", "", text[run[0].start():run[-1].end()]))
        run.clear()

    found = list(re.finditer(rf"[{LETTER}][{LETTER}'\u2019\-]*", text))
    for index, match in enumerate(found):
        bare = re.sub(r"['\u2019]s$", "", match.group())
        # A title's full stop ("Mr. Darcy") does not start a sentence.
        first = not run and bool(_SENTENCE_START.search(text[:match.start()]))
        possessive = bare != match.group()
        if (bare[:1].isupper() and bare.lower() not in STOPWORDS and bare != "I"
                and (not first or possessive or bare.lower() in known_lower)):
            run.append(match)
            if possessive:  # ends the name: "Marley's ghost"
                close()
        elif (run and bare in NAME_JOINERS and index + 1 < len(found) and found[index + 1].group()[:1].isupper()
              and text[match.end():found[index + 1].start()] == " "):
            continue  # one name: "the Ghost of Christmas Past", "the King of Ruritania"
        else:
            close()
    close()
    return names
