"""A thing a question asks to see come back: "How does the door knocker that
startles Scrooge on Christmas Eve reappear after his night with the
spirits?". The question's other words are everywhere in the story (Scrooge,
the spirits, the night), and the knocker's return is told in a passage that
shares one word with it ("It's a wonderful knocker!", 28th of the fused
ranking): the last passage naming the thing has a slot of its own, and the
digest quotes its line naming it.

The thing is what the question is about before it says "reappear": the
last word of the words after "How does the" ("door knocker", "gold"),
where the book names it in a dozen passages or fewer (a word the book uses
everywhere is no handle on one scene; the anchors' limit) and more than one.
Not the question's rarest word: in "Why is one of Sir Henry's stolen boots
quietly returned...?" that is "quietly"."""

from __future__ import annotations

import re

from .planning import STOPWORDS, words
from .vocabulary import without_possessive

RECURRING = "recurring"  # the sources' mark of the last passage naming the thing
_COMES_BACK = re.compile(r"\b(?:reappear\w*|recur\w*|return\w*|comes?\s+back|came\s+back|coming\s+back)\b", re.I)
_COMING_WORD = re.compile(r"(?:reappear\w*|recur\w*|return\w*|comes?|came|coming)$", re.I)
# "How does the...", "When did this...": what follows is the thing asked about.
_ABOUT_THE = re.compile(r"^\W*(?:how|when|where|why)\s+(?:does|did|do|is|was|will|would)\s+"
                        r"(?:the|this|that|his|her|their|its|my)\s+(?P<rest>.+)", re.I)
_MOST_PASSAGES = 12


def recurring_thing(question: str, rarity) -> str | None:
    """The thing a question asks to see come back, as the question writes it; None for any other question."""
    about = _ABOUT_THE.match(question)
    if about is None or not _COMES_BACK.search(about["rest"]):
        return None
    thing = []
    for word in words(about["rest"]):
        if word.lower() in STOPWORDS or _COMING_WORD.match(word):
            break
        thing.append(word)
    if not thing or without_possessive(thing[-1]) != thing[-1] or rarity.is_name(thing[-1]):
        return None
    return thing[-1] if 2 <= rarity.frequency.get(thing[-1].lower(), 0) <= _MOST_PASSAGES else None
