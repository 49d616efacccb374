"""Window settings for training and serving, from the build configuration and the tokenizer."""

from __future__ import annotations

from build_model.config import BuildConfig, Training
from function.model.tokenizer import QATokenizer
from function.model.windows import WindowSpec


def _spec(tok: QATokenizer, max_seq_len: int, stride: int, max_query_tokens: int) -> WindowSpec:
    return WindowSpec(max_seq_len=max_seq_len, stride=stride, max_query_tokens=max_query_tokens,
                      **tok.pair_layout())


def serving_spec(cfg: BuildConfig, tok: QATokenizer) -> WindowSpec:
    s = cfg.sequence
    return _spec(tok, s.max_seq_len, s.stride, s.max_query_tokens)


def training_spec(cfg: BuildConfig, tok: QATokenizer, training: Training) -> WindowSpec:
    return _spec(tok, training.train_seq_len, training.train_stride, cfg.sequence.max_query_tokens)
