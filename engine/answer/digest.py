"""The evidence digest: for each part of the question, the one to three
sentences of its retrieved passages that best match it, in book order, each
with its citation. No generator call: it is always faithful (the sentences
are the book's own) and takes milliseconds where stage 1 stored the
sentences' vectors, so it is shown first.

Sentences are first shortlisted by the words they share with the part (and
its anchors), each word weighted by how rare it is in the book ("knocker"
counts for more than "Scrooge" in A Christmas Carol), then ranked by the
embedder, with those words, the anchors and how early retrieval picked the
sentence's passage added in, and whether it holds the kind of answer the
question's wording expects (a name for "Who...?", see expected.py). Lines
come from different sections where the ranking allows: a cross-chapter
answer rests on several. A line of dialogue that says only who spoke ("No,
no," said Scrooge.) is never quoted (see `bare_exchange`). A question that
quotes the book gets the lines holding its quotation; one asking who said a
line, the speech from where its paragraph names the speaker; one about the
book itself (bookfacts.py), its title page, its chapters' headings, or the
lines where a counted name is first used.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np

from .bookfacts import BOOK_RECORD, CONTENTS, COUNT, DEFINITION, LENGTH, NAMES_WRITTEN, TITLE_PAGE_LABEL, \
    title_page_span
from .chapter_lines import CHAPTER_LINES, distinctive_words, eventful_sentences
from .changes import CHANGE, FIRST_TOLD, change_asked, says_what_they_were, where_they_are_left
from .deaths import DEATH, KILLING, death_asked, death_tellings, killer_asked, sentence_holding, victims_asked
from .described import DESCRIPTION, describes, introduces_themself
from .expected import AGE, NAME, NUMBER, RELATION, TELLING_KINDS, asked_kin, expected_answer, holds_answer
from .letters import LETTERS, letter_openings
from .looks import LOOKS, looked_at
from .marriages import MARRIAGE, marriage_asked, names_a_marriage_to_be, tells_a_marriage
from .meetings import MEETING, meeting_asked, names_both, names_the_one_met, narrator_first, told_not_said
from .nearby import names_asked, near_names, other_names_written, tells_near
from .narrator import PARAGRAPH_BREAK, SPEECH_VERBS, outside_dialogue, says_i
from .overview import FIRST_PERSON, NAMED_TELLER, PEOPLE, PLACES, RECENT, TELLER, THIRD_PERSON, asks_one_sentence
from .planning import QUOTED, about_one_scene, content_words, stem
from .recurring import RECURRING, recurring_thing
from .relationships import RELATIONSHIP, relationship_asked, tells_the_tie, tie_beside
from .retrieval import (BEFORE_A_NAME, INTRODUCTION, LAST_MENTION, Retrieval, asked_who, cut_at, fate_asked,
                        fate_of_several, introduced, last_mentioned, searched_sections)
from .selection import part_heading
from .told_deaths import tells_a_killing_by, tells_another_dead
from .vocabulary import as_written, by_surname

# The marks of passages retrieval gave a slot whose line the digest quotes, whatever words it shares.
_QUOTED_FROM = {MARRIAGE, CHANGE, FIRST_TOLD, DEATH, KILLING, LAST_MENTION, MEETING, RECURRING, RELATIONSHIP}
# Sentences the embedder ranks for each part. Measured on the development set
# (12 passages; share of required sections quoted / of evidence sentences
# quoted): 16 by plain word overlap 0.487 / 0.080, 48 by rarity-weighted
# overlap 0.528 / 0.097, for about half as much embedding time again.
_SHORTLIST = 48
_MAX_LINES = 3
# A line saying who someone is in this many words or fewer says little ("Lestrade is a well-known detective."):
# the sentence after it is quoted too.
_SHORT_DESCRIPTION_WORDS = 8
# A line saying who someone is and nothing else: their name, then "is" or "was" ("Harriet Smith was the natural
# daughter of somebody.").
_SAYS_WHO = re.compile(r"(?:(?-i:[A-Z])[\w.'\u2019-]*\s+){1,4}(?:is|was)\b")
# A line scoring under this share of the part's best is left out. Measured on
# the development set (12 passages): 0.85 quoted 37% of the required sections
# in 2.9 lines a question, 0.7 quotes 47% in 3.8.
_CUTOFF = 0.7
# A line's score: the embedder's similarity, plus its rarity-weighted word
# overlap and the place its passage was picked in (the fused ranking of
# several lists knows better than one sentence's similarity which passages
# hold the answer). Measured on the development set (12 passages; required
# sections quoted / gold quotes quoted / GutenQA Emma evidence quoted): the
# overlap at 0.005 and no pick order 0.544 / 0.065 / 0.233; these 0.571 /
# 0.074 / 0.267, in fewer lines. A pick order of 0.15 quotes more required
# sections (0.578), but a first passage's weak line then often stands over a
# later passage's answer.
_OVERLAP_WEIGHT = 0.02
_PICK_ORDER_WEIGHT = 0.08
_PICK_ORDER_DECAY = 0.3
# A line holding the kind of answer the question expects (a name for
# "Who...?", see expected.py): added to its word overlap, so that it is
# shortlisted, and to its score. Measured on LiteraryQA's questions on our
# books (share of a reference answer's words the digest holds): 0.144
# without; 0.198 with these (0.18 at 1 and 0.05; no more at 3 and 0.1),
# with lines of four development questions changed, one of them quoting a
# required section less (required sections quoted 0.589 -> 0.587), and
# GutenQA Emma's evidence quoted as before.
_ANSWER_OVERLAP = 3.0
_ANSWER_WEIGHT = 0.05
# An age as novels tell it ("at nineteen", "of seven-and-twenty") is rarer
# and surer than any number: the line holding one by the name asked about
# is the answer, though a long sentence is little like the question.
# LiteraryQA answer recall (its four how-old questions): 0.203 at 0.05 and
# 0.1, 0.207 at 0.2, 0.211 at 0.3. A name beside the word of kin asked
# ("my brother Mycroft") is as sure.
_ANSWER_WEIGHTS = {AGE: 0.3, RELATION: 0.3}
# A line telling what a question asks of someone (their looks; nearby.py): this much for each
# word of the kind it holds, up to five, and this much more in a passage retrieval found telling it.
_TELLING_WORD_WEIGHT, _TELLING_WORDS_COUNTED, _TELLING_PASSAGE_WEIGHT = 0.1, 5, 0.2
_FIRST_TELLING_WEIGHT = 0.1
# A how-often question's uses quoted each where there are no more than this; else its first, middle and last.
_USES_QUOTED = 6
# "Who is Kemp?": what a line saying who someone is adds to its score (described.py).
_DESCRIBING_WEIGHT = 0.1
# Before a line where someone tells their name: how far back their description is looked for, and the words
# of looks it holds at least.
_LOOKS_REACH, _LOOKS_IN_A_LINE = 2500, 3


@dataclass
class DigestLine:
    part: int  # index of the plan part
    text: str  # the sentence, verbatim from the book
    passage_id: str
    section: int | None
    label: str
    start: int
    end: int
    score: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def evidence_digest(retrieval: Retrieval, context) -> list[DigestLine]:
    if retrieval.overview:
        return _outline_digest(retrieval, context)
    book = context.book
    embedder = context.search.embedder
    lines: list[DigestLine] = []
    # One query for every passage's stored sentences, not one per passage below.
    context.sentence_vectors([passage for evidence in retrieval.parts for passage in evidence.passages])
    pick_order = {passage_id: _PICK_ORDER_WEIGHT / (1 + _PICK_ORDER_DECAY * place)
                  for place, passage_id in enumerate(retrieval.order)}
    for index, evidence in enumerate(retrieval.parts):
        part = evidence.part
        # "What does Stapleton look like?": whom, and not its words of asking ("Stapleton looked at me").
        expected = expected_answer(part.text)
        telling = TELLING_KINDS.get(expected)
        told_of = names_asked(part.text, context) if telling else []
        told_of += other_names_written(told_of, context)  # "Margaret" for "Meg"
        wanted: dict[str, float] = {}
        for word in content_words(" ".join([part.text, *part.anchors, *part.names])):
            if told_of and word.lower() in telling.asking_words:
                continue
            key = _word_key(word, context.rarity)
            wanted[key] = max(wanted.get(key, 0.0), word_weight(word, context.rarity))
        anchors = [a.lower() for a in part.anchors]
        # "Who is Ishmael?": someone asked about and nothing else ("When does Mrs Clay last appear?" too).
        asked_about = introduced(part.text, context.writes_as_name) or last_mentioned(part.text,
                                                                                      context.writes_as_name)
        brought_in_as = _brought_in_as(asked_about, evidence)
        # Whose death or wedding is asked: "Kerchak was dead." is three words, and the line.
        dead = death_asked(part.text, context.writes_as_name) or fate_asked(part.text, context.writes_as_name)
        wed = marriage_asked(part.text, context.writes_as_name)
        naming = _names(asked_about, brought_in_as) if asked_about else None
        short_naming = naming or (_names(dead or wed) if dead or wed else None)
        candidates = []
        quotes = _quotes(part.text)
        seen: set[tuple[int, int]] = set()
        # A sentence the book repeats (a refrain, a letter read twice) is
        # quoted once, where it first comes: the same line twice is noise.
        quoted_texts: set[str] = set()
        for passage in evidence.passages:
            for start, end in context.sentences(passage):
                # Past a passage's end only where it was cut at a reader's position.
                if (start, end) in seen or end > passage.end:
                    continue
                seen.add((start, end))
                sentence = " ".join(book.text[start:end].split())
                # A line under four words says little, unless it names the one
                # asked about: "Call me Ishmael."
                length = len(sentence.split())
                # A line holding words the question quotes is kept however bare: '"Are there no prisons?" asked
                # Scrooge.' for "Who said 'Are there no prisons?'".
                holds_quote = any(quote in _plain(sentence) for quote in quotes)
                if sentence in quoted_texts or not holds_quote and (
                        length < 3 or (length == 3 and not (short_naming and short_naming.search(sentence)))):
                    continue
                sentence_words = content_words(sentence)
                if _says_only_who_spoke(sentence_words) and not holds_quote:
                    continue
                quoted_texts.add(sentence)
                have = {_word_key(w, context.rarity) for w in sentence_words}
                overlap = sum(wanted[common] for common in have if common in wanted)
                anchored = sum(1 for a in anchors if a in sentence.lower())
                candidates.append((overlap + 2 * anchored, anchored, start, end, sentence, passage))
        candidates = _naming_the_one_asked_about(candidates, asked_about, brought_in_as)
        # "Who persuaded Anne...?" wants a line with a name in it; "Who is Ishmael?" a line about him.
        kind = None if asked_about else expected
        describing = describes(asked_about, brought_in_as) \
            if asked_about and asked_who(part.text, context.writes_as_name) else None
        kind = None if kind in TELLING_KINDS and not told_of else kind  # "Describe the plot": no one's looks
        answering: set[tuple[int, int]] = set()  # spans of the sentences holding such an answer
        answer_weights: dict[tuple[int, int], float] = {}  # what each of those adds to its line's score
        if kind in TELLING_KINDS:  # words of the kind near whom it asks about, not another's face nearby
            stretches = near_names(context, told_of)
            answering = {(item[2], item[3]) for item in candidates
                         if tells_near(telling, item[4], item[2], item[3], stretches)}
            # The fuller first ("a blonde young lady, small, dainty, well gloved, and dressed in the most
            # perfect taste", not "sat down, and her face grew white"), and first in the passages retrieval
            # found telling it: near Jo, who is everywhere, is everywhere.
            telling_passages = [passage for passage in evidence.passages
                                if telling.name in evidence.sources.get(passage.id, [])]
            first = min(telling_passages, key=lambda passage: passage.start).id if telling_passages and \
                telling.first_leads else None
            answer_weights = {(item[2], item[3]): _TELLING_WORD_WEIGHT * min(telling.count(item[4]),
                                                                              _TELLING_WORDS_COUNTED)
                              + _TELLING_PASSAGE_WEIGHT * (telling.name in evidence.sources.get(item[5].id, []))
                              + _FIRST_TELLING_WEIGHT * (item[5].id == first)
                              for item in candidates if (item[2], item[3]) in answering}
        elif kind:
            asked, kin = set(wanted), asked_kin(part.text)  # once a part, not once a line

            def holding(kind_held: str) -> set[tuple[int, int]]:
                return {(item[2], item[3]) for item in candidates
                        if holds_answer(kind_held, item[4], asked, context.rarity,
                                        lambda word: _word_key(word, context.rarity), kin)}
            answering = holding(kind)
            if not answering and kind == RELATION:  # no one named beside the word of kin: any line naming someone
                kind = NAME
                answering = holding(kind)
            answer_weights = dict.fromkeys(answering, _ANSWER_WEIGHTS.get(kind, _ANSWER_WEIGHT))
        elif describing is not None:  # "Who is Kemp?": the lines saying what he is
            answering = {(item[2], item[3]) for item in candidates if describing(item[4])}
            answer_weights = dict.fromkeys(answering, _DESCRIBING_WEIGHT)
        if answering:
            candidates = [(item[0] + _ANSWER_OVERLAP * ((item[2], item[3]) in answering),) + item[1:]
                          for item in candidates]
        if not candidates:
            continue
        candidates.sort(key=lambda item: (-item[0], item[2]))
        shortlist = candidates[:_SHORTLIST]
        if retrieval.named:  # the chapters the question named get their best few a chance too
            shortlist += [item for item in candidates[_SHORTLIST:] if item[5].section in retrieval.named][:8]
        # The passages telling whom someone married, or how the book first tells of someone and leaves them
        # changed: their lines may share no word with the question ("...to accept me as a husband", "He became
        # as good a friend"), and one of them is quoted below.
        quoted_from = [passage for passage in evidence.passages
                       if _QUOTED_FROM.intersection(evidence.sources.get(passage.id, []))]
        shortlist += [item for item in candidates[_SHORTLIST:]
                      if any(_within(item, passage) for passage in quoted_from)]
        if embedder is not None:
            sentences = [(passage, start, end, sentence) for _, _, start, end, sentence, passage in shortlist]
            similarity = sentence_vectors(sentences, context) @ context.search.query_vector(part.text)
        else:
            similarity = np.zeros(len(shortlist))
        scored = sorted(
            ((float(sim) + 0.05 * item[1] + _OVERLAP_WEIGHT * item[0] + pick_order.get(item[5].id, 0.0)
              + answer_weights.get((item[2], item[3]), 0.0), item)
             for sim, item in zip(similarity, shortlist)),
            key=lambda pair: -pair[0])
        # What someone looks like is told where the book tells it, not once a chapter; a scene, where it is.
        scene = expected is None and about_one_scene(retrieval.plan) and not (retrieval.named or retrieval.within)
        chosen = _choose([pair for pair in scored if pair[0] >= scored[0][0] * _CUTOFF],
                         several_passages=len(evidence.passages) > 1,
                         by_section=kind not in TELLING_KINDS and not scene)
        chosen = _with_a_named_section(chosen, scored, retrieval.named)
        chosen = _with_the_introduction(chosen, scored, evidence, brought_in_as or asked_about)
        if describing is not None:
            chosen = _with_a_description(chosen, scored, evidence, answering)
            chosen = _with_what_follows_a_short_description(chosen, context, answering, evidence)
            chosen = _with_the_looks_before(chosen, context, introduces_themself(asked_about, brought_in_as))
        elif kind == LOOKS.name and (looked := looked_at(part.text)):
            chosen = _with_the_looks_before(chosen, context, introduces_themself(looked), evidence)
        if expected in (NAME, NUMBER, AGE, RELATION):
            own = {word.lower() for word in content_words(part.text)}
            rare = {_word_key(word, context.rarity) for word in retrieval.plan.rare_words
                    if word in own or len(retrieval.parts) == 1}
            chosen = _with_a_rare_word(chosen, scored, rare, context.rarity)
        if asked_about:
            chosen = _with_a_line_from(chosen, scored, evidence, LAST_MENTION, [_names(asked_about).search],
                                       last=True)
        several = fate_of_several(part.text, context.writes_as_name)
        if several:  # the last line naming one of them: "They saw Charles turn and make one step to run back..."
            naming_one = [as_written(name) for name in several]
            chosen = _with_a_line_from(chosen, scored, evidence, LAST_MENTION, [
                lambda sentence: any(named.search(sentence) for named in naming_one)], last=True)
        met = meeting_asked(part.text, context.writes_as_name)
        if met:
            met, told_by_one = narrator_first(context, met)
            # Told by one of them: the telling's line naming the other ("Miss Morstan entered the room").
            chosen = _with_a_line_from(chosen, scored, evidence, MEETING, [
                lambda sentence: names_both(sentence, met),
                lambda sentence: told_by_one and introduces_themself(met[1]).search(sentence) is not None,
                lambda sentence: told_by_one and told_not_said(sentence) and names_the_one_met(sentence, met),
                lambda sentence: names_the_one_met(sentence, met)])
        if dead:
            # By the name's last word where retrieval found the passage so ("the man Hope").
            asks_killer = killer_asked(part.text)
            chosen = _with_a_line_from(chosen, scored, evidence, DEATH, [
                *death_tellings(dead, context.names_a_person, asks_killer),
                *death_tellings(by_surname(dead), context.names_a_person, asks_killer)], last=True)
        killer = victims_asked(part.text, context.writes_as_name)
        if killer:
            chosen = _with_lines_from(chosen, scored, evidence, KILLING, [
                lambda sentence: tells_a_killing_by(sentence, killer),
                lambda sentence: tells_another_dead(sentence, killer, context.names_a_person)])
        if wed:
            chosen = _with_a_line_from(chosen, scored, evidence, MARRIAGE, [
                lambda sentence: tells_a_marriage(sentence, wed, context.names_a_person),
                lambda sentence: names_a_marriage_to_be(sentence, wed, context.names_a_person),
                lambda sentence: as_written(wed).search(sentence) is not None], last=True)
        related = relationship_asked(part.text, context.writes_as_name)
        if related:  # "The lady who has passed here as Miss Stapleton is in reality his wife."
            chosen = _with_lines_from(chosen, scored, evidence, RELATIONSHIP, [
                lambda sentence: tells_the_tie(sentence, related) and any(tie_beside(sentence, name)
                                                                          for name in related),
                lambda sentence: tells_the_tie(sentence, related),
                lambda sentence: tells_the_tie(sentence, related, both=False)])
        thing = recurring_thing(part.text, context.rarity)
        if thing:  # "It's a wonderful knocker!"
            chosen = _with_a_line_from(chosen, scored, evidence, RECURRING, [as_written(thing).search], last=True)
            chosen = _naming_the_thing(chosen, scored, as_written(thing))
        changed = change_asked(part.text, context.writes_as_name)
        if changed:
            left = where_they_are_left(context, changed, retrieval.until,
                                       searched_sections(context, retrieval.until, retrieval.within))
            chosen = _with_the_change(chosen, scored, evidence, changed, left[1:] if left else None)
        # "Who says this?" about a selection: the plan's part is the selection, the question asks who spoke.
        who_said = _WHO_SAID.match(part.text) is not None or _WHO_SAID.match(retrieval.plan.question) is not None
        if kind == LETTERS.name:
            chosen = _with_the_letter(chosen, evidence, retrieval.order, context)
        elif scene and not (asked_about or several or met or dead or changed or related or thing or who_said
                            or quotes or retrieval.focus):
            chosen = _with_what_follows(chosen, context)
        if retrieval.focus is not None and (len(retrieval.parts) == 1 or "(about \u201c" in part.text):
            # The part about a selection: its own line, then what else tells of it (the quotation is the
            # selection, which only that line holds: "Why does he say this?" had quoted nothing more); who
            # says it, its own line alone.
            others = [] if who_said else chosen + [pair for pair in scored if pair not in chosen]
            chosen = _with_the_selection(others, evidence, retrieval.focus, context) or chosen
        else:
            chosen = _holding_what_it_quotes(chosen, scored, part.text)
        for score, (_, _, start, end, _, passage) in sorted(chosen, key=lambda pair: pair[1][2]):
            start = _from_who_spoke(book, start, end) if who_said else start
            lines.append(_line(book, index, passage, start, end, round(score, 4)))
    return lines


def _line(book, part: int, passage, start: int, end: int, score: float = 0.0) -> DigestLine:
    """A digest line: the book's sentence at start-end, its spaces made one, cited by its passage."""
    section = book.sections[passage.section - 1] if passage.section else None
    return DigestLine(part=part, text=" ".join(book.text[start:end].split()), passage_id=passage.id,
                      section=passage.section, label=section.cited_name if section else "", start=start, end=end,
                      score=score)


