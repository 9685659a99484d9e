"""Book cards (L3): structure, characters, terms, chronology, and recurring
themes and devices, each stored as structured JSON and as display text.

What can be read off the text is found by code and is always right: the map
of sections, the names the book uses and the sections they occur in, the
phrases that recur across distant chapters. The model adds what needs
reading: who is who (the epithets of each character), what the terms mean,
the order of events, the themes. Everything the model names is checked
against the book (an epithet the text never uses is dropped), and when the
model fails, the card keeps the code's part.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Iterator

from ..book import Book, readable
from ..llm.types import CancelToken, ChatMessage, GenerationOptions
from .store import CARD, Node
from .writing import Cancelled, WritingStats, summary_line

CARD_NAMES = ("structure", "characters", "terms", "chronology", "themes")
_TITLES = {"structure": "How the book is arranged", "characters": "Characters", "terms": "Places, things and terms",
           "chronology": "Chronology", "themes": "Recurring themes and devices"}
# Words written before a name, which are no name alone.
HONORIFICS = ("Mr", "Mrs", "Ms", "Miss", "Dr", "Sir", "Lady", "Lord", "Captain", "Colonel", "Major", "Professor",
              "Aunt", "Uncle", "Old", "Little", "Father", "Mother", "Madame", "Monsieur", "Master", "Inspector")
_HONORIFIC = rf"(?:{'|'.join(HONORIFICS)})"
_NAME = re.compile(rf"\b(?:{_HONORIFIC}\.?\s)?[A-Z][a-z]+(?:\s(?:de\s|van\s|von\s)?[A-Z][a-z]+)*")
_NOT_NAMES = {
    "I", "The", "A", "An", "And", "But", "Then", "When", "There", "This", "That", "It", "He", "She", "They", "We",
    "You", "My", "His", "Her", "Our", "Your", "Their", "What", "Why", "How", "Who", "Where", "Yes", "No", "Oh", "Well",
    "Now", "So", "If", "In", "On", "At", "As", "For", "Not", "All", "One", "Monday", "Tuesday", "Wednesday",
    "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December", "God", "Heaven", "Christmas", "Chapter", "Sir", "Mr",
    "Mrs", "Miss", "Lady", "Lord", "English", "French", "Good", "Dear", "Here", "Do", "Is", "Are", "Was", "Had",
    "Let", "Come", "Go", "Perhaps", "Besides", "However", "Still", "Even", "Some", "Every", "After", "Before",
}
_STOP = {
    "the", "a", "an", "and", "or", "but", "of", "in", "on", "at", "to", "for", "with", "by", "from", "as", "that",
    "this", "it", "he", "she", "they", "i", "you", "we", "his", "her", "their", "my", "your", "our", "was", "were",
    "is", "are", "be", "been", "had", "have", "has", "not", "no", "so", "then", "than", "there", "which", "who",
    "what", "when", "where", "all", "one", "said", "would", "could", "should", "will", "shall", "did", "do", "upon",
    "into", "out", "up", "down", "very", "more", "now", "him", "them", "me", "us", "if", "were", "its", "any", "some",
    "such", "only", "own", "too", "much", "again", "just", "like", "little", "good", "old", "great", "made", "say",
}


def write_cards(generator, book: Book, section_summaries: dict[int, str], book_summary: str, cancel: CancelToken,
                stats: WritingStats, built_by: str, skip: set[str] = frozenset()) -> Iterator[Node]:
    """The cards not in `skip`, each yielded as soon as it is written."""
    names = character_candidates(book)
    makers = {
        "structure": lambda: _structure(generator, book, section_summaries, book_summary, cancel, stats),
        "characters": lambda: _characters(generator, book, names, book_summary, cancel, stats),
        "terms": lambda: _terms(generator, book, names, book_summary, cancel, stats),
        "chronology": lambda: _chronology(generator, book, section_summaries, cancel, stats),
        "themes": lambda: _themes(generator, book, recurring_phrases(book, exclude={n.lower() for n in names}),
                                  book_summary, cancel, stats),
    }
    for seq, name in enumerate(CARD_NAMES):
        if name in skip:
            continue
        _, data, text = makers[name]()
        yield Node(id=f"card:{name}", level=3, kind=CARD, section=None, seq=seq, text=text, title=_TITLES[name],
                   data=data, sections=[s.ordinal for s in book.sections], built_by=built_by)


# ------------------------------------------------------------ read off the text


def character_candidates(book: Book, limit: int = 24, until: int | None = None,
                         sections: list[int] | None = None) -> dict[str, list[int]]:
    """Names as the book writes them (capitalised mid-sentence), with the
    sections each occurs in, most frequent first; in the text before
    `until`, of the `sections` given (ordinals), where given."""
    mid_sentence = Counter()
    sections_of: dict[str, set[int]] = defaultdict(set)
    for section in book.sections:
        if sections is not None and section.ordinal not in sections:
            continue
        text = book.text[section.body_start:section.end if until is None else max(section.body_start,
                                                                                  min(section.end, until))]
        for match in _NAME.finditer(text):
            name = match.group(0)
            if name.split()[0] in _NOT_NAMES and len(name.split()) == 1:
                continue
            before = text[max(0, match.start() - 2):match.start()]
            if before.strip() and before.strip()[-1] in ".!?\u201c\"":
                continue  # sentence-initial capitals are not evidence of a name
            if match.start() == 0:
                continue
            mid_sentence[name] += 1
            sections_of[name].add(section.ordinal)
    # A short text names its people fewer times.
    floor = 3 if len(book.text) > 60_000 else 2
    ranked = [name for name, count in mid_sentence.most_common() if count >= floor and name not in _NOT_NAMES]
    chosen: list[str] = []
    for name in ranked:
        # "Sherlock Holmes" and "Holmes" are both kept: the longer is a full name,
        # the shorter how the book mostly calls him.
        chosen.append(name)
        if len(chosen) >= limit:
            break
    return {name: sorted(sections_of[name]) for name in chosen}


def sections_mentioning(book: Book, phrases: list[str]) -> list[int]:
    found = set()
    for section in book.sections:
        text = book.text[section.start:section.end]
        if any(re.search(rf"\b{re.escape(phrase)}\b", text) for phrase in phrases if phrase):
            found.add(section.ordinal)
    return sorted(found)


def recurring_phrases(book: Book, exclude: set[str], limit: int = 15) -> list[dict]:
    """Phrases that come back in chapters far apart but are not everywhere
    ("a short cough", "the little brown book"): the book's recurring devices."""
    occurrences: dict[tuple[str, ...], list[int]] = defaultdict(list)
    count = len(book.sections)
    if count < 3:
        return []
    excluded_words = {word for name in exclude for word in name.split()}
    for section in book.sections:
        words = [word[:-2] if word.endswith("'s") else word
                 for word in re.findall(r"[a-z][a-z'-]+", book.text[section.body_start:section.end].lower())]
        words = [word if "'" not in word else "" for word in words]  # contractions are not motifs
        seen = set()
        for size in (1, 2, 3):
            for i in range(len(words) - size + 1):
                gram = tuple(words[i:i + size])
                if gram[0] in _STOP or gram[-1] in _STOP or "" in gram or gram in seen:
                    continue
                seen.add(gram)
                occurrences[gram].append(section.ordinal)
    scored = []
    for gram, sections in occurrences.items():
        phrase = " ".join(gram)
        if len(sections) < 3 or len(sections) > max(3, count * 0.5) or phrase in exclude:
            continue
        if any(word in excluded_words for word in gram):
            continue
        rarity = max(_rarity(word) for word in gram)
        if rarity < 1.0:
            continue  # everyday English ("two or three", "next day") is not a device
        spread = sections[-1] - sections[0]
        if spread < count / 3:
            continue
        scored.append((len(sections) * (1 + spread / count) * rarity, phrase, sections))
    scored.sort(key=lambda item: (-item[0], item[1]))
    chosen, used = [], set()
    for _, phrase, sections in scored:
        if any(phrase in other or other in phrase for other in used):
            continue
        used.add(phrase)
        chosen.append({"phrase": phrase, "sections": sections})
        if len(chosen) >= limit:
            break
    return chosen


