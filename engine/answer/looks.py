"""What someone looks like: "What does Stapleton look like?", "Describe
Barrymore", "How is Dr Mortimer described?". The question's own words find
the lines that say "looked" ("Stapleton looked at me with a curious
expression"), and a description seldom names what it describes in the
question's words: "a small, slim, clean-shaven, prim-faced man,
flaxen-haired and lean-jawed". So the passages where words of looks (face,
eyes, hair, tall, dressed...) gather near a name the question asks about
are a list of their own in retrieval, and the digest prefers a line that
holds several of them (expected.py)."""

from __future__ import annotations

import re
from bisect import bisect_left

from .people import HONORIFIC_WORDS
from .planning import content_words
from .vocabulary import as_written

# Words that tell how someone looks: their body, face, build and clothes. Colours and "old" are left out: a
# black night and an old house describe no one.
LOOKS_WORDS = frozenset("""
    face faced features complexion eyes eyed eyebrows brows brow forehead nose nosed mouth lips chin jaw jawed
    cheeks cheek teeth skin hair haired curls curly bald beard bearded moustache whiskers whiskered shaven
    clean-shaven freckles freckled wrinkled wrinkles
    tall short stout thin lean slim slender plump fat broad-shouldered shoulders height figure build built
    frame muscular heavy-built sturdy gaunt bony stooping stooped
    handsome pretty beautiful plain ugly comely good-looking fine-looking homely dainty elegant graceful
    blonde brunette auburn fair-haired dark-haired grey-haired gray-haired ruddy sallow swarthy florid rosy
    dimpled grizzled aquiline lank wiry sinewy brawny lanky portly corpulent hunchbacked lame
    dressed dress clothes clothed coat hat cap bonnet gown cloak waistcoat boots spectacles gloved
""".split())
_LOOKS = re.compile(r"\b(?:" + "|".join(sorted((re.escape(word) for word in LOOKS_WORDS), key=len, reverse=True))
                    + r")\b", re.I)
# The whole question asks how someone looks, and nothing more: "Compare Meg's appearance at the party with
# Amy's at the ball" asks about two scenes, and is searched as such.
_ASKS_LOOKS = re.compile(
    r"^\W*(?:what\s+(?:does|did|do)\s+(?P<who>.+?)\s+look\s+like"
    r"|how\s+(?:does|did|do)\s+(?P<who2>.+?)\s+look"
    r"|(?:describe|give\s+(?:me\s+)?a\s+description\s+of)\s+(?P<who3>.+?)(?:['\u2019]s?\s+(?:appearance|looks|face))?"
    r"|how\s+(?:is|was|are|were)\s+(?P<who4>.+?)\s+described"
    r"|what\s+(?:is|was|are|were)\s+(?P<who5>.+?)['\u2019]s?\s+(?:appearance|looks)"
    r"|what\s+(?:is|was|are|were)\s+the\s+appearance\s+of\s+(?P<who6>.+?)"
    r")(?:\s+(?:physically|in\s+the\s+(?:book|novel|story)))?\W*$", re.I)
# How near a name the words must gather to be taken as describing them: a sentence or two; and how far
# after the name a line describing them may start.
_REACH, _LINE_REACH = 300, 600
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# The question's own words of asking: "look" found "Stapleton looked at me", "describe" "must needs describe him".
ASKING_WORDS = {"look", "looks", "like", "describe", "described", "describes", "description", "appearance",
                "physical", "physically"}
# Distinct words of looks in that reach for a passage to describe someone; in a sentence, for a line to.
_IN_A_PASSAGE, _IN_A_LINE = 3, 2
_LISTED = 8


def asks_looks(question: str) -> bool:
    return _ASKS_LOOKS.search(question) is not None


def looks_words(text: str) -> int:
    """How many distinct words of looks the text holds."""
    return len({word.lower() for word in _LOOKS.findall(text)})


def describes(sentence: str) -> bool:
    """Whether a line holds enough words of looks to describe someone."""
    return looks_words(sentence) >= _IN_A_LINE


