"""The lines that tell what happens in a chapter ("What happens in Stave
II?", the panel's starter question): a sentence from each fifth of the
chapter's evidence, the one holding most of the words that set the chapter
apart from the rest of the book ("Fezziwig", "release" in Stave II;
Dunning's log-likelihood ratio of the times each word is written there and
elsewhere, a topic signature). The sentence nearest the mean of the
chapter's vectors, as before, was typical of the book rather than of the
chapter: "Nobody ever stopped him in the street to say..." for Stave I, no
ghost, no nephew, no Marley. A line of dialogue counts half: the telling
says what happens, a speech mostly what someone thinks of it."""

from __future__ import annotations

import math
from collections import Counter

from .narrator import outside_dialogue
from .planning import STOPWORDS
from .vocabulary import WORD, folded

CHAPTER_LINES = 5
# Dunning's G-squared past which a word is more common in the chapter than chance allows (p < 0.001, one degree
# of freedom): "Scrooge", in nearly every passage, is not; "Fezziwig", in Stave II's only, is.
_SET_APART = 10.83
_DIALOGUE_SHARE = 0.5  # what a line wholly in quotation marks counts, against one wholly told


def distinctive_words(passages: list, rarity) -> dict[str, float]:
    """The words that set these passages apart from the rest of the book, each
    with its weight (the log of its log-likelihood ratio), counted as the
    book's vocabulary counts them (`Rarity.uses`)."""
    written: Counter = Counter()
    for passage in passages:
        written.update(folded(word) for word in WORD.findall(passage.text))
    inside = sum(written.values())
    outside = rarity.words_written - inside
    if inside == 0 or outside <= 0:
        return {}
    weights = {}
    for word, here in written.items():
        if word in STOPWORDS or len(word) < 3 or here < 2 or "'" in word or "\u2019" in word:
            # "an't", "i'll", "it's": the chapter's talk, not its matter ("Marley's": counted where written alone)
            continue
        elsewhere = max(0, rarity.uses.get(word, here) - here)
        if here / inside <= elsewhere / outside:
            continue
        ratio = _log_likelihood(here, inside - here) + _log_likelihood(elsewhere, outside - elsewhere) \
            - _log_likelihood(here + elsewhere, inside + outside - here - elsewhere)
        if 2 * ratio > _SET_APART:
            weights[word] = math.log(2 * ratio)
    return weights


def _log_likelihood(held: int, not_held: int) -> float:
    """log L of a binomial at its own rate, for G-squared: sum of k log(k / n) over both outcomes."""
    total = held + not_held
    return sum(count * math.log(count / total) for count in (held, not_held) if count)


def eventful_sentences(sentences: list[tuple], text: str, weights: dict[str, float],
                       lines: int = CHAPTER_LINES) -> list[tuple]:
    """Of `sentences` (passage, start, end) in book order, the one from each
    of `lines` equal shares that holds the most weight of `weights`' words
    (each word once), a line of dialogue at half its weight: in book order."""
    def weight(item: tuple) -> float:
        sentence = text[item[1]:item[2]]
        held = sum(weights.get(word, 0.0) for word in {folded(word) for word in WORD.findall(sentence)})
        told = sum(end - start for start, end in outside_dialogue(sentence)) / max(1, len(sentence))
        return held * (_DIALOGUE_SHARE + (1 - _DIALOGUE_SHARE) * told)

    shares = [sentences[len(sentences) * i // lines:len(sentences) * (i + 1) // lines] for i in range(lines)]
    return [max(share, key=weight) for share in shares if share]
