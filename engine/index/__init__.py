"""The ladder index of a book: passages, situating sentences, summaries and cards, searchable by BM25 and vectors."""
