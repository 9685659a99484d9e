"""Questions about the book as a thing rather than its story: who wrote it,
what it is called, when it came out, how many chapters it has and what they
are called, how long it is and how far the reader has got. The book's record
answers them (the title and author its file gives, the year its opening
pages give, its contents, its chapters' words counted); a search of the text
quoted chance lines that say "wrote", "chapter" or "long" ("Who wrote this
book?" got Sir Walter writing a letter). The answer is stated in one line,
without a model, and the title page or the chapters' headings asked about
are quoted, each a link to its place. How often a name is used is counted
in counting.py."""

from __future__ import annotations

import re
from collections import Counter

from ..book import readable
from .named import parts_named_in, without_chapter_references
from .narrator import FIRST_PERSON, NAMED_TELLER, THIRD_PERSON
from .planning import words

BOOK_RECORD, CONTENTS, LENGTH, COUNT = "record", "contents", "length", "count"
# Someone's name in full, as the text writes it (full_names.py).
NAMES_WRITTEN = "names written"
# What a word means, from a dictionary (definitions.py), the book's uses of it the evidence.
DEFINITION = "definition"
# Where each kind's answer comes from, as "answered from ..." says it.
FACT_SOURCES = {BOOK_RECORD: "the book's record", CONTENTS: "the book's contents",
                LENGTH: "the book's chapters, their words counted", COUNT: "the book's text, counted",
                NAMES_WRITTEN: "the book's text", DEFINITION: "the GCIDE dictionary",
                FIRST_PERSON: "the book's telling", THIRD_PERSON: "the book's telling",
                NAMED_TELLER: "the book's telling and what others call the one telling it"}
TITLE_PAGE_LABEL = "Title page"  # what a line quoting it is cited as: it is in no passage

# What a book's sections and their containers are called, as a question may say it.
_SECTION_NOUNS = {"chapter", "stave", "adventure", "letter", "section", "canto", "story", "tale", "episode", "part",
                  "book", "volume", "epilogue", "prologue", "preface", "introduction", "foreword", "afterword",
                  "postscript"}
_PLURALS = {"story": "stories"}
_HOW_MANY = re.compile(r"\b(?:how\s+many|(?:the\s+)?number\s+of)\s+([a-z]+)\b", re.I)
_CONTENTS = re.compile(r"\b(?:table\s+of\s+)?contents\b", re.I)
_AUTHOR = re.compile(r"\bwho\s+(?:wrote|writes|has\s+written|had\s+written|penned|is\s+the\s+author|was\s+the\s+author)"
                     r"\b|\bauthor(?:s|ship)?\b|\bwriter\b|\bwritten\s+by\b|\bby\s+whom\b", re.I)
# "Which chapter is Silver Blaze?": the chapter a title names, by its number.
_WHICH = re.compile(r"^\W*(?:which|what\s+number)\b", re.I)
# "What chapter am I in?", "Where am I?", "How far have I read?": the reader's place.
_WHERE_AM_I = re.compile(r"\b(?:what|which)\s+(?:chapter|stave|part|page)\s+am\s+I\s+(?:in|on|at|reading)\b"
                         r"|^\W*where\s+am\s+I(?:\s+in\s+(?:the|this)\s+(?:book|novel|story))?\W*$"
                         r"|\bhow\s+far\s+(?:am\s+I|have\s+I\s+(?:read|got|gotten|come))\b"
                         r"|\bhow\s+far\s+(?:along|in|through)\s+am\s+I\b", re.I)
# "What is it called?" asks for a title; "Who named Black Beauty?" does not.
_WHAT = re.compile(r"^\W*what\b", re.I)
_WHEN = re.compile(r"^\W*(?:when|(?:in\s+)?(?:what|which)\s+year)\b", re.I)
_CAME_OUT = re.compile(r"\b(?:written|wrote|published|publish|publication|come\s+out|came\s+out|printed|appeared)\b",
                       re.I)
_NAMING = {"called", "titled", "entitled", "named", "name", "names", "title", "titles", "heading", "headings"}
# The words of the book itself ("Who wrote this novel?"), not of something in it.
_THE_WORK = {"book", "novel", "story", "tale", "work", "text", "novella"}
_LENGTH = re.compile(r"\bhow\s+long\b|\bhow\s+many\s+(?:words|pages)\b|\b(?:word|page)\s+count\b|\blength\b"
                     r"|\breading\s+time\b|\bhow\s+much\b.*\b(?:left|remains?|remaining|more)\b"
                     r"|\b(?:longest|shortest)\b", re.I)