def _from_who_spoke(book, start: int, end: int) -> int:
    """Where a quoted line of a speech begins to say who speaks it: for
    "Who said 'there's more of gravy than of grave about you'?", the line
    (the speech's last sentence) from its paragraph's start, '"Because,"
    said Scrooge, "a little thing affects them. ...'. As it is where the
    line names a speaker itself or its paragraph does not before it."""
    if _SPEAKING.search(book.text, start, end):
        return start
    starts = [paragraph.start for paragraph in book.paragraphs]
    paragraph = book.paragraphs[bisect_right(starts, start) - 1] if starts and starts[0] <= start else None
    if paragraph is None or start - paragraph.start > _SPEECH_REACH or \
            not _SPEAKING.search(book.text, paragraph.start, start):
        return start
    return paragraph.start


# "Who said...?", "Who says...?", "Who cried...?": a speaker asked for.
_WHO_SAID = re.compile(r"^\W*(?:who\s+(?:said|says|say|cried|cries|exclaimed|exclaims|asked|asks|shouted|shouts|"
                       r"whispered|whispers|replied|replies|spoke|speaks|tells|told)"
                       r"|who(?:\s+is|['\u2019]s)\s+(?:speaking|talking|the\s+speaker)"
                       r"|whose\s+(?:words|line|speech))\b", re.I)
