#!/usr/bin/env python3
"""Whether the sense that leads an answer to "What does WORD mean?" is the
one the book uses the word in (definitions.py), for 44 words of our books.

    CHAPTERHOUSE_HOME=DIR python tests/benchmarks/word_senses.py [--misses]

For each word the book's uses are found and the dictionary's senses of the
part of speech the book uses it as are ranked four ways: in the
dictionary's order; by the embedder alone (the sentences of up to 12
uses, as stage 1 stored their vectors, against each sense); by the
embedder and the share of the sense's words the text round those uses
holds; and, what the engine does, by those for a word seldom
used today and in the dictionary's order for a common one. Printed: the
share of words whose first sense is the expected one, each way. The words
were picked as a reader of these books might stop at them, with some
common ones ("ape", "navy"); the first six were looked at while building
the feature, and the weight of shared words and where a word counts as
common were set on all 44.
Books are imported into the library at $CHAPTERHOUSE_HOME and indexed to
stage 1 where they are not already. Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from corpus_books import corpus_books  # noqa: E402  (beside this script)

# (book, word, a pattern the sense the book means must hold)
WORDS = [
    ("black-beauty", "gig", r"light carriage"), ("black-beauty", "hare", r"rodent"),
    ("the-hound-of-the-baskervilles", "moor", r"waste"), ("the-hound-of-the-baskervilles", "tor", r"hill"),
    ("a-christmas-carol", "humbug", r"imposition|deception"), ("persuasion", "countenance", r"face"),
    ("black-beauty", "bit", r"part of a bridle"), ("black-beauty", "crupper", r"tail"),
    ("black-beauty", "groom", r"charge of horses"), ("black-beauty", "stall", r"stable|animal|horse"),
    ("black-beauty", "harness", r"horse|draught"), ("black-beauty", "cab", r"carriage"),
    ("black-beauty", "saddle", r"seat"), ("black-beauty", "farrier", r"shoer|smith"),
    ("black-beauty", "coachman", r"drive"), ("black-beauty", "mare", r"female"),
    ("the-hound-of-the-baskervilles", "hound", r"dog"),
    ("the-hound-of-the-baskervilles", "convict", r"sentenced|guilty"),
    ("the-hound-of-the-baskervilles", "bog", r"wet|spongy|marsh|quagmire"),
    ("the-hound-of-the-baskervilles", "butler", r"servant|liquors|plate|household"),
    ("a-christmas-carol", "poulterer", r"poultry"), ("a-christmas-carol", "knocker", r"door"),
    ("a-christmas-carol", "clerk", r"office|employed|accounts"), ("a-christmas-carol", "grate", r"fire|fuel"),
    ("the-call-of-the-wild", "sled", r"runners|vehicle"), ("the-call-of-the-wild", "team", r"animals|horses|dogs"),
    ("the-call-of-the-wild", "club", r"staff|cudgel"), ("the-call-of-the-wild", "pack", r"hounds|dogs|wolves"),
    ("the-call-of-the-wild", "whip", r"instrument|driving|lash"),
    ("the-call-of-the-wild", "camp", r"tents|lodging|encampment|ground"),
    ("persuasion", "curricle", r"chaise|carriage"), ("persuasion", "consequence", r"[Ii]mportance|standing"),
    ("persuasion", "admiral", r"naval officer|fleet"), ("persuasion", "navy", r"ships|naval"),
    ("a-study-in-scarlet", "cab", r"carriage"), ("a-study-in-scarlet", "constable", r"peace|police"),
    ("a-study-in-scarlet", "ring", r"finger|ornament|wedding"),
    ("tarzan-of-the-apes", "cabin", r"hut|cottage|house"), ("tarzan-of-the-apes", "spear", r"weapon|lance"),
    ("tarzan-of-the-apes", "bull", r"male"), ("tarzan-of-the-apes", "ape", r"quadrumanous|monkey|tailless"),
    ("tarzan-of-the-apes", "jungle", r"growth|forest|brushwood|thicket"),
    ("the-sign-of-the-four", "launch", r"boat"), ("the-sign-of-the-four", "treasure", r"[Ww]ealth|riches|precious"),
]
WAYS = ("dictionary's order", "embedder alone", "embedder and shared words", "by how common the word is")


def main() -> int:
    from engine.answer import definitions
    from engine.answer.evaluate import Question, sessions_by_book
    from engine.store import Library

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="print the sense each way led with where it missed")
    args = parser.parse_args()
    books = corpus_books()
    if books is None:
        return 2
    questions = [Question(id=f"{word}|{expected}", book_path=books / f"{slug}.txt", question=f"What is a {word}?")
                 for slug, word, expected in WORDS]
    weight, common = definitions._SHARED_WORDS_WEIGHT, definitions._COMMON
    hits = {way: 0 for way in WAYS}
    missed = []
    for path, _indexer, session, book_questions in sessions_by_book(
            questions, Library(), progress=lambda line: print(line, file=sys.stderr)):
        context = session.context
        for question in book_questions:
            word, expected = question.id.split("|", 1)
            led = {}
            for way in WAYS:
                definitions._SHARED_WORDS_WEIGHT = weight if way in WAYS[2:] else 0.0
                definitions._COMMON = common if way == WAYS[3] else float("inf")
                embed = context.search.embedder.embed if way != WAYS[0] else None
                found = definitions.defined(question.question, context.book, context.rarity.is_name, embed=embed,
                                            stored_vector=context.sentence_vector_at)
                first = re.search(r"^1\. \([^)]*\) (.*)$", found[1], re.M) if found else None
                led[way] = first.group(1) if first else ""
                hits[way] += bool(re.search(expected, led[way]))
            if not re.search(expected, led[WAYS[-1]]):
                missed.append((path.stem, word, led))
    definitions._SHARED_WORDS_WEIGHT, definitions._COMMON = weight, common
    print(f"{'the right sense leads':<30}{'words':>8}")
    for way in WAYS:
        print(f"{way:<30}{hits[way]:>4} / {len(WORDS)}  ({hits[way] / len(WORDS):.0%})")
    if args.misses:
        for book, word, led in missed:
            print(f"\nMISSED {word} ({book})")
            for way, sense in led.items():
                print(f"  {way}: {sense[:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
