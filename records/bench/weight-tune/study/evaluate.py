"""The function's own decoding of a captured model run (the rule-ablation study's decode, 95cb7d3)."""
import dataclasses
import os
import tempfile

import numpy as np

from bench.in_process import open_service
from function.evaluate.scoring import answer_text
from function.service.pipeline import QAService

from function.service.pipeline import SentenceCosines
from harness.paths import ENCODER

tmp = tempfile.mkdtemp()
_RT = open_service({"QA_ARTIFACT_DIR": os.path.join(os.getcwd(), "artifact"), "QA_STORE": "sqlite",
                    "QA_SQLITE_PATH": f"{tmp}/x.sqlite", "QA_INDEX_ENCODER": str(ENCODER.resolve())}).rt
MODEL = _RT.model()
_ENC = _RT.question_encoder()


class _Cached:
    """The sentence encoder with each text's embedding kept (the same int8 encoder, one text per run)."""

    def __init__(self, enc):
        self.enc, self.memo = enc, {}

    def embed_one(self, text):
        v = self.memo.get(text)
        if v is None:
            v = self.memo[text] = self.enc.embed_one(text)
        return v


ENC = _Cached(_ENC)


def decode(c, bias):
    cos = None if c.get("cos_question") is None else SentenceCosines(ENC, c["cos_question"])
    reading = dataclasses.replace(c["reading"], bias=None if bias is None else np.asarray(bias, dtype=np.float64),
                                  cosines=cos)
    payload = QAService._payload(c["req"], MODEL, reading, c["batch"], c["start"], c["end"])
    return answer_text(payload), next((a.get("passage_id") for a in payload.get("answers", [])), None)
