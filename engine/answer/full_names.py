"""Someone's name as the book writes it in full: "What is Scrooge's first
name?", "What is Anne's surname?", "What is Watson's full name?". The
answer is in the text, beside the name asked about ("Mr. Ebenezer Scrooge
or his order", "the Ghost of Jacob Marley"), and a search for the question's
words ("first", "name") does not find it. So the names written next to it,
with nothing between them but spaces, are gathered from the whole text and
the form the book writes most is the answer, with where it stands quoted."""

from __future__ import annotations

import re
from collections import Counter

from .bookfacts import as_sentence
from .counting import how_many_times, spread_over_chapters
from .nearby import longer_forms
from .people import DAYS, HONORIFIC_WORDS, NO_ONE, PLACE_WORDS, WOMEN_S_TITLES, a_noun_or_a_place

_FIRST, _LAST, _FULL = "first", "last", "full"
_KINDS = {"first": _FIRST, "christian": _FIRST, "given": _FIRST, "full": _FULL, "whole": _FULL, "complete": _FULL,
          "real": _FULL, "proper": _FULL, "last": _LAST, "family": _LAST, "sur": _LAST}
_KIND = r"(?P<kind>first|christian|given|full|whole|complete|real|proper|last|family|sur)\s*name"
_ASKS = re.compile(
    rf"^\W*(?:what|which)(?:['\u2019]s|\s+(?:is|was))\s+(?:the\s+)?{_KIND}\s+of\s+(?P<who>.+?)"
    r"(?:\s+in\s+(?:the|this)\s+(?:book|novel|story))?\W*$"
    r"|^\W*(?:what|which)(?:['\u2019]s|\s+(?:is|was))\s+(?P<whose>.+?)(?:['\u2019]s?)?\s+"
    + _KIND.replace("kind", "kind2") +
    r"(?:\s+in\s+(?:the|this)\s+(?:book|novel|story))?\W*$"
    r"|^\W*(?:and|what\s+about|how\s+about)\s+(?P<whose3>.+?)['\u2019]s?\s+" + _KIND.replace("kind", "kind3")
    + r"\W*$", re.I)
# Titles a name may carry ("Mr. Ebenezer Scrooge"); those of a woman name her husband's family, not her.
_TITLES = HONORIFIC_WORDS | {"mister", "dame", "farmer", "cousin", "brother", "sister", "saint"}
# A word of a name as texts write one: "Sherlock", "O'Brien", "JOHN" in a heading, an initial "H.", a title "Mr.".
_TOKEN = r"(?:[A-Z][a-z]+(?:['\u2019][A-Z][a-z]+)?\.?|[A-Z]{2,}\.?|[A-Z]\.)"
_BEFORE = re.compile(rf"(?<![\w.'\u2019])((?:{_TOKEN}[ \t]*\n?[ \t]*){{1,4}})\Z")
_AFTER = re.compile(rf"^[ \t]*\n?[ \t]*((?:{_TOKEN}(?:[ \t]*\n?[ \t]*(?={_TOKEN}))?){{1,2}})")
# A word next to a name is a name too where the book writes it with a capital in all passages but this share
# of those using it: "March" beside "Jo" (the family marches now and then).
_BESIDE_A_NAME_LOWER_SHARE = 0.25
# Other forms of the name said beside the one most written, up to this many.
_OTHERS_SAID = 2
_NOUNS = {_FIRST: "first name", _LAST: "surname", _FULL: "full name"}
# A longer first name written after a title or a name in more than this share of its uses is a surname.
_SURNAME_SHARE = 0.5
_AFTER_A_NAME = re.compile(r"[A-Z][a-z]*\.?[ \t]+\Z")
_NEAR = 300  # characters either side: a paragraph's reach


