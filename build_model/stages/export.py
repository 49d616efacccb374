"""Stage 4, export: teacher and student to ONNX, fused, parity-checked, scored through the function's path.

Both models are exported: the student is what ships, the teacher's fp32 ONNX
is the yardstick of the report ("int8 student at least 2x faster"). Each
graph is compared with its PyTorch model on real dev windows (several
questions, padded multi-passage and multi-window batches, as the function
builds them); a difference above ``[export] atol`` fails the build. EM/F1 are
then measured with ``function.model.onnx_model.OnnxQAModel``, the function's own
session.

The teacher's entry is also kept in ``<work_dir>/export/teacher.entry.json``
with its weights' fingerprint. When the weights are gone (a lost machine: the
teacher's record, config and tokenizer kept, ``records/README.md``),
that entry is reused, marked ``from_record``, instead of exporting the teacher;
the student is exported as always.
"""

from __future__ import annotations

import json
from pathlib import Path

from build_model import hf
from build_model.config import BuildConfig
from build_model.conversion.onnx_export import check_parity, export_onnx, graph_inputs, optimize_bert
from build_model.errors import BuildFailed, ParityError
from build_model.evaluation.evaluate import evaluate, torch_infer
from build_model.specs import serving_spec
from build_model.squad import SquadSplit, encode_paragraphs, load_squad
from build_model.stage_record import file_sha256, fresh_record, load_record, save_record, source_fingerprint
from build_model.stages import distil, given, teacher
from function.cpus import available_cpus
from function.model.onnx_model import OnnxQAModel
from function.model.reader import PassageTokens, prepare
from function.model.tokenizer import QATokenizer
from function.model.windows import Batch, WindowSpec


def stage_dir(cfg: BuildConfig) -> Path:
    return Path(cfg.work_dir) / "export"


def model_dirs(cfg: BuildConfig) -> dict[str, Path]:
    """The models to export: the teacher and the student; or, for a model taken as given, that model alone
    (under the key ``student``: the model that ships)."""
    if cfg.given is not None:
        dirs = {"student": given.model_dir(cfg)}
    else:
        dirs = {"teacher": teacher.stage_dir(cfg) / "model", "student": distil.stage_dir(cfg) / "model"}
    for name, path in dirs.items():
        stage = "given" if cfg.given is not None else "teacher" if name == "teacher" else "distil"
        if not (path.parent / "stage.json").is_file() or not (path / "config.json").is_file():
            raise BuildFailed(f"export needs the {name} model in {path}: run --stage {stage} first")
    return dirs


def teacher_entry_path(cfg: BuildConfig) -> Path:
    return stage_dir(cfg) / "teacher.entry.json"


def teacher_weights_gone(cfg: BuildConfig) -> bool:
    return cfg.given is None and not distil._has_weights(teacher.stage_dir(cfg) / "model")


def saved_teacher_entry(cfg: BuildConfig) -> dict | None:
    """The teacher's entry an earlier export saved, when its weights are gone and the entry was saved for the weights
    its record names (``fingerprint``); None when the weights are here to be exported."""
    if not teacher_weights_gone(cfg):
        return None
    path = teacher_entry_path(cfg)
    fingerprint = (load_record(teacher.stage_dir(cfg)) or {}).get("fingerprint")
    saved = json.loads(path.read_text()) if path.is_file() else None
    if fingerprint and saved and saved.get("fingerprint") == fingerprint:
        return {**saved, "from_record": True}
    found = ("its record keeps no fingerprint to match a saved entry with" if not fingerprint else
             f"{path} (its entry saved by an earlier export) is missing" if saved is None else
             f"{path} was saved for other weights than its record's ({fingerprint[:12]})")
    raise BuildFailed(f"export: the teacher's weights are gone from {teacher.stage_dir(cfg) / 'model'} and {found}: "
                      f"restore the entry saved with this teacher (records/README.md, \"After a lost "
                      f"machine\"), or retrain it (--stage teacher --force)")


def _keep_teacher_entry(cfg: BuildConfig, record: dict) -> dict:
    """Writes the teacher's entry of ``record`` (unless it came from that file), with its fingerprint, to
    ``teacher_entry_path``: what an export without the teacher's weights reuses."""
    entry = record["models"].get("teacher")
    if entry and not entry.get("from_record"):
        teacher_entry_path(cfg).write_text(json.dumps({**entry, "fingerprint": record["inputs"]["teacher"]},
                                                      indent=2, sort_keys=True))
    return record


def parity_batches(split: SquadSplit, tok: QATokenizer, spec: WindowSpec, windows: int) -> list[Batch]:
    """Real dev batches holding at least ``windows`` windows, as the function builds them.

    The first question is one on the longest paragraph (several windows when it
    is longer than one); then questions in order, the i-th against 1 + i % 3
    paragraphs (its own and the next ones), so that batches mix window lengths
    and carry padding.
    """
    encoded = encode_paragraphs(tok, split)
    pids = list(split.paragraphs)
    q_ids = tok.encode_many([q.question for q in split.questions])
    longest = max(range(len(split.questions)), key=lambda i: len(encoded[split.questions[i].paragraph_id].ids))
    order = [longest] + [i for i in range(len(split.questions)) if i != longest]
    batches, total = [], 0
    for n, i in enumerate(order):
        k = pids.index(split.questions[i].paragraph_id)
        chosen = dict.fromkeys(pids[(k + j) % len(pids)] for j in range(1 + n % 3))
        passages = [PassageTokens(encoded[p].ids, encoded[p].offsets) for p in chosen]
        batch = prepare(q_ids[i].ids[: spec.max_query_tokens], passages, spec)
        batches.append(batch)
        total += len(batch)
        if total >= windows:
            break
    return batches


