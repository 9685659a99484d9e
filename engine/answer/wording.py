"""A question as a reader types it, put plainly: courtesies taken off
("please", "thanks") and a question asked indirectly put directly ("Can you
tell me who Marley is?": "Who is Marley?"). Left on, "who is marley
thanks" asked who "marley thanks" is, and the answer said the book never
names them; "who Marley is" was no who-is question, so it quoted lines
that say "Marley" rather than where the book first names him. So too as
typed in a hurry: emoji off, "whats" written out, "ch 3" as "chapter 3", a
name alone or "tell me about" one as "Who is ...?", the book's title as
"the book" ("What happens in Little Women?")."""

from __future__ import annotations

import re
import unicodedata

_COURTESY = r"(?:please|pls|plz|thanks|thank\s+you|thx|cheers)"
_LEADING = re.compile(rf"^\W*(?:{_COURTESY}|hi|hello|hey|ok(?:ay)?)\b[\s,;:!.-]*", re.I)
_TRAILING = re.compile(rf"(?P<before>[,;:.?!]?)\s*\b(?P<word>{_COURTESY})\b[\s.!]*(?P<mark>\?)?[\s.!]*$", re.I)
# Words after which "thanks" or "please" is what is said or given, not a courtesy: "Why does Scrooge say thanks?"
_TAKES_IT = {"say", "says", "said", "saying", "give", "gives", "gave", "giving", "offer", "offers", "offered",
             "return", "returns", "returned", "express", "expresses", "expressed", "a", "no", "any", "his", "her",
             "their", "its", "my", "your", "our", "without", "with", "for"}
# "Can you tell me", "Please tell me", "I'd like to know", "Do you know", "Remind me", "I forget": before a
# question word.
_ASKING = re.compile(r"^\W*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|show)\s+me"
                     r"|(?:please\s+)?tell\s+me|(?:do|does)\s+(?:you|anyone)\s+know"
                     r"|i(?:'d|\s+would)\s+like\s+to\s+know|i\s+(?:want|wonder|need)\s+to\s+know|i\s+wonder"
                     r"|(?:(?:can|could)\s+you\s+)?remind\s+me"
                     r"|i\s+(?:forget|forgot|can'?t\s+remember|don'?t\s+remember))"
                     r"\s+(?=(?:who|what|where|when|why|how|which|whether|if)\b)", re.I)
# "who Marley is", "where Bath was": the verb put back before its subject.
_INDIRECT = re.compile(r"^(?P<wh>who|what|where|when|which|how\s+old|how\s+many\s+\w+)\s+(?P<subject>.+?)\s+"
                       r"(?P<verb>is|was|are|were)\W*$", re.I)


# "whats", "what's", "whos", "wheres": the verb written out, as the kinds of question are told by it ("What's
# Scrooge's job?" had been searched for "What's"); "has" before a past participle ("What's happened to Beth?").
_CONTRACTED = re.compile(r"^(?P<lead>\W*)(?P<wh>what|where)(?:['\u2019]s|s)(?=\s+(?P<next>[\w'\u2019-]+))"
                         # "who's" is "whose" as often ("Who's viewpoint is it told from?"): before a name, an
                         # article or a last word only
                         r"|^(?P<lead2>\W*)(?P<wh2>who)(?:['\u2019]s|s)(?=\s+(?:(?:the|a|an|(?-i:[A-Z])[\w-]*)\b"
                         r"|[\w-]+['\u2019]s\b|[\w-]+\W*$))", re.I)
# "ch 3", "Ch. 12", "chap. iv", "ch3": a chapter by its number, as readers abbreviate it.
_CHAPTER_ABBREVIATED = re.compile(r"\b(?P<ch>ch|chap|chapt|chpt)\.?\s*(?=\d|[ivxlc]+\b)", re.I)
_TOO_LONG = re.compile(r"\btl\s*;?\s*dr\b", re.I)  # "tl;dr": the book in short
_PARTICIPLES = {"been", "become", "gone", "done", "come", "got", "gotten", "taken", "given", "seen", "known"}
# "Tell me about Laurie", "Tell me more about Professor Bhaer": who someone is.
_TELL_ABOUT = re.compile(r"^\W*(?:tell\s+me\s+(?:(?:a\s+(?:bit|little)\s+)?more\s+)?about|what\s+do\s+(?:you|we)\s+"
                         r"know\s+about|(?:give\s+me\s+)?info(?:rmation)?\s+(?:on|about))\s+(?P<name>.+?)\W*$", re.I)
