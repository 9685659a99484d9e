"""Chapters a question names in its own words: "Summarize Stave 3", "What
happens in chapter twelve?", "the last chapter", "chapters 2 and 3". A
question that asks about them and nothing more ("what happens", "summarize")
is answered from them alone, as the contents' "Ask About Stave III Only" is;
one that names a chapter beside a subject of its own ("How does the storm in
chapter 3 foreshadow the ending?") is left to the whole book, which it may
need. A chapter is found by its number under the name the book gives it
(Stave III, Adventure II, Part II Chapter 3), or under "chapter" in a book
that calls them something else; or by its title ("What happens in Silver
Blaze?", "Summarize 'The Musgrave Ritual'"; see `ChapterTitles`)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass

from ..structure.numbers import ROMAN_PATTERN, WORD_NUMBER_PATTERN, parse_number
from .planning import content_words, words

_KINDS = r"chapter|stave|adventure|letter|part|book|volume|section|canto|story|episode"
_NUMBER = rf"\d+|{ROMAN_PATTERN}|{WORD_NUMBER_PATTERN}"
# "chapter 3", "chapters 2 and 3", "chapters 2-4", "Chapter XII", "chapter twelve"
_NUMBERED = re.compile(rf"\b({_KINDS})s?\s+((?:{_NUMBER})(?:\s*(?:,|-|\u2013|and|&|to|through)\s*(?:{_NUMBER}))*)\b",
                       re.IGNORECASE)
_ONE_NUMBER = re.compile(rf"\b(?:{_NUMBER})\b", re.IGNORECASE)
_RANGE = re.compile(rf"\b({_NUMBER})\s*(?:-|\u2013|to|through)\s*({_NUMBER})\b", re.IGNORECASE)
# "this chapter", "the previous stave", "the chapter before this": where the
# reader is, not a number. Not "this book", "this story", "this part" (the
# whole of it), nor "this letter" (one in the story).
_RELATIVE_KINDS = r"chapter|stave|adventure|section|canto|episode"
_RELATIVE = re.compile(
    rf"\b(?:(?P<which>this|the\s+current|the\s+present|the\s+previous|the\s+preceding|the\s+next|the\s+following)"
    rf"\s+(?:{_RELATIVE_KINDS})"
    rf"|the\s+(?:{_RELATIVE_KINDS})\s+(?:(?P<side>before|after)\s+(?:this(?:\s+one)?|it)"
    rf"|I(?:'m|\s+am)\s+(?:reading|on|in)))\b", re.IGNORECASE)
# "the last chapter", "the third stave", "the 3rd chapter", "the opening chapter"
_POSITIONED = re.compile(rf"\bthe\s+(first|opening|last|final|closing|\d+(?:st|nd|rd|th)|{WORD_NUMBER_PATTERN})"
                         rf"\s+({_KINDS})\b", re.IGNORECASE)
# "the first three chapters", "the last 2 staves": a run of them from either end.
_SPANNED = re.compile(rf"\bthe\s+(first|opening|last|final|closing)\s+(\d+|{WORD_NUMBER_PATTERN})\s+({_KINDS})s?\b",
                      re.IGNORECASE)
# Words that ask what a chapter holds rather than about a subject of their own.
GENERIC_WORDS = {"summarize", "summarise", "summary", "summaries", "recap", "happen", "happens", "happened",
                 "happening", "events", "event", "plot", "going", "describe", "description", "overview", "outline",
                 "appear", "appears", "characters", "character", "main", "key", "important", "points", "point",
                 "tell", "story", "explain", "brief", "briefly", "short", "sum", "gist", "covered", "cover",
                 # "Give me a recap of stave 3", "Remind me what happens in chapter 2"
                 "give", "provide", "remind", "rundown", "quick", "refresh",
                 "covers", "chapter", "chapters", "stave", "staves", "part", "parts", "section", "sections", "book",
                 "volume", "letter", "adventure", "canto", "episode", "contents", "content",
                 # how it begins or ends: its first or last pages (overview.py)
                 "begin", "begins", "beginning", "start", "starts", "opening", "opens", "end", "ends", "ending",
                 "ended", "finish", "finishes", "conclude", "concludes", "conclusion",
                 # "the first line", "the last words", "quote the opening paragraph": its text, not a subject
                 "line", "lines", "sentence", "sentences", "paragraph", "paragraphs", "words", "page", "pages",
                 "quote", "verbatim", "exact", "exactly",
                 # "What was the last thing that happened in chapter 2?"
                 "thing", "things", "scene", "scenes"}
# "Who narrates chapter 2?" asks how they are told (overview.py), as "Who is the narrator of chapter 2?" does.
_HOW_TOLD = {"narrates", "narrated", "narrator", "narrators", "narration", "narrating"}


# "What has happened so far?", "no spoilers": only what the reader has read.
_SO_FAR = re.compile(r"\b(?:so\s+far|up\s+to\s+(?:now|here|this\s+point)|(?:un)?till?\s+now|until\s+now"
                     r"|what\s+I(?:'ve|\s+have)\s+(?:already\s+)?read|no\s+spoilers?|without\s+spoil(?:ers?|ing)"
                     r"|(?:don'?t|do\s+not)\s+spoil)\b", re.IGNORECASE)


def asks_only_what_was_read(question: str) -> bool:
    """Whether the question itself asks to be answered from what the reader
    has read ("Summarize the story so far", "Who is Marley? No spoilers"),
    whatever the setting says."""
    return _SO_FAR.search(_plain_quotes(question)) is not None


def without_asking_so_far(question: str) -> str:
    """The question without the words that ask for no spoilers, once a
    reading limit stands for them: "What has happened so far?" asks what
    happens in the book (up to there), not about something "far"."""
    rest = _SO_FAR.sub(" ", _plain_quotes(question))
    rest = re.sub(r"\s+([?.!,;:])", r"\1", " ".join(rest.split()))
    return re.sub(r"(?:^|(?<=[?.!]))\s*[,;:]\s*", " ", rest).strip(" ,;:") or question


def without_chapter_references(question: str) -> str:
    """The question without the chapters it names by number, place or where
    the reader is ("What is chapter 5 called?": "What is called?")."""
    question = _plain_quotes(question)
    return _POSITIONED.sub(" ", _NUMBERED.sub(" ", _SPANNED.sub(" ", _RELATIVE.sub(" ", question))))


def chapter_reference(text: str) -> re.Match | None:
    """Where the text first names a chapter by its number or place ("chapter 5", "the last stave")."""
    text = _plain_quotes(text)
    found = [match for match in (_SPANNED.search(text), _NUMBERED.search(text), _POSITIONED.search(text)) if match]
    return min(found, key=lambda match: match.start()) if found else None


def chapters_from_here(question: str) -> list[int]:
    """The chapters a question names by where the reader is, as steps from
    the one they are in: "this chapter" 0, "the previous chapter" -1, "the
    chapter after this" 1."""
    steps = []
    for found in _RELATIVE.finditer(_plain_quotes(question)):
        which = (found.group("which") or found.group("side") or "").lower().split()[-1:] or ["this"]
        steps.append(-1 if which[0] in ("previous", "preceding", "before") else
                     1 if which[0] in ("next", "following", "after") else 0)
    return steps


