"""Tiny randomly initialised extractive-QA models of several architectures, as Hugging Face model folders.

Each folder holds what a model taken from the hub holds (``config.json``, the
weights, ``tokenizer.json``, ``tokenizer_config.json``), so that
``AutoModelForQuestionAnswering.from_pretrained(folder)`` and
``AutoTokenizer.from_pretrained(folder)`` load it, with no hub and no
sentencepiece. The tokenizers are trained here, on the sample corpus plus some
hostile text (accents composed and decomposed, CJK, emoji, runs of white space),
with the pipeline of the real model family: WordPiece (uncased and cased) for
the BERT family, byte-level BPE for RoBERTa, Unigram with Metaspace for
DeBERTa-v2/v3 and ALBERT, WordPiece with ``<s> A </s></s> B </s>`` for MPNet.

transformers 5 rebuilds a tokenizer's normaliser and pre-tokeniser from its
class and ``tokenizer_config.json`` rather than reading them from
``tokenizer.json``; the pipelines below copy what those classes build, and
``make_tiny_qa_model`` checks that the loaded tokenizer encodes the hostile text
exactly as ``tokenizer.json`` does, so that a test never compares two
different tokenisations without knowing it.

Models: hidden size 32, 2 layers, 2 heads, position tables long enough for
96-token windows (plus RoBERTa's offset of 2). The QA head's weights are scaled
up so that start/end logits are spread and the best span is well separated.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.tiny import sample_texts

HIDDEN = 32
HEADS = 2
LAYERS = 2
INTERMEDIATE = 64
MAX_POSITIONS = 160  # 96-token windows + RoBERTa/MPNet's padding offset, with room to spare
VOCAB_SIZE = 2000  # above 1000: the build stage's ONNX export traces with token id 1000

# Text every tokenizer is trained on and every architecture is questioned about: the answers the
# function returns must still be exact slices of the text, with no white space at either end.
HOSTILE_TEXTS: tuple[str, ...] = (
    "The Café Müller in São Paulo serves jalapeño crêpes; its owner, Zoë Núñez, opened it in 1998.",
    "The Cafe\u0301 Mu\u0308ller in Sa\u0303o Paulo serves jalapen\u0303o cre\u0302pes; its owner, "
    "Zoe\u0308 Nu\u0301n\u0303ez, opened it in 1998.",
    "東京は日本の首都です。The capital of Japan is 東京 (Tokyo), and 大阪 is its second city.",
    "The team celebrated 🙂 with a thumbs-up 👍🏽 and waved the flags 🇫🇷 🇯🇵 🏳️‍🌈 at the 2019 final.",
    "The  river   flows\tnorth\tfor 120 kilometres.\n\nIts source\n is   a glacier\t\t in the Alps.",
    "  Leading and trailing white space surrounds this sentence about the year 1066.  \t\n",
)
HOSTILE_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("Who owns the Café Müller?", HOSTILE_TEXTS[0]),
    ("Who owns the Cafe\u0301 Mu\u0308ller?", HOSTILE_TEXTS[1]),
    ("What is the capital of Japan?", HOSTILE_TEXTS[2]),
    ("東京は何ですか?", HOSTILE_TEXTS[2]),
    ("What did the team wave 🙂?", HOSTILE_TEXTS[3]),
    ("How far does the  river flow?", HOSTILE_TEXTS[4]),
    ("What is the source of the river?", HOSTILE_TEXTS[4]),
    ("Which year is mentioned?", HOSTILE_TEXTS[5]),
)


@dataclass(frozen=True)
class TokenizerKind:
    """How a family's tokenizer is trained and described: its pipeline, special tokens and class."""

    name: str
    build: Callable[[], str]  # -> tokenizer.json text
    config: dict  # tokenizer_config.json (special tokens, class, casing)