# Words a name may have besides names: a title, "the", "old" ("old Fezziwig").
_BESIDE_A_NAME = {"the", "old", "young", "little", "poor", "mr", "mrs", "miss", "ms", "dr", "sir", "lady", "lord",
                  "captain", "professor", "colonel", "inspector", "aunt", "uncle", "mother", "father"}
_LONGEST_NAME = 5


def plainly_worded(question: str) -> str:
    """The question without emoji or courtesies at its ends, its opening
    word's contraction written out, "ch 3" as "chapter 3", and direct where
    it was asked indirectly; as typed where nothing of it would be left."""
    plain = _without_trailing_courtesy(_LEADING.sub("", _without_emoji(question).strip()))
    plain = _CONTRACTED.sub(_written_out, plain)
    plain = _CHAPTER_ABBREVIATED.sub(lambda found: "Chapter " if found["ch"][0].isupper() else "chapter ", plain)
    plain = _TOO_LONG.sub("tldr", plain)
    asking = _ASKING.match(plain)
    if asking:
        plain = plain[asking.end():]
        indirect = _INDIRECT.match(plain)
        if indirect:
            plain = f"{indirect['wh']} {indirect['verb']} {indirect['subject']}?"
        plain = plain[:1].upper() + plain[1:]
        if not plain.rstrip().endswith(("?", ".", "!")):
            plain = plain.rstrip() + "?"
    return plain.strip() if any(character.isalnum() for character in plain) else question


def _without_trailing_courtesy(question: str) -> str:
    """"Who is Marley? please", "..., thanks", "who is marley thanks": the
    question before it. Not a word that ends a question of its own: one
    capitalised ("Who is Mr Thanks?"), or after a word that takes it ("Why
    does Scrooge say thanks?")."""
    found = _TRAILING.search(question)
    if found is None:
        return question
    head = question[:found.start()].rstrip()
    if not found["before"]:
        last = re.findall(r"[A-Za-z']+", head)[-1:]
        if not found["word"].islower() or not last or last[0].lower() in _TAKES_IT:
            return question
    return head + ("?" if found["before"] == "?" or found["mark"] else "")


# What a question asks of the book as a whole, before "of" and its title: "the theme of Little Women".
_OF_THE_BOOK = (r"theme|themes|moral|message|lesson|lessons|plot|summary|setting|narrator|hero|heroine|protagonist"
                r"|protagonists|ending|beginning|end|start|opening|characters|chapters")


_OPENING, _CLOSING = r"[\"'\u201c\u2018_*]?", r"[\"'\u201d\u2019_*]?"


def with_the_book_for_its_title(question: str, title: str) -> str:
    """ "What happens in Little Women?", "Name the major theme used in The
    Adventures of Sherlock Holmes", "Who is the heroine of Persuasion?": the
    book's title after "in", or after "of" and what is asked of a book, as
    "the book", so the question is the whole-book question it is (the
    title's capitals had read as a name of its own). "Who is Tarzan of the
    Apes?" and "Why is it called Persuasion?" keep it."""
    titles = sorted({part.strip() for part in (title, title.split(":")[0]) if part and part.strip()},
                    key=len, reverse=True)
    for name in titles:
        # In quotes or italics, and after "the novel" ("in the novel “Persuasion”"): the title all the same.
        written = _OPENING + r"\s+".join(map(re.escape, name.split())) + _CLOSING
        question = re.sub(rf"\b(in|throughout)\s+(?:the\s+(?:book|novel|story)\s+)?{written}(?![\w'\u2019])",
                          r"\1 the book", question, flags=re.I)
        question = re.sub(rf"\b({_OF_THE_BOOK})\s+of\s+{written}(?![\w'\u2019])", r"\1 of the book", question,
                          flags=re.I)
        # The title as what is asked of: "What is Persuasion about?", "How does Emma end?", "Who narrates Black
        # Beauty?", "Summarize Little Women" ("Describe Emma" asks of her, "Who told Emma?" of someone).
        question = re.sub(rf"^(\W*(?:what\s+(?:is|was)|what['\u2019]s)\s+){written}(?=\s+about\W*$)",
                          r"\1the book", question, flags=re.I)
        question = re.sub(rf"^(\W*how\s+(?:does|did)\s+){written}(?=\s+{_BEGINS_OR_ENDS}\W*$)", r"\1the book",
                          question, flags=re.I)
        question = re.sub(rf"\b({_TELLS_WHOLE})\s+{written}(?=\W*$)", r"\1 the book", question, flags=re.I)
    return question