def sections_named_in(question: str, book, titles: "ChapterTitles | None" = None,
                      here: int | None = None) -> tuple[list[int], bool]:
    """The ordinals of the sections the question names, and whether it asks
    about them alone (nothing but them and words like "what happens").
    `titles`: the book's, when the caller keeps them (they cost a pass over
    the text); else worked out here. `here`: the section the reader is in,
    for "this chapter" and "the previous chapter"."""
    question = _plain_quotes(question)
    from_here = set()
    if here is not None:
        from_here = {here + step for step in chapters_from_here(question) if 1 <= here + step <= len(book.sections)}
        question = _RELATIVE.sub(" ", question)
    titled, question, as_titles = (titles or ChapterTitles(book)).named_in(question)
    wanted: dict[str, set[int]] = {}
    for kind, numbers in _NUMBERED.findall(question):
        wanted.setdefault(kind.lower(), set()).update(_numbers(numbers))
    found = set(_by_numbers(book, wanted)) if wanted else set()
    found |= titled | from_here
    numbered = [s for s in book.sections if s.number is not None] or list(book.sections)
    for end, count, _kind in _SPANNED.findall(question):
        run = parse_number(count) or 0
        found |= {section.ordinal for section in (numbered[:run] if end.lower() in ("first", "opening")
                                                  else numbered[-run:] if run else [])}
    question = _SPANNED.sub(" ", question)
    for place, kind in _POSITIONED.findall(question):
        place = place.lower()
        if kind.lower() in _CONTAINERS and book.parts:  # "the first part": its chapters, not the first chapter
            which = 1 if place in ("first", "opening") else len(book.parts) if place in _ENDS else _place_number(place)
            found |= {section.ordinal for section in book.sections
                      if section.part is not None and section.part == which}
        elif place in ("first", "opening"):
            found.add(numbered[0].ordinal)
        elif place in ("last", "final", "closing"):
            found.add(numbered[-1].ordinal)
        else:
            found |= set(_by_numbers(book, {kind.lower(): {_place_number(place)}}))
    if not found:
        return [], False
    rest = _POSITIONED.sub(" ", _NUMBERED.sub(" ", question))
    asks_what_happens = any(word.lower() in GENERIC_WORDS for word in words(rest))
    only = (all(word.lower() in GENERIC_WORDS | _HOW_TOLD for word in content_words(rest))
            and (found != titled or as_titles or asks_what_happens))
    return sorted(found), only


