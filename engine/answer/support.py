"""Where in a cited passage the answer's claim stands. A passage runs to 400
tokens; a reader following a citation wants the sentence that backs what the
answer said, not the passage's first line. For each citation, the answer's
sentence that first cites it is the claim, and the passage's sentence most
like it (by the embedder, the claim's rarer words breaking ties) is its
support: the app highlights it within the passage, the history and the
terminal quote it.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from .digest import sentence_vectors, word_weight
from .planning import content_words, stem

# A citation as a resolved answer writes it: "[p3.2]" or "[p3.2, p5.1]".
CITATION_MARKER = re.compile(r"\[((?:p\d+\.\d+)(?:,\s*p\d+\.\d+)*)\]")
# An answer's sentences end at . ! ? (and any closing quote) or a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]*\s+|\n+")
_LEADING_MARKERS = re.compile(r"^(?:\s*\[(?:p\d+\.\d+)(?:,\s*p\d+\.\d+)*\][.,;:]?)+")
# A claim of fewer content words than this ("See [p1.2].") says too little to choose a sentence by.
_MIN_CLAIM_WORDS = 1
# The claim's words found in a sentence (their rarity-weighted share) against
# the embedder's likeness. Measured with tests/benchmarks/citation_support.py
# (the support sentence holds the gold evidence; dev set / GutenQA Emma):
# likeness alone 0.303 / 0.588, words alone 0.394 / 0.588, weight 1 0.378 / 0.647.
LEXICAL_WEIGHT = 1.0


def claims(answer: str) -> dict[str, str]:
    """Each cited passage id, with the answer's sentence that first cites it
    (citations taken out). A citation put after a sentence's full stop
    ("He leaves. [p1.2]") belongs to that sentence."""
    found: dict[str, str] = {}
    previous = ""
    for sentence in _SENTENCE_END.split(answer):
        leading = _LEADING_MARKERS.match(sentence)
        if leading and previous:
            for passage_id in _ids(leading.group()):
                found.setdefault(passage_id, previous)
            sentence = sentence[leading.end():]
        claim = " ".join(re.sub(r"\s*" + CITATION_MARKER.pattern, "", sentence).split())
        for passage_id in _ids(sentence):
            found.setdefault(passage_id, claim if len(content_words(claim)) >= _MIN_CLAIM_WORDS else previous)
        if len(content_words(claim)) >= _MIN_CLAIM_WORDS:
            previous = claim
    return found


def with_support(answer: str, citations: list, context, lexical_weight: float = LEXICAL_WEIGHT) -> list:
    """The citations, each with `support`: the span and text of its passage's
    sentence that best backs the claim citing it (None where there is no
    claim to go by, or the passage has no sentence of four words)."""
    claimed = claims(answer)
    book = context.book
    rarity = context.rarity
    sentences, owners, claim_of = [], [], {}
    for index, citation in enumerate(citations):
        claim = claimed.get(citation.passage_id)
        node = context.store.node(citation.passage_id)
        if not claim or node is None:
            continue
        node = replace(node, end=citation.end)  # as cited: up to a reader's position
        claim_of[index] = claim
        for start, end in context.sentences(node):
            text = " ".join(book.text[start:end].split())
            if end <= citation.end and len(text.split()) >= 4:
                sentences.append((node, start, end, text))
                owners.append(index)
    if not sentences:
        return citations
    if context.search.embedder is not None:
        vectors = sentence_vectors(sentences, context)
        similarity = np.array([float(vectors[row] @ context.search.query_vector(claim_of[owner]))
                               for row, owner in enumerate(owners)])
    else:
        similarity = np.zeros(len(sentences))
    # Each claim's words and their weights, once (a claim is weighed against every sentence of its passage).
    wanted = {owner: {stem(word): word_weight(word, rarity) for word in content_words(claim)}
              for owner, claim in claim_of.items()}
    best: dict[int, tuple[float, int]] = {}
    for row, owner in enumerate(owners):
        have = {stem(word) for word in content_words(sentences[row][3])}
        weights = wanted[owner]
        shared = sum(weight for word, weight in weights.items() if word in have) / (sum(weights.values()) or 1.0)
        score = similarity[row] + lexical_weight * shared
        if owner not in best or score > best[owner][0]:
            best[owner] = (score, row)
    supported = list(citations)
    for owner, (_, row) in best.items():
        _, start, end, text = sentences[row]
        supported[owner] = replace(citations[owner], support={"start": start, "end": end, "text": text})
    return supported


def marker_ids(marker: re.Match) -> list[str]:
    """The passage ids of one citation marker (a match of CITATION_MARKER)."""
    return [passage_id.strip() for passage_id in marker.group(1).split(",")]


def _ids(text: str) -> list[str]:
    return [passage_id for marker in CITATION_MARKER.finditer(text) for passage_id in marker_ids(marker)]
