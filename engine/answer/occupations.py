"""What someone does for a living: "What is Stapleton's job?", "What is Dr
Mortimer's profession?", "What does Barrymore do?". The question's words
("job", "profession") are seldom the book's, which says it in passing
beside the name: "Mr. Stapleton, the naturalist", "Barrymore, Sir
Charles's butler". So the passages where words of callings stand near a
name the question asks about have slots of their own in retrieval, and the
digest prefers a line that holds one near the name (nearby.py)."""

from __future__ import annotations

import re

from .nearby import Telling

# Callings as novels name them: trades, professions, services, ranks of the services and of the church.
_WORDS = frozenset("""
    clerk clerks butler butlers naturalist doctor doctors surgeon physician lawyer attorney solicitor barrister
    clergyman curate vicar rector parson minister priest chaplain missionary captain admiral lieutenant colonel
    major sergeant soldier soldiers sailor sailors seaman officer officers navy army regiment merchant banker
    shopkeeper grocer baker butcher poulterer tailor farmer farrier groom grooms coachman cabman
    cabby driver porter servant servants maid housemaid housekeeper cook nurse governess teacher schoolmaster
    schoolmistress professor student scholar artist painter writer author journalist reporter editor detective
    inspector constable policeman magistrate judge squire keeper gardener gamekeeper shepherd miner engineer
    stationmaster signalman fireman blacksmith carpenter chemist apothecary trader dealer pawnbroker innkeeper
    landlord landlady publican waiter valet footman secretary agent steward trapper hunter prospector hermit
    tutor profession occupation trade employed employer employment apprentice apprenticed practice practitioner
""".split())
_ASKS = re.compile(
    r"^\W*(?:what\s+(?:is|was)\s+(?P<who>.+?)['\u2019]s?\s+(?:job|jobs|profession|occupation|trade|calling|work"
    r"|line\s+of\s+work|business)"
    r"|what\s+(?:is|was)\s+(?P<who2>.+?)\s+by\s+(?:profession|trade)"
    r"|what\s+(?:does|did)\s+(?P<who3>.+?)\s+do\s+for\s+(?:a\s+living|work|money)"
    r"|what\s+(?:job|profession|occupation|trade|work)\s+(?:does|did)\s+(?P<who4>.+?)\s+(?:have|do)"
    r"|how\s+(?:does|did)\s+(?P<who5>.+?)\s+(?:earn|make)\s+(?:a|his|her|their)\s+(?:living|money))"
    r"(?:\s+in\s+the\s+(?:book|novel|story))?\W*$", re.I)
_ASKING = frozenset({"job", "jobs", "profession", "occupation", "trade", "calling", "work", "living", "business",
                     "earn", "make", "money", "do", "does", "did"})

# "What does Barrymore do?": a name and nothing else ("What does Troilus try to persuade Cresida to do?" is
# something done).
_ASKS_BARE = re.compile(r"^\W*[Ww]hat\s+(?:does|did)\s+(?:(?:Mr|Mrs|Dr|Miss|Sir|Lady|Captain)\.?\s+)?"
                        r"[A-Z][\w'\u2019-]+(?:\s+[A-Z][\w'\u2019-]+)?\s+do\W*$")
_ASKS = re.compile(f"{_ASKS.pattern}|{_ASKS_BARE.pattern}", re.I)
OCCUPATION = Telling(name="occupation", words=_WORDS, asks=_ASKS, in_a_passage=1, in_a_line=1,
                     asking_words=_ASKING, first_leads=True)