def onnx_infer(path: Path, threads: int, optimized: bool) -> OnnxQAModel:
    """The function's session for ``path`` (tests replace this to simulate a broken model)."""
    return OnnxQAModel(path, threads, optimized=optimized)


def _parity(reference, path: Path, threads: int, optimized: bool, batches: list[Batch], atol: float,
            what: str) -> float:
    try:
        return check_parity(reference, onnx_infer(path, threads, optimized), batches, atol, what)
    except ParityError as e:
        raise BuildFailed(f"export: {e}") from None


def export_model(cfg: BuildConfig, name: str, src: Path, out: Path, batches: list[Batch],
                 threads: int) -> tuple[Path, dict]:
    """ONNX (and fused ONNX) of one model, parity-checked against PyTorch; returns the final graph."""
    ex = cfg.export
    model = hf.load_qa_model(str(src), attn="eager").eval()
    reference = torch_infer(model)
    raw = out / f"{name}.onnx"
    export_onnx(model, raw, ex.opset)
    entry = {"parameters": sum(p.numel() for p in model.parameters()),
             "num_heads": model.config.num_attention_heads, "hidden_size": model.config.hidden_size,
             "layers": model.config.num_hidden_layers,
             "raw": {"file": raw.name, "bytes": raw.stat().st_size,
                     "max_logit_diff": _parity(reference, raw, threads, False, batches, ex.atol,
                                               f"{name} ONNX export")}}
    entry["inputs"] = list(graph_inputs(model))
    entry["architecture"] = model.config.model_type
    final = raw
    if ex.optimize:
        fused_path = out / f"{name}.opt.onnx"
        fused = optimize_bert(raw, fused_path, num_heads=entry["num_heads"], hidden_size=entry["hidden_size"])
        entry["fused"] = {"file": fused_path.name, "bytes": fused_path.stat().st_size, "fused_ops": fused,
                          "attention_fused": bool(fused.get("Attention") or fused.get("MultiHeadAttention"))}
        try:
            entry["fused"]["max_logit_diff"] = _parity(reference, fused_path, threads, True, batches, ex.atol,
                                                       f"{name} fused ONNX")
            final = fused_path
        except BuildFailed as e:
            if cfg.given is None:  # our own models are BERT-shaped: a fusion that breaks them is a bug
                raise
            # a given architecture the BERT fusion patterns misread: ship the plain graph, say why
            entry["fused"]["rejected"] = str(e)
            print(f"export: {e}; the unfused graph is used")
    entry.update(onnx=final.name, bytes=final.stat().st_size, sha256=file_sha256(final),
                 optimized=final != raw)
    return final, entry


def run(cfg: BuildConfig, force: bool = False) -> dict:
    out = stage_dir(cfg)
    sources = model_dirs(cfg)
    saved_teacher = saved_teacher_entry(cfg)
    fingerprints = {name: source_fingerprint(str(path)) for name, path in sources.items()}
    if saved_teacher:  # the weights the teacher's record names, as distil's cached logits are found by
        fingerprints["teacher"] = saved_teacher["fingerprint"]
    inputs = {
        "config": cfg.section_hash("data", "export", "sequence"),
        **fingerprints,
        "dev": file_sha256(cfg.data.dev),
    }
    if not force and (record := fresh_record(out, inputs)):
        print(f"export: inputs unchanged, skipped ({out})")
        return _keep_teacher_entry(cfg, record)

    out.mkdir(parents=True, exist_ok=True)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    threads = cfg.threads or available_cpus()
    result = {"opset": cfg.export.opset, "optimized": cfg.export.optimize, "atol": cfg.export.atol, "models": {}}
    for name in sources:
        if name == "teacher" and saved_teacher:
            result["models"][name] = saved_teacher
            print(f"export: the teacher's weights are gone; its entry saved by an earlier export is reused "
                  f"({teacher_entry_path(cfg)})")
            continue
        # each model reads its own tokens and pair layout (the teacher may tokenize differently)
        tok = QATokenizer(sources[name] / "tokenizer.json")
        spec = serving_spec(cfg, tok)
        batches = parity_batches(dev, tok, spec, cfg.export.parity_windows)
        parity = {"batches": len(batches), "windows": sum(len(b) for b in batches),
                  "padded_batches": sum(int((b.attention_mask == 0).any()) for b in batches),
                  "max_windows_per_batch": max(len(b) for b in batches)}
        if name == "student":
            result["parity"] = parity
        final, entry = export_model(cfg, name, sources[name], out, batches, threads)
        entry["dev"] = evaluate(dev, tok, spec, onnx_infer(final, threads, entry["optimized"]),
                                max_answer_tokens=cfg.sequence.max_answer_tokens)
        result["models"][name] = entry
        diffs = ", ".join(f"{k} {entry[k]['max_logit_diff']:.1e}" for k in ("raw", "fused") if k in entry)
        print(f"export: {name} ONNX dev EM {entry['dev']['exact_match']:.2f} F1 {entry['dev']['f1']:.2f}; "
              f"max |logit diff| vs PyTorch: {diffs} (tolerance {cfg.export.atol:.0e})")
    return _keep_teacher_entry(cfg, save_record(out, inputs, result))
