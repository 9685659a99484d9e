"""Answering questions about a book: plan, retrieve per part, digest the evidence, answer with citations."""
