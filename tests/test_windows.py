"""Window layout: the input every model call sees, in the function and in the build stage."""

import numpy as np
import pytest

from function.model.windows import WindowSpec, build_batch, window_starts

SPEC = WindowSpec(max_seq_len=16, stride=3, max_query_tokens=5, cls_id=101, sep_id=102, pad_id=0)


def test_window_starts_cover_every_token_with_the_stated_overlap():
    budget, stride = 10, 3
    for n in range(1, 60):
        starts = window_starts(n, budget, stride)
        covered = set()
        for s in starts:
            covered.update(range(s, min(s + budget, n)))
        assert covered == set(range(n))
        assert all(b - a == budget - stride for a, b in zip(starts, starts[1:]))
        assert starts[-1] + budget >= n and (len(starts) == 1 or starts[-2] + budget < n)


def test_short_passage_is_one_window_in_bert_pair_layout():
    q = [11, 12]
    p = np.array([21, 22, 23])
    b = build_batch(q, [p], SPEC)
    assert b.input_ids.tolist() == [[101, 11, 12, 102, 21, 22, 23, 102]]
    assert b.token_type_ids.tolist() == [[0, 0, 0, 0, 1, 1, 1, 1]]
    assert b.attention_mask.tolist() == [[1] * 8]
    assert b.context_start == 4
    assert b.token_start.tolist() == [0] and b.context_len.tolist() == [3]


def test_long_passages_split_into_overlapping_windows_padded_to_the_longest():
    q = [11, 12]
    budget = SPEC.passage_budget(len(q))  # 16 - 2 - 3 = 11
    long_p = np.arange(1000, 1025)
    short_p = np.array([7, 8])
    b = build_batch(q, [long_p, short_p], SPEC)
    assert budget == 11
    assert b.passage_index.tolist() == [0, 0, 0, 1]
    assert b.token_start.tolist() == [0, 8, 16, 0]
    assert b.context_len.tolist() == [11, 11, 9, 2]
    assert b.input_ids.shape == (4, SPEC.max_seq_len)  # the longest window fills max_seq_len
    for w in range(len(b)):
        n = int(b.context_len[w])
        s = int(b.token_start[w])
        src = [long_p, short_p][int(b.passage_index[w])]
        assert b.input_ids[w, 4 : 4 + n].tolist() == src[s : s + n].tolist()
        assert b.input_ids[w, 4 + n] == 102
        assert b.attention_mask[w].sum() == 4 + n + 1
        assert (b.input_ids[w, 4 + n + 1 :] == 0).all()


def test_batch_is_padded_only_to_its_longest_window():
    b = build_batch([11], [np.array([1, 2, 3]), np.array([4])], SPEC)
    assert b.input_ids.shape == (2, 1 + 2 + 3 + 1)


def test_a_question_over_the_token_limit_is_refused():
    with pytest.raises(ValueError, match="more than 5"):
        build_batch(list(range(6)), [np.array([1])], SPEC)


def test_roberta_layout_puts_two_separators_between_question_and_passage():
    spec = WindowSpec(max_seq_len=12, stride=2, max_query_tokens=5, cls_id=0, sep_id=2, pad_id=1, pair_seps=2)
    b = build_batch([11, 12], [np.arange(20, 30)], spec)
    assert spec.passage_budget(2) == 12 - 2 - 4
    assert b.context_start == 5
    assert b.input_ids[0].tolist() == [0, 11, 12, 2, 2, 20, 21, 22, 23, 24, 25, 2]
    assert b.token_start.tolist() == [0, 4] and b.context_len.tolist() == [6, 6]
    assert b.input_ids[1].tolist() == [0, 11, 12, 2, 2, 24, 25, 26, 27, 28, 29, 2]
    assert b.token_type_ids[1].tolist() == [0] * 5 + [1] * 7
    short = build_batch([11], [np.arange(20, 23)], spec)
    assert short.input_ids[0].tolist() == [0, 11, 2, 2, 20, 21, 22, 2]
