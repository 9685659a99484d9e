"""Answering questions about one book: the engine's API for the command line
and the desktop app."""

from __future__ import annotations

import time

from ..errors import ChapterhouseError
from ..index.indexer import BookIndexer, IndexingBusy
from ..index.searchfiles import current_generation
from ..index.store import Node
from ..llm.errors import ContextLimitError, ModelError
from ..llm.generator import is_small
from ..llm.types import CancelToken
from .bookfacts import CONTENTS, COUNT, DEFINITION, LENGTH, NAMES_WRITTEN, book_fact
from .context import BookContext, TextFindings
from .counting import chapters_naming, how_often, years_named
from .planning import STOPWORDS, Plan, code_plan, model_plan
from .absent import names_not_in_book, nothing_to_answer
from .answering import DRAFT_PASSAGES, RETRY_BUDGET, AnswerResult, adds_nothing, answer_rules, generate_answer, \
    not_found, resolve_citations
from .definitions import asks_what_it_means, defined, look_up_question, looks_up
from .digest import DigestLine, evidence_digest
from .expected import TELLINGS
from .followup import Earlier, as_earlier, asked_again_of, follow_up_question, follows_record, unglossed
from .full_names import full_name
from .named import GENERIC_WORDS, asks_only_what_was_read, chapter_not_in_book, no_chapter_from_here, parts_named_in, \
    without_asking_so_far
from .narrator import asks_what_befalls_the_teller, with_the_teller_named
from .overview import ENDING, asks_about_the_chapters, asks_about_the_whole_book, asks_what_just_happened, \
    overview, overview_kind, work_out_main_people
from .people import capitalised_words
from .related import RELATED_BUDGET, RELATED_QUESTION, related_plan
from .retrieval import Features, PartEvidence, Retrieval, cut_at, retrieve
from .selection import about_question, focus_record, within_question, within_record
from .spelling import respelled, slips, word_list
from .wording import plainly_worded, the_title_written, who_is_asked, with_the_book_for_its_title


# A question with a quoted paragraph in it fits; a pasted chapter does not: it
# would crowd the passages out of the answer's prompt (a 20,000-character one
# took the default model 88 s to begin, for nothing of use).
MAX_QUESTION_CHARACTERS = 2000
# Passages a count's evidence shows at most: each use where there are no more, else each chapter's first.
MAX_EVIDENCE = 12


def check_question(question: str, book: str) -> None:
    """Refuse, in one line naming the book, a question nothing can be found for."""
    if not question.strip():
        raise ChapterhouseError(f"{book}: the question is empty; ask something about the book")
    if not any(character.isalnum() for character in question):
        # Nothing to plan or match: the dense list alone would rank noise.
        raise ChapterhouseError(f"{book}: the question has no words; ask something about the book")
    length = len(question.strip())
    if length > MAX_QUESTION_CHARACTERS:
        raise ChapterhouseError(f"{book}: the question is {length:,} characters long; ask in at most "
                                f"{MAX_QUESTION_CHARACTERS:,}")


