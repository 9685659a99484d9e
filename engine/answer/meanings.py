"""What a name or a word of the book means: "What does Tarzan mean in the
ape language?", "What is the meaning of the name Tublat?". The book says it
in passing, beside the name: "little Tarzan, which was the name they had
given to the tiny Lord Greystoke, and which meant 'White-Skin'", "a male
called Tublat, meaning broken nose". A search for the question's words finds
every line naming Tarzan ("I am Tarzan of the Apes"), so the passages where
a word of meaning stands near the name have slots of their own in
retrieval, and the digest prefers a line that holds one near it
(nearby.py)."""

from __future__ import annotations

import re

from .nearby import Telling

_WORDS = frozenset("""
    mean means meant meaning meanings signify signifies signified signification translated translation
    translate interpreted interpretation
""".split())
# The whole question asks what a name or a word means, nothing more: "What does Scrooge mean when he says
# humbug?" asks what someone meant, and is searched as such.
_LANGUAGE = r"(?:\s+in\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:language|tongue|speech))?"
_ASKS = re.compile(
    rf"^\W*what\s+(?:does|did)\s+(?:the\s+(?:name|word)\s+)?(?P<who>.+?)\s+mean{_LANGUAGE}\W*$"
    rf"|^\W*what\s+(?:is|was)\s+the\s+(?:meaning|translation|english)\s+of\s+(?:the\s+(?:name|word)\s+)?"
    rf"(?P<who2>.+?)(?:['\u2019]s?\s+name)?{_LANGUAGE}\W*$"
    r"|^\W*what\s+(?:is|was)\s+(?P<who3>.+?)['\u2019]s?\s+name\s+mean\W*$"
    rf"|^\W*how\s+(?:is|was)\s+(?P<who4>.+?)\s+translated{_LANGUAGE}\W*$", re.I)
_ASKING = frozenset({"mean", "means", "meaning", "translation", "translated", "name", "word", "language",
                     "tongue", "english"})

MEANING = Telling(name="meaning", words=_WORDS, asks=_ASKS, in_a_passage=1, in_a_line=1, asking_words=_ASKING,
                  first_leads=True)
