"""``python -m build_model.encoder_tune``: the pairs, the batches of one package or article, the schedule, and a
tiny run that checkpoints, resumes and exports."""

from __future__ import annotations

import gzip
import json

import pytest

from build_model.encoder_tune import Pairs, load_pairs, main, make_batches, schedule


def _docqa(path, packages: int = 5, pages: int = 2, questions: int = 4):
    """Generated documentation questions: each package's pages, each page one passage with ``questions``
    answerable questions and an unanswerable one."""
    data = []
    for k in range(packages):
        for page in range(pages):
            context = f"pkg{k} page{page}: the function frob{k}x{page} frobs widgets of kind {k}."
            qas = [{"id": f"{k}-{page}-{i}", "question": f"Which function frobs kind {k} widgets, variant {i}?",
                    "answers": [{"text": f"frob{k}x{page}", "answer_start": context.index("frob")}],
                    "is_impossible": False} for i in range(questions)]
            qas.append({"id": f"{k}-{page}-x", "question": "What is the default port?", "answers": [],
                        "is_impossible": True})
            data.append({"title": f"pkg{k}/page{page}.html", "paragraphs": [{"context": context, "qas": qas}]})
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump({"version": "v2.0", "data": data}, f)
    return path


def _squad(path, articles: int = 2, questions: int = 6):
    data = [{"title": f"Article_{a}", "paragraphs": [
        {"context": f"Paragraph {p} of article {a} says that {a} {p} is a number.",
         "qas": [{"id": f"s{a}-{p}-{i}", "question": f"What does paragraph {p} of {a} say, {i}?",
                  "answers": [{"text": "Paragraph", "answer_start": 0}]} for i in range(questions)]}
        for p in range(2)]} for a in range(articles)]
    path.write_text(json.dumps({"version": "1.1", "data": data}), encoding="utf-8")
    return path


def test_pairs_leave_the_held_out_packages_and_unanswerable_questions_out(tmp_path):
    data = load_pairs(_docqa(tmp_path / "docqa.json.gz"), _squad(tmp_path / "train.json"), hold_out=0.4)
    assert len(data.held_out) == 2  # a seeded 40% of 5 packages
    assert data.docs_passages == 10 and len(data.passages) == 10 + 4
    docs = [(q, p, g) for q, p, g in data.pairs if p < data.docs_passages]
    assert {g for _, _, g in docs} == {f"pkg{k}" for k in range(5)} - set(data.held_out)
    assert len(docs) == 3 * 2 * 4 and not any("default port" in q for q, _, _ in docs)
    # a SQuAD paragraph is embedded as the function embeds it: its article's title first
    squad = [(q, p, g) for q, p, g in data.pairs if p >= data.docs_passages]
    assert len(squad) == 2 * 2 * 6 and {g for _, _, g in squad} == {"squad:Article 0", "squad:Article 1"}
    assert data.passages[squad[0][1]].startswith("Article ") and ". Paragraph" in data.passages[squad[0][1]]
    assert load_pairs(tmp_path / "docqa.json.gz", None, hold_out=0.4).held_out == data.held_out  # seeded


def test_a_batch_holds_one_group_and_the_limit_keeps_a_third_squad():
    pairs = [(f"q{g}{i}", g * 10 + i % 3, f"pkg{g}") for g in range(6) for i in range(8)]
    pairs += [(f"s{a}{i}", 100 + a, f"squad:{a}") for a in range(6) for i in range(8)]
    data = Pairs([f"p{i}" for i in range(106)], pairs, 100, [])
    batches = make_batches(data, batch_size=4)
    assert len(batches) == 24 and all(len(b) == 4 for b in batches)
    group = {(q, p): g for q, p, g in pairs}
    assert all(len({group[row] for row in b}) == 1 for b in batches)
    assert make_batches(data, batch_size=4) == batches  # seeded
    limited = make_batches(data, batch_size=4, limit=9)
    assert len(limited) == 9 and sum(b[0][1] >= 100 for b in limited) == 3
    # a group's remainder short of a batch is dropped, never mixed with another group
    assert all(len(b) == 5 for b in make_batches(data, batch_size=5))


def test_the_schedule_warms_up_over_a_tenth_then_decays_to_zero():
    assert [round(schedule(s, 20), 3) for s in (0, 1, 2, 11, 19)] == [0.5, 1.0, 1.0, 0.5, 0.056]


@pytest.mark.filterwarnings("ignore")
def test_a_tiny_run_checkpoints_resumes_and_exports(tmp_path, squad):
    from build_model.encoder_export import main as export
    from function.retrieval.encoder import SentenceEncoder
    from tests.support.tiny_build import tiny_teacher

    source = tiny_teacher(tmp_path / "source", hidden=32)
    docqa, out = _docqa(tmp_path / "docqa.json.gz"), tmp_path / "tuned"
    args = ["--source", str(source), "--docqa", str(docqa), "--out", str(out), "--batch-size", "4",
            "--max-tokens", "48", "--threads", "1", "--checkpoint-s", "0"]
    assert main(args) == 0
    assert (out / "state.pt").is_file() and (out / "model" / "tokenizer.json").is_file()
    first = (out / "model" / "model.safetensors").read_bytes()
    assert main(args) == 0  # resumes at its last step: nothing more to train, the same weights written
    assert (out / "model" / "model.safetensors").read_bytes() == first
    assert export(["--source", str(out / "model"), "--out", str(tmp_path / "enc"), "--max-tokens", "24",
                   "--data", str(squad)]) == 0
    assert SentenceEncoder(tmp_path / "enc").embed(["Which function frobs widgets?"]).shape == (1, 32)


def test_missing_and_malformed_inputs_are_named(tmp_path, capsys):
    assert main(["--source", str(tmp_path), "--docqa", str(tmp_path / "none.json"), "--out", str(tmp_path / "o")]) == 2
    assert "tokenizer.json not found" in capsys.readouterr().err
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    (tmp_path / "bad.json").write_text('{"data": [{"title": "x"}]}', encoding="utf-8")  # no paragraphs
    assert main(["--source", str(tmp_path), "--docqa", str(tmp_path / "bad.json"), "--out", str(tmp_path / "o")]) == 2
    assert "bad.json" in capsys.readouterr().err