def no_chapter_from_here(question: str, book, here: int | None) -> str | None:
    """Where the question names a chapter by where the reader is and there
    is none (no place given, the reader before the first chapter, "the next
    chapter" in the last), what to tell them in one line; else None."""
    steps = chapters_from_here(question)
    if not steps:
        return None
    if here is None:
        return (f"{book.title}: \u201cthis chapter\u201d is the one open in the reader: ask there, or name the "
                "chapter (\u201cchapter 3\u201d)")
    for step in steps:
        if not 1 <= here + step <= len(book.sections):
            side = "after" if step > 0 else "before"
            return f"{book.title}: there is no chapter {side} {book.sections[here - 1].label} in this book"
    return None


def chapter_not_in_book(question: str, book) -> str | None:
    """Where the question names a chapter by a number the book has none of
    ("What happens in stave 9?" of A Christmas Carol's five), what to tell
    the reader in one line; else None. Searching the rest would answer a
    question the reader did not ask (the words of "what happens in stave 9"
    all ask for a summary: the whole book's outline came back). A part,
    book or volume is only checked in a book that has them: "in part one
    of the story" may mean its beginning."""
    question = _plain_quotes(question)
    if not (_NUMBERED.search(question) or _POSITIONED.search(question)):
        return None
    kinds = Counter(kind for section in book.sections for kind, _ in _label_numbers(book, section))
    named = [(kind.lower(), _numbers(numbers)) for kind, numbers in _NUMBERED.findall(question)]
    named += [(kind.lower(), {_place_number(place)}) for place, kind in _POSITIONED.findall(question)
              if place.lower() not in _ENDS]
    for kind, numbers in named:
        if kind != "chapter" and kind not in kinds:
            continue
        for number in sorted(numbers):
            if not _by_numbers(book, {kind: {number}}):
                return f"{book.title}: there is no {kind} {number} in this book{_span(book, kind, kinds)}"
    return None


def parts_named_in(question: str) -> set[str]:
    """What a question calls the parts it names by number or place ("How many
    chapters are in part 2?", "the first volume": {"part"}, {"volume"}); not
    "book", which is as often the whole of it ("the first book I read")."""
    question = _plain_quotes(question)
    kinds = [kind for kind, _ in _NUMBERED.findall(question)] + [kind for _, kind in _POSITIONED.findall(question)]
    return {kind.lower() for kind in kinds} & (_CONTAINERS - {"book"})


_ENDS = {"first", "opening", "last", "final", "closing"}
_CONTAINERS = {"part", "volume", "book"}


