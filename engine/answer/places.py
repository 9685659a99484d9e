"""The places a book names most: "Where is the story set?" asked of a book
with no cards (stage 1, or no capable model). The book's names as it writes
them inside sentences (cards.character_candidates) that are places: written
after "in", "at", "from" or "to" often (people.place_shares: Bath, Lyme,
London), or ending in a word like "Hall" or "Street" (Kellynch Hall, Baker
Street); the shorter or longer form of one already listed is left out."""

from __future__ import annotations

from ..index.cards import character_candidates
from .people import DAYS_AND_MONTHS, HONORIFIC_WORDS, NO_ONE, PLACE_WORDS, place_shares, within

PLACES_LISTED = 5
# A place is told by the words before it where it is named this often, and
# written after "in", "at", "from", "to"... in this share of its uses
# (Bath 69%, Birtwick 30%; Mrs Hudson 26%, Hotspur the horse 22%).
_FEWEST_USES = 5
_PLACE_SHARE = 0.3


def main_places(book, rarity, until: int | None = None, sections: list[int] | None = None,
                limit: int = PLACES_LISTED) -> list[str]:
    """Up to `limit` names of places, most named first; from the text before
    `until`, in the `sections` given."""
    places: list[str] = []
    text = book.text if until is None else book.text[:until]
    for name in character_candidates(book, limit=8 * limit, until=until, sections=sections):
        words = name.replace(".", "").split()
        if (any(word.lower() in DAYS_AND_MONTHS | NO_ONE | HONORIFIC_WORDS for word in words)
                or not all(rarity.is_name(word) or word.lower() in PLACE_WORDS for word in words)):
            continue  # a day, a people, someone ("Mrs. Hall"), words the book writes in lower case
        if len(words) == 1 and words[0].lower() in PLACE_WORDS:
            continue  # "the Hall", "the Castle": which one the book does not say here
        if any(within(name, kept) or within(kept, name) for kept in places):
            continue
        uses, after_a_place_word, after_to = place_shares(name, text)
        if words[-1].lower() in PLACE_WORDS or (uses >= _FEWEST_USES
                                                and after_a_place_word + after_to >= _PLACE_SHARE):
            places.append(name)
            if len(places) >= limit:
                break
    return places