class AnswerSession:
    """A book opened for questions. Needs the book searchable at least
    (`ensure_searchable`: by its words; `ensure_indexed`: stage 1, with its
    vectors); uses whatever higher stages exist."""

    def __init__(self, library, book_id: str, *, generator=None, embedder=None, settings=None):
        self.library = library
        self.book_id = book_id
        self.indexer = BookIndexer(library, book_id, settings=settings, generator=generator, embedder=embedder)
        self._generator = generator
        self._context: BookContext | None = None
        # What the context a new generation replaced found in the text alone, until the next one loads.
        self._found_in_the_text: TextFindings | None = None
        self._loaded_generation: int | None = None
        self.plan_paths = {"model": 0, "code": 0}

    @property
    def context(self) -> BookContext:
        if self._context is None:
            self._loaded_generation = self._generation()
            self._context = BookContext.load(self.indexer.book, self.indexer.store, self.indexer.search())
            if self._found_in_the_text is not None:
                self._context.keep(self._found_in_the_text)
                self._found_in_the_text = None
        return self._context

    def _generation(self) -> int | None:
        generation = current_generation(self.indexer.folder)
        return generation.number if generation is not None else None

    @property
    def generator(self):
        """The answering instance of the generator (indexing has its own)."""
        if self._generator is None:
            from ..llm.loading import open_generator

            self._generator = open_generator(self.indexer.settings, lane="answer")
        return self._generator

    def prepare(self) -> None:
        """Load the book's passages and search files (`context`), and work
        out now what a first question of some kinds would otherwise wait
        for: where the text uses words of looks, callings, homes, origins, names'
        meanings, character and breed, ages and capitalised words, where its
        telling is, its chapters' titles, and its main people and where each
        is told of (once a book): 0.09 s for A Christmas Carol here, 0.45-0.5
        s for Little Women (the words of every kind found in one pass: 0.8-1.2
        s when each kind's took a pass of its own). The app calls it in a
        worker as a book opens; after it "What does Jo look like?" is found
        in 45 ms, not 160. A question asked meanwhile works out what it
        needs itself. Once a process, the English word list every question
        is read against for slips of the keyboard (0.25 s, 0.15 of them
        holding the interpreter: better while a book is laid out than as
        the reader types or waits; before the window shows it would delay
        every start)."""
        context = self.context
        for telling in TELLINGS:
            context.word_places(telling)
        # Cached properties: reading one works it out.
        context.age_phrases
        context.telling_spans  # where the telling is, not dialogue: who tells the book, and whom they meet
        context.chapter_titles  # what names a chapter: every question is read for one
        context.rarity.lower_by_stem
        capitalised_words(context.book.text)
        work_out_main_people(context)  # the first question offered to a reader
        word_list()

    def ensure_indexed(self, progress=None, cancel: CancelToken | None = None) -> int:
        """Build stage 1 if the book has no index yet; returns the stage reached.
        When another thread or process is already building it (the app's
        background indexing), wait for its stage 1 to land instead of racing it."""
        self._build_or_wait(lambda status: status["stage_reached"] >= 1, progress, cancel, words_only=False)
        return self.indexer.status()["stage_reached"]

    def ensure_searchable(self, progress=None, cancel: CancelToken | None = None) -> bool:
        """Make a new book searchable by its words (seconds), leaving its
        vectors to the indexing that goes on meanwhile; or, when another
        thread or process is building its stage 1, wait until that one has
        published the words. Returns whether the book can be searched."""
        self._build_or_wait(lambda status: status["searchable"], progress, cancel, words_only=True)
        return self.indexer.status()["searchable"]

    def _build_or_wait(self, ready, progress, cancel: CancelToken | None, words_only: bool) -> None:
        cancel = cancel or CancelToken()
        while not ready(self.indexer.status()) and not cancel.cancelled:
            try:
                # Never wait on the lock itself: the background job holding it may
                # go on to stage 4, while the question needs only what `ready` asks.
                self.indexer.run(up_to=1, progress=progress, cancel=cancel, words_only=words_only, wait=False)
            except IndexingBusy:
                time.sleep(0.25)
                continue
            break  # done, stopped, or a book with no text to cut: do not loop on it
        self._drop_context()

    def refresh(self) -> None:
        """Pick up index stages that landed since the context was loaded
        (each publishes a new generation); otherwise keep it, with what it
        has worked out so far (word rarity, sentence splits)."""
        if self._generation() != self._loaded_generation:
            self._drop_context()

    def _drop_context(self) -> None:
        """Load the context again when next asked, keeping what the text alone gave (`BookContext.from_the_text`)."""
        if self._context is not None:
            self._found_in_the_text = self._context.from_the_text()
        self._context = None

    def plan(self, question: str, planner: str = "code", cancel: CancelToken | None = None,
             until: int | None = None, focus: tuple[int, int] | None = None,
             within: list[int] | None = None, after: str | Earlier | None = None) -> Plan:
        """planner: "model" (guarded, with the code plan as fallback), "code", or
        "auto": the model unless it is a toy whose plans are not worth the wait.
        With `until`, the plan knows the book only up to that offset; with
        `focus`, the question is about that span of the text; with `within`,
        about those sections; with `after`, it follows that earlier question
        (an `Earlier` brings its answer too)."""
        check_question(question, self.indexer.book.title)
        context = self.context
        characters = context.characters_known_by(until)
        if as_earlier(after) is not None:
            question = follow_up_question(question, after, characters)
        if focus is not None:
            question = about_question(question, context.book.text[focus[0]:focus[1]])
        if within is not None:
            question = within_question(question, within_record(context, within)["label"])
        if asks_what_befalls_the_teller(question, context.teller, until):  # asked as of them, by name
            question = with_the_teller_named(question, context.teller, until)
        if planner == "auto":
            try:
                planner = "code" if is_small(self.generator) else "model"
            except ModelError:  # no model to plan with: the code plans, and the answer says why
                planner = "code"
        if planner == "model":
            plan = model_plan(self.generator, question, context.structure_text(until), characters, context.rarity,
                              cancel)
        else:
            plan = code_plan(question, characters, context.rarity)
        self.plan_paths[plan.path] += 1
        return plan

    def retrieve(self, question: str, budget: int = 12, planner: str = "code", features: Features | None = None,
                 cancel: CancelToken | None = None, until: int | None = None,
                 focus: tuple[int, int] | None = None, within: list[int] | None = None,
                 after: str | Earlier | None = None, at: int | None = None) -> Retrieval:
        """The evidence for a question, no answer call (see `ask` for the arguments)."""
        question, until, here, read_as = self.as_asked(question, until, at)
        question, after = self.asked_again(question, after, until)
        question, focus = self.word_selected(question, self.checked_focus(focus))
        within = self.scope(question, focus, within, until, here)
        found = self.evidence(self.plan(question, planner, cancel, until, focus, within, after), question, budget,
                              until, focus, within, after, features, here, at)
        found.read_as = read_as
        return found

    def evidence(self, plan: Plan, question: str, budget: int = 12, until: int | None = None,
                 focus: tuple[int, int] | None = None, within: list[int] | None = None,
                 after: str | Earlier | None = None, features: Features | None = None,
                 here: int | None = None, at: int | None = None) -> Retrieval:
        """The passages for a planned question (`within` and `focus` checked):
        the book in outline for a question about the whole of it and nothing
        in particular, the chapters in outline for one about them alone
        (overview.py), else retrieval, with half the budget from the
        chapters it names beside a subject of its own (named.py)."""
        if focus is None and as_earlier(after) is None:
            fact = self._book_fact(plan, question, until, within, here, at)
            if fact is not None:
                return fact
        elif focus is None and within is None:  # "How often is he mentioned?" after "Who is Marley?"
            fact = self._counted(unglossed(plan.question), plan, until)
            if fact is not None:
                return fact
        named = self.named_sections(question, focus, within, here)
        found = None
        if focus is None and as_earlier(after) is None and not named:
            if within is None and (asks_about_the_whole_book(question, alone=True)
                                   and not asks_what_befalls_the_teller(question, self.context.teller, until)
                                   or asks_what_just_happened(question)):
                self.check_ending_read(question, until)
                found = overview(plan, question, self.context, budget, until)
            elif within is not None and self._about_the_chapters_alone(question, here):
                self.check_ending_read(question, until, within)
                found = overview(plan, question, self.context, budget, until, within)
        if found is None:
            found = retrieve(plan, self.context, budget=budget, features=features, until=until, focus=focus,
                             within=within, named=named)
        found.absent = names_not_in_book(question, self.context)
        if nothing_to_answer(found.absent):  # chance passages would pass for evidence about them
            found.order = []
            for part in found.parts:
                part.passages, part.sources = [], {}
        return found

    def _book_fact(self, plan: Plan, question: str, until: int | None, within: list[int] | None,
                   here: int | None, at: int | None) -> Retrieval | None:
        """A question about the book itself (bookfacts.py), answered from its
        record: for a count in its text (how often a name is used, which
        chapters name someone, which years it names; counting.py) or for
        someone's name in full (full_names.py), the passages of the uses
        (`_uses`); else no passages, the digest quoting
        the title page or the chapters' headings. None for any other
        question. Chapters named past a reading limit are refused as
        `checked_within` does."""
        started = time.perf_counter()
        counted = self._counted(question, plan, until) if within is None else None
        if counted is not None:
            return counted
        chapters = within or self.context.sections_named_in(question, here)[0]
        fact = book_fact(question, self.context.book, chapters, until, at)
        if fact is None:
            return None
        kind, stated = fact
        # "the first volume" of a book not in parts is answered for the whole book, not its first chapter.
        whole_book = not self.context.book.parts and parts_named_in(question)
        chapters = (self.checked_within(chapters, until) if kind in (CONTENTS, LENGTH) and chapters and not whole_book
                    else None)
        return Retrieval(plan=plan, parts=[PartEvidence(part=part) for part in plan.parts],
                         seconds=time.perf_counter() - started, until=until, overview=kind, stated=stated,
                         within=chapters, meaning_share=self.context.meaning_share)

    def _counted(self, question: str, plan: Plan, until: int | None) -> Retrieval | None:
        """A count in the text (counting.py), someone's name in full
        (full_names.py) or what a word means (definitions.py), with the
        evidence `_uses` gives it; None for any other question."""
        started, book = time.perf_counter(), self.context.book
        counted = (how_often(question, book, until) or chapters_naming(question, book, until)
                   or years_named(question, book, until))
        if counted is not None:
            return self._uses(plan, counted, until, started)
        name = full_name(question, book, self.context.rarity, until)
        if name is not None:
            return self._uses(plan, name, until, started, kind=NAMES_WRITTEN)
        embedder = self.context.search.embedder
        meaning = defined(question, book, self.context.rarity.is_name, until, embedder.embed if embedder else None,
                          self.context.sentence_vector_at)
        return self._uses(plan, meaning, until, started, kind=DEFINITION) if meaning is not None else None

    def _uses(self, plan: Plan, counted: tuple[str, str, list[int]], until: int | None,
              started: float, kind: str = COUNT) -> Retrieval:
        """A count's answer (counting.py) or a name's (full_names.py, `kind`
        NAMES_WRITTEN), its evidence the passage of each
        use where they are few, else of the first use in each chapter
        (evenly spread over them past the budget), what was counted as the
        plan's anchor."""
        phrase, stated, found = counted
        holding: dict[int | str, Node] = {}  # the passage of each use, or of its chapter's first
        for offset in found:
            section = self.context.book.section_at(offset)
            passages = self.context.passages_overlapping(offset, offset)  # none for a chapter's heading
            key = passages[-1].id if len(found) <= MAX_EVIDENCE and passages else section.ordinal if section else None
            if key is not None and key not in holding and passages:
                holding[key] = passages[-1]
        passages = [cut_at(passage, until) for passage in holding.values()]  # nothing past a reading limit shown
        if len(passages) > MAX_EVIDENCE:
            passages = [passages[round(i * (len(passages) - 1) / (MAX_EVIDENCE - 1))] for i in range(MAX_EVIDENCE)]
        plan.parts = plan.parts[:1]
        plan.parts[0].anchors = [phrase]
        evidence = PartEvidence(part=plan.parts[0], passages=passages,
                                sources={passage.id: [kind] for passage in passages})
        return Retrieval(plan=plan, parts=[evidence], seconds=time.perf_counter() - started,
                         order=[passage.id for passage in passages], until=until, overview=kind, stated=stated,
                         meaning_share=self.context.meaning_share, uses=found)

    def related(self, focus: tuple[int, int], budget: int = RELATED_BUDGET, until: int | None = None,
                within: list[int] | None = None) -> Retrieval:
        """Passages elsewhere in the book that tell of the selected span (see related.py)."""
        focus, within = self.checked_focus(focus), self.checked_within(within, until)
        return self._related(focus, budget, until, within)

    def _related(self, focus: tuple[int, int] | None, budget: int, until: int | None,
                 within: list[int] | None) -> Retrieval:
        if focus is None:
            raise ChapterhouseError(f"{self.indexer.book.title}: related passages are found for a passage of the "
                                    "book, and none was given")
        context = self.context
        plan = related_plan(context.book.text[focus[0]:focus[1]], context.characters_known_by(until), context.rarity)
        held = {node.id for node in context.passages_overlapping(*focus)}
        found = retrieve(plan, context, budget=budget, until=until, within=within, leave_out=held)
        found.focus = focus  # what it was about, though not itself in the evidence
        return found

    def follows(self, question: str, after: str | Earlier | None, until: int | None = None) -> dict | None:
        """What is kept of the earlier question a follow-up followed, and how the follow-up was taken."""
        if as_earlier(after) is None:
            return None
        return follows_record(after, follow_up_question(question, after, self.context.characters_known_by(until)))

    def asked_again(self, question: str, after: str | Earlier | None,
                    until: int | None) -> tuple[str, str | Earlier | None]:
        """A follow-up that asks the earlier question again of someone or some
        chapter else ("And Louisa?" after "How many times is Anne
        mentioned?") is that question, asked afresh; any other is as given."""
        earlier = as_earlier(after)
        if earlier is None:  # a name typed by itself asks who that is; after a question, that question of them
            return who_is_asked(question, self.context.rarity.is_name), after
        again = asked_again_of(question, earlier.question, self.context.characters_known_by(until))
        return (again, None) if again else (question, after)

    def as_asked(self, question: str, until: int | None,
                 at: int | None) -> tuple[str, int | None, int | None, list[tuple[str, str]]]:
        """The question as `retrieve` and `ask` take it, its reading limit
        and the chapter the reader is in: courtesies off and an indirect
        question put directly ("Can you tell me who Marley is?": "Who is
        Marley?"; wording.py), the book's title after "in" as "the book"
        ("What happens in Little Women?"), a question about its title that
        does not write it with the title ("What does the title mean?"), a name
        typed without its accents written as the book does ("Leon": "Léon"), a
        possessive typed without its apostrophe with one ("Scrooges nephew"),
        slips of the keyboard in its other words mended ("happend";
        spelling.py, with the words so read), its names capitalised, "tell me
        about Laurie" as "Who is Laurie?", "so far" a reading limit
        (`limit_asked`), the chapter at `at` for "this chapter"."""
        rarity = self.context.rarity
        title = self.context.book.title
        question = with_the_book_for_its_title(the_title_written(plainly_worded(question), title), title)
        question = rarity.with_apostrophes(rarity.spelled_as_written(question))
        read_as = slips(question, rarity.frequency)
        question = rarity.with_names_capitalised(respelled(question, read_as), GENERIC_WORDS | STOPWORDS)
        question = who_is_asked(question, rarity.is_name, alone=False)
        question, until = self.limit_asked(question, until, at)
        return question, until, self.chapter_at(at), read_as

    def limit_asked(self, question: str, until: int | None, at: int | None) -> tuple[str, int | None]:
        """The question and its reading limit: for one that asks what just
        happened, where the reader is (`at`), within any limit set; for one
        that asks for no more than what was read ("What has happened so
        far?"), the limit set, else where the reader is, and the question
        without those words; refused in one line with neither (the whole
        book would spoil it)."""
        if asks_what_just_happened(question):  # recalled from where the reader is, within any reading limit
            if until is None and at is None:
                raise ChapterhouseError(f"{self.indexer.book.title}: \u201cwhat just happened\u201d is told from where "
                                        "the reader is: ask there, or set a reading limit")
            return question, min(place for place in (until, at) if place is not None)
        if not asks_only_what_was_read(question):
            return question, until
        if until is None and at is None:
            raise ChapterhouseError(f"{self.indexer.book.title}: \u201cso far\u201d is up to where the reader is: ask "
                                    "there, or set a reading limit")
        return without_asking_so_far(question), until if until is not None else at

    def chapter_at(self, at: int | None) -> int | None:
        """The ordinal of the chapter a reader at this offset is in (the
        first in the pages before it, the last in those after)."""
        sections = self.context.book.sections
        if at is None or not sections:
            return None
        section = self.context.book.section_at(at)
        return section.ordinal if section else sections[0 if at < sections[0].start else -1].ordinal

    def scope(self, question: str, focus: tuple[int, int] | None, within: list[int] | None,
              until: int | None = None, here: int | None = None) -> list[int] | None:
        """The chapters a question is about (checked as `checked_within`
        does): those given, else those it names and asks about alone
        ("Summarize Stave 3", "Summarize this chapter" where the reader is
        in chapter `here`; see named.py). Not for a question about a
        selection, which is about that."""
        if within is None and focus is None:
            missing = chapter_not_in_book(question, self.context.book) or no_chapter_from_here(
                question, self.context.book, here)
            if missing:
                raise ChapterhouseError(missing)
            named, only = self.context.sections_named_in(question, here)
            within = named if only else None
        return self.checked_within(within, until)

    def _about_the_chapters_alone(self, question: str, here: int | None = None) -> bool:
        """Whether a question about some chapters asks about them as a whole:
        one that names them and nothing else ("Summarize Stave 3"), or, for
        chapters picked in the contents, one like "What happens here?"."""
        named, only = self.context.sections_named_in(question, here)
        return only if named else asks_about_the_chapters(question)

    def named_sections(self, question: str, focus: tuple[int, int] | None,
                       within: list[int] | None, here: int | None = None) -> list[int] | None:
        """The sections a question names beside a subject of its own ("How
        does the storm in chapter 3 foreshadow the end?"): half the budget
        comes from them first, the rest from the whole book (see named.py)."""
        if within is not None or focus is not None:
            return None
        named, only = self.context.sections_named_in(question, here)
        return named if named and not only else None

    def checked_within(self, within: list[int] | None, until: int | None = None) -> list[int] | None:
        """Section ordinals asked about, refused in one line when the book has
        no such section, or when a reading limit (`until`) comes before all of
        them: nothing in them may be used, and an answer with no evidence would
        not say why."""
        if within is None:
            return None
        count = len(self.indexer.book.sections)
        wrong = [ordinal for ordinal in within if not 1 <= ordinal <= count]
        if wrong or not within:
            raise ChapterhouseError(f"{self.indexer.book.title}: section {wrong[0] if wrong else '(none)'}: the book "
                                    f"has sections 1 to {count} (see `chapterhouse sections`)")
        within = sorted(set(within))
        begun = self.context.sections_begun(until)
        if begun is not None and not set(within) & set(begun):
            asked = within_record(self.context, within)["label"]
            limit = self.context.reading_limit(until)["label"]
            raise ChapterhouseError(f"{self.indexer.book.title}: {asked} {'lies' if len(within) == 1 else 'lie'} past "
                                    f"the reading limit (up to {limit}): nothing there may be used until it is read "
                                    "or the limit is lifted")
        return within

    def check_ending_read(self, question: str, until: int | None, within: list[int] | None = None) -> None:
        """A question on how the book (or the chapters `within`) ends,
        refused in one line while the reader has not begun its last chapter:
        the last pages they have read are not its ending, and the ending may
        not be shown them."""
        book = self.indexer.book
        last = book.sections[max(within) - 1] if within else book.sections[-1] if book.sections else None
        if until is None or overview_kind(question) != ENDING or last is None or last.start < until:
            return
        limit = self.context.reading_limit(until)["label"]
        whose = f"the end of {within_record(self.context, within)['label']}" if within else "its ending"
        raise ChapterhouseError(f"{book.title}: {whose} lies past the reading limit (up to {limit}): it may not "
                                "be used until it is read or the limit is lifted")

    def checked_focus(self, focus: tuple[int, int] | None) -> tuple[int, int] | None:
        """A selection's span, refused in one line when it is not text of this book."""
        if focus is None:
            return None
        start, end = focus
        text = self.indexer.book.text
        if not 0 <= start < end <= len(text) or not text[start:end].strip():
            raise ChapterhouseError(f"{self.indexer.book.title}: characters {start}-{end} are not text of the book "
                                    f"(it has {len(text):,})")
        return start, end

    def word_selected(self, question: str, focus: tuple[int, int] | None) -> tuple[str, tuple[int, int] | None]:
        """"What does this mean?" about a word selected ("gig") is "What
        does “gig” mean?" of the whole book (definitions.py); any other
        question, or one about more than a word or two or a name, as asked."""
        if focus is None or not asks_what_it_means(question):
            return question, focus
        text = self.context.book.text
        word = looks_up(text[focus[0]:focus[1]], text[max(0, focus[0] - 40):focus[0]])
        return (look_up_question(word), None) if word else (question, focus)

    def digest_text(self, retrieval: Retrieval) -> str:
        return " ".join(line.text for line in self.digest(retrieval))

    def digest(self, retrieval: Retrieval) -> list[DigestLine]:
        return evidence_digest(retrieval, self.context)

    @property
    def writes_answers(self) -> bool:
        """Whether `ask` has the generator write an answer under the digest
        (the settings' "answers"); when not, no generator is even loaded."""
        return self.indexer.settings.answers == "model"

    def prepare_answer(self, until: int | None = None, cancel: CancelToken | None = None) -> int:
        """Have the generator read, while the reader is still typing, the start
        every answer prompt on this book shares (its rules and structural card:
        235-640 tokens, 1.5-4 s of the default model's prompt pass here), so the
        first answer starts that much sooner. Only where the answer is the
        model's next call: a capable model plans first, with another prompt.
        Loads the generator in any case. Returns the tokens it holds read."""
        if not self.writes_answers:
            return 0
        generator = self.generator  # the property loads it
        if not is_small(generator) or not self.indexer.status()["searchable"]:
            return 0
        return generator.prefill([answer_rules(self.context, until)], cancel)

    @property
    def answer_leads(self) -> bool:
        """Whether the model's answer leads, above the evidence: only from a
        capable generator. A small one's answer is a draft under the digest,
        and with answers off there is none (nor a model loaded to decide);
        nor with a model that cannot be loaded (the answer says why)."""
        if not self.writes_answers:
            return False
        try:
            return not is_small(self.generator)
        except ModelError:
            return False

    def ask(self, question: str, budget: int = 12, planner: str = "auto", cancel: CancelToken | None = None,
            on_digest=None, on_text=None, on_retry=None, on_reading=None, until: int | None = None,
            focus: tuple[int, int] | None = None, within: list[int] | None = None,
            after: str | Earlier | None = None, related: bool = False, at: int | None = None) -> AnswerResult:
        """Plan, retrieve, digest, answer. `on_digest` gets the digest as soon as
        it exists (before any answer text), `on_reading(done, total,
        seconds_left)` the model's progress through the prompt in tokens,
        `on_text` each piece of the answer, `on_retry` a notice that the answer
        restarts with more passages. With `until` (a reader's position in the
        text), nothing after it is used: no spoilers. With `focus` (start and
        end of a span of the text: a reader's selection), the question is
        about that span, and the passages holding it lead the evidence. With
        `within` (section ordinals: a chapter), only those sections are used.
        With `at` (where the reader is: an offset in the text), "this
        chapter" and "the previous chapter" are the one there and the one
        before, and a question asking for no spoilers ("so far") is answered
        from the text before it. With `after` (an earlier question), the
        question follows it: "him" is whoever that one named; an `Earlier`
        with the answer it was given puts that answer in the prompt too. A
        question that names chapters or asks about the whole book is taken
        as such (`scope`, `evidence`).
        With `related`, the question is where else the book tells of the
        `focus`: the evidence alone, no model call."""
        cancel = cancel or CancelToken()
        started = time.perf_counter()
        question, until, here, read_as = self.as_asked(question, until, at)
        follows = None if related else self.follows(question, after, until)
        question, after = self.asked_again(question, after, until)
        focus = self.checked_focus(focus)
        if not related:
            question, focus = self.word_selected(question, focus)
        within = self.checked_within(within, until) if related else self.scope(question, focus, within, until, here)
        if planner == "auto" and not self.writes_answers:
            planner = "code"
        if related:
            question = RELATED_QUESTION
            retrieval = self._related(focus, budget, until, within)
            plan = retrieval.plan
            planned = time.perf_counter() - retrieval.seconds
        else:
            plan = self.plan(question, planner, cancel, until, focus, within, after)
            planned = time.perf_counter()
            retrieval = self.evidence(plan, question, budget, until, focus, within, after, here=here, at=at)
            retrieval.read_as = read_as
        # The evidence shown first is timed, not a retry's wider retrieval.
        retrieval_seconds = retrieval.seconds
        digest = self.digest(retrieval)
        digested = time.perf_counter()
        if on_digest is not None:
            on_digest(digest, retrieval)
        labels = self.context.book.cited_labels()
        limit = self.context.reading_limit(until, at)
        about = focus_record(self.context, focus) if focus is not None else None
        # "What is chapter 5 called?" is about chapter 5 alone, though it names no subject of its own.
        about_chapters = within if within is not None else retrieval.within if retrieval.stated else None
        chapters = within_record(self.context, about_chapters) if about_chapters is not None else None
        named_record = within_record(self.context, retrieval.named) if retrieval.named else None

        def timings(first_token: float | None) -> dict:
            return {"planning": round(planned - started, 3), "retrieval": round(retrieval_seconds, 4),
                    "digest": round(digested - planned - retrieval_seconds, 3),
                    "first_token": round(digested - started + first_token, 3) if first_token is not None else None,
                    "total": round(time.perf_counter() - started, 3)}

        def evidence_alone(answer: str = "", **why) -> AnswerResult:
            return AnswerResult(
                question=question, answer=answer, lead="answer" if answer else "digest", citations=[],
                citations_dropped=0, not_found=False,
                retried=False, digest=digest, retrieval=retrieval, plan=plan, cancelled=cancel.cancelled,
                labels=labels, timings=timings(None), reading_limit=limit, focus=about,
                within=chapters, named=named_record, overview=retrieval.overview, follows=follows,
                tokens={"prompt": 0, "processed": 0, "generated": 0}, **why)

        if related:
            return evidence_alone(written=False, related=True)
        if retrieval.stated:  # the book's record answers it: no model call
            return evidence_alone(retrieval.stated)
        if not self.writes_answers or nothing_to_answer(retrieval.absent):
            return evidence_alone(written=False)
        # The evidence is found and shown: a model that cannot be loaded or
        # run loses the answer, not the evidence.
        try:
            draft = not self.answer_leads
            shown = DRAFT_PASSAGES if draft else None
            earlier = as_earlier(after)
            generated = generate_answer(self.generator, self.context, retrieval, cancel, on_text, shown, on_reading,
                                        earlier)
            retried = False
            # A draft that says "not found" is not worth twice the wait: the digest
            # already shows every passage found.
            if (generated["finish"] != "cancelled" and not_found(generated["text"]) and budget < RETRY_BUDGET
                    and not draft):
                retried = True
                retrieval = self.evidence(plan, question, RETRY_BUDGET, until, focus, within, after, here=here,
                                          at=at)
                retrieval.read_as = read_as
                if on_retry is not None:
                    on_retry(retrieval)
                first = generated
                generated = generate_answer(self.generator, self.context, retrieval, cancel, on_text,
                                            on_reading=on_reading, earlier=earlier)
                generated["first_token"] = first["first_token"]
                for key in ("prompt", "processed", "generated"):
                    generated[key] += first[key]
        except (ModelError, ContextLimitError) as error:
            return evidence_alone(model_error=str(error))
        answer, citations, dropped = resolve_citations(generated["text"], self.context, retrieval)
        discarded = ""
        if generated["finish"] != "cancelled" and adds_nothing(answer, question):
            discarded, answer, citations = answer, "", []
        return AnswerResult(
            question=question, answer=answer, lead="digest" if draft else "answer",
            citations=citations, citations_dropped=dropped, not_found=not_found(answer), retried=retried,
            digest=digest, retrieval=retrieval, plan=plan, cancelled=generated["finish"] == "cancelled",
            labels=labels, discarded_draft=discarded, timings=timings(generated["first_token"]), reading_limit=limit,
            focus=about, within=chapters, named=named_record, overview=retrieval.overview, follows=follows,
            tokens={key: generated[key] for key in ("prompt", "processed", "generated")},
        )
