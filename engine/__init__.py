"""Chapterhouse engine: books, sections, storage (and, in later issues, the
ladder index, local models and answering). Never imports Qt."""

__version__ = "0.1.0"