def full_name(question: str, book, rarity, until: int | None = None) -> tuple[str, str, list[int]] | None:
    """For a question asking someone's first name, surname or full name: the
    name found, the answer in one line, and where each use of it starts (up
    to `until`); None for any other question, or for a name the book does
    not write (the question is then searched, and refused if the name is
    nowhere)."""
    asked = _ASKS.search(question)
    if asked is None or not book.sections:
        return None
    asked_kind = (asked.group("kind") or asked.group("kind2") or asked.group("kind3")).lower()
    kind, noun = _KINDS[asked_kind], {"sur": "surname", "christian": "Christian name"}.get(asked_kind,
                                                                                        f"{asked_kind} name")
    asked_of = asked.group("who") or asked.group("whose") or asked.group("whose3")
    words = re.sub(r"['\u2019]s?$", "", asked_of.strip()).split()
    while words and words[0].lower() in {"the", "a"}:
        words = words[1:]
    titles = [word for word in words if word.lower().rstrip(".") in _TITLES]
    core = [word for word in words if word.lower().rstrip(".") not in _TITLES]
    if (not core or titles and words[:len(titles)] != titles
            or not all(word[:1].isupper() or rarity.is_name(word) for word in core)):
        return None  # "What is the full name of the book?" asks no one's
    start, end = book.sections[0].start, len(book.text) if until is None else until
    uses = [match for match in _core_pattern(core).finditer(book.text, start, end) if match.group()[:1].isupper()]
    if not uses:
        return None
    written = Counter(" ".join(use.group().split()) for use in uses).most_common(1)[0][0]  # "Marley", not "MARLEY"
    forms, titled = _forms_written(book.text, uses, core, titles, written, rarity)
    if titles and not titled:
        return None  # "Mrs. Scrooge", whom the book does not name: searched, and refused as not in the book
    whom = " ".join(titles + [written])
    read = " up to where you have read" if until is not None else ""
    longer = _longer_form(written, book.text, rarity, start, end) if (
        kind == _FULL and not titles and len(core) == 1) else None
    if longer and not forms:  # "What is Bobbie's real name?": the book writes "Roberta" too
        long_name, long_uses = longer
        stated = (f"\u201c{written}\u201d is a short form of \u201c{long_name}\u201d (by a table of English names), "
                  f"a name {book.title}{read} also writes, {how_many_times(len(long_uses))}, "
                  f"{spread_over_chapters(book, long_uses)}; it writes no other name beside \u201c{written}\u201d")
        return long_name, as_sentence(stated), long_uses
    if not forms:
        every = titled or [use.start() for use in uses]
        stated = (f"{book.title}{read} writes no other name beside \u201c{whom}\u201d "
                  f"({how_many_times(len(every))}), so it gives no {noun} for {whom}")
        return written, as_sentence(stated), every[:1]
    # The form written most; of two written as often, the one the other bears out ("John Watson" once, "John H.
    # Watson" once: the longer).
    support = {form: sum(len(at) for other, at in forms.items() if _within(other, form)) for form in forms}
    ranked = [form for form, _ in sorted(forms.items(), key=lambda item: (
        not _answers(kind, item[0], written), -len(item[1]), -support[item[0]], -len(item[0])))]
    if (titles and any(not _within(form, ranked[0]) for form in ranked[1:])
            and not set(titled) & {at for uses_of in forms.values() for at in uses_of}):
        # "Mr. Laurence" is never written with a first name; "Theodore Laurence" and "James Laurence" are two men.
        each = [f"\u201c{' '.join(form)}\u201d ({how_many_times(len(forms[form]))})" for form in ranked[:3]]
        stated = (f"{book.title}{read} writes no other name beside \u201c{whom}\u201d; beside \u201c{written}\u201d "
                  f"it writes {', '.join(each[:-1])} and {each[-1]}, so which is {whom}'s {noun} is not clear from "
                  "it")
        return written, as_sentence(stated), sorted(at for form in ranked[:3] for at in forms[form])
    name = ranked[0]
    found = sorted(at for form, uses_of in forms.items() if _within(form, name) for at in uses_of)  # evidence
    stated = _statement(book, forms, ranked, support[name], kind, noun, whom, written, read)
    if longer:  # "Meg March" once, and "Margaret, the eldest of the four"
        long_name, long_uses = longer
        stated += (f"; \u201c{written}\u201d is also a short form of \u201c{long_name}\u201d (by a table of English "
                   f"names), which it writes {how_many_times(len(long_uses))}")
        found = sorted(found + long_uses[:1])
    return " ".join(name), as_sentence(stated), found