def _rarity(word: str) -> float:
    """How unusual an English word is, from the WordPiece vocabulary, whose
    whole-word entries run roughly from common to rare: 0 for everyday words,
    up to 2 for words the vocabulary has to spell out in pieces."""
    from .chunking import chunking_tokenizer

    token = chunking_tokenizer().token_to_id(word)
    if token is None:
        return 2.0
    return 0.0 if token < 6000 else min(2.0, token / 12000)


# ------------------------------------------------------------ with the model


def _ask_json(generator, system: str, question: str, schema: dict, max_tokens: int, cancel: CancelToken,
              stats: WritingStats):
    cancel.wait_while_paused()
    if cancel.cancelled:
        raise Cancelled()
    completion = generator.complete(
        [ChatMessage("system", system), ChatMessage("user", question)],
        GenerationOptions(max_tokens=max_tokens, temperature=0.0, repeat_penalty=1.1, json_schema=schema,
                          truncation="truncate-longest-end"),
        cancel)
    stats.count(completion)
    if completion.finish_reason == "cancelled":
        raise Cancelled()
    return completion.data if isinstance(completion.data, dict) else None


def _system(book: Book) -> str:
    author = book.metadata.get("author")
    return (f"You write reference notes about the book \u201c{book.title}\u201d{' by ' + author if author else ''}. "
            "Use only what the summaries and lists given say. Answer in JSON.")


