"""How often a name or a word is used: "How many times does Scrooge say
humbug?", "How often is Marley mentioned?", "How many times does the word
'whale' appear?". Counted in the text as written, whole words in any case,
by chapter: a model cannot count, and a search returns a dozen passages, not
how many there are. What is counted is a phrase the question quotes, what
follows "say" or "use", the words after "the word", or else a name the book
writes with a capital: "How often does Scrooge go to bed?" asks how often
something happens, and is searched as any question is. Asked how often
someone says it, the uses counted are those in dialogue whose paragraph
names them as the one speaking ("“Humbug!” said Scrooge", not "said
Scrooge's nephew"), beside all the uses. Counted the same way: which
chapters name someone ("In which chapters does Lady Russell appear?"), and
which years the text names ("When is the story set?")."""

from __future__ import annotations

import re
from collections import Counter

from .bookfacts import FUNCTION_WORDS, as_sentence, chapter_name, counted, main_noun, phrase_pattern
from .narrator import SPEECH_VERBS, outside_dialogue
from .planning import QUOTED, STOPWORDS, words

# "How many times", "How often": a count of uses in the text.
_HOW_OFTEN = re.compile(r"^\W*(?:how\s+(?:many\s+times|often|frequently)|(?:what\s+is\s+)?the\s+number\s+of\s+times)\b"
                        r"|^\W*how\s+many\s+(?:mentions|occurrences|uses)\b", re.I)
# "does Scrooge say humbug", "does he use the word whale": the words said (follow-ups put others in their place).
SAYING = re.compile(r"\b(?:say|says|said|saying|utter|utters|uttered|use|uses|used)"
                    r"\s+(?:the\s+word\s+|the\s+phrase\s+)?(?P<what>.+?)\W*$", re.I)
_COUNTING_WORDS = {"times", "often", "frequently", "word", "words", "phrase", "appear", "appears", "appeared",
                   "used", "use", "mentioned", "mention", "mentions", "named", "occur", "occurs", "occurrences",
                   "uses", "written", "come", "comes", "show", "shows", "up", "whole", "number", "book", "novel",
                   "story", "text", "called", "referred", "refer", "said", "says", "say"}
# "is humbug said by Scrooge": who says it, after the words said.
_SAID_BY = re.compile(r"\b(?:said|uttered|used|spoken)\s+by\s+(?P<who>.+?)\W*$", re.I)
_PARAGRAPH_END = re.compile(r"\n\s*\n")
# A speech tag: "said Scrooge", "Scrooge replied" (the name is checked apart).
_TAG = re.compile(r"\b(?:" + "|".join(sorted(SPEECH_VERBS)) + r")\b", re.I)
# How far before a speech tag its speaker's name is looked for (half as far after).
_TAG_REACH = 80
_PRONOUN_BEFORE = re.compile(r"\b(?:he|she)\s+$", re.I)
_PRONOUN_AFTER = re.compile(r"\s+(?:he|she)\b", re.I)
# Telling after a quotation that starts a sentence of its own rather than tagging it.
_NEW_SENTENCE = re.compile(r"\s*(?:And|But|Then|So|The|This|That|It|There|When|As|At|In|On|After|Before|Now|Yet)\b")
# How far a paragraph is read each side of a use where the text has no blank lines.
_PARAGRAPH_REACH = 1500
# "In which chapters does Lady Russell appear?", "Which chapters mention Lyme?", "What chapters is Kala in?":
# the chapters that name someone or something, not a search for scenes like the question.
_CHAPTER_NOUNS = r"chapter|stave|section|adventure|story|stories|letter|canto|episode"
_WHICH_CHAPTERS = re.compile(
    rf"^\W*(?:in\s+)?(?:which|what)\s+(?:{_CHAPTER_NOUNS})s?\s+(?:does|do|did|is|are|was|were)\s+(?P<who>.+?)\s+"
    r"(?:appear|appears|appeared|show\s+up|turn\s+up|come\s+in|feature|featured|mentioned|named|in|present)"
    r"(?:\s+in(?:\s+(?:the|this)\s+(?:book|novel|story))?)?\W*$"
    rf"|^\W*(?:which|what)\s+(?:{_CHAPTER_NOUNS})s?\s+(?:mention|mentions|name|names|feature|features|include|includes)"
    r"\s+(?P<whom>.+?)\W*$", re.I)