# How far back in its paragraph a line may be taken to reach the words naming its speaker.
_SPEECH_REACH = 600


def _holding_what_it_quotes(chosen: list, scored: list, question: str) -> list:
    """For a question that quotes the book ("Where does Scrooge say 'I am
    as light as a feather'?"), the lines that hold the words it quotes and
    no others: the lines beside it that share its other words are noise."""
    quotes = _quotes(question)
    holding = [pair for pair in scored if any(quote in _plain(pair[1][4]) for quote in quotes)]
    return holding[:_MAX_LINES] or chosen


def _quotes(question: str) -> list[str]:
    """The words a question quotes, two at least, as `_plain` writes them."""
    quotes = [_plain(first or second) for first, second in QUOTED.findall(question)]
    return [quote for quote in quotes if quote.strip().count(" ") >= 1]


def _with_the_selection(ranked: list, evidence, focus: tuple[int, int] | None, context) -> list:
    """For a question about a passage the reader selected, its own line
    (however short: '"Are there no prisons?" asked Scrooge.') and the best
    of the `ranked` lines, but none holding the same words: "Who is
    speaking?" about it had quoted the Spirit throwing the words back at him
    in Stave III."""
    start, end = focus[0], max(focus[1], focus[0] + 1)
    holding = next((passage for passage in evidence.passages if passage.start <= start < passage.end), None)
    span = next(((first, last) for first, last in context.sentences(holding) if first < end and last > start),
                None) if holding is not None else None
    if span is None:
        return ranked[:_MAX_LINES]
    text = context.book.text
    own = (0.0, 0, span[0], span[1], " ".join(text[span[0]:span[1]].split()), holding)
    selected = _plain(text[start:end])
    others = [pair for pair in ranked if (pair[1][2], pair[1][3]) != span and selected not in _plain(pair[1][4])]
    return [(max([pair[0] for pair in ranked], default=0.0), own)] + others[:_MAX_LINES - 1]


