"""The LLM segmenter (LitSeg-Lite): its answer checked and repaired, and a
real run on the embedded default model."""

from __future__ import annotations

from engine.index.indexer import BookIndexer
from engine.index.segmenter import SegmentationStats, _validated
from engine.llm import ModelSettings, open_embedder, open_generator


def test_segments_are_validated_and_repaired():
    stats = SegmentationStats()
    answer = {"segments": [
        {"start": 3, "end": 5, "subtitle": "At the pond", "context": [1, 99]},
        {"start": 8, "end": 12, "subtitle": "The hunt"},
        {"start": 9, "end": 10, "subtitle": "inside the last one"},
        {"start": 0, "end": 40, "subtitle": "out of range"},
        {"start": "x", "end": 2, "subtitle": "not a number"},
    ]}
    segments = _validated(answer, 14, stats)
    # 0-based, every sentence covered: the opening gap joins the first segment,
    # 6-7 join the segment on their left, 13-14 join the last.
    assert [(s[0], s[1]) for s in segments] == [(0, 6), (7, 13)]
    assert segments[0][2] == "At the pond" and segments[0][3] == [0]
    assert stats.repaired_gaps == 3
    assert _validated({"segments": []}, 5, stats) is None
    assert _validated({"nonsense": 1}, 5, stats) is None
    assert _validated(None, 5, stats) is None


def test_llm_segmenter_on_the_default_model(library, fixtures):
    book_id = library.import_book(fixtures / "three-chapters.txt").book_id
    generator, embedder = open_generator(ModelSettings()), open_embedder(ModelSettings())
    indexer = BookIndexer(library, book_id, generator=generator, embedder=embedder, segmenter="llm")
    result = indexer.run(up_to=1)
    stats = result.stats[1]["segmentation"]
    assert stats["sections"] == 3 and stats["llm_sections"] + stats["fallback_sections"] == 3
    assert result.stats[1]["llm"]["processed_prompt_tokens"] > 0
    book = indexer.book
    for section in book.sections:
        passages = indexer.store.nodes(kind="passage", section=section.ordinal)
        assert passages
        # Main ranges tile the section's body: no sentence is lost.
        body = [p for p in book.paragraphs if p.section == section.ordinal and p.kind != "heading"]
        assert passages[0].start == body[0].start and passages[-1].end == body[-1].end
        for before, after in zip(passages, passages[1:]):
            assert after.start >= before.start and not book.text[before.end:after.start].strip()
    assert indexer.status()["chunking"]["segmenter"] == "llm"
    if stats["llm_sections"]:
        assert any(p.title for p in indexer.store.nodes(kind="passage"))
    assert indexer.search().search("the hare", k=1)