# Chapters that have what is asked about are named with their titles up to this many; past it, in runs.
_TITLED = 3
# "the word whale", "the phrase God bless us": words asked about as words.
_A_WORD = re.compile(r"\b(?:word|phrase|expression)\b", re.I)
# Share of a phrase's uses written with a capital for it to be a name the book uses ("Marley", not "bed").
_NAME_SHARE = 0.9
# Chapters listed by name with their counts; past this many, the three with most.
_CHAPTERS_LISTED = 6


def how_often(question: str, book, until: int | None = None) -> tuple[str, str, list[int]] | None:
    """For "How many times does Scrooge say humbug?", "How often is Marley
    mentioned?", "How many times does the word 'Christmas' appear?": what is
    counted, the answer in one line, and where in the text each use starts
    (up to `until`, a reading limit); None for any other question."""
    asked = _HOW_OFTEN.search(question)
    if asked is None:
        return None
    rest = question[asked.end():]
    said_by = _SAID_BY.search(rest)
    if said_by:  # "is humbug said by Scrooge": counted as "does Scrooge say humbug"
        rest = f"{said_by.group('who')} says {rest[:said_by.start()]}"
    phrase, named_as_such = _counted_phrase(rest)
    if not re.search(r"\w", phrase):  # nothing to count: "How many times?", a quotation of dots
        return None
    start = book.sections[0].start if book.sections else 0
    end = len(book.text) if until is None else until
    pattern = phrase_pattern(phrase)
    if not named_as_such and not _written_as_a_name(list(pattern.finditer(book.text, start))):
        return None  # "How often does Scrooge go to bed?" asks how often something happens: searched
    matches = list(pattern.finditer(book.text, start, end))
    found = [match.start() for match in matches]
    if matches and not named_as_such:  # as the book writes it ("marley": "Marley")
        phrase = _as_written(matches)
    read = " up to where you have read" if until is not None else ""
    if not found:
        return phrase, f"\u201c{phrase}\u201d is not written anywhere in {book.title}{read}.", []
    times = how_many_times(len(found))
    written = f"\u201c{phrase}\u201d is written {times} in {book.title}{read}, {spread_over_chapters(book, found)}"
    speaker = _speaker(rest, book, start) if named_as_such else None
    if speaker is None:
        return phrase, as_sentence(written), found
    theirs = [offset for offset in found if _spoken_by(book.text, offset, speaker)]
    if not theirs:
        return phrase, as_sentence(f"Where the book names who is speaking, {speaker} never says \u201c{phrase}\u201d; "
                                   f"{written}"), found
    so_far = "Up to where you have read, " if until is not None else ""
    said = f"{speaker} says \u201c{phrase}\u201d {how_many_times(len(theirs))}"
    return phrase, as_sentence(f"{so_far}{said} where the book names who is speaking, "
                               f"{spread_over_chapters(book, theirs)}; \u201c{phrase}\u201d is written {times} in "
                               f"{book.title} in all"), theirs