def _plain(text: str) -> str:
    """Its words in lower case with plain apostrophes, one space between, framed by spaces: how a
    quotation is matched to the book's text ("God bless us every one" in "God bless Us, Every One!")."""
    return " " + " ".join(re.findall(r"\w+(?:'\w+)*", text.replace("\u2019", "'").lower())) + " "


def _with_a_named_section(chosen: list, scored: list, named: list[int] | None) -> list:
    """The lines, one of them from a chapter the question named beside its
    subject ("the storm in Stave 3") when none is: half the evidence comes
    from there, and the reader asked about it. Its best line takes the
    weakest one's place."""
    if not named or any(pair[1][5].section in named for pair in chosen):
        return chosen
    best = next((pair for pair in scored if pair[1][5].section in named), None)
    if best is None:
        return chosen
    return (chosen if len(chosen) < _MAX_LINES else chosen[:-1]) + [best]


def _naming_the_one_asked_about(candidates: list, name: str | None, also: str | None = None) -> list:
    """For "Who is Belle?" (`name`: whom a who-is question asks about), the
    sentences that name her, where there are any: the word index's stems
    take her for a bell, and the lines about the church's bell said nothing
    of her."""
    if name is None:
        return candidates
    named = _names(name, also)
    return [item for item in candidates if named.search(item[4])] or candidates


def _names(name: str, also: str | None = None) -> re.Pattern:
    """A sentence that names someone by the last word of their name, in any case ("MARLEY was dead"), or
    by the name the book brings them in by (`also`: "Tarzan" for "Tarzan of the Apes")."""
    words_of = [name.split()[-1]] + ([also] if also else [])
    return re.compile(rf"\b(?:{'|'.join(re.escape(word) for word in words_of)})\b", re.I)


def _brought_in_as(name: str | None, evidence) -> str | None:
    """For "Rupert of Hentzau", "Tarzan of the Apes": the first word of the
    name, where the passage that first names them (retrieval's
    introduction) names them so ("young Rupert", "little Tarzan"); else None."""
    head = name.partition(" of ")[0] if name else ""
    first = next((passage for passage in evidence.passages if INTRODUCTION in evidence.sources.get(passage.id, [])),
                 None)
    if not head or head == name or " " in head or first is None or as_written(name).search(first.text):
        return None
    return head


def _with_the_introduction(chosen: list, scored: list, evidence, name: str | None) -> list:
    """The lines, with one from the passage that first names someone the
    question asks about (`name`: "Who is Marley?"), where a novel says who
    they are: its first sentence about them ("Marley was dead: to begin
    with."), else its best line that names them, in place of the weakest."""
    first = next((node_id for node_id, sources in evidence.sources.items() if INTRODUCTION in sources), None)
    if first is None or name is None:
        return chosen
    named = _names(name)
    naming = [pair for pair in scored if pair[1][5].id == first and named.search(pair[1][4])]
    about = re.compile(rf"^\W*(?:(?:{'|'.join(BEFORE_A_NAME)})\s+)?{as_written(name).pattern}", re.I)
    line = min((pair for pair in naming if about.match(pair[1][4])), key=lambda pair: pair[1][2], default=None)
    # Else its best line naming them, not a heading or an inscription in capitals ("ELLIOT OF KELLYNCH HALL.").
    line = line or next((pair for pair in naming if not pair[1][4].isupper()), None) or next(iter(naming), None)
    if line is None or line in chosen:
        return chosen
    others = [pair for pair in chosen if pair[1][5].id != first]  # the passage's other lines give way to it
    return (others if len(others) < _MAX_LINES else others[:-1]) + [line]


def _with_a_description(chosen: list, scored: list, evidence, described: set[tuple[int, int]]) -> list:
    """For "Who is Kala?", the lines with the first saying who she is ("Kala
    was the youngest mate of a male called Tublat", described.py), from the
    passage retrieval gave a slot for it, in place of the weakest line but
    the introduction's."""
    marked = next((node_id for node_id, sources in evidence.sources.items() if DESCRIPTION in sources), None)
    line = min((pair for pair in scored if pair[1][5].id == marked and pair[1][2:4] in described),
               key=lambda pair: pair[1][2], default=None)
    if line is None or any(pair[1][5].id == marked and pair[1][2:4] in described for pair in chosen):
        return chosen
    introduction = {node_id for node_id, sources in evidence.sources.items() if INTRODUCTION in sources}
    return _in_place_of_the_weakest(chosen, line, kept=lambda pair: pair[1][5].id in introduction)


