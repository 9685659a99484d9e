"""What kind of animal someone is: "What breed is Buck?", "What kind of
dog is Buck?", "What kind of horse is Black Beauty?". Its words find lines
that say "breed" or "dog" of any animal ("the strange dog, no matter what
the breed or valor"), and a book tells it where it brings the animal in,
in words of its own: "His father, Elmo, a huge St. Bernard... his mother,
Shep, had been a Scotch shepherd dog"; "Ginger and I were not of the
regular tall carriage horse breed, we had more of the racing blood in us".
So the passages where words of breed and parentage gather near the name
have slots of their own in retrieval, the first leading, and the digest
prefers a line holding two of them near the name (nearby.py)."""

from __future__ import annotations

import re

from .nearby import Telling

# Words of breed and parentage: the breeds and kinds of the animals novels tell of, and their sires and dams.
_WORDS = frozenset("""
    breed breeds bred blood blooded pedigree sire dam father mother grandfather grandmother cross crossed mongrel
    cur mixed races
    bernard shepherd collie terrier spaniel mastiff husky huskies wolf wolves wolfish newfoundland retriever
    setter pointer hound bulldog pug poodle greyhound deerhound bloodhound sheep-dog sheepdog
    thoroughbred thorough-bred arab arabian pony cob hunter carriage racing racer cart-horse draught dray
    mare stallion colt filly gelding foal shetland
""".split())
# ("creature" is as often a person: "What sort of creature is she?")
_ANIMALS = r"(?:dog|horse|pony|animal|cat|bird|hound|mare|cow)"
_ASKS = re.compile(
    rf"^\W*(?:what\s+(?:breed|kind|sort|type)\s+(?:of\s+{_ANIMALS}\s+)?(?:is|was)\s+(?P<who>.+?)"
    rf"|what\s+(?:is|was)\s+(?P<who2>.+?)['\u2019]s?\s+breed"
    rf"|what\s+breed\s+(?:of\s+{_ANIMALS}\s+)?(?:is|was)\s+(?P<who3>.+?)"
    rf"|(?:is|was)\s+(?P<who4>.+?)\s+a\s+(?:pure-?bred|thoroughbred|mongrel|cross-?bred)"
    rf")(?:\s+in\s+the\s+(?:book|novel|story))?\W*$", re.I)
# "What kind of person is Beth?" asks her character (character.py): here only an animal's kind, or a breed.
_AN_ANIMAL_ASKED = re.compile(rf"\bbreed\b|\b(?:kind|sort|type)\s+of\s+{_ANIMALS}\b|\bbred\b", re.I)
# The question's words of asking: "breed" found "no matter what the breed or valor" of any dog.
_ASKING = frozenset({"breed", "kind", "sort", "type", "dog", "horse", "pony", "animal", "cat", "bird", "hound", "mare",
                     "cow", "pure-bred", "purebred", "thoroughbred", "mongrel"})


class _Breed(Telling):
    def asked(self, question: str) -> bool:
        return super().asked(question) and _AN_ANIMAL_ASKED.search(question) is not None


BREED = _Breed(name="breed", words=_WORDS, asks=_ASKS, in_a_passage=2, in_a_line=2, asking_words=_ASKING,
               first_leads=True)