def chapters_naming(question: str, book, until: int | None = None) -> tuple[str, str, list[int]] | None:
    """For "In which chapters does Lady Russell appear?", "Which chapters
    mention 'the knocker'?": what is looked for (a name the book writes
    with a capital, or a phrase quoted), the chapters that have it in one
    line, and where in the text each use starts (up to `until`); None for
    any other question."""
    asked = _WHICH_CHAPTERS.search(question)
    if asked is None:
        return None
    quoted = QUOTED.search(question)
    who = " ".join((quoted.group(1) or quoted.group(2)).split()) if quoted else (asked.group("who")
                                                                                    or asked.group("whom"))
    start = book.sections[0].start if book.sections else 0
    pattern = phrase_pattern(who)
    every = list(pattern.finditer(book.text, start))
    if not quoted and not _written_as_a_name(every):
        return None  # "Which chapter is the hunt in?": a scene, searched
    matches = [match for match in every if until is None or match.end() <= until]
    phrase = who if quoted or not matches else _as_written(matches)
    read = " up to where you have read" if until is not None else ""
    if not matches:
        return phrase, f"\u201c{phrase}\u201d is not written anywhere in {book.title}{read}.", []
    found = [match.start() for match in matches]
    having = sorted({section.ordinal for section in map(book.section_at, found) if section})
    times = how_many_times(len(found))
    where = f"In {book.title}{read},"
    if len(having) == 1:
        return phrase, as_sentence(f"{where} \u201c{phrase}\u201d is only in "
                                   f"{chapter_name(book.sections[having[0] - 1])} ({times})"), found
    chapters = counted(len(book.sections), main_noun(book.sections)).split(" ", 1)[-1]
    share = (f"all {len(book.sections)} of its {chapters}" if len(having) == len(book.sections) else
             f"{len(having)} of its {len(book.sections)} {chapters}")
    named = (_ranges(book, having) if len(having) > _TITLED else
             _listed([chapter_name(book.sections[ordinal - 1]) for ordinal in having]))
    return phrase, as_sentence(f"{where} \u201c{phrase}\u201d is in {share} ({times} in all): {named}"), found


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# "When is the story set?", "What year does it take place?", "In what time period is it set?"
_WHEN_SET = re.compile(
    r"^\W*(?:when\s+(?:is|was|does|did)\s+(?:(?:the|this)\s+(?:story|book|novel|tale)|it)\s+"
    r"(?:set|take\s+place|happen)"
    r"|(?:in\s+)?(?:what|which)\s+(?:year|years|era|time\s+period|period|century|decade|time)\s+"
    r"(?:is|was|does|did)\s+(?:(?:the|this)\s+(?:story|book|novel|tale)|it)\s+(?:set|take\s+place|happen)(?:\s+in)?"
    r"|what\s+(?:year|era|time\s+period|period|century)\s+is\s+(?:it|(?:the|this)\s+(?:story|book|novel)))\W*$",
    re.I)
# A year as a book writes one in its text (not "1,500 pounds", "£1800", "No. 1887").
_YEAR = re.compile(r"(?<![\d,.$\u00a3#])\b1[5-9]\d\d\b(?!\d|,\d)")
# Years named listed with their chapters, up to this many.
_YEARS_LISTED = 12
# The times of year a text names, for a book that names no year ("Christmas Eve", "winter", "October"). Not
# "May" and "March": at a sentence's start, as often words as months.
_TIME_OF_YEAR = re.compile(
    r"\b(?:Christmas(?:\s+(?:Eve|Day))?|New\s+Year(?:['\u2019]s\s+(?:Eve|Day))?|Easter|Whitsun(?:tide)?|Michaelmas"
    r"|Midsummer|January|February|April|June|July|August|September|October|November|December"
    r"|[Ss]pring|[Ss]ummer|[Aa]utumn|[Ww]inter)\b")
_TIMES_LISTED = 4
# A capitalised word right after one: a name holding it ("the Ghost of Christmas Present", "A Christmas Carol").
_IN_A_NAME = re.compile(r"[ \t]*\n?[ \t]*[A-Z][a-z]")


def years_named(question: str, book, until: int | None = None) -> tuple[str, str, list[int]] | None:
    """For "When is the story set?", "What year does it take place?": the
    years the text names (up to `until`), in one line, and where each use
    starts; None for any other question, or for a book that names no year
    (the question is then the book's outline, as before). A year named is
    no certain setting ("a Baronetage... born 1785"), so the answer lists
    them and the evidence quotes where they stand."""
    if not _WHEN_SET.search(question) or not book.sections:
        return None
    matches = list(_YEAR.finditer(book.text, book.sections[0].start, len(book.text) if until is None else until))
    if not matches:
        return _times_of_year_named(book, until)
    found = [match.start() for match in matches]
    times = Counter(match.group() for match in matches)
    years = sorted(times)
    listed = ", ".join(f"{year} ({how_many_times(times[year])})" if times[year] > 1 else year
                       for year in years[:_YEARS_LISTED])
    more = f" and {len(years) - _YEARS_LISTED} more" if len(years) > _YEARS_LISTED else ""
    read = " up to where you have read" if until is not None else ""
    having = sorted({section.ordinal for section in map(book.section_at, found) if section})
    where = (_ranges(book, having) if len(having) > _TITLED else
             _listed([book.sections[ordinal - 1].label for ordinal in having]))
    return years[0], as_sentence(f"The year{'s' if len(years) > 1 else ''} {book.title} names{read}: {listed}{more}, "
                                 f"in {where}; where {'they stand' if len(found) > 1 else 'it stands'} is quoted "
                                 "below"), found