def _span(book, kind: str, kinds: Counter) -> str:
    """How the book numbers its sections of a kind (else of the kind it
    has most of: a "chapter" of A Christmas Carol is a stave), first to
    last: ", which runs from Stave I to Stave V"."""
    if len(book.sections) == 1:
        return ", which is not divided into chapters"
    kind = kind if kind in kinds else next(iter(kinds.most_common(1)), ("", 0))[0]
    labels = [section.label for section in book.sections] + [part.label for part in book.parts]
    numbered = sorted((number, found.group()) for label in labels for found in _NUMBERED.finditer(label)
                      if found.group(1).lower() == kind for number in _numbers(found.group(2)))
    if numbered:
        return f", which runs from {numbered[0][1]} to {numbered[-1][1]}"
    numbers = [section.number for section in book.sections if section.number is not None]
    return f", whose sections are numbered {min(numbers)} to {max(numbers)}" if numbers else ""


def _place_number(place: str) -> int:
    """The number of a place in order: "third", "3rd" (0 for none)."""
    return int(place[:-2]) if place[:-2].isdigit() else parse_number(place) or 0


def _numbers(text: str) -> set[int]:
    """The numbers a chapter reference names: "2-4", "II and III", "forty-seven" (one number, not a range);
    "chapter 0" names 0, which no book has."""
    whole = parse_number(text.strip())
    if whole is not None:
        return {whole}
    values: set[int] = set()
    for low, high in _RANGE.findall(text):
        first, last = parse_number(low), parse_number(high)
        if first is not None and last is not None and first < last <= first + 60:
            values.update(range(first, last + 1))
    values.update(value for value in map(parse_number, _ONE_NUMBER.findall(_RANGE.sub(" ", text))) if value is not None)
    return values


def _by_numbers(book, wanted: dict[str, set[int]]) -> list[int]:
    """Sections numbered as wanted under the names the book gives them: every
    name a section has ("Part II, Chapter III": a part and a chapter) must
    carry a wanted number, and one at least must be wanted. A "chapter" in a
    book with none (staves, stories) is a top-level section so numbered."""
    found = []
    for section in book.sections:
        has = _label_numbers(book, section)
        kinds = {kind for kind, _ in has}
        if not kinds & set(wanted):
            continue
        if all(number in wanted[kind] for kind, number in has if kind in wanted):
            found.append(section.ordinal)
    if found or "chapter" not in wanted:
        return found
    return [s.ordinal for s in book.sections if s.number in wanted["chapter"]
            and "chapter" not in {kind for kind, _ in _label_numbers(book, s)}]


def _label_numbers(book, section) -> set[tuple[str, int]]:
    """The (name, number) pairs of a section's label and of its part's."""
    labels = [section.label] + ([book.parts[section.part - 1].label] if section.part and book.parts else [])
    pairs = set()
    for label in labels:
        for kind, numbers in _NUMBERED.findall(label):
            pairs |= {(kind.lower(), number) for number in _numbers(numbers)}
    return pairs


@dataclass
class _Title:
    words: tuple[str, ...]  # the title's words, lowercase, without a leading article
    ordinals: list[int]  # the section it heads, or a part's sections
    telling: bool  # named by its words alone, unquoted (see ChapterTitles)
    named: re.Pattern  # how a question names it: quoted, called so, or (telling) bare
    as_title: re.Pattern  # the forms that name it as a title: quoted or called so

    @classmethod
    def made(cls, title_words: list[str], ordinals: list[int], phrase: str, telling: bool) -> "_Title":
        named = rf"(?:(?:the|a|an)\s+)?{phrase}"  # "the Empty House" as well
        quoted = rf"[\"\u201c]{named}[.!?]?[\"\u201d]|(?<![a-z])'{named}[.!?]?'"
        called = rf"\b(?:{_KINDS})s?\s+(?:(?:called|titled|entitled|named)\s+)?{named}"
        forms = [quoted, called] + ([rf"\b{named}"] if telling else [])
        return cls(tuple(title_words), ordinals, telling, re.compile("|".join(f"(?:{form})" for form in forms)),
                   re.compile(f"(?:{quoted})|(?:{called})"))