@dataclass(frozen=True)
class Arch:
    name: str
    tokenizer: str  # key into TOKENIZERS
    make_config: Callable[[int, dict], object]  # (vocab size, special token ids) -> transformers config
    uncased: bool  # the tokenizer lower-cases its input
    pair_seps: int  # separators between question and passage in the tokenizer's pair encoding
    segment_ids: bool  # the model reads token_type_ids (a segment embedding of two rows or more)


def training_texts() -> list[str]:
    return sample_texts() + list(HOSTILE_TEXTS) + [q for q, _ in HOSTILE_QUESTIONS]


# ---- tokenizers ---------------------------------------------------------------------------------

def _specials(tok, names: list[str]) -> list[tuple[str, int]]:
    return [(n, tok.token_to_id(n)) for n in names]


def _bert_template(tok, cls: str, sep: str):
    from tokenizers import processors

    return processors.TemplateProcessing(single=f"{cls}:0 $A:0 {sep}:0", pair=f"{cls}:0 $A:0 {sep}:0 $B:1 {sep}:1",
                                         special_tokens=_specials(tok, [cls, sep]))


def _wordpiece(lowercase: bool, specials: list[str], unk: str, roberta_pair: bool) -> str:
    """WordPiece with BERT's normaliser and pre-tokeniser (what BertTokenizer and MPNetTokenizer build)."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.WordPiece(unk_token=unk))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                                lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.train_from_iterator(training_texts(), trainers.WordPieceTrainer(
        vocab_size=VOCAB_SIZE, min_frequency=1, special_tokens=specials, continuing_subword_prefix="##",
        show_progress=False))
    if roberta_pair:
        tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                          ("<s>", tok.token_to_id("<s>")), trim_offsets=True,
                                                          add_prefix_space=False)
    else:
        tok.post_processor = _bert_template(tok, "[CLS]", "[SEP]")
    return tok.to_str()


def _byte_level_bpe() -> str:
    """RoBERTa's byte-level BPE: no normaliser, spaces belong to the following token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(training_texts(), trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE, min_frequency=1, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")),
                                                      ("<s>", tok.token_to_id("<s>")), trim_offsets=True,
                                                      add_prefix_space=False)
    return tok.to_str()


def _unigram(normalizer, pre_tokenizer, specials: list[str], unk: str) -> str:
    from tokenizers import Tokenizer, decoders, models, trainers

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.train_from_iterator(training_texts(), trainers.UnigramTrainer(
        vocab_size=VOCAB_SIZE, special_tokens=specials, unk_token=unk, shrinking_factor=0.75,
        show_progress=False))
    tok.post_processor = _bert_template(tok, "[CLS]", "[SEP]")
    return tok.to_str()


