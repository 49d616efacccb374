"""The LRU caches and the two-tier answer cache."""

import threading
import time

import pytest

from function.service.cache import LRU, AnswerCache, answer_key, normalize_question


def test_lru_evicts_the_least_recently_used_entry():
    c = LRU(max_entries=2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1  # a is now the most recent
    c.put("c", 3)
    assert c.get("b") is None and c.get("a") == 1 and c.get("c") == 3


def test_lru_bounded_in_bytes():
    c = LRU(max_bytes=10, sizeof=len)
    c.put("a", "xxxx")
    c.put("b", "yyyy")
    c.put("c", "zzzz")  # 12 bytes > 10: a goes
    assert c.get("a") is None and c.bytes == 8
    c.put("big", "x" * 11)  # larger than the whole cache: not kept, nothing evicted
    assert c.get("big") is None and c.get("b") == "yyyy"
    c.put("b", "y")  # replacing an entry updates the byte count
    assert c.bytes == 5


def test_question_normalisation_only_removes_what_the_model_cannot_see():
    assert normalize_question("  Who   WAS\tthe king? ", lowercase=True) == "who was the king?"
    assert normalize_question("Who WAS", lowercase=False) == "Who WAS"
    assert normalize_question("cafe\u0301", True) == normalize_question("caf\u00e9", True)


def test_answer_key_depends_on_everything_that_decides_the_answer(monkeypatch):
    base = dict(artifact_hash="h", question="q", source={"passage_ids": ["a", "b"]},
                params={"top_k": 1, "max_answer_tokens": 30})
    k = answer_key(**base)
    assert k == answer_key(**base)
    for change in ({"artifact_hash": "h2"}, {"question": "q2"}, {"source": {"passage_ids": ["a"]}},
                   {"source": {"context_sha256": "x"}}, {"params": {"top_k": 2, "max_answer_tokens": 30}}):
        assert answer_key(**{**base, **change}) != k
    # a revision that decodes answers otherwise does not serve what an older one cached
    monkeypatch.setattr("function.service.cache.DECODING_VERSION", 1)
    assert answer_key(**base) != k


class FakeShared:
    def __init__(self, fail=False):
        self.data, self.fail = {}, fail

    def get_answer(self, key):
        if self.fail:
            raise ConnectionError("down")
        return self.data.get(key)

    def put_answer(self, key, payload, expires_at):
        if self.fail:
            raise ConnectionError("down")
        self.data[key] = payload
        self.expires_at = expires_at


def test_answer_cache_tiers():
    shared = FakeShared()
    errors = []
    cache = AnswerCache(entries=10, ttl_s=60, shared=shared, on_error=errors.append)
    assert cache.get("k") == (None, None)
    cache.put("k", {"answers": []})
    assert cache.get("k") == ({"answers": []}, "local")
    deadline = time.time() + 5
    while "k" not in shared.data and time.time() < deadline:
        time.sleep(0.01)
    assert shared.data["k"] == {"answers": []} and shared.expires_at > time.time() + 50
    other = AnswerCache(entries=10, ttl_s=60, shared=shared)  # another instance: shared hit, then local
    assert other.get("k") == ({"answers": []}, "shared")
    assert other.get("k") == ({"answers": []}, "local")
    assert errors == []


def test_a_failing_shared_tier_is_a_miss_not_an_error():
    errors = []
    cache = AnswerCache(entries=10, ttl_s=60, shared=FakeShared(fail=True), on_error=errors.append)
    assert cache.get("k") == (None, None)
    assert errors and "read failed" in errors[0]


class HeldShared(FakeShared):
    """A shared tier whose writes wait until the test lets them go."""

    def __init__(self, fail=False):
        super().__init__(fail)
        self.go = threading.Event()

    def put_answer(self, key, payload, expires_at):
        assert self.go.wait(5)
        super().put_answer(key, payload, expires_at)


@pytest.mark.parametrize("fail", [False, True], ids=["written", "failed"])
def test_a_shared_write_counts_as_in_flight_until_it_ends(fail):
    """What the cost benchmark waits on before it reads the process's operation totals."""
    from function.store import ops

    shared, errors = HeldShared(fail=fail), []
    cache = AnswerCache(entries=10, ttl_s=60, shared=shared, on_error=errors.append)
    before = ops.in_flight()
    cache.put("k", {"answers": []})
    assert ops.in_flight() == before + 1  # counted as soon as put returns, before the write has run
    shared.go.set()
    deadline = time.time() + 5
    while ops.in_flight() > before and time.time() < deadline:
        time.sleep(0.01)
    assert ops.in_flight() == before
    assert ("k" in shared.data) is not fail and bool(errors) is fail