def _with_what_follows_a_short_description(chosen: list, context, described: set[tuple[int, int]],
                                           evidence) -> list:
    """For "Who is Lestrade?", where the line saying who he is says it in a
    few words, of him ("Lestrade is a well-known detective."), the lines
    with the sentence after it in its paragraph ("He got himself into a fog
    recently over a forgery case..."), in place of the weakest line but the
    description and the introduction's. Not after a line that tells more
    than who he is ("Sapt, the disrespectful old dog, kicked him
    sharply."): what follows is of another."""
    short = min((pair for pair in chosen if pair[1][2:4] in described and _SAYS_WHO.match(pair[1][4])
                 and len(pair[1][4].split()) <= _SHORT_DESCRIPTION_WORDS), key=lambda pair: pair[1][2], default=None)
    if short is None:
        return chosen
    passage, text = short[1][5], context.book.text
    after = next(((start, end) for start, end in context.sentences(passage)
                  if start >= short[1][3] and end <= passage.end), None)
    if after is None or any(pair[1][2] == after[0] for pair in chosen) or \
            PARAGRAPH_BREAK.search(text, short[1][3], after[0]) or text[after[0]] in "\"\u201c\u2018'":
        return chosen
    sentence = " ".join(text[after[0]:after[1]].split())
    line = (short[0] - 1e-4, (0.0, 0, after[0], after[1], sentence, passage))
    introduction = {node_id for node_id, sources in evidence.sources.items() if INTRODUCTION in sources}
    return _in_place_of_the_weakest(chosen, line, kept=lambda pair: pair is short or pair[1][5].id in introduction)


def _in_place_of_the_weakest(chosen: list, line, kept=lambda pair: False) -> list:
    """The lines with `line` added; where there are as many as shown
    already, in place of the weakest that `kept` does not keep (none
    replaced where it keeps them all)."""
    if len(chosen) < _MAX_LINES:
        return chosen + [line]
    weakest = min((pair for pair in chosen if not kept(pair)), key=lambda pair: pair[0], default=None)
    return chosen if weakest is None else [pair for pair in chosen if pair is not weakest] + [line]


def _with_the_looks_before(chosen: list, context, introducing: re.Pattern, evidence=None) -> list:
    """For "Who is Merrylegs?", where a line quoted has him tell his name
    ("My name is Merrylegs"), the lines with the sentence before it, in its
    chapter, that holds most words of looks: he had just been described
    ("a little fat gray pony, with a thick mane and tail"), with no name
    yet. In place of the weakest line but the one naming him. Given the
    `evidence` ("Describe the Ghost of Christmas Past"), where any of its
    passages has him tell his name."""
    book = context.book
    own = next((pair for pair in sorted(chosen, key=lambda pair: pair[1][2]) if introducing.search(pair[1][4])), None)
    start = own[1][2] if own is not None else None
    if start is None and evidence is not None:
        start = min((begin for passage in evidence.passages for begin, end in context.sentences(passage)
                     if end <= passage.end and introducing.search(book.text, begin, end)), default=None)
    if start is None:
        return chosen
    section = book.section_at(start)
    reach = max(start - _LOOKS_REACH, section.body_start if section else 0)
    before, seen = [], set()  # (words of looks, start, end, sentence, passage); passages overlap
    for passage in context.passages_overlapping(reach, start):
        for begin, end in context.sentences(passage):
            if reach <= begin and end <= start and end <= passage.end and begin not in seen:
                seen.add(begin)
                sentence = " ".join(book.text[begin:end].split())
                if (count := LOOKS.count(sentence)) >= _LOOKS_IN_A_LINE:
                    before.append((count, begin, end, sentence, passage))
    if not before:
        return chosen
    _, begin, end, sentence, passage = max(before, key=lambda item: (item[0], item[1]))
    if any(pair[1][2] == begin for pair in chosen):
        return chosen
    line = ((own or max(chosen, key=lambda pair: pair[0], default=(0.0,)))[0] - 1e-4,
            (0.0, 0, begin, end, sentence, passage))
    return _in_place_of_the_weakest(chosen, line, kept=lambda pair: pair is own)


# The sentences after a scene's best line that are quoted: of GutenQA's questions on our books whose best line's
# passage holds the answer, it lies in that line for 56, one after for 13, two after for 8, before for 19.
_SCENE_FOLLOWING = 2


def _with_what_follows(chosen: list, context, short_too: bool = False) -> list:
    """For a question about one scene asking what happened, why or how, the
    lines with the two sentences after the best one: the line most like the
    question is often the one that sets the scene ("Well, she drew a picture
    of Mr. Davis, with a monstrous nose and a hump"), and what it asks comes
    next ("...took her by the ear"), or after a line of speech ("God bless
    you, merry gentleman!... Scrooge seized the ruler"). The first in place
    of the weakest, the second as a line more: one quotation of the scene."""
    if not chosen:
        return chosen
    best = max(chosen, key=lambda pair: pair[0])
    passage, book = best[1][5], context.book
    following = [(start, end) for start, end in context.sentences(passage)
                 if start >= best[1][3] and end <= passage.end][:_SCENE_FOLLOWING]
    for place, (start, end) in enumerate(following):
        if any(pair[1][2] == start for pair in chosen):
            continue
        sentence = " ".join(book.text[start:end].split())
        if not short_too and (len(sentence.split()) < 3 or _says_only_who_spoke(content_words(sentence))):
            break  # what follows a bare line is not the scene's
        line = (best[0] - 1e-4 * (place + 1), (0.0, 0, start, end, sentence, passage))
        chosen = _in_place_of_the_weakest(chosen, line, kept=lambda pair: pair is best) if place == 0 \
            else chosen + [line]
    return chosen


def _with_the_letter(chosen: list, evidence, order: list[str], context) -> list:
    """For "What does Wentworth's letter say?", the lines with the one
    opening the letter retrieval found first for his name ("...her eyes
    devoured the following words:", else the letter's first) and the two
    sentences after it, its own words however short, in place of the weakest."""
    marked = [passage for passage in evidence.passages if LETTERS.name in evidence.sources.get(passage.id, [])]
    if not marked:
        return chosen
    passage = min(marked, key=lambda node: order.index(node.id) if node.id in order else len(order))
    text = context.book.text
    openings = letter_openings(text, passage.start or 0, passage.end)
    if not openings:
        return chosen
    sentences = [(start, end) for start, end in context.sentences(passage) if end <= passage.end]
    # The sentence ending where the letter opens ("It ran:"), else the letter's first.
    telling = next(((start, end) for start, end in sentences if start < openings[0] <= end + 4), None) or next(
        ((start, end) for start, end in sentences if start >= openings[0]), None)
    if telling is None:
        return chosen
    start, end = telling
    top = max((pair[0] for pair in chosen), default=0.0)
    line = (top + 1e-3, (0.0, 0, start, end, " ".join(text[start:end].split()), passage))
    chosen = [pair for pair in chosen if pair[1][2] != start]
    return _with_what_follows(_in_place_of_the_weakest(chosen, line), context, short_too=True)  # "Wire received."


