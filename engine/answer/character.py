"""What someone is like: "What is Scrooge like?", "What kind of person is
Beth?", "Describe Lady Russell's character". The question's words find
lines that say "like" and "person" of anyone ("If there is any person in
the town, who feels emotion caused by this man's death"), and a novel
tells a character in words of its own, seldom "character": "a squeezing,
wrenching, grasping, scraping, clutching, covetous, old sinner", "Vanity
was the beginning and the end of Sir Walter Elliot's character", "Jo's
quick temper, sharp tongue, and restless spirit". So the passages where
words of temper and conduct gather near a name the question asks about
have slots of their own in retrieval, and the digest prefers a line that
holds several of them (nearby.py), as for looks."""

from __future__ import annotations

import re

from .nearby import Telling

# Words that tell what someone is like: temper, manners, morals, wits. Left out: words as often said of
# anything ("good", "kind", "quiet", "fine", "poor", "sharp"), and "heart", "nature", which stand in a
# hundred phrases that tell no one.
_WORDS = frozenset("""
    character characters disposition temper tempered temperament personality conduct manners principles
    vanity vain pride proud conceit conceited arrogant haughty insolent pompous self-important snobbish snob
    selfish selfishness unselfish generous generosity liberal miser miserly covetous greedy avaricious stingy
    tight-fisted grasping niggardly mercenary
    cruel cruelty brutal harsh hard-hearted cold-hearted heartless cold-blooded unfeeling callous spiteful
    malicious wicked evil villain villainous scoundrel rogue sinner treacherous deceitful designing scheming
    cunning sly crafty wily artful hypocrite hypocritical
    gentle gentleness meek mild timid shy bashful modest modesty humble diffident reserved retiring
    solitary secretive self-contained sullen surly sulky morose gloomy melancholy moody grumpy crusty
    irritable peevish fretful testy cross-grained quarrelsome hot-tempered quick-tempered ill-tempered
    bad-tempered sweet-tempered even-tempered good-tempered good-natured ill-natured good-humoured
    good-humored ill-humoured hasty fiery passionate impetuous impulsive rash reckless headstrong wilful
    willful obstinate stubborn self-willed capricious fickle flighty giddy frivolous restless
    cheerful merry jolly jovial genial amiable agreeable disagreeable affable sociable friendly
    affectionate loving tender-hearted kind-hearted warm-hearted benevolent charitable kindly
    honest honesty sincere truthful upright honourable honorable loyal faithful trustworthy
    brave courageous bold daring fearless gallant chivalrous coward cowardly
    clever shrewd intelligent sensible prudent imprudent wise foolish silly stupid dull witty
    industrious diligent lazy idle careless thoughtless thoughtful conscientious
    ambitious ambition romantic pious devout religious virtuous virtue vices noble dignified
    refined vulgar coarse rude polite courteous well-bred spoilt spoiled tomboy eccentric
    patient impatient resolute determined steady independent
""".split())
# The whole question asks what someone is like, and nothing more: "What is Scrooge like at the end?" asks
# about a scene and is searched as such.
_KIND_OF = r"(?:person|man|woman|girl|boy|child|character|fellow|lady|gentleman|horse|dog|creature|people)"
_TRAITS = r"(?:character|personality|nature|temperament|temper|disposition)"
_ASKS = re.compile(
    r"^\W*(?:what\s+(?:is|was|are|were)\s+(?P<who>.+?)\s+like(?:\s+as\s+a\s+(?:person|character))?"
    rf"|what\s+(?:kind|sort|type)\s+of\s+{_KIND_OF}\s+(?:is|was|are|were)\s+(?P<who2>.+?)"
    rf"|(?:describe|how\s+would\s+you\s+describe)\s+(?P<who3>.+?)['\u2019]s?\s+{_TRAITS}"
    rf"|what\s+(?:is|was)\s+(?P<who4>.+?)['\u2019]s?\s+{_TRAITS}(?:\s+like)?"
    r"|what\s+are\s+(?P<who5>.+?)['\u2019]s?\s+(?:character\s+)?(?:traits|qualities|virtues|faults|flaws)"
    rf"|what\s+{_TRAITS}\s+(?:does|did)\s+(?P<who6>.+?)\s+have"
    r")(?:\s+in\s+the\s+(?:book|novel|story))?\W*$", re.I)
# The question's words of asking: "like" found "looked like", "person" any person.
_ASKING = frozenset({"like", "kind", "sort", "type", "person", "man", "woman", "character", "personality",
                     "nature", "temperament", "temper", "disposition", "describe", "traits", "qualities",
                     "virtues", "faults", "flaws"})

CHARACTER = Telling(name="character", words=_WORDS, asks=_ASKS, in_a_passage=3, in_a_line=2,
                    asking_words=_ASKING, first_leads=True)