def _times_of_year_named(book, until: int | None) -> tuple[str, str, list[int]] | None:
    """For a book that names no year (A Christmas Carol): the times of year
    its text names most, and where the first of them is used; None where it
    names none either (the question is then the book's outline)."""
    end = len(book.text) if until is None else until
    written = [(" ".join(match.group().split()), match.start())
               for match in _TIME_OF_YEAR.finditer(book.text, book.sections[0].start, end)
               if not _IN_A_NAME.match(book.text, match.end())]
    if not written:
        return None
    forms = Counter(form for form, _ in written)
    shown: dict[str, str] = {}  # each time as mostly written ("winter", not a sentence's "Winter")
    for form, _ in forms.most_common():
        shown.setdefault(form.lower(), form)
    times = Counter(form.lower() for form, _ in written)
    most = [time for time, _ in times.most_common(_TIMES_LISTED)]
    listed = _listed([f"{shown[time]} ({how_many_times(times[time])})" for time in most])
    read = " up to where you have read" if until is not None else ""
    found = [start for form, start in written if form.lower() == most[0]]
    return shown[most[0]], as_sentence(f"{book.title} names no year{read}; the times of year it names most: "
                                       f"{listed}; where \u201c{shown[most[0]]}\u201d stands is quoted below"), found


def _ranges(book, ordinals: list[int]) -> str:
    """Chapters in runs, as the book numbers them: "Chapters 1–5, 7 and 9–24",
    "Staves I–III and V"; by their labels where they carry no number."""
    sections = [book.sections[ordinal - 1] for ordinal in ordinals]
    numbers = [section.label.split(",")[-1].split()[1:] for section in sections]
    if not all(len(number) == 1 for number in numbers):
        return ", ".join(section.label for section in sections)
    runs: list[list[int]] = []
    for place, ordinal in enumerate(ordinals):
        if runs and ordinal == ordinals[place - 1] + 1:
            runs[-1].append(place)
        else:
            runs.append([place])
    said: list[str] = []
    for run in runs:  # a run of two is said as two: "1, 2", not "1–2"
        said += ([numbers[place][0] for place in run] if len(run) <= 2 else
                 [f"{numbers[run[0]][0]}\u2013{numbers[run[-1]][0]}"])
    noun = main_noun(sections)
    noun = (noun if len(sections) == 1 else counted(2, noun).split(" ", 1)[-1]).capitalize()
    return f"{noun} {_listed(said)}"


def spread_over_chapters(book, found: list[int]) -> str:
    """Which chapters the uses at `found` are in: "in all 5 of its staves: Stave I (28), ..."."""
    by_section = Counter(section.ordinal for section in map(book.section_at, found) if section)
    sections = [book.sections[ordinal - 1] for ordinal in sorted(by_section)]
    where = ", ".join(f"{section.label} ({by_section[section.ordinal]})" for section in sections)
    if len(sections) > _CHAPTERS_LISTED:
        most = sorted(sections, key=lambda section: (-by_section[section.ordinal], section.ordinal))[:3]
        where = "most in " + ", ".join(f"{section.label} ({by_section[section.ordinal]})" for section in most)
    chapters = counted(len(book.sections), main_noun(book.sections)).split(" ", 1)[-1]
    return (f"in {chapter_name(sections[0])}" if len(sections) == 1 else
            f"in all {len(sections)} of its {chapters}: {where}" if len(sections) == len(book.sections) else
            f"in {len(sections)} of its {len(book.sections)} {chapters}: {where}")


def how_many_times(number: int) -> str:
    return "once" if number == 1 else "twice" if number == 2 else f"{number:,} times"


def _written_as_a_name(uses: list[re.Match]) -> bool:
    """Whether the book writes these words as a name: with a capital, nearly everywhere ("Marley", not "bed")."""
    return bool(uses) and sum(1 for use in uses if use.group()[:1].isupper()) >= _NAME_SHARE * len(uses)