def _with_a_rare_word(chosen: list, scored: list, rare: set[str], rarity) -> list:
    """The lines, with the best holding one of the question's words the book
    seldom uses (`rare`, as `_word_key` makes them) in place of the weakest,
    where none holds one: "Kala had not once come to earth with her little
    adopted babe" for "Who adopted Tarzan?", which the embedder ranked
    below twenty lines naming Tarzan. Asked only of a question for a name,
    number or age: measured on LiteraryQA's questions on our books (share
    of a reference answer's words the digest holds), 0.245 -> 0.256, with
    the development set's quoted sections as before (0.587; for every
    question, 0.577: a cross-chapter question's weakest line is often the
    one from a section it needs; a fourth line instead quoted more of both,
    0.270 and 0.600, but the digest is one to three lines a part)."""
    def holds(pair) -> bool:
        return any(_word_key(word, rarity) in rare for word in content_words(pair[1][4]))

    if not rare or any(holds(pair) for pair in chosen):
        return chosen
    # The one holding most of the question's words (and the kind of answer it expects), the likeliest first.
    line = max((pair for pair in scored if holds(pair)), key=lambda pair: pair[1][0], default=None)
    if line is None:
        return chosen
    return (chosen if len(chosen) < _MAX_LINES else chosen[:-1]) + [line]


def _within(item, passage) -> bool:
    """Whether a candidate line lies in a passage. Passages overlap, and a
    line two of them hold is a candidate once, with the first in the book:
    "It's a wonderful knocker!" with the passage before the one that last
    names the knocker, where retrieval had found both."""
    return (passage.start or 0) <= item[2] and item[3] <= passage.end


def _with_a_line_from(chosen: list, scored: list, evidence, mark: str, holds: list, last: bool = False) -> list:
    """The lines, with one from the passage retrieval gave a slot marked
    `mark`, in place of the weakest: its first line (or `last`) that the
    first of the tests `holds` passes, else the next test's. The last
    sentence naming Mrs Clay in the passage that last names her ("When does
    Mrs Clay last appear?"); the first naming Jo and Laurie in the first
    naming both ("When does Jo meet Laurie?"), else the first naming the
    one met; the last naming John Thornton beside a word of death ("How does
    John Thornton die?": "John Thornton was dead.")."""
    marked = next((passage for passage in evidence.passages if mark in evidence.sources.get(passage.id, [])), None)
    if marked is None:
        return chosen
    there = sorted((pair for pair in scored if _within(pair[1], marked)), key=lambda pair: pair[1][2], reverse=last)
    line = next((pair for test in holds for pair in there if test(pair[1][4])), None)
    if line is None or line in chosen:
        return chosen
    return (chosen if len(chosen) < _MAX_LINES else chosen[:-1]) + [line]


def _naming_the_thing(chosen: list, scored: list, naming: re.Pattern) -> list:
    """For a question asking how a thing comes back, lines naming it: each
    chosen line that does not, in place of the best scored one that does and
    is not chosen, else left out (the knocker's question had quoted "Scrooge
    had observed this change..." of the Ghost's hair, for its "reappear")."""
    if not any(naming.search(pair[1][4]) for pair in chosen):
        return chosen
    spare = [pair for pair in scored if pair not in chosen and naming.search(pair[1][4])]
    return [pair if naming.search(pair[1][4]) else spare.pop(0) for pair in chosen
            if naming.search(pair[1][4]) or spare]


def _with_lines_from(chosen: list, scored: list, evidence, mark: str, holds: list) -> list:
    """The lines, with one from each passage retrieval gave a slot marked
    `mark` (up to three), in place of the weakest: its first line that the
    first of the tests `holds` passes, else the next test's. "Who did
    Tarzan kill?" has several answers, one to a passage."""
    added = []
    for passage in evidence.passages:
        if mark not in evidence.sources.get(passage.id, []):
            continue
        there = sorted((pair for pair in scored if _within(pair[1], passage)), key=lambda pair: pair[1][2])
        line = next((pair for test in holds for pair in there if test(pair[1][4])), None)
        if line is not None and line not in chosen:
            added.append(line)
    added = added[:_MAX_LINES]
    return chosen[:_MAX_LINES - len(added)] + added


def _with_the_change(chosen: list, scored: list, evidence, name: str, left: tuple[int, int] | None) -> list:
    """For "How does Scrooge change?", the lines with how the book first
    says who he is and how it leaves him (changes.py), from the passages
    retrieval gave slots for them: the first line there saying what he was
    (`says_what_they_were`), and the line at `left` ("He became as good a
    friend..."); each in place of the weakest line but the other."""
    first_told = next((node_id for node_id, sources in evidence.sources.items() if FIRST_TOLD in sources), None)
    what_they_were = says_what_they_were(name)
    before = min((pair for pair in scored if pair[1][5].id == first_told and what_they_were(pair[1][4])),
                 key=lambda pair: pair[1][2], default=None)
    after = next((pair for pair in scored if left and pair[1][2] < left[1] and left[0] < pair[1][3]), None)
    added = []
    for line in (before, after):
        if line is not None and line not in chosen:
            chosen = _in_place_of_the_weakest(chosen, line, kept=lambda pair: pair in added)
        added.append(line)
    return chosen


def _outline_digest(retrieval: Retrieval, context) -> list[DigestLine]:
    """For a question about the whole book no sentence matches better than
    another by its words: the book in outline is quoted instead, a line of
    each of five chapters spread across it that tells what happens there
    (`_book_outline_lines`), or the book's first or last sentences for how
    it begins or ends. For chapters asked about as a whole, a line from each
    fifth of them that tells what happens there (see `_chapter_lines`)."""
    book = context.book
    if retrieval.overview in (PEOPLE, PLACES):
        return _introductions(retrieval, context)
    if retrieval.overview == CONTENTS or retrieval.overview == LENGTH and retrieval.within:
        return _headings(retrieval, context)
    if retrieval.overview == LENGTH:
        return []  # counted from the book's chapters (`Retrieval.stated`): no line of it says so
    if retrieval.overview in (COUNT, NAMES_WRITTEN, DEFINITION):
        return _uses(retrieval, context)
    if retrieval.overview == BOOK_RECORD:  # the book's record answers it (`Retrieval.stated`): its title page shown
        span = title_page_span(book)
        return [DigestLine(part=0, text=" ".join(book.text[span[0]:span[1]].split()), passage_id="", section=None,
                           label=TITLE_PAGE_LABEL, start=span[0], end=span[1], score=0.0)] if span else []
    passages = retrieval.parts[0].passages if retrieval.parts else []
    if retrieval.overview in (FIRST_PERSON, NAMED_TELLER):
        return _narrator_lines(retrieval, context)
    sentences, seen = [], set()
    for passage in passages:
        for start, end in context.sentences(passage):
            # Passages overlap: a sentence in two is quoted once; so is one the book repeats word for word.
            text = " ".join(book.text[start:end].split())
            if end <= passage.end and (start, end) not in seen and text not in seen and len(text.split()) >= 4 \
                    and not _editorial(book.text, start, end):
                seen.update({(start, end), text})
                sentences.append((passage, start, end))
    # The book's last lines, or the last read; its first; one alone where one is asked for ("its last sentence").
    shown = 1 if retrieval.overview in ("ending", "opening") and asks_one_sentence(retrieval.plan.question) \
        else _MAX_LINES
    if retrieval.overview in ("ending", RECENT):
        picked = sentences[-shown:]
    elif retrieval.overview in ("opening", THIRD_PERSON):
        picked = sentences[:shown]
    elif retrieval.within:
        picked = _chapter_lines(sentences, retrieval, context)
    else:
        picked = _book_outline_lines(sentences, retrieval, context)
    return [_line(book, 0, passage, start, end) for passage, start, end in picked]


