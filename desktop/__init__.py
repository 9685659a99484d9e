"""Chapterhouse desktop app: PySide6 windows over the engine's API."""
