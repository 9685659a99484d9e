"""What someone looks like: "What does Stapleton look like?", "Describe
Barrymore", "How is Dr Mortimer described?". The question's own words find
the lines that say "looked" ("Stapleton looked at me with a curious
expression"), and a description seldom names what it describes in the
question's words: "a small, slim, clean-shaven, prim-faced man,
flaxen-haired and lean-jawed". So the passages where words of looks (face,
eyes, hair, tall, dressed...) gather near a name the question asks about
have slots of their own in retrieval, and the digest prefers a line that
holds several of them (nearby.py)."""

from __future__ import annotations

import re

from .nearby import Telling

# Words that tell how someone looks: their body, face, build and clothes. Colours and "old" are left out: a
# black night and an old house describe no one.
_WORDS = frozenset("""
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
# The whole question asks how someone looks, and nothing more: "Compare Meg's appearance at the party with
# Amy's at the ball" asks about two scenes, and is searched as such.
_ASKS = re.compile(
    r"^\W*(?:what\s+(?:does|did|do)\s+(?P<who>.+?)\s+look\s+like"
    r"|how\s+(?:does|did|do)\s+(?P<who2>.+?)\s+look"
    r"|(?:describe|give\s+(?:me\s+)?a\s+description\s+of)\s+(?P<who3>.+?)(?:['\u2019]s?\s+(?:appearance|looks|face))?"
    r"|how\s+(?:is|was|are|were)\s+(?P<who4>.+?)\s+described"
    r"|what\s+(?:is|was|are|were)\s+(?P<who5>.+?)['\u2019]s?\s+(?:appearance|looks)"
    r"|what\s+(?:is|was|are|were)\s+the\s+appearance\s+of\s+(?P<who6>.+?)"
    r")(?:\s+(?:physically|in\s+the\s+(?:book|novel|story)))?\W*$", re.I)
# The question's words of asking: "look" found "Stapleton looked at me", "describe" "must needs describe him".
_ASKING = frozenset({"look", "looks", "like", "describe", "described", "describes", "description", "appearance",
                     "physical", "physically"})

LOOKS = Telling(name="looks", words=_WORDS, asks=_ASKS, in_a_passage=3, in_a_line=2, asking_words=_ASKING,
                first_leads=True)


def asks_looks(question: str) -> bool:
    return LOOKS.asked(question)


def describes(sentence: str) -> bool:
    """Whether a line holds enough words of looks to describe someone."""
    return LOOKS.count(sentence) >= LOOKS.in_a_line


def looked_at(question: str) -> str | None:
    """Whom a question about looks asks about, as typed ("Describe the Ghost
    of Christmas Past": "Ghost of Christmas Past"); None for another question."""
    asked = _ASKS.search(question)
    if asked is None:
        return None
    who = next(group for group in asked.groups() if group)
    return re.sub(r"^(?:the|a|an)\s+", "", who.strip(), flags=re.I) or None
