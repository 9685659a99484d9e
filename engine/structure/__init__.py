"""Finding a book's own structure (sections, parts, tables of contents) without any model."""

from .sections import Structure, detect_structure

__all__ = ["Structure", "detect_structure"]