def names_asked(question: str, context) -> list[str]:
    """Whom a question asks the looks of: the names it types ("the Ghost of
    Christmas Past"), else its words the book writes as names ("stapleton")."""
    from .followup import subjects_of  # followup's names: capitalised runs, as a question types them

    names = [name for name in subjects_of(question) if context.writes_as_name(name.split()[-1])]
    names = names or [word for word in content_words(question) if context.writes_as_name(word)]
    # "Dr Mortimer" is also "Dr. James Mortimer" and "Mortimer", "Sherlock Holmes" mostly "Holmes": the
    # surname alone, where the book writes it as a name ("the Ghost of Christmas Past" is not "Past").
    surnames = [name.split()[-1] for name in names if len(name.split()) > 1 and (
        name.split()[0].lower().rstrip(".") in HONORIFIC_WORDS or name.split()[-2][:1].isupper())]
    return list(dict.fromkeys(names + [surname for surname in surnames if context.writes_as_name(surname)]))


def near_names(context, names: list[str]) -> list[tuple[int, int]]:
    """The stretches of text from each use of one of the names to the end of
    its paragraph, or the next (a description often opens one of its own:
    "...Dr. James Mortimer ... Come in!" / "He was a very tall, thin man"),
    at most a few sentences on."""
    text = context.book.text
    stretches = []
    for name in names:
        for named in as_written(name).finditer(text):
            ends = [found.start() for found in _PARAGRAPH_BREAK.finditer(text, named.end(), named.end() + _LINE_REACH)]
            stop = ends[1] if len(ends) > 1 else named.end() + _LINE_REACH
            if ends and ends[0] - named.end() > _LINE_REACH // 2:  # a long paragraph of its own: to its end
                stop = ends[0]
            stretches.append((named.start(), stop))
    return sorted(stretches)


def describes_near(sentence: str, start: int, end: int, stretches: list[tuple[int, int]]) -> bool:
    """Whether a line at start-end describes someone and stands near one of
    the names asked about (`near_names`): "He was a remarkable-looking man,
    tall, handsome" after "Barrymore", not another man's face elsewhere."""
    return describes(sentence) and any(begin < end and start < stop for begin, stop in stretches)


def looks_places(text: str) -> tuple[list[int], list[str]]:
    """Where the text uses a word of looks, and which (lower case), in order."""
    found = [(match.start(), match.group().lower()) for match in _LOOKS.finditer(text)]
    return [place for place, _ in found], [word for _, word in found]


def passages_describing(context, names: list[str], searched: list[int | None] | None = None,
                        until: int | None = None) -> list[tuple[str, float]]:
    """The passages (of the sections `searched`, before `until`) where most
    words of looks stand within a sentence or two of one of the names, most
    first, as a ranked list."""
    text = context.book.text
    end = len(text) if until is None else until
    allowed = None if searched is None else set(searched)
    places, looks = context.looks_places  # found once a book: Anne is named 497 times in Persuasion
    most: dict[str, int] = {}
    for name in names:
        for named in as_written(name).finditer(text, 0, end):
            # A description mostly follows the name ("Scrooge! ... The cold within him froze his old features").
            after = min(end, named.end() + _LINE_REACH)
            words = len(set(looks[bisect_left(places, named.start() - _REACH):bisect_left(places, after)]))
            if words < _IN_A_PASSAGE:
                continue
            for node in context.passages_overlapping(named.start(), after):
                if (allowed is None or context.section_of.get(node.id) in allowed) and node.end <= end:
                    most[node.id] = max(most.get(node.id, 0), words)
    ranked = sorted(most, key=lambda node_id: (-most[node_id], context.start_of.get(node_id, 0)))
    # A novel describes its people where it brings them in: the first such passage leads, then the fullest.
    first = min(most, key=lambda node_id: context.start_of.get(node_id, 0), default=None)
    ranked = ([first] if first else []) + [node_id for node_id in ranked if node_id != first]
    return [(node_id, 1.0 / place) for place, node_id in enumerate(ranked[:_LISTED], start=1)]