def _deberta_v2() -> str:
    """DeBERTa-v3's SentencePiece pipeline as DebertaV2Tokenizer builds it (cased, runs of white space folded)."""
    from tokenizers import Regex, normalizers, pre_tokenizers

    return _unigram(
        normalizers.Sequence([normalizers.Replace(Regex(r"\s{2,}|[\n\r\t]"), " "), normalizers.NFC(),
                              normalizers.Strip(left=False, right=True)]),
        pre_tokenizers.Sequence([pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")]),
        ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"], "[UNK]")


def _albert() -> str:
    """ALBERT's SentencePiece pipeline as AlbertTokenizer builds it (uncased, accents stripped)."""
    from tokenizers import normalizers, pre_tokenizers

    return _unigram(
        normalizers.Sequence([normalizers.Replace("``", '"'), normalizers.Replace("''", '"'), normalizers.NFKD(),
                              normalizers.StripAccents(), normalizers.Lowercase()]),
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                 pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")]),
        ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"], "<unk>")  # AlbertTokenizer fixes unk_id = 1


_BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
_BERT_TOKENS = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                "mask_token": "[MASK]"}
_ROBERTA_TOKENS = {"bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
                   "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"}

TOKENIZERS: dict[str, TokenizerKind] = {
    "wordpiece-uncased": TokenizerKind(
        "wordpiece-uncased", lambda: _wordpiece(True, _BERT_SPECIALS, "[UNK]", False),
        {**_BERT_TOKENS, "do_lower_case": True}),
    "wordpiece-cased": TokenizerKind(
        "wordpiece-cased", lambda: _wordpiece(False, _BERT_SPECIALS, "[UNK]", False),
        {**_BERT_TOKENS, "do_lower_case": False}),
    "byte-level-bpe": TokenizerKind(
        "byte-level-bpe", _byte_level_bpe, {**_ROBERTA_TOKENS, "add_prefix_space": False, "trim_offsets": True}),
    "mpnet-wordpiece": TokenizerKind(
        "mpnet-wordpiece", lambda: _wordpiece(True, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"], "<unk>", True),
        {**_ROBERTA_TOKENS, "do_lower_case": True}),
    "unigram-deberta": TokenizerKind(
        "unigram-deberta", _deberta_v2,
        {**_BERT_TOKENS, "bos_token": "[CLS]", "eos_token": "[SEP]", "do_lower_case": False,
         "split_by_punct": False, "add_prefix_space": True}),
    "unigram-albert": TokenizerKind(
        "unigram-albert", _albert,
        {**_BERT_TOKENS, "unk_token": "<unk>", "pad_token": "<pad>", "bos_token": "[CLS]", "eos_token": "[SEP]",
         "do_lower_case": True, "keep_accents": False}),
}


@functools.cache
def tokenizer_json(kind: str) -> str:
    """The trained tokenizer of one kind (trained once per process: the architectures share them)."""
    return TOKENIZERS[kind].build()


# ---- models -------------------------------------------------------------------------------------

def _common(vocab: int) -> dict:
    return {"vocab_size": vocab, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
            "intermediate_size": INTERMEDIATE, "max_position_embeddings": MAX_POSITIONS}


def _bert(vocab: int, ids: dict):
    from transformers import BertConfig

    return BertConfig(**_common(vocab), pad_token_id=ids["pad"])


def _distilbert(vocab: int, ids: dict):
    from transformers import DistilBertConfig

    return DistilBertConfig(vocab_size=vocab, dim=HIDDEN, n_layers=LAYERS, n_heads=HEADS, hidden_dim=INTERMEDIATE,
                            max_position_embeddings=MAX_POSITIONS, pad_token_id=ids["pad"])


def _roberta(vocab: int, ids: dict):
    from transformers import RobertaConfig

    return RobertaConfig(**_common(vocab), type_vocab_size=1, pad_token_id=ids["pad"], bos_token_id=ids["cls"],
                         eos_token_id=ids["sep"])


def _electra(vocab: int, ids: dict):
    from transformers import ElectraConfig

    return ElectraConfig(**_common(vocab), embedding_size=16, pad_token_id=ids["pad"])


def _deberta_v2(vocab: int, ids: dict):
    from transformers import DebertaV2Config

    # DeBERTa-v3's layout: relative attention both ways, no absolute positions, no segment embedding
    return DebertaV2Config(**_common(vocab), type_vocab_size=0, relative_attention=True, position_buckets=32,
                           max_relative_positions=-1, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                           norm_rel_ebd="layer_norm", share_att_key=True, pad_token_id=ids["pad"])


def _mpnet(vocab: int, ids: dict):
    from transformers import MPNetConfig

    return MPNetConfig(**_common(vocab), relative_attention_num_buckets=32, pad_token_id=ids["pad"],
                       bos_token_id=ids["cls"], eos_token_id=ids["sep"])


def _albert(vocab: int, ids: dict):
    from transformers import AlbertConfig

    return AlbertConfig(**_common(vocab), embedding_size=16, num_hidden_groups=1, pad_token_id=ids["pad"],
                        bos_token_id=ids["cls"], eos_token_id=ids["sep"])


def _mobilebert(vocab: int, ids: dict):
    from transformers import MobileBertConfig

    return MobileBertConfig(**_common(vocab), embedding_size=16, intra_bottleneck_size=16, true_hidden_size=16,
                            num_feedforward_networks=2, pad_token_id=ids["pad"])


_ARCHS = (
    Arch("bert-uncased", "wordpiece-uncased", _bert, uncased=True, pair_seps=1, segment_ids=True),
    Arch("bert-cased", "wordpiece-cased", _bert, uncased=False, pair_seps=1, segment_ids=True),
    Arch("distilbert", "wordpiece-uncased", _distilbert, uncased=True, pair_seps=1, segment_ids=False),
    Arch("roberta", "byte-level-bpe", _roberta, uncased=False, pair_seps=2, segment_ids=False),
    Arch("electra", "wordpiece-uncased", _electra, uncased=True, pair_seps=1, segment_ids=True),
    Arch("deberta-v2", "unigram-deberta", _deberta_v2, uncased=False, pair_seps=1, segment_ids=False),
    Arch("mpnet", "mpnet-wordpiece", _mpnet, uncased=True, pair_seps=2, segment_ids=False),
    Arch("albert", "unigram-albert", _albert, uncased=True, pair_seps=1, segment_ids=True),
    Arch("mobilebert", "wordpiece-uncased", _mobilebert, uncased=True, pair_seps=1, segment_ids=True),
)
ARCHS: dict[str, Arch] = {a.name: a for a in _ARCHS}
ARCHITECTURES: tuple[str, ...] = tuple(ARCHS)

_TOKENIZER_CLASS = {"bert-uncased": "BertTokenizer", "bert-cased": "BertTokenizer",
                    "distilbert": "DistilBertTokenizer", "roberta": "RobertaTokenizer",
                    "electra": "BertTokenizer", "deberta-v2": "DebertaV2Tokenizer", "mpnet": "MPNetTokenizer",
                    "albert": "AlbertTokenizer", "mobilebert": "MobileBertTokenizer"}


def special_ids(tokenizer_text: str, config: dict) -> dict:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(tokenizer_text)
    return {k: tok.token_to_id(config[f"{k}_token"]) for k in ("cls", "sep", "pad", "unk")}


def make_tiny_qa_model(arch: str, folder: Path, seed: int = 0) -> Path:
    """Write a tiny random ``*ForQuestionAnswering`` model and its trained tokenizer to ``folder``; returns it.

    The folder loads with ``AutoModelForQuestionAnswering`` and ``AutoTokenizer``; raises if the tokenizer
    transformers builds from it does not encode like ``tokenizer.json`` (a mistake in this factory).
    """
    import torch
    from transformers import AutoModelForQuestionAnswering

    spec = ARCHS[arch]
    kind = TOKENIZERS[spec.tokenizer]
    text = tokenizer_json(spec.tokenizer)
    ids = special_ids(text, kind.config)
    vocab = json.loads(text)["model"]["vocab"]
    folder.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(seed)
    model = AutoModelForQuestionAnswering.from_config(spec.make_config(len(vocab), ids)).eval()
    with torch.no_grad():  # spread the logits so that spans are well separated
        model.qa_outputs.weight.mul_(50.0)
    model.save_pretrained(folder)

    (folder / "tokenizer.json").write_text(text, encoding="utf-8")
    config = {**kind.config, "tokenizer_class": _TOKENIZER_CLASS[arch], "model_max_length": 512,
              "clean_up_tokenization_spaces": False}
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    check_tokenizer_loads_as_written(folder)
    return folder


def check_tokenizer_loads_as_written(folder: Path) -> None:
    """transformers' tokenizer for ``folder`` gives the ids and offsets ``tokenizer.json`` gives, pairs included."""
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(folder)
    raw = Tokenizer.from_file(str(folder / "tokenizer.json"))
    for question, context in HOSTILE_QUESTIONS:
        for args in ((context,), (question, context)):
            mine = raw.encode(*args)
            theirs = hf.backend_tokenizer.encode(*args)
            if (mine.ids, mine.offsets) != (theirs.ids, theirs.offsets):
                raise AssertionError(f"{folder.name}: transformers' {type(hf).__name__} encodes {args!r} as "
                                     f"{theirs.tokens}, tokenizer.json as {mine.tokens}")
