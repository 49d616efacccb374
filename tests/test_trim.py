"""BurstTrim: memory handed back once a burst of overlapping requests is over, never for requests one at a time."""

from function.service.trim import BurstTrim, malloc_trim


class Timers:
    """A stand-in for the timer thread: what was scheduled, run when the test says."""

    def __init__(self):
        self.due = []

    def __call__(self, delay_s, fn):
        self.due.append((delay_s, fn))

    def run_all(self):
        due, self.due = self.due, []
        for _, fn in due:
            fn()


def make(enabled=True):
    calls, timers = [], Timers()
    return BurstTrim(enabled, trim=lambda: calls.append(1), delay_s=0.5, schedule=timers), calls, timers


def test_requests_one_at_a_time_never_trim():
    bursts, calls, timers = make()
    for _ in range(5):
        bursts.start()
        bursts.done()
    assert timers.due == [] and calls == []


def test_the_end_of_a_burst_trims_once_after_the_delay():
    bursts, calls, timers = make()
    bursts.start()
    bursts.start()  # overlaps the first
    bursts.done()
    assert timers.due == []  # one still in flight
    bursts.done()
    assert [d for d, _ in timers.due] == [0.5] and calls == []
    timers.run_all()
    assert calls == [1] and bursts.trims == 1
    bursts.start()  # alone again: no new burst, no new trim
    bursts.done()
    assert timers.due == [] and calls == [1]


def test_a_request_within_the_delay_defers_the_trim_to_its_own_end():
    bursts, calls, timers = make()
    bursts.start()
    bursts.start()
    bursts.done()
    bursts.done()
    bursts.start()  # comes in before the timer fires
    timers.run_all()
    assert calls == []  # skipped: a request is in flight
    bursts.done()  # the burst's flag still stands: its end schedules the trim again
    timers.run_all()
    assert calls == [1]


def test_one_timer_at_a_time_and_a_quiet_delay_after_the_last_request():
    bursts, calls, timers = make()
    for _ in range(3):  # the count touches zero three times inside a burst
        bursts.start()
        bursts.start()
        bursts.done()
        bursts.done()
    assert len(timers.due) == 1  # one timer, not one per touch
    bursts.start()
    bursts.done()  # came and went while the timer waited
    timers.run_all()
    assert calls == [] and len(timers.due) == 1  # not quiet for the whole delay: it waits again
    timers.run_all()
    assert calls == [1] and timers.due == [] and bursts.trims == 1


def test_off_never_trims():
    bursts, calls, timers = make(enabled=False)
    bursts.start()
    bursts.start()
    bursts.done()
    bursts.done()
    timers.run_all()
    assert timers.due == [] and calls == [] and bursts.trims == 0


def test_glibcs_trim_is_found_here():
    assert malloc_trim()  # the image and CI run Debian's glibc; elsewhere it is a no-op, never an error
