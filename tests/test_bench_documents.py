"""``python -m bench documents`` renders, ingests and asks every format on a tiny SQuAD split, and resumes."""

import json

import pytest

from bench import documents

pytest.importorskip("reportlab")
pytest.importorskip("trafilatura")
pytest.importorskip("pdfminer")


@pytest.fixture
def squad_folder(repo, tmp_path):
    """The sample corpus split SQuAD-style: one article for train.json, the other for dev.json."""
    data = json.loads((repo / "samples" / "squad_sample.json").read_text())
    folder = tmp_path / "squad"
    folder.mkdir()
    for split, articles in (("train", data["data"][:1]), ("dev", data["data"][1:])):
        (folder / f"{split}.json").write_text(json.dumps({"version": "1.1", "data": articles}))
    return folder


def test_every_format_is_rendered_ingested_and_asked(squad_folder, tiny_artifact, tmp_path, capsys):
    out = tmp_path / "results"
    args = ["--data", str(squad_folder), "--artifact", str(tiny_artifact.folder), "--limit", "6", "--out", str(out)]
    assert documents.main(args) == 0
    result = json.loads((out / "documents.json").read_text())
    md = (out / "documents.md").read_text()
    assert result["questions"] == 6 and result["corpus"] == {"articles": 2, "paragraphs": 66,
                                                             "files": ["train.json", "dev.json"]}
    assert result["artifact"]["name"] == "tiny-random-bert" and result["abstain"] is False
    rows = result["corpora"]
    assert list(rows) == ["paragraphs", "txt", "md", "html", "pdf"]
    assert rows["paragraphs"]["passages"] == 66 and 0 <= rows["paragraphs"]["paragraph_id_recall@5"] <= 1
    for name, row in rows.items():
        assert row["documents"] == 2 and row["stored"] == row["passages"] > 0, name
        assert 0 <= row["recall@5_article"] <= row["recall@5"] <= 1, name
        assert 0 <= row["exact_match"] <= row["f1"] <= 100, name
        tokens = row["passage_length"]["tokens"]
        assert 0 < tokens["min"] <= tokens["p50"] <= tokens["p90"] <= tokens["max"], name
        if name != "paragraphs":
            # The splitter's passages fit the tiny model's window (96) beside a typical question.
            assert tokens["max"] <= 96 - 3 - 24 and row["passages"] > 66, name
            assert row["documents_per_s"] > 0 and row["passages_per_s"] > 0 and row["extract_s"] >= 0, name
            assert row["answer_in_text"] == 1.0, name  # extraction keeps every gold answer of the sample
            assert row["f1_delta"] == pytest.approx(row["f1"] - rows["paragraphs"]["f1"], abs=0.02)
            assert row["target_met"] is (row["f1_delta"] >= -3)
            assert f"| .{name} documents | 2 |" in md
    assert "tiny-random-bert" in md and "Part k" in md

    # A re-run skips the corpora already measured (cached per corpus).
    capsys.readouterr()
    assert documents.main([*args, "--formats", "txt"]) == 0
    err = capsys.readouterr().err
    assert "paragraphs: done before" in err and "txt: done before" in err and "txt: starting" not in err
    assert list(json.loads((out / "documents.json").read_text())["corpora"]) == ["paragraphs", "txt"]


def test_rendered_html_noise_is_not_in_the_stored_passages(squad_folder, tiny_artifact, tmp_path):
    from bench.in_process import open_service

    article = documents.load_articles(squad_folder)[1]
    page = documents.render_html(article).decode()
    assert all(noise in page for noise in documents.HTML_NOISE)
    folder = tmp_path / "html"
    files, _ = documents.render_all([article], "html", folder)
    service = open_service({"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite", "QA_CACHE": "0",
                            "QA_SQLITE_PATH": str(tmp_path / "p.sqlite")})
    row, texts = documents.ingest_documents(service, files, folder)
    [(doc_id, passages)] = texts.items()
    store = service.rt.store()
    stored = store.get_many(sorted(store.passages_of(doc_id)))
    store.close()
    assert len(stored) == row["passages"] == len(passages)
    text = "\n".join(p.text for p in stored.values())
    assert not [noise for noise in documents.HTML_NOISE if noise in text]
    titles = {p.title for p in stored.values()}
    assert f"{article.title} > Part 1" in titles  # headings reach the passages' titles
    for paragraph in article.paragraphs:  # the content is all there (white space aside)
        assert documents.norm(paragraph)[:80] in documents.norm(text)


def test_markdown_escaping_reads_back_as_the_same_text():
    from function.ingest.extract import extract

    tricky = "1. Not a list *nor emphasis* _x_ [a](b) <b>bold</b> &amp; # hash | pipe ~~s~~ \\ back"
    article = documents.Article("T", "T", [tricky, "- not an item", "> not a quote"])
    text = extract("t.md", documents.render_md(article)).text
    for paragraph in article.paragraphs:
        assert paragraph in text


def test_the_command_is_registered():
    from bench.cli import COMMANDS

    assert COMMANDS["documents"][0] == "bench.documents"


def test_a_smaller_passage_budget_is_a_diagnostic_of_its_own(squad_folder, tiny_artifact, tmp_path):
    out = tmp_path / "results"
    assert documents.main(["--data", str(squad_folder), "--artifact", str(tiny_artifact.folder), "--limit", "3",
                           "--formats", "md", "--max-passage-tokens", "32", "--out", str(out)]) == 0
    result = json.loads((out / "documents.json").read_text())
    row = result["corpora"]["md"]
    assert result["max_passage_tokens"] == 32 and row["max_passage_tokens"] == 32 and row["overlap_tokens"] == 8
    assert row["passage_length"]["tokens"]["max"] <= 32
    assert "`--max-passage-tokens`, a diagnostic" in (out / "documents.md").read_text()
