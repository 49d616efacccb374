"""The pair layout (special tokens, separators) is read from the tokenizer, never assumed."""

import json

import pytest

from function.model.tokenizer import QATokenizer
from tests.support.tiny import sample_texts


def _wordpiece(processor: str):
    from tokenizers import BertWordPieceTokenizer, processors

    tok = BertWordPieceTokenizer(lowercase=True)
    tok.train_from_iterator(sample_texts(), vocab_size=500, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    if processor == "roberta":
        tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    elif processor == "none":
        raw = json.loads(tok.to_str())
        raw["post_processor"] = None
        return raw
    return json.loads(tok.to_str())


@pytest.mark.parametrize("processor, expected", [
    ("bert", {"cls": "[CLS]", "sep": "[SEP]", "pair_seps": 1}),
    ("roberta", {"cls": "<s>", "sep": "</s>", "pair_seps": 2}),
    ("none", {"cls": "[CLS]", "sep": "[SEP]", "pair_seps": 1}),
])
def test_pair_layout_follows_the_post_processor(tmp_path, processor, expected):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_wordpiece(processor)))
    tok = QATokenizer(path)
    layout = tok.pair_layout()
    assert layout["cls_id"] == tok.token_id(expected["cls"])
    assert layout["sep_id"] == tok.token_id(expected["sep"])
    assert layout["pair_seps"] == expected["pair_seps"]
    # [PAD] is special in all three; the first special pad token found is the one padded with
    assert layout["pad_id"] == tok.token_id("[PAD]")


def test_a_layout_with_the_classifier_token_last_is_refused(tmp_path):
    from tokenizers import processors

    raw = _wordpiece("bert")
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(raw))
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    tok.post_processor = processors.TemplateProcessing(
        single="$A [SEP] [CLS]", pair="$A [SEP] $B [SEP] [CLS]",
        special_tokens=[("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]"))])
    path.write_text(tok.to_str())
    with pytest.raises(ValueError, match="unsupported pair layout"):
        QATokenizer(path).pair_layout()