def _as_written(matches: list[re.Match]) -> str:
    """A phrase as the book most often writes it ("marley": "Marley")."""
    return Counter(" ".join(match.group().split()) for match in matches).most_common(1)[0][0]


def _speaker(rest: str, book, start: int) -> str | None:
    """Whom a how-often question asks about as saying its words ("does
    Scrooge say humbug": "Scrooge"), as the book writes their name; None if
    it names no one the book writes with a capital ("does he say")."""
    saying = SAYING.search(rest)
    if saying is None:
        return None
    who = [word for word in words(rest[:saying.start()])
           if word.lower() not in _COUNTING_WORDS | FUNCTION_WORDS | STOPWORDS]
    if not who:
        return None
    uses = list(phrase_pattern(" ".join(who)).finditer(book.text, start))
    return _as_written(uses) if _written_as_a_name(uses) else None


def _spoken_by(text: str, offset: int, speaker: str) -> bool:
    """Whether the use at `offset` is in dialogue its paragraph gives to
    `speaker`: the telling names them (not "Scrooge's nephew"), and the
    speech tag next to the quotation, if there is one, is theirs ("said
    Scrooge", "he said"), not another's ("three or four fellows said")."""
    before = text.rfind("\n\n", max(0, offset - _PARAGRAPH_REACH), offset)
    begin = before + 2 if before >= 0 else max(0, offset - _PARAGRAPH_REACH)
    after = _PARAGRAPH_END.search(text, offset, offset + _PARAGRAPH_REACH)
    paragraph = text[begin:after.start() if after else offset + _PARAGRAPH_REACH]
    at = offset - begin
    telling = outside_dialogue(paragraph)
    if any(told_start <= at < told_end for told_start, told_end in telling):
        return False  # told, not said: "the word humbug"
    name = re.compile(rf"\b{re.escape(speaker)}\b(?![\u2019']s\b)")
    if not any(name.search(paragraph, told_start, told_end) for told_start, told_end in telling):
        return False
    # The tag after the quotation ("“Humbug!” said Scrooge"), else the one before it ("fellows said, “...”").
    following = next(((told_start, told_end) for told_start, told_end in telling if told_start > at), None)
    preceding = next(((told_start, told_end) for told_start, told_end in reversed(telling) if told_end <= at), None)
    tags = []
    if following and _NEW_SENTENCE.match(paragraph, following[0], following[1]):
        following = None  # '“A merry Christmas to you!” And Scrooge said often afterwards': no tag of this one
    if following:
        tags += list(_TAG.finditer(paragraph, following[0], min(following[1], following[0] + _TAG_REACH)))[:1]
    if preceding and not tags:
        tags += list(_TAG.finditer(paragraph, max(preceding[0], preceding[1] - _TAG_REACH), preceding[1]))[-1:]
    if not tags:
        return True  # "Scrooge ... said, “Bah!” again; and followed it up with “Humbug.”"
    tag = tags[0]
    segment = following if following and following[0] <= tag.start() < following[1] else preceding
    # The name a little before the tag ("Scrooge, having no answer ready, said") or after it, or "he said".
    return bool(name.search(paragraph, max(segment[0], tag.start() - _TAG_REACH), min(segment[1], tag.end() + 40))
                or _PRONOUN_BEFORE.search(paragraph, max(segment[0], tag.start() - 12), tag.start())
                or _PRONOUN_AFTER.match(paragraph, tag.end(), segment[1]))


def _counted_phrase(rest: str) -> tuple[str, bool]:
    """What a how-often question counts, and whether it says that it is
    words it asks about: a phrase it quotes, what follows "say" or "use"
    ("does Scrooge say humbug": "humbug"); else its words left once the
    asking is taken out ("is Tiny Tim mentioned": "Tiny Tim"), which count
    only where the book writes them as a name."""
    quoted = QUOTED.search(rest)
    if quoted:
        return " ".join((quoted.group(1) or quoted.group(2)).split()).strip(" .,;:!?"), True
    saying = SAYING.search(rest)
    if saying:
        rest = saying.group("what")
    kept = [word for word in words(rest) if word.lower() not in _COUNTING_WORDS | FUNCTION_WORDS | STOPWORDS]
    return " ".join(kept), saying is not None or _A_WORD.search(rest) is not None