def _structure(generator, book, section_summaries, book_summary, cancel, stats):
    lines = []
    for section in book.sections:
        summary = section_summaries.get(section.ordinal, "")
        first = summary_line(summary) if summary else ""
        lines.append({"section": section.ordinal, "label": section.label,
                      "title": readable(section.title) if section.title else None, "line": first})
    schema = {"type": "object", "properties": {"overview": {"type": "string", "maxLength": 400}}, "required": ["overview"]}
    data = _ask_json(generator, _system(book),
                     f"Book summary: {book_summary}\n\nThe book has {len(book.sections)} sections"
                     f"{' in ' + str(len(book.parts)) + ' parts' if book.parts else ''}. In two sentences, say how the "
                     "book is told and arranged (who narrates, how the story moves through its sections).",
                     schema, 140, cancel, stats)
    overview = (data or {}).get("overview", "").strip()
    if len(overview.split()) < 6:
        stats.reject("card overview")
        overview = (f"{book.title} has {len(book.sections)} sections"
                    f"{', grouped in ' + str(len(book.parts)) + ' parts' if book.parts else ''}.")
    parts = [{"label": p.label, "title": p.title, "sections": [s.ordinal for s in book.sections if s.part == p.ordinal]}
             for p in book.parts]
    text = overview + "\n" + "\n".join(
        f"{entry['label']}{': ' + entry['title'] if entry['title'] else ''} \u2014 {entry['line']}" for entry in lines)
    return "structure", {"overview": overview, "parts": parts, "sections": lines}, text


