"""How far a reader has read a book: the limit of a question asked "only
from what I have read".

Reading on moves it: whatever the reader scrolls through a screen or less at
a time has been in front of them. A leap further than that (following a
citation, a search match, the contents, a fast drag of the scroll bar) skips text
they never saw, so it counts for nothing until they come back to what they
had read: looking something up never gives the rest of the book away, and
going back to re-read an early chapter keeps the later ones. The reader can
also set it by hand. Plain Python (no Qt), kept per book in its journal.
"""

from __future__ import annotations

# A step of one screen (Page Down, a click in the scroll bar's trough) skips
# nothing; the slack absorbs a heading's margin.
LEAP_SCREENS = 1.1


class ReadingProgress:
    def __init__(self, read_to: int | None = None):
        self.read_to = read_to  # the end of the furthest paragraph read on to; None: never in view yet
        self.away = False  # leapt ahead of it, and not back yet

    def moved(self, top: int, bottom: int, step_px: int, screen_px: int) -> None:
        """The view moved by `step_px` pixels (0: it was just laid out) and
        shows the text from offset `top` to `bottom`."""
        if self.read_to is None or top <= self.read_to:
            self.away = False
        elif step_px > screen_px * LEAP_SCREENS:
            self.away = True
        # Only a move reads on: a page just laid out again (a reopened book, a
        # new font size) may hold more than the reader said they had read.
        if not self.away and (step_px or self.read_to is None):
            self.read_to = max(self.read_to or 0, bottom)

    def set(self, offset: int) -> None:
        """The reader says they have read up to `offset`, either way from where it was."""
        self.read_to, self.away = offset, False