_LEFT = re.compile(r"\b(?:left|remains?|remaining|more|finish|finished|end)\b", re.I)
_LONGEST, _SHORTEST = re.compile(r"\blongest\b", re.I), re.compile(r"\bshortest\b", re.I)
_LENGTH_WORDS = {"long", "longer", "length", "words", "word", "pages", "page", "count", "read", "reading", "take",
                 "takes", "time", "hours", "minutes", "left", "remain", "remains", "remaining", "more", "much",
                 "finish", "finished", "end", "longest", "shortest", "will", "me", "to", "until", "get",
                 "through"} | _THE_WORK
# An adult reads a novel at about this many words a minute; a printed page holds about this many.
WORDS_A_MINUTE, WORDS_A_PAGE = 250, 300
_AUTHOR_WORDS = {"wrote", "write", "writes", "written", "author", "authors", "authorship", "writer", "penned",
                 "published", "publish", "publication", "printed", "appeared", "come", "came", "out", "year",
                 "date"} | _NAMING | _THE_WORK
_LISTING = {"list", "listed", "contents"}
_CONTENTS_WORDS = {"table", "number", "numbers"} | _LISTING | _NAMING | _THE_WORK
# Words any of these questions may have besides their own: "Can you tell me who wrote this book?"
FUNCTION_WORDS = {"what", "whats", "what's", "who", "who's", "whos", "whom", "whose", "which", "when", "how", "is",
                   "are", "was", "were", "be", "been", "the", "a", "an", "of", "this", "that", "these", "those", "it",
                   "its", "it's", "by", "in", "on", "for", "did", "does", "do", "has", "have", "had", "there", "me",
                   "tell", "please", "show", "give", "can", "could", "would", "you", "i", "all", "each", "every",
                   "and", "many", "first", "originally", "s"}
# A year on a line of its own on the title page ("(1818)"), or "published in 1877" in a note before the text.
_TITLE_PAGE_YEAR = re.compile(r"^\W*(1[5-9]\d\d|20\d\d)\W*$|\bpublished\s+in\s+(1[5-9]\d\d|20\d\d)\b", re.M | re.I)
# How far into the text a title page naming the author is looked for.
_TITLE_PAGE_CHARACTERS = 1500
# A title written in the text more often than this is a name there too ("Emma").
_TITLE_USES = 1
# A chapter's title is not said over again for more of them than this: the headings below say them.
_TITLES_SAID = 4


def book_fact(question: str, book, chapters: list[int], until: int | None = None,
              at: int | None = None) -> tuple[str, str] | None:
    """The kind of fact a question asks about the book itself, and the answer
    in one line; None for a question about its story. `chapters`: the
    ordinals of those it names ("What is chapter 5 called?", "the last
    chapter"), each as the book numbers them; `until`: a reading limit;
    `at`: where the reader is (for "How much is left?")."""
    if _WHERE_AM_I.search(question):
        return LENGTH, place_statement(book, at if at is not None else until)
    rest = _without_title(question, book)
    for ordinal in chapters:  # named by its title: "Which chapter is called Being Neighborly?"
        title = re.findall(r"\w+", book.sections[ordinal - 1].title or "") if 1 <= ordinal <= len(book.sections) else []
        if title:
            rest = phrase_pattern(" ".join(title)).sub(" ", rest)
    if any(word[:1].isupper() and word != "I" for word in words(rest)[1:]):
        return None  # a name: "Who wrote Anne's letter?"
    # Every word must be one of these questions' own: "When was the will
    # written?" asks about the will ("will" is a stopword, so all words count).
    unreferenced = without_chapter_references(rest)
    asked = {word.lower() for word in words(unreferenced)} - FUNCTION_WORDS
    # A part or chapter named that the book has not ("the third part" of a book not in parts) is no
    # question of its record: "What is the name of the third part?" is not "What is this book called?".
    names_a_chapter = len(words(unreferenced)) < len(words(rest))
    nouns = _nouns_of(book)
    sections_asked = {_singular(word) for word in asked} - _THE_WORK & nouns
    how_many = _HOW_MANY.search(rest)
    about_contents = all(word in _CONTENTS_WORDS or _singular(word) in nouns for word in asked)
    # "How many chapters are in part 2?", "What is the first volume called?" of a book not in parts
    # had been answered for the whole book as if the part were not asked about, or searched.
    lacking = sorted(parts_named_in(rest)) if not book.parts else []
    if lacking and about_contents and (how_many or asked & (_NAMING | _LISTING) or _WHICH.match(rest)):
        return CONTENTS, contents_statement(book, [], until, lacking=lacking[0])
    if about_contents and (
            how_many and _singular(how_many.group(1).lower()) in nouns or _CONTENTS.search(rest)
            or (chapters or sections_asked) and (asked & (_NAMING | _LISTING) or chapters and _WHICH.match(rest))):
        return CONTENTS, contents_statement(book, chapters, until, count=bool(how_many))
    if asked and all(word in _LENGTH_WORDS or _singular(word) in nouns for word in asked) and _LENGTH.search(rest):
        return LENGTH, length_statement(book, rest, chapters, at if at is not None else until)
    asks_when = _WHEN.match(rest) and _CAME_OUT.search(rest)
    asks_title = asked & _NAMING and (asked & _THE_WORK or asked <= _NAMING) and (
        _WHAT.match(rest) or asked & {"title", "titles"})
    if not names_a_chapter and asked <= _AUTHOR_WORDS and (_AUTHOR.search(rest) or asks_when or asks_title):
        return BOOK_RECORD, title_page_statement(book, rest)
    return None


