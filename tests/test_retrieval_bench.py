"""``python -m bench retrieval`` runs end to end on a tiny SQuAD split and writes its figures."""

import json

import pytest

from bench import retrieval
from function.retrieval import span_bias


@pytest.fixture
def squad_folder(repo, tmp_path):
    """The sample corpus split SQuAD-style: one article for train.json, the other for dev.json."""
    data = json.loads((repo / "samples" / "squad_sample.json").read_text())
    for split, articles in (("train", data["data"][:1]), ("dev", data["data"][1:])):
        (tmp_path / f"{split}.json").write_text(json.dumps({"version": "1.1", "data": articles}))
    return tmp_path


@pytest.fixture
def every_passage_at_once(monkeypatch):
    """The benchmark's service with the cascade off: a question alone reads all its passages in one model run, as
    the benchmark's own decodes of one run do (with it on, the function may stop after the first passage, and a
    random model's answer there need not be the five passages' best)."""
    from bench import in_process

    monkeypatch.setattr(retrieval, "open_service", lambda env: in_process.open_service({**env, "QA_CASCADE": "0"}))


def run(squad_folder, tiny_artifact, tmp_path, *extra):
    out = tmp_path / "results"
    args = ["--data", str(squad_folder), "--artifact", str(tiny_artifact.folder), "--limit", "12",
            "--out", str(out), *extra]
    assert retrieval.main(args) == 0
    return json.loads((out / "retrieval.json").read_text()), (out / "retrieval.md").read_text()


def test_the_evaluation_reports_recall_reading_and_timings(squad_folder, tiny_artifact, tmp_path,
                                                           every_passage_at_once):
    result, md = run(squad_folder, tiny_artifact, tmp_path)
    assert result["questions"] == 12 and result["corpus"]["paragraphs"] == 66
    assert result["artifact"]["name"] == "tiny-random-bert" and len(result["artifact"]["artifact_hash"]) == 64
    sqlite = result["retrieval"]["sqlite"]
    at1, at5, at10 = (sqlite["recall"][k] for k in ("@1", "@5", "@10"))
    assert 0 <= at1 <= at5 <= at10 <= 1 and at10 > 0.5  # BM25 finds most gold paragraphs of this tiny corpus
    assert 0 < sqlite["retrieve_ms"]["p50"] <= sqlite["retrieve_ms"]["p95"]
    reading = result["reading"]
    assert reading["top_k_passages"] == 5 and 0 <= reading["with_retrieval"]["f1"] <= 100
    gap = reading["gold_paragraph"]["f1"] - reading["with_retrieval"]["f1"]
    assert reading["f1_gap"] == pytest.approx(gap, abs=0.02)
    assert [v["title_weight"] for v in result["title_weight_variants"]] == [0.0, 1.0, 2.0]
    # The ranking comparison decodes one model run several ways; its shipped row must be what
    # the function itself answered with retrieval (every passage read at once).
    [shipped] = [v for v in result["fusion_variants"] if v["shipped"]]
    assert shipped["bm25_weight"] == span_bias.BM25_WEIGHT and shipped["dev"] == reading["with_retrieval"]["f1"]
    assert result["fusion_variants"][0]["bm25_weight"] is None and result["fusion_train_questions"] > 0
    assert "| SQLite (FTS5) |" in md and "tiny-random-bert" in md and "F1 gap" in md


@pytest.mark.firestore
def test_the_evaluation_measures_the_firestore_emulator_too(squad_folder, tiny_artifact, tmp_path, firestore_env):
    result, md = run(squad_folder, tiny_artifact, tmp_path, "--firestore", "--no-reading")
    fs, sqlite = result["retrieval"]["firestore_emulator"], result["retrieval"]["sqlite"]
    assert fs["recall"] == sqlite["recall"] and fs["same_top10_as_sqlite"] == 1.0
    assert result["reading"] is None and "| Firestore emulator |" in md


def test_abstention_at_the_artifacts_threshold_is_measured_beside_the_spans(squad_folder, tiny_artifact, tmp_path,
                                                                             every_passage_at_once):
    """With a threshold in the manifest the figures gain an abstention section; the span figures
    stay the spans' (never abstaining), and abstaining on nothing reproduces them."""
    import shutil

    from build_model.packaging.writer import update_manifest
    from function.model.artifact import load_manifest

    folder = tmp_path / "artifact"
    shutil.copytree(tiny_artifact.folder, folder)
    raw = dict(load_manifest(folder).raw)
    raw["no_answer"] = {"supported": True, "threshold": 0.0}
    update_manifest(folder, raw)
    out = tmp_path / "results"
    assert retrieval.main(["--data", str(squad_folder), "--artifact", str(folder), "--limit", "12",
                           "--out", str(out)]) == 0
    result, md = json.loads((out / "retrieval.json").read_text()), (out / "retrieval.md").read_text()
    ab, reading = result["abstention"], result["reading"]
    assert ab["threshold"] == 0.0 and ab["top_k_passages"] == 5
    assert ab["retrieval"]["never"]["f1"] == reading["with_retrieval"]["f1"]
    assert ab["retrieval"]["never"]["abstained"] == 0.0
    assert ab["gold_paragraph"]["never"]["f1"] == reading["gold_paragraph"]["f1"]
    at = ab["retrieval"]["at_threshold"]
    assert at["questions"] == 12 and 0 <= at["abstained"] <= 1 and at["f1"] <= ab["retrieval"]["never"]["f1"]
    parts = [ab["retrieval"][k] for k in ("gold_read", "gold_not_read") if k in ab["retrieval"]]
    assert sum(p["questions"] for p in parts) == 12
    shares = [row["abstained"] for row in ab["retrieval"]["sweep"]]
    assert shares == sorted(shares, reverse=True)  # a higher threshold abstains less
    assert "Abstention at the no-answer threshold 0.0000" in md

    # The flag overrides the manifest; a threshold above every margin abstains on nothing.
    assert retrieval.main(["--data", str(squad_folder), "--artifact", str(folder), "--limit", "12",
                           "--out", str(out), "--no-answer-threshold", "1e9"]) == 0
    ab = json.loads((out / "retrieval.json").read_text())["abstention"]
    assert ab["retrieval"]["at_threshold"] == ab["retrieval"]["never"]