def _characters(generator, book, names, book_summary, cancel, stats):
    top = list(names)[:16]
    schema = {"type": "object", "properties": {"characters": {"type": "array", "maxItems": 12, "items": {
        "type": "object", "properties": {
            "name": {"type": "string", "maxLength": 40},
            "also_called": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 40}},
            "who": {"type": "string", "maxLength": 160}},
        "required": ["name", "also_called", "who"]}}}, "required": ["characters"]}
    data = _ask_json(generator, _system(book),
                     f"Book summary: {book_summary}\n\nNames used in the book, most frequent first: {', '.join(top)}.\n"
                     "List the main characters: for each, the name, the other names and epithets the book uses for "
                     "them, and who they are in a few words.", schema, 500, cancel, stats)
    by_name: dict[str, dict] = {}
    for item in (data or {}).get("characters", []):
        name = str(item.get("name", "")).strip()
        if not name or name not in book.text:
            continue  # the model named someone the book does not
        aliases = [a.strip() for a in item.get("also_called", []) if a and a.strip() in book.text
                   and a.strip() != name and plausible_alias(a.strip(), name, top)]
        by_name[name] = {"name": name, "also_called": aliases, "who": str(item.get("who", "")).strip()}
    if not by_name:
        stats.reject("card characters")
    for name in top:
        if not any(name == entry["name"] or name in entry["also_called"] for entry in by_name.values()):
            by_name.setdefault(name, {"name": name, "also_called": [], "who": ""})
    characters = []
    for entry in by_name.values():
        entry["sections"] = sections_mentioning(book, [entry["name"], *entry["also_called"]])
        characters.append(entry)
    characters.sort(key=lambda entry: -len(entry["sections"]))
    if not characters:
        return "characters", {"characters": []}, "No character is named often enough in the text to be listed."
    text = "\n".join(
        f"{c['name']}{' (also ' + ', '.join(c['also_called']) + ')' if c['also_called'] else ''}"
        f"{': ' + c['who'] if c['who'] else ''} \u2014 in {_labels(book, c['sections'])}" for c in characters)
    return "characters", {"characters": characters}, text


def plausible_alias(alias: str, name: str, frequent_names) -> bool:
    """Another of the book's frequent names, sharing no word with this one, is
    another character: the 135M default called Scrooge "Bob Cratchit"."""
    return bool(set(alias.lower().split()) & set(name.lower().split())) or alias not in frequent_names


def _terms(generator, book, names, book_summary, cancel, stats):
    person_words = {word for name in names for word in name.split()}
    places = Counter()
    for match in re.finditer(r"\b(?:[A-Z][a-z]+\s){1,2}(?:Street|Road|Square|Hall|House|Park|Lane|Inn|Castle|Court|"
                             r"Bridge|Hill|Place|Abbey|Manor|Gardens|Yard|Station|Church|River|Lodge|Farm)\b", book.text):
        places[match.group(0).strip()] += 1
    candidates = [term for term, count in places.most_common(12) if count >= 2]
    candidates += [name for name in names if len(name.split()) == 1 and name not in person_words][:4]
    schema = {"type": "object", "properties": {"terms": {"type": "array", "maxItems": 12, "items": {
        "type": "object", "properties": {"term": {"type": "string", "maxLength": 50},
                                         "meaning": {"type": "string", "maxLength": 160}},
        "required": ["term", "meaning"]}}}, "required": ["terms"]}
    data = _ask_json(generator, _system(book),
                     f"Book summary: {book_summary}\n\nPlaces and terms found in the book: {', '.join(candidates) or 'none'}.\n"
                     "List the important places, objects and terms of the book with what each is, in a few words.",
                     schema, 400, cancel, stats)
    terms = {}
    for item in (data or {}).get("terms", []):
        term = str(item.get("term", "")).strip()
        if term and term in book.text:
            terms[term] = {"term": term, "meaning": str(item.get("meaning", "")).strip()}
    for term in candidates:
        terms.setdefault(term, {"term": term, "meaning": ""})
    for entry in terms.values():
        entry["sections"] = sections_mentioning(book, [entry["term"]])
    listed = sorted(terms.values(), key=lambda entry: -len(entry["sections"]))
    if not listed:
        return "terms", {"terms": []}, "No recurring places or special terms were found in the text."
    text = "\n".join(f"{t['term']}{': ' + t['meaning'] if t['meaning'] else ''} \u2014 in {_labels(book, t['sections'])}"
                     for t in listed)
    return "terms", {"terms": listed}, text