def contents_statement(book, chapters: list[int], until: int | None = None, count: bool = False,
                       lacking: str | None = None) -> str:
    """How many chapters the book has and of what kind, first to last (and
    how many of them a reader who has read up to `until` has begun: only
    their headings are shown); or what the chapters asked about are called,
    or, `count`, how many there are ("How many chapters are in part 2?").
    `lacking`: what the question asked about that the book is not divided
    into ("part"), said first."""
    sections = book.sections
    named = [sections[ordinal - 1] for ordinal in chapters if 1 <= ordinal <= len(sections)]
    # A part asked about ("What is the first part called?", "How many chapters are in part 2?"): its chapters.
    part = next((part for part in book.parts
                 if named and [section for section in sections if section.part == part.ordinal] == named), None)
    if part is not None and not count:
        called = f"is called {_title(part.title)}" if part.title else "has no title of its own"
        return as_sentence(f"{part.label} {called}; its {counted(len(named), main_noun(named))} run from "
                           f"{chapter_name(named[0])} to {chapter_name(named[-1])}")
    if named and count and len(named) > 1:
        return as_sentence(f"{part.label if part else 'There'} {'has' if part else 'are'} "
                           f"{counted(len(named), main_noun(named))}, from {chapter_name(named[0])} to "
                           f"{chapter_name(named[-1])}")
    if named:
        if len(named) > _TITLES_SAID:
            return f"The headings of {named[0].label} to {named[-1].label} are below."
        said = [f"{section.label} is called {_title(section.title)}" if section.title else
                f"{section.label} has no title of its own" for section in named]
        return "; ".join(said) + "."
    subject = f"{book.title} is not divided into {lacking}s; it" if lacking else book.title
    if len(sections) <= 1:
        return f"{subject} is not divided into chapters."
    how_many = _sections_counted(sections)
    parts = ""
    if len(book.parts) > 1:  # "in a part" says nothing
        part_noun = book.parts[0].label.split()[0].lower()
        parts = f" in {counted(len(book.parts), part_noun if part_noun in _SECTION_NOUNS else 'part')}"
    if until is not None and sections[-1].start >= until:
        begun = sum(1 for section in sections if section.start < until)
        return (f"{subject} has {how_many}{parts}; you have begun {begun} of them, whose headings are below "
                "(the others' are left out until you read on).")
    return as_sentence(f"{subject} has {how_many}{parts}, from {chapter_name(sections[0])} to "
                       f"{chapter_name(sections[-1])}")


