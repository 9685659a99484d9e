"""How far a reader has read: reading on counts, leaping ahead does not."""

from desktop.reading_progress import ReadingProgress

SCREEN = 600  # pixels in view


def test_reading_on_a_screen_at_a_time_moves_it_and_going_back_keeps_it():
    progress = ReadingProgress()
    progress.moved(top=0, bottom=900, step_px=0, screen_px=SCREEN)  # a book opened the first time
    assert progress.read_to == 900
    progress.moved(top=40, bottom=940, step_px=40, screen_px=SCREEN)  # a turn of the wheel
    assert progress.read_to == 940
    progress.moved(top=880, bottom=1800, step_px=SCREEN, screen_px=SCREEN)  # Page Down skips nothing
    assert progress.read_to == 1800
    progress.moved(top=0, bottom=900, step_px=-1800, screen_px=SCREEN)  # back to re-read the start
    assert progress.read_to == 1800


def test_a_leap_ahead_counts_for_nothing_until_the_reader_comes_back():
    progress = ReadingProgress(1800)
    progress.moved(top=9000, bottom=9900, step_px=5000, screen_px=SCREEN)  # a citation far ahead
    assert progress.away and progress.read_to == 1800
    progress.moved(top=9100, bottom=10000, step_px=40, screen_px=SCREEN)  # reading on over there
    assert progress.read_to == 1800
    progress.moved(top=1500, bottom=2400, step_px=-5000, screen_px=SCREEN)  # Back: where they were
    assert not progress.away and progress.read_to == 2400
    progress.moved(top=2300, bottom=3200, step_px=SCREEN, screen_px=SCREEN)
    assert progress.read_to == 3200


def test_a_page_laid_out_again_reads_nothing_on():
    progress = ReadingProgress(500)  # reopened: the page in view goes on past what was read
    progress.moved(top=0, bottom=900, step_px=0, screen_px=SCREEN)
    assert progress.read_to == 500
    progress.moved(top=20, bottom=920, step_px=20, screen_px=SCREEN)
    assert progress.read_to == 920


def test_the_reader_sets_it_by_hand_either_way():
    progress = ReadingProgress(1800)
    progress.moved(top=9000, bottom=9900, step_px=5000, screen_px=SCREEN)
    progress.set(9500)  # "I have read up to here" on the page leapt to
    assert progress.read_to == 9500 and not progress.away
    progress.set(400)  # and back: someone else reads the book from the start
    assert progress.read_to == 400
    progress.moved(top=200, bottom=1100, step_px=40, screen_px=SCREEN)
    assert progress.read_to == 1100