class ChapterTitles:
    """The titles of a book's sections and parts, as a question may name them.
    Quoted ("the 'Ginger' chapter") or called so ("the story Silver Blaze",
    "the chapter called Liberty"), any title names its section. Bare, a title
    names it only when it is telling: two words or more, and a phrase the
    book itself hardly uses outside it. A title that is also what the book
    is about ("Sir Henry Baskerville", "Ginger", "The Hunt") is the subject
    of a question more often than the chapter's name."""

    def __init__(self, book):
        folded = _fold(book.text)
        # A section headed by its title alone ("THE ADVENTURE OF THE EMPTY
        # HOUSE") has it as its heading.
        heads = [(section.title or (section.heading if section.kind == "title" else None), [section.ordinal])
                 for section in book.sections]
        heads += [(part.title, [s.ordinal for s in book.sections if s.part == part.ordinal]) for part in book.parts]
        starts = [section.start for section in book.sections]
        self.titles = []
        for title, ordinals in heads:
            for title_words in _title_forms(title or "") if ordinals else []:
                phrase = r"[^a-z0-9']+".join(map(re.escape, title_words)) + r"\b"
                telling = (len(title_words) >= 2
                           and any(word not in GENERIC_WORDS for word in content_words(" ".join(title_words)))
                           and self._sections_using(book, starts, folded, re.compile(phrase), ordinals) <= 1)
                self.titles.append(_Title.made(title_words, ordinals, phrase, telling))

    @staticmethod
    def _sections_using(book, starts: list[int], folded: str, pattern: re.Pattern, own: list[int]) -> int:
        """In how many sections besides its own the phrase occurs (its heading
        in the contents is in none)."""
        using = set()
        # No "\b" ahead of the phrase: it would cost Python's regex its fast
        # scan for a literal start (20 ms a title in a long book, not 1).
        for match in pattern.finditer(folded):
            if match.start() == 0 or not (folded[match.start() - 1].isalnum() or folded[match.start() - 1] == "'"):
                index = bisect_right(starts, match.start()) - 1
                if index >= 0 and match.start() < book.sections[index].end:
                    using.add(book.sections[index].ordinal)
        return len(using - set(own))

    def named_in(self, question: str) -> tuple[set[int], str, bool]:
        """The sections whose titles the question names, the question with
        those titles taken out (what is left says whether it asks about them
        alone), and whether each was named as a title: quoted or called so.
        A bare title with nothing but stopwords around it ("Who is Charles
        Augustus Milverton?", "What is the Musgrave ritual?") asks about what
        the title names, which the rest of the book may tell of too."""
        found: set[int] = set()
        as_titles = True
        folded = _fold(question)
        for title in self.titles:
            match = title.named.search(folded)  # a question is short: "\b" ahead costs nothing here
            if match:
                found.update(title.ordinals)
                as_titles = as_titles and title.as_title.fullmatch(match.group()) is not None
                # Same length, so offsets in the folded text hold in the question.
                question = question[:match.start()] + " " * (match.end() - match.start()) + question[match.end():]
                folded = folded[:match.start()] + " " * (match.end() - match.start()) + folded[match.end():]
        return found, question, as_titles


def _plain_quotes(text: str) -> str:
    return text.replace("\u2018", "'").replace("\u2019", "'")


def _fold(text: str) -> str:
    """Lowercase with plain apostrophes and no underscores (italics in
    Gutenberg texts), the same length as `text` so that offsets hold."""
    folded = _plain_quotes(text).lower().replace("_", " ")
    if len(folded) != len(text):  # a letter that lowercases to two ("\u0130")
        folded = "".join(char if len(char.lower()) != 1 else char.lower() for char in _plain_quotes(text))
        folded = folded.replace("_", " ")
    return folded


def _title_forms(title: str) -> list[list[str]]:
    """The words a title may be named by, without a leading article:
    "The Adventure of the Empty House" also as "Empty House"."""
    title_words = _without_article(re.findall(r"[a-z0-9]+(?:'[a-z]+)*", re.sub(r"\[\d+\]", " ", _fold(title))))
    forms = [title_words] if title_words else []
    if title_words[:2] == ["adventure", "of"] and len(title_words) > 2:
        forms.append(_without_article(title_words[2:]))
    return forms


def _without_article(title_words: list[str]) -> list[str]:
    return title_words[1:] if title_words[:1] in (["the"], ["a"], ["an"]) and len(title_words) > 1 else title_words
