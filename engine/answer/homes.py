"""Where someone lives: "Where does Scrooge live?", "Where is Stapleton's
house?", "Where do the Marches live?". The book says it in passing, near
the name and seldom in the question's words: "He lived in chambers which
had once belonged to his deceased partner", "Buck lived at a big house in
the sun-kissed Santa Clara Valley", "our rooms in Baker Street". So the
passages where words of dwelling gather near a name the question asks
about have slots of their own in retrieval, and the digest prefers a line
that holds two of them near the name (nearby.py).

Where someone comes from ("Where is Buck from?", "Where was Tarzan
born?", "Where does Mr. Weston come from?") is told alike, with words of
birth and of being native as well: "Buck lived at a big house in the
sun-kissed Santa Clara Valley. Here he was born...", "Mr. Weston was a
native of Highbury". A kind of its own: those words near a name had
crowded out the lines where someone lives ("a stately stone mansion" next
door to the Marches)."""

from __future__ import annotations

import re

from .nearby import Telling

# Words of dwelling somewhere, and of the dwellings novels name.
_WORDS = frozenset("""
    live lives lived dwell dwells dwelt dwelling reside resides resided residence resident abode home homes
    lodge lodges lodged lodging lodgings lodger rooms chambers apartments house houses hall cottage manor villa
    farm farmhouse estate mansion castle palace street square terrace lane road village town parish
    neighbourhood neighborhood neighbour neighbor next-door settled tenant tenants let rented inhabited
""".split())
_ASKS = re.compile(
    r"^\W*(?:where\s+(?:does|did|do)\s+(?P<who>.+?)\s+(?:live|dwell|reside|stay|lodge|make\s+(?:his|her|their)\s+home)"
    r"|where\s+(?:is|was|are|were)\s+(?P<who2>.+?)['\u2019]s?\s+(?:home|house|residence|lodgings|rooms|abode)"
    r"|where\s+(?:is|was|are|were)\s+(?P<who3>.+?)\s+(?:living|staying|lodging)"
    r"|what\s+is\s+the\s+name\s+of\s+(?P<who4>.+?)['\u2019]s?\s+(?:home|house|estate)"
    r"|what\s+is\s+(?P<who5>.+?)['\u2019]s?\s+(?:home|house|address)\s+called"
    r"|what\s+is\s+(?P<who6>.+?)['\u2019]s?\s+address"
    r")(?:\s+(?:now|then|in\s+the\s+(?:book|novel|story)))?\W*$", re.I)
# The question's words of asking: "live" found "They live miles from any help" of anyone.
_ASKING = frozenset({"live", "lives", "dwell", "reside", "stay", "staying", "living", "lodge", "lodging", "home",
                     "house", "residence", "address", "called", "name"})

HOME = Telling(name="home", words=_WORDS, asks=_ASKS, in_a_passage=2, in_a_line=2, asking_words=_ASKING,
               first_leads=True)

_ORIGIN_WORDS = _WORDS | frozenset(
    "native natives born birthplace hometown countryman countrymen raised reared".split())
_ASKS_ORIGIN = re.compile(
    r"^\W*(?:where\s+(?:is|was|are|were)\s+(?P<who>.+?)\s+(?:from|born|raised|brought\s+up)"
    r"|where\s+(?:does|did|do)\s+(?P<who2>.+?)\s+(?:come|hail|originally\s+come)\s+from"
    r"|where\s+(?:does|did|do)\s+(?P<who3>.+?)\s+grow\s+up"
    r"|what\s+is\s+(?P<who4>.+?)['\u2019]s?\s+(?:hometown|birthplace|home\s+town|native\s+(?:town|country|land))"
    r")(?:\s+(?:originally|in\s+the\s+(?:book|novel|story)))?\W*$", re.I)
_ASKING_ORIGIN = frozenset({"from", "born", "come", "raised", "brought", "hail", "originally", "grow", "hometown",
                            "birthplace", "home", "town", "native", "country", "land"})

ORIGIN = Telling(name="origin", words=_ORIGIN_WORDS, asks=_ASKS_ORIGIN, in_a_passage=2, in_a_line=2,
                 asking_words=_ASKING_ORIGIN, first_leads=True)