def length_statement(book, question: str, chapters: list[int], at: int | None) -> str:
    """How long the book (or the chapters named) is: its words, pages and
    hours of reading; its longest or shortest chapter; or, from where the
    reader is (`at`), how much is left."""
    sections = book.sections
    counts = section_words(book)
    if _LONGEST.search(question) or _SHORTEST.search(question):
        said = []
        if _LONGEST.search(question):
            longest = max(sections, key=lambda section: counts[section.ordinal - 1])
            said.append(f"the longest is {chapter_name(longest)}, at {counts[longest.ordinal - 1]:,} words")
        if _SHORTEST.search(question):
            shortest = min(sections, key=lambda section: counts[section.ordinal - 1])
            said.append(f"the shortest is {chapter_name(shortest)}, at {counts[shortest.ordinal - 1]:,} words")
        text = "; ".join(said)
        return as_sentence(f"Of the {counted(len(sections), 'chapter')} of {book.title}, {text}")
    if chapters:
        named = [sections[ordinal - 1] for ordinal in chapters if 1 <= ordinal <= len(sections)]
        words = sum(counts[section.ordinal - 1] for section in named)
        what = chapter_name(named[0]) if len(named) == 1 else f"{named[0].label} to {named[-1].label}"
        if _LEFT.search(question) and at is not None and named[0].start <= at < named[-1].end:
            # "How long until the end of this chapter?"
            left = sum(len(book.text[max(section.start, at):section.end].split()) for section in named)
            return as_sentence(f"From where you are, {left:,} of the {words:,} words of {what} are left: "
                               f"{_reading(left)}")
        return as_sentence(f"{what} {'runs' if len(named) == 1 else 'run'} to {words:,} words: {_reading(words)}")
    words = sum(counts)
    whole = (f"{book.title} runs to {words:,} words in {_sections_counted(sections)}, "
             f"about {counted(max(1, round(words / WORDS_A_PAGE)), 'page')}: {_reading(words)}")
    if not _LEFT.search(question):
        return as_sentence(whole)
    if at is None:
        return as_sentence(f"{whole}; how much is left is counted from where you are reading, which is not known "
                           "here")
    left = sum(len(book.text[max(section.start, at):section.end].split()) for section in sections
               if section.end > at)
    place = _section_reached(book, at)
    where = f" in {chapter_name(place)}" if place else ""
    return as_sentence(f"From where you are{where}, {left:,} of its {words:,} words are left "
                       f"({left / max(1, words):.0%} of the book): {_reading(left)}")


def place_statement(book, at: int | None) -> str:
    """Where the reader is: the chapter, how far through the book, the page
    as printed pages would have it, and the reading left."""
    if at is None:
        return "Where you are reading is not known here: ask in the app, or give a reading limit."
    counts = section_words(book)
    words = sum(counts)
    read = sum(len(book.text[section.start:min(section.end, at)].split()) for section in book.sections
               if section.start < at)
    place = _section_reached(book, at)
    where = f"in {chapter_name(place)}" if place else "at the opening pages"
    return as_sentence(f"You are {where}, {read / max(1, words):.0%} of the way through {book.title} (about page "
                       f"{max(1, round(read / WORDS_A_PAGE)):,} of {max(1, round(words / WORDS_A_PAGE)):,}), with "
                     f"{_reading(words - read)} left")


def _section_reached(book, at: int):
    """The chapter a reader at `at` is in; between two (the end of a reading limit), the one before."""
    return book.section_at(at) or next((section for section in reversed(book.sections) if section.start < at), None)


def section_words(book) -> list[int]:
    """Each section's words, in order (counted once a book)."""
    key = (book.book_id, len(book.text), "\0words")
    if key not in _counted_once:
        _counted_once[key] = [len(book.text[section.start:section.end].split()) for section in book.sections]
    return _counted_once[key]


def _reading(words: int) -> str:
    """How long that many words take to read, rounded as a reader would say it."""
    minutes = words / WORDS_A_MINUTE
    if minutes < 55:
        time = counted(max(1, round(minutes / 5) * 5 if minutes >= 10 else round(minutes)), "minute")
    else:
        hours, rest = divmod(round(minutes / 10) * 10, 60)
        time = f"{hours} hour{'s' if hours > 1 else ''} {rest} minutes" if rest else counted(hours, "hour")
    return f"about {time} of reading at {WORDS_A_MINUTE} words a minute"


def title_page_statement(book, question: str) -> str:
    """Who wrote the book, what it is called, or when it came out, as its record and title page say."""
    author = book.metadata.get("author")
    by = f", by {author}" if author else ""
    if _WHEN.match(question) and _CAME_OUT.search(question):
        year = title_page_year(book)
        if year:
            return f"{book.title}{by}: the book's opening pages give the year {year}."
        return f"{book.title}{by}: the book's file gives no year of writing or publication."
    if not _AUTHOR.search(question):
        return f"This book is {book.title}{by}."
    return f"{book.title} is by {author}." if author else f"{book.title}: the book's file names no author."


def title_page_year(book) -> int | None:
    """The year the text before the first chapter gives: on a line of its
    own on the title page ("(1818)"), or in a note ("originally published in
    1877"); not any year there (an author's dates, a transcriber's edition)."""
    front = book.text[:book.sections[0].start if book.sections else 0][:4000]
    found = _TITLE_PAGE_YEAR.search(front)
    return int(found.group(1) or found.group(2)) if found else None


def title_page_span(book) -> tuple[int, int] | None:
    """The title page: the book's first lines, to the one naming its author
    and a year on the line after it ("Persuasion / by / Jane Austen /
    (1818)"); None where its opening pages do not name the author."""
    author = book.metadata.get("author", "").split()
    front = book.text[:min(book.sections[0].start if book.sections else 0, _TITLE_PAGE_CHARACTERS)]
    named = re.search(rf"(?<!\w){re.escape(author[-1])}(?!\w)[^\n]*", front, re.I) if author else None
    if named is None:
        return None
    end = named.end()
    year = re.match(r"\s*\n\s*\(?(?:1[5-9]\d\d|20\d\d)\)?[ \t]*(?=\n|$)", front[end:])
    end += year.end() if year else 0
    start = len(front) - len(front.lstrip())
    return start, end