def _editorial(text: str, start: int, end: int) -> bool:
    """Whether the sentence at start-end is a transcriber's or a printer's
    note, not the book's telling: in a paragraph in square brackets
    ("[Footnote 26: ... There is a gap in the text.]", "[Illustration:
    ...]"), or in capitals ("FOR THE FURTHER ADVENTURES OF LORD GREYSTOKE READ
    THE RETURN OF TARZAN"). How A Study in Scarlet "ends" had been three
    sentences of its footnotes."""
    paragraph = text.rfind("\n\n", 0, start)
    opening = text[paragraph + 2 if paragraph >= 0 else 0:start + 1].lstrip()
    return opening.startswith("[") or not any(char.islower() for char in text[start:end])


def _headings(retrieval: Retrieval, context) -> list[DigestLine]:
    """The headings of the chapters asked about (all of them for the
    contents), each as printed, cited by its chapter's first passage so that
    a click goes there; none of a chapter a reading limit comes before."""
    book, lines = context.book, []
    asked = retrieval.within or [section.ordinal for section in book.sections]
    for ordinal in asked:
        section = book.sections[ordinal - 1]
        heading = book.text[section.start:section.body_start]
        if not heading.strip() or (retrieval.until is not None and section.start >= retrieval.until):
            continue
        first = context.passages_overlapping(section.body_start, section.body_start)
        if not first:
            continue
        start = section.start + len(heading) - len(heading.lstrip())
        end = section.body_start - (len(heading) - len(heading.rstrip()))
        lines.append(_line(book, 0, first[0], start, end))
    return lines


