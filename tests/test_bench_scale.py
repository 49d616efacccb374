"""python -m bench scale: corpora of planted dev paragraphs among distractors, and the per-backend table."""

from __future__ import annotations

import json

import pytest


def test_a_corpus_plants_the_dev_paragraphs_then_real_then_synthetic_distractors(squad):
    from bench.scale_corpus import corpus, squad_passages

    planted, real = squad_passages(squad / "dev.json"), squad_passages(squad / "train.json", "train-")
    passages, info = corpus(40, squad, None, seed=1)
    passages = list(passages)
    assert info == {"planted": 4, "real": 12, "synthetic": 24, "real_sources": ["train.json"]}
    assert passages[:4] == planted and passages[4:16] == real and len({p.id for p in passages}) == 40
    vocabulary = {w for p in planted + real for w in p.text.lower().split()}
    synthetic = passages[16:]
    assert all(p.id.startswith("synth-") and set(p.text.split()) <= vocabulary for p in synthetic)
    assert [p.text for p in list(corpus(40, squad, None, seed=1)[0])[16:]] == [p.text for p in synthetic]
    with pytest.raises(SystemExit, match="at least the 4 dev paragraphs"):
        corpus(3, squad, None)


def test_brown_paragraphs_lose_their_tags(tmp_path):
    from bench.scale_corpus import brown_passages

    (tmp_path / "ca01").write_text("\n\n\t" + " ".join(["The/at jury/nn said/vbd ``/`` no/at ./."] * 5)
                                   + "\n\n\tToo/ql short/jj ./.\n")
    [p] = brown_passages(tmp_path)
    assert p.id == "brown-ca01-001" and p.text.startswith("The jury said no . The jury") and "/" not in p.text


def test_the_table_has_every_backend_at_every_size(squad, tmp_path):
    from bench.scale import main

    assert main(["--sizes", "30", "60", "--data", str(squad), "--no-brown", "--work", str(tmp_path / "w"),
                 "--out", str(tmp_path / "out")]) == 0
    result = json.loads((tmp_path / "out" / "scale.json").read_text())
    assert [(r["size"], r["backend"]) for r in result["rows"]] == [(30, "lance"), (30, "sqlite"),
                                                                     (60, "lance"), (60, "sqlite")]
    for row in result["rows"]:
        assert row["build"]["rows"] == row["size"] and row["build"]["bytes"] > 0
        assert row["query"]["questions"] == result["questions"] > 0 and 0.5 <= row["query"]["recall_at_k"] <= 1
    assert not (tmp_path / "w" / "lance-30").exists()  # removed unless --keep
    assert "| 60 | 16 / 44 | sqlite |" in (tmp_path / "out" / "scale.md").read_text()