def _longer_form(short: str, text: str, rarity, start: int, end: int) -> tuple[str, list[int]] | None:
    """The longer first name a short one is a form of (the `nicknames`
    table: "Bobbie" of "Roberta", "Beth" of "Elizabeth") that the text
    writes as a first name, near the short one most often, and where; None
    where it writes none so. Near: "Jo" is Josephine four times of four,
    Joanna (a doll) twice of six. Written after a title or another name in
    most of its uses, it is a surname ("Mr. Laurence"), not a first name."""
    best, most_near = None, 0
    short_written = re.compile(rf"\b{re.escape(short)}\b")
    for longer in longer_forms(short):
        if not rarity.is_name(longer):
            continue
        uses = [found.start() for found in re.finditer(rf"\b{re.escape(longer)}\b", text[:end])
                if found.start() >= start]
        after_a_name = sum(1 for at in uses if _AFTER_A_NAME.search(text, max(0, at - 24), at))
        near = sum(1 for at in uses if short_written.search(text, max(0, at - _NEAR), at + _NEAR))
        if near > most_near and after_a_name <= _SURNAME_SHARE * len(uses):
            best, most_near = (longer, uses), near
    return best


def _forms_written(text: str, uses: list[re.Match], core: list[str], titles: list[str], written: str,
                   rarity) -> tuple[dict[tuple[str, ...], list[int]], list[int]]:
    """Each form of the name the text writes with other names beside it
    ("Jacob Marley", "Mr. Ebenezer Scrooge" as ("Ebenezer", "Scrooge")) and
    where; and where it writes the name with the title asked, if one was."""
    forms: dict[tuple[str, ...], list[int]] = {}
    is_a_name = _NameWords(text, rarity)
    titled: list[int] = []  # where the book writes the name with the title asked ("Mrs. Cratchit")
    for use in uses:
        in_capitals = use.group().isupper()  # "EBENEZER SCROOGE" on a gravestone; not a heading's "CAMP LAURENCE"
        firsts, title = _names_before(text, use.start(), is_a_name, in_capitals)
        lasts = [] if re.match(r"['\u2019]s\b", text[use.end():use.end() + 2]) else \
            _names_after(text, use.end(), is_a_name, in_capitals)
        if titles and _same_title(title, titles[0]):
            titled.append(use.start())
        elif titles and (titles[0].lower().rstrip(".") in WOMEN_S_TITLES or title is not None):
            continue  # "Mrs. Cratchit" asked: "Bob Cratchit" is another of the family
        if (firsts or lasts) and not {name.lower() for name in firsts + lasts} & {word.lower() for word in core}:
            forms.setdefault(tuple(firsts + [written] + lasts), []).append(use.start())
    return forms, titled


def _statement(book, forms: dict[tuple[str, ...], list[int]], ranked: list[tuple[str, ...]], support: int, kind: str,
               noun: str, whom: str, written: str, read: str) -> str:
    """The answer, from the forms of the name ranked: the name asked for and
    where the book writes it, or why it is not clear."""
    name, own = ranked[0], forms[ranked[0]]
    said = " ".join(name)
    if support == 1 and len(ranked) > 1:  # "Tell Beth Frank asked for her": a name once is no certain name
        each = [f"\u201c{' '.join(other)}\u201d" for other in ranked[:1 + _OTHERS_SAID]]
        return (f"{book.title}{read} writes no other name beside \u201c{whom}\u201d more than once "
                f"({', '.join(each[:-1])} and {each[-1]}, once each), so {whom}'s {noun} is not clear from it")
    if support == 1:
        return (f"{book.title}{read} writes another name beside \u201c{whom}\u201d only once, \u201c{said}\u201d, "
                f"{spread_over_chapters(book, own)}: whether it is {whom}'s {noun} the line below shows")
    where = name.index(written)
    before, after = name[:where], name[where + 1:]
    uses_said = (f"{book.title}{read} writes \u201c{said}\u201d {how_many_times(len(own))}, "
                 f"{spread_over_chapters(book, own)}")
    others = [f"\u201c{' '.join(other)}\u201d ({how_many_times(len(forms[other]))})"
              for other in ranked[1:1 + _OTHERS_SAID]]
    also = f"; it also writes {' and '.join(others)}" if others else ""
    if kind == _FIRST and before:
        return f"{whom}'s {noun} is {before[0]}: {uses_said}{also}"
    if kind == _LAST and after:
        return f"{whom}'s {noun} is {after[-1]}: {uses_said}{also}"
    if kind == _FULL:
        return f"{whom}'s full name, as the book writes it, is \u201c{said}\u201d: {uses_said}{also}"
    # A first name asked of one ("What is Anne's first name?"), or a surname of one.
    return f"\u201c{written}\u201d is itself a {_NOUNS[_FIRST if after else _LAST]}: {uses_said}{also}"