def _uses(retrieval: Retrieval, context) -> list[DigestLine]:
    """For a how-often question, the sentences of the uses counted: each of
    them where they are few; else the first in each passage of the evidence
    (a chapter's first), of three passages at most: the first, the middle
    and the last."""
    uses = sorted(retrieval.uses)
    shown, spans = [], set()  # (sentence span, its passage) of each use in the evidence kept, each sentence once
    for passage in retrieval.passages:
        for start, end in context.sentences(passage):
            first_after = bisect_left(uses, start)
            if end <= passage.end and first_after < len(uses) and uses[first_after] < end and (start, end) not in spans:
                spans.add((start, end))
                shown.append(((start, end), passage))
    if len(shown) > _USES_QUOTED:
        firsts = [(span, passage) for place, (span, passage) in enumerate(shown)
                  if place == 0 or shown[place - 1][1].id != passage.id]  # in book order: a passage's first
        shown = firsts if len(firsts) <= _MAX_LINES else [firsts[0], firsts[len(firsts) // 2], firsts[-1]]
    return [_line(context.book, 0, passage, *span) for span, passage in shown]


def _narrator_lines(retrieval: Retrieval, context) -> list[DigestLine]:
    """For a book one of its people tells, each passage's first sentence
    where the telling says "I" ("Call me Ishmael."); in the passage where
    the book first names the one telling it, the line that does ("Well,
    Watson, what do you make of it?")."""
    book, lines = context.book, []
    evidence = retrieval.parts[0] if retrieval.parts else None
    for passage in evidence.passages if evidence else []:
        telling = [(passage.start + begin, passage.start + end) for begin, end in outside_dialogue(passage.text)]
        named_at = context.teller.shown_at if TELLER in evidence.sources.get(passage.id, []) else None
        for start, end in context.sentences(passage):
            if named_at is not None:
                found = start <= named_at < end
            else:
                found = end <= passage.end and len(book.text[start:end].split()) >= 3 and says_i(book.text, start, end,
                                                                                                  telling)
            if found:
                lines.append(_line(book, 0, passage, start, end))
                break
    return lines


def _introductions(retrieval: Retrieval, context) -> list[DigestLine]:
    """For the people or places a book names most (one part each), the
    first sentence of each one's passage that says who they are (where
    the passage is marked for it: overview.person_passage), else that names
    them."""
    book, lines = context.book, []
    for index, evidence in enumerate(retrieval.parts):
        for passage in evidence.passages[:1]:
            name = evidence.part.text
            # Where the passage says who they are, its telling's line before its dialogue's; else where it names them.
            tests = [describes(name, in_telling=True), describes(name)] \
                if DESCRIPTION in evidence.sources.get(passage.id, []) else []
            spans = [(start, end) for start, end in context.sentences(passage) if end <= passage.end]
            start, end = next((span for test in tests + [as_written(name).search] for span in spans
                               if test(book.text[span[0]:span[1]])), (None, None))
            named = as_written(name).search(book.text, passage.start, passage.end) if start is None else None
            if named is not None:  # in a sentence running past the passage's end: whole, up to a reader's place
                start, end = sentence_holding(book.text, named.start(), named.end(), retrieval.until)
                start = max(start, passage.start)
            elif start is None:
                start, end = spans[0] if spans else (passage.start, passage.end)
            lines.append(_line(book, index, passage, start, end))
    return lines


# The words of a chapter outline's line: fewer tell nothing, more read as a page, not a line.
_SUMMARY_LINE_WORDS = (10, 60)


def _chapter_lines(sentences: list[tuple], retrieval: Retrieval, context, chapters: list[int] | None = None,
                   lines: int = CHAPTER_LINES) -> list[tuple]:
    """The lines that tell what happens in chapters asked about as a whole
    (chapter_lines.py; `chapters`, else those asked about), of their
    sentences that tell something: not lines of dialogue that say only who
    spoke, nor sentences too short to tell anything or too long to read as
    a line. What sets the chapters apart is read from all their passages, up
    to the reading limit, not the evidence's sample of them alone."""
    def tells(text: str) -> bool:
        return _SUMMARY_LINE_WORDS[0] <= len(text.split()) <= _SUMMARY_LINE_WORDS[1] and not bare_exchange(text)

    telling = [item for item in sentences if tells(context.book.text[item[1]:item[2]])] or sentences
    asked, until = set(chapters or retrieval.within or ()), retrieval.until
    passages = [cut_at(node, until) for node in context.search.nodes(
        [node_id for node_id, section in context.section_of.items() if section in asked
         and (until is None or context.start_of.get(node_id, 0) < until)])]
    return eventful_sentences(telling, context.book.text, distinctive_words(passages, context.rarity), lines)


def _book_outline_lines(sentences: list[tuple], retrieval: Retrieval, context) -> list[tuple]:
    """The book in outline: of chapters spread from its first to its last,
    CHAPTER_LINES lines that tell most of what happens in each (`_chapter_lines`),
    in order: one a chapter where there are more, the rest from the longest
    where there are fewer ("What has happened so far?" two staves in). The
    first sentences of three chapters' openings, quoted before, mostly set a
    scene ("AWAKING in the middle of a prodigiously tough snore...")."""
    by_chapter: dict[int, list[tuple]] = {}
    for item in sentences:
        if item[0].section:
            by_chapter.setdefault(item[0].section, []).append(item)
    chapters = sorted(by_chapter)
    if len(chapters) > CHAPTER_LINES:
        chapters = sorted({chapters[round(i * (len(chapters) - 1) / (CHAPTER_LINES - 1))]
                           for i in range(CHAPTER_LINES)})
    lines = {chapter: 1 for chapter in chapters}
    for _ in range(CHAPTER_LINES - len(chapters)):
        roomy = [chapter for chapter in chapters if lines[chapter] < len(by_chapter[chapter])]
        if not roomy:
            break
        lines[max(roomy, key=lambda chapter: len(by_chapter[chapter]) / lines[chapter])] += 1
    return [line for chapter in chapters for line in _chapter_lines(
        by_chapter[chapter], retrieval, context, [chapter], lines=lines[chapter])]


def sentence_vectors(sentences: list[tuple], context) -> np.ndarray:
    """Vectors of sentences given as (passage, start, end, text): read from
    the index where stage 1 stored them (milliseconds), embedded now where
    it did not."""
    stored = {}
    passages = list({passage.id: passage for passage, *_ in sentences}.values())
    for passage_id, (spans, vectors) in context.sentence_vectors(passages).items():
        stored.update({(passage_id, span): vector for span, vector in zip(spans, vectors)})
    embedder = context.search.embedder
    vectors = np.zeros((len(sentences), embedder.dimension), dtype=np.float32)
    missing = []
    for row, (passage, start, end, _) in enumerate(sentences):
        vector = stored.get((passage.id, (start, end)))
        if vector is not None and vector.any():
            vectors[row] = vector
        else:
            missing.append(row)
    if missing:
        vectors[missing] = embedder.embed([sentences[row][3] for row in missing])
    return vectors


_SPEAKING = re.compile(r"\b(?:" + "|".join(sorted(SPEECH_VERBS)) + r")\b", re.I)
_CONTRACTION = re.compile(r"(?:n't|'ll|'m|'re|'ve|'d)$", re.I)


def bare_exchange(sentence: str) -> bool:
    """A line of dialogue that says little but who spoke ("No, no," said
    Scrooge. "I don't know," said Scrooge.): fewer than three content words
    besides its speech verb (a contraction is no content). The embedder ranks
    such a line high for any question of what someone says, and it tells the
    reader nothing."""
    return _says_only_who_spoke(content_words(sentence))


def _says_only_who_spoke(words: list[str]) -> bool:
    """`bare_exchange`, on the sentence's content words (the digest has them already)."""
    if not any(word.lower() in SPEECH_VERBS for word in words):
        return False
    return sum(1 for word in words if word.lower() not in SPEECH_VERBS and not _CONTRACTION.search(word)) < 3


def _word_key(word: str, rarity) -> str:
    """How a line's word is matched to the question's: by its stem, but a
    name the stem mistakes for other words ("Belle": "bell") as written."""
    return word.lower() if rarity.mistaken_by_stem(word) else stem(word)


def word_weight(word: str, rarity) -> float:
    """Inverse passage frequency: a word in few of the book's passages says
    more about which sentence is meant than one found everywhere."""
    return math.log((rarity.count + 1) / (rarity.used(word) + 1))


def _choose(scored: list, several_passages: bool, by_section: bool = True) -> list:
    """Up to three lines, best first: one per section (unless not `by_section`), then one per passage."""
    chosen, sections, passages = [], set(), set()
    for distinct in (lambda passage: not by_section or passage.section not in sections,
                     lambda passage: passage.id not in passages or not several_passages):
        for pair in scored:
            passage = pair[1][5]
            if len(chosen) < _MAX_LINES and pair not in chosen and distinct(passage):
                chosen.append(pair)
                sections.add(passage.section)
                passages.add(passage.id)
    return chosen


# At most this many characters (spaces, a paragraph's break) between two quoted sentences that read on as one.
_ADJACENT_GAP = 3


def adjacent_runs(lines: list[dict]) -> list[list[int]]:
    """The digest's lines (as `DigestLine.as_dict` gives them), in order,
    grouped into runs of sentences that follow one another in the same
    passage of the same part: shown as one quotation ("she drew a picture
    of Mr. Davis..." and what he did next), not two with the same citation."""
    runs: list[list[int]] = []
    for number, line in enumerate(lines):
        previous = lines[runs[-1][-1]] if runs else None
        # An answer kept by an earlier version may lack a line's part or span: each line its own quotation.
        if (previous is not None and previous.get("part") == line.get("part") and line.get("passage_id")
                and previous.get("passage_id") == line["passage_id"]
                and None not in (line.get("start"), previous.get("end"))
                and 0 <= line["start"] - previous["end"] <= _ADJACENT_GAP):
            runs[-1].append(number)
        else:
            runs.append([number])
    return runs


def run_text(lines: list[dict], run: list[int]) -> str:
    """A run's sentences as one quotation's text."""
    return " ".join(" ".join(lines[number]["text"].split()) for number in run)


def digest_markdown(lines: list[DigestLine], part_texts: list[str]) -> str:
    out = []
    records = [line.as_dict() for line in lines]
    runs = adjacent_runs(records)
    for index, text in enumerate(part_texts):
        mine = [run for run in runs if records[run[0]]["part"] == index]
        if not mine:
            continue
        if len(part_texts) > 1:
            out.append(f"{part_heading(text)}:")
        for run in mine:
            first = records[run[0]]
            cited = ", ".join(mark for mark in (first["passage_id"], first["label"]) if mark)
            out.append(f"  {quoted(run_text(records, run))} [{cited}]")
    return "\n".join(out)


def quoted(sentence: str) -> str:
    """The sentence in quotation marks, unless it opens with its own (dialogue).
    A sentence cut from a speech has one of the speech's marks unpaired (the
    citation's span keeps the book's text as it is): the last sentence of a
    speech ends with its closing mark, left out of the display; one that
    closes the speech further on ('God save you!" cried a voice.') gets the
    opening mark it lacks; one that opens a speech it does not finish gets
    the closing one."""
    if sentence[:1] in "\"'\u201c\u2018":
        return sentence
    if sum(sentence.count(mark) for mark in "\"\u201c\u201d") % 2 == 0:
        return f"\u201c{sentence}\u201d"
    if sentence[-1:] in "\"\u201d":
        return f"\u201c{sentence[:-1]}\u201d"
    first = next(index for index, char in enumerate(sentence) if char in "\"\u201c\u201d")
    mark = sentence[first]
    if mark == "\u201d" or (mark == '"' and first > 0 and not sentence[first - 1].isspace()):
        return ("\u201c" if mark == "\u201d" else '"') + sentence
    closing = "\u201d" if mark == "\u201c" else mark
    return f"\u201c{sentence}{closing}\u201d"