def _chronology(generator, book, section_summaries, cancel, stats):
    labels = {s.label: s.ordinal for s in book.sections}
    digest = "\n".join(f"{s.label}: {section_summaries.get(s.ordinal, '')}" for s in book.sections)
    schema = {"type": "object", "properties": {"events": {"type": "array", "maxItems": 16, "items": {
        "type": "object", "properties": {"section": {"type": "string", "maxLength": 40},
                                         "when": {"type": "string", "maxLength": 60},
                                         "event": {"type": "string", "maxLength": 160}},
        "required": ["section", "event"]}}}, "required": ["events"]}
    data = _ask_json(generator, _system(book),
                     f"Section summaries:\n{digest}\n\nList the main events in the order they happen in the story "
                     "(which may differ from the order they are told), each with the section that tells it.",
                     schema, 500, cancel, stats)
    events = []
    for item in (data or {}).get("events", []):
        label = str(item.get("section", "")).strip()
        if label in labels and str(item.get("event", "")).strip():
            events.append({"section": labels[label], "label": label, "when": str(item.get("when", "")).strip(),
                           "event": str(item["event"]).strip()})
    if not events:
        stats.reject("card chronology")
        for section in book.sections:
            summary = section_summaries.get(section.ordinal, "")
            first = summary_line(summary) if summary else ""
            if first:
                events.append({"section": section.ordinal, "label": section.label, "when": "", "event": first})
    text = "\n".join(f"{e['label']}{' (' + e['when'] + ')' if e['when'] else ''}: {e['event']}" for e in events)
    return "chronology", {"events": events, "order": "story" if data else "telling"}, text


def _themes(generator, book, motifs, book_summary, cancel, stats):
    labels = {s.label: s.ordinal for s in book.sections}
    schema = {"type": "object", "properties": {"themes": {"type": "array", "maxItems": 8, "items": {
        "type": "object", "properties": {"theme": {"type": "string", "maxLength": 80},
                                         "how": {"type": "string", "maxLength": 200},
                                         "sections": {"type": "array", "maxItems": 8,
                                                      "items": {"type": "string", "maxLength": 40}}},
        "required": ["theme", "how"]}}}, "required": ["themes"]}
    phrases = ", ".join(m["phrase"] for m in motifs[:10])
    data = _ask_json(generator, _system(book),
                     f"Book summary: {book_summary}\n\nPhrases that recur across the book: {phrases or 'none'}.\n"
                     "List the recurring themes and devices of the book (images, objects, repeated scenes), how each "
                     "works, and the sections (by label) where it appears.", schema, 450, cancel, stats)
    themes = []
    for item in (data or {}).get("themes", []):
        theme = str(item.get("theme", "")).strip()
        if theme:
            themes.append({"theme": theme, "how": str(item.get("how", "")).strip(),
                           "sections": sorted({labels[l] for l in item.get("sections", []) if l in labels})})
    if not themes:
        stats.reject("card themes")
    text = "\n".join(f"{t['theme']}: {t['how']}" for t in themes)
    if motifs:
        text += ("\n" if text else "") + "Recurring phrases: " + "; ".join(
            f"\u201c{m['phrase']}\u201d ({_labels(book, m['sections'])})" for m in motifs)
    if not text:
        text = "No recurring themes or phrases were found across the sections."
    return "themes", {"themes": themes, "recurring_phrases": motifs}, text


def _labels(book: Book, ordinals: list[int]) -> str:
    if not ordinals:
        return "no section"
    labels = [book.sections[o - 1].label for o in ordinals]
    return ", ".join(labels[:8]) + (f" and {len(labels) - 8} more" if len(labels) > 8 else "")