_BEGINS_OR_ENDS = r"(?:end|begin|start|open|finish|conclude)"
_TELLS_WHOLE = r"narrates|narrated|summari[sz]e|sum\s+up|recap"


# A question about the title that does not write it: "What does the title mean?", "Why is the book called
# that?"; not "Why is it called that?", which may follow an answer about something else.
_THE_TITLE = re.compile(
    r"^\W*(?:what\s+(?:does|do)\s+the\s+(?:(?:book|novel|story)['\u2019]?s\s+)?title\s+(?:mean|signify|refer\s+to)"
    r"|what\s+is\s+the\s+(?:meaning|significance|importance|point|reason)\s+(?:of|for|behind)\s+the\s+"
    r"(?:(?:book|novel|story)['\u2019]?s\s+)?title"
    r"|why\s+(?:is|was)\s+(?:the|this)\s+(?:book|novel|story)\s+"
    r"(?:called|named|titled|entitled)(?:\s+(?:that|so|this|what\s+it\s+is))?"
    r"|why\s+(?:this|that|the)\s+title|explain\s+the\s+title"
    r"|how\s+does\s+the\s+title\s+(?:relate|connect)\s+to\s+the\s+(?:book|novel|story))\W*$", re.I)


def the_title_written(question: str, title: str) -> str:
    """ "What does the title mean?", "Why is the book called that?": asked as "Why
    is the book called Persuasion?" (the title without a subtitle), which
    finds where the book uses its own title's words ("If I was wrong in
    yielding to persuasion once..."); "title" alone had found "the
    Kellynch estate would as surely be his hereafter as the title". Any
    other question as it is."""
    name = title.split(":")[0].strip()
    return f"Why is the book called {name}?" if name and _THE_TITLE.match(question) else question


def _written_out(found: re.Match) -> str:
    """ "whats" as "what is"; "what's happened" as "what has happened"."""
    if found["wh2"]:
        return f"{found['lead2']}{found['wh2']} is"
    following = found["next"].lower()
    verb = "has" if following in _PARTICIPLES or (following.endswith("ed") and following != "need") else "is"
    return f"{found['lead']}{found['wh']} {verb}"


def who_is_asked(question: str, is_name, alone: bool = True) -> str:
    """ "Tell me about Laurie" and, where `alone` (not after an earlier
    question, where "Louisa?" asks that one again of her), a name typed by
    itself ("laurie", "Fezziwig?") as "Who is ...?", the question that
    finds where the book brings them in; any other question as it is.
    `is_name(word)`: whether the book writes the word as a name."""
    about = _TELL_ABOUT.match(question)
    name = about["name"] if about else question.strip().rstrip("?!. ") if alone else ""
    words = re.findall(r"[\w'\u2019-]+", name.replace(".", ""))
    if not words or len(words) > _LONGEST_NAME or len(words) != len(name.replace(".", "").split()):
        return question
    if all(word.lower() in _BESIDE_A_NAME or is_name(word) for word in words) and any(
            word.lower() not in _BESIDE_A_NAME for word in words):
        return f"Who is {name}?"
    return question


def _without_emoji(question: str) -> str:
    """ "Who is Marley 🙂": the question without its pictures (Unicode's
    "other symbols", skin tones, joiners and variation selectors), which had
    kept it from being read as the who-is question it is; currency and
    mathematical signs stay."""
    kept = "".join(" " if unicodedata.category(character) == "So" or character in "\u200d\ufe0f"
                   or "\U0001f3fb" <= character <= "\U0001f3ff" else character for character in question)
    return " ".join(kept.split()) if kept != question else question