def _core_pattern(core: list[str]) -> re.Pattern:
    return re.compile(r"(?<![\w'\u2019-])" + r"\.?\s+".join(re.escape(word.rstrip(".")) for word in core)
                      + r"(?![\w-])", re.I)


class _NameWords:
    """Which words written beside a name are names too, each looked up once."""

    def __init__(self, text: str, rarity):
        self.text, self.rarity = text, rarity
        self._known: dict[str, bool] = {}

    def __call__(self, word: str) -> bool:
        if word not in self._known:
            self._known[word] = self._is_a_name(word)
        return self._known[word]

    def _is_a_name(self, word: str) -> bool:
        bare = word.rstrip(".")
        lower = bare.lower()
        if len(bare) == 1:  # an initial: "John H. Watson"
            return word.endswith(".")
        not_names = _TITLES | PLACE_WORDS | DAYS | NO_ONE  # months may be names: "Jo March", "May Welland"
        if (word.endswith(".") or lower in not_names or lower.removesuffix("s") in not_names
                or not self.rarity.is_name(bare, lower_share=_BESIDE_A_NAME_LOWER_SHARE)):
            return False
        # "the Keeper Gordon had sent", "at Freetown John Clayton took passage".
        return not a_noun_or_a_place(bare.capitalize(), self.text)


def _as_a_name(word: str) -> str:
    """A word of a name as a sentence writes it: "JOHN" in a heading is "John"."""
    return word.capitalize() if len(word) > 2 and word.isupper() else word


def _names_before(text: str, start: int, is_a_name: _NameWords, in_capitals: bool) -> tuple[list[str], str | None]:
    """The names written just before a use (nearest last), and the title
    before them, if any: "Mr. Ebenezer" before "Scrooge"."""
    found = _BEFORE.search(text, max(0, start - 80), start)
    if found is None:
        return [], None
    tokens = found.group(1).split()
    names: list[str] = []
    while tokens and _as_cased(tokens[-1], in_capitals) and is_a_name(tokens[-1]):
        names.insert(0, _as_a_name(tokens.pop()))
    title = tokens[-1] if tokens and tokens[-1].lower().rstrip(".") in _TITLES else None
    return names, title


def _names_after(text: str, end: int, is_a_name: _NameWords, in_capitals: bool) -> list[str]:
    """The names written just after a use: "Baskerville" after "Sir Henry"."""
    found = _AFTER.match(text[end:end + 80])
    if found is None:
        return []
    names: list[str] = []
    for token in found.group(1).split():
        ends_a_sentence = len(token) > 2 and token.endswith(".") and token.lower().rstrip(".") not in _TITLES
        token = token.rstrip(".") if ends_a_sentence else token  # "your partner, Jacob Marley."
        if not (_as_cased(token, in_capitals) and is_a_name(token)):
            break
        names.append(_as_a_name(token))
        if ends_a_sentence:
            break
    return names


def _answers(kind: str, form: tuple[str, ...], written: str) -> bool:
    """Whether a form of the name has what is asked: a name before the one asked about for its first name."""
    where = form.index(written)
    return kind == _FULL or (where > 0 if kind == _FIRST else where < len(form) - 1)


def _as_cased(word: str, in_capitals: bool) -> bool:
    """Whether a word is written as the use beside it is: in capitals beside capitals, else not."""
    return in_capitals or len(word.rstrip(".")) == 1 or not word.isupper()


def _within(shorter: tuple[str, ...], longer: tuple[str, ...]) -> bool:
    """Whether the words of one name stand in another, in order: "John Watson" in "John H. Watson"."""
    words = iter(longer)
    return all(word in words for word in shorter)


def _same_title(written: str | None, asked: str) -> bool:
    return written is not None and written.lower().rstrip(".") == asked.lower().rstrip(".")