def phrase_pattern(phrase: str) -> re.Pattern:
    """The phrase's words as whole words, in any case, with anything not a
    word between them ("God bless us every one" in "God bless Us, Every One!")."""
    return re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, re.findall(r"\w+", phrase))) + r"(?!\w)", re.I)


def _without_title(question: str, book) -> str:
    """The question without the book's title ("Who wrote Persuasion?",
    "How many staves does A Christmas Carol have?"): it names the book, not
    someone in it. A title the text uses as a name ("Emma", "Black Beauty")
    only where it can name nothing but the book ("Who wrote Emma?", "the
    chapters of Emma"): "Who named Black Beauty?" asks about the horse."""
    for title in dict.fromkeys([book.title, re.split(r"[:;]", book.title)[0]]):
        title = title.strip()
        if not title:
            continue
        written = rf"(?<!\w){re.escape(title)}(?!\w)"
        if _uses_in_text(book, title) <= _TITLE_USES:
            question = re.sub(written, " ", question, flags=re.I)
        else:
            question = re.sub(rf"\b(wrote|write|writes|written|penned|of|in|does|did|has)\s+{written}", r"\1 ",
                              question, flags=re.I)
    return question


_counted_once: dict[tuple[str, int, str], object] = {}


def _uses_in_text(book, title: str) -> int:
    """How often the text after the title page writes the title as it is
    written (counted once a book: a pass over a long novel's text)."""
    key = (book.book_id, len(book.text), title)
    if key not in _counted_once:
        body = book.text[book.sections[0].body_start if book.sections else 0:]
        _counted_once[key] = len(re.findall(rf"(?<!\w){re.escape(title)}(?!\w)", body))
    return _counted_once[key]


def _nouns_of(book) -> set[str]:
    """What the book's sections and parts are called ("stave", "part"), and "chapter" and "section" always."""
    labels = [section.label for section in book.sections] + [part.label for part in book.parts]
    nouns = {"chapter", "section"} | {word.lower() for label in labels for word in re.findall(r"[A-Za-z]+", label)
                                      if word.lower() in _SECTION_NOUNS}
    # A book of adventures is a book of stories: "How many stories are in the book?"
    return nouns | _TALES if nouns & _TALES else nouns


_TALES = {"story", "tale", "adventure", "episode"}


def _noun_of(section) -> str:
    """What the book calls a section, by its label's last name for it ("Part I, Chapter III": a chapter)."""
    own = section.label.split(",")[-1].split()
    noun = own[0].lower() if own else ""
    return noun if noun in _SECTION_NOUNS else "section"


def _title(title: str) -> str:
    """A chapter's title quoted, as the contents show it, without the stop some books print after it."""
    return f"\u201c{readable(title).rstrip('.')}\u201d"


def as_sentence(text: str) -> str:
    """The text with one stop at its end ("...to Chapter VII: The Conclusion." is not stopped twice)."""
    return text if text.endswith((".", "!", "?")) else text + "."


def _sections_counted(sections: list) -> str:
    """"24 chapters", "135 chapters and an epilogue": each kind the book calls its sections by, counted."""
    kinds = Counter(_noun_of(section) for section in sections)
    main = main_noun(sections)
    others = [counted(number, noun) for noun, number in kinds.items() if noun != main]
    if len(others) < 2:
        return " and ".join([counted(kinds[main], main), *others])
    return f"{counted(kinds[main], main)}, {', '.join(others[:-1])} and {others[-1]}"


def chapter_name(section) -> str:
    """A chapter's name as the contents show it, without the stop some books print after its title."""
    return section.display_name.rstrip(".")


def main_noun(sections: list) -> str:
    """What the book calls most of these sections ("chapter")."""
    return Counter(_noun_of(section) for section in sections).most_common(1)[0][0]


def _singular(word: str) -> str:
    plural = {value: key for key, value in _PLURALS.items()}
    return plural.get(word) or (word[:-1] if word.endswith("s") and not word.endswith("ss") else word)


def counted(number: int, noun: str) -> str:
    if number == 1:
        return f"{'an' if noun[:1] in 'aeiou' or noun == 'hour' else 'a'} {noun}"
    return f"{number} {_PLURALS.get(noun, noun + 's')}"
