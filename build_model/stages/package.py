"""Stage 6, package: the artifact folder the function serves, its manifest, REPORT.md and report.png.

The artifact (``[package] out``) holds only what its manifest lists: the
model, ``tokenizer.json``, ``manifest.json`` and the report. The stage's
bookkeeping (``stage.json``, the load-time variants) lives in
``<work_dir>/package``; the stage is skipped only when its inputs are
unchanged *and* every file of the artifact still matches the manifest.

The artifact is staged in ``<work_dir>/package/artifact`` first: the shipped
model is scored there once more through the function's own loader
(``function.model.load.load_model``: verify, tokenizer, session) and must pass
the int8 quality gate again; ``out`` is replaced only when everything passed, and
not by a model that scores lower on the same dev file than the artifact already
there (``[package] replace_better = true`` replaces it anyway).

The teacher rows of the report are kept in ``<work_dir>/package/teacher.rows.json``
with the teacher's fingerprint: when the teacher's weights are gone (a lost
machine, ``records/README.md``), those rows are reused, and the report
says so.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from build_model.config import BuildConfig
from build_model.conversion import load_variants
from build_model.errors import BuildFailed
from build_model.evaluation import benchmark
from build_model.evaluation.evaluate import evaluate
from build_model.packaging import report
from build_model.packaging.writer import describe_files, update_manifest, write_artifact
from build_model.specs import serving_spec
from build_model.squad import load_squad
from build_model.stage_record import file_sha256, fresh_record, load_record, save_record, source_fingerprint
from build_model.stages import distil, export, given, quantize, teacher
from function.errors import ArtifactError
from function.model.artifact import load_manifest, verify
from function.model.tokenizer import QATokenizer

UPSTREAM = {"teacher": teacher, "distil": distil, "export": export, "quantize": quantize}
GIVEN_UPSTREAM = {"given": given, "export": export, "quantize": quantize}
KEYS = ("teacher_pytorch_fp32", "teacher_onnx_fp32", "student_pytorch_fp32", "student_onnx_fp32",
        "student_onnx_int8")
GIVEN_KEYS = ("model_pytorch_fp32", "model_onnx_fp32", "model_onnx_int8")


def stage_dir(cfg: BuildConfig) -> Path:
    return Path(cfg.work_dir) / "package"


def _records(cfg: BuildConfig) -> dict[str, dict]:
    records = {}
    for name, module in (GIVEN_UPSTREAM if cfg.given is not None else UPSTREAM).items():
        record = load_record(module.stage_dir(cfg))
        if record is None:
            raise BuildFailed(f"package needs the {name} stage's record in {module.stage_dir(cfg)}: "
                              f"run --stage {name} first")
        records[name] = record
    return records


def _intact(out: Path, record: dict) -> bool:
    try:
        manifest = load_manifest(out)
        verify(manifest)
    except ArtifactError:
        return False
    return manifest.artifact_hash == record.get("artifact_hash") and describe_files(out) == manifest.raw["files"]


def _benchmarks(cfg: BuildConfig, records: dict, tok: QATokenizer, shipped: Path, optimized: bool,
                shipped_dev: dict, teacher_rows: list[dict]) -> list[dict]:
    """The report's rows: each model timed here, but for ``teacher_rows`` when reused (``_saved_teacher_rows``)."""
    pk = cfg.package
    windows = benchmark.windows(tok, benchmark.window_lengths(cfg.sequence.max_seq_len))
    ex, ex_dir, dirs = records["export"], export.stage_dir(cfg), export.model_dirs(cfg)
    torch_loads = min(3, pk.load_runs)

    def pytorch(name: str):
        return lambda: benchmark.torch_benchmark(dirs[name], windows, pk.latency_runs, torch_loads)

    def onnx(name: str):
        entry = ex["models"][name]
        return lambda: benchmark.onnx_benchmark(ex_dir / entry["onnx"], entry.get("optimized", ex["optimized"]),
                                                windows, pk.latency_runs, pk.load_runs)

    student = ex["models"]["student"]
    shipped_run = (student, shipped_dev,
                   lambda: benchmark.onnx_benchmark(shipped, optimized, windows, pk.latency_runs, pk.load_runs))
    rows = list(teacher_rows)
    if cfg.given is not None:
        plan = [(student, records["given"]["dev"], pytorch("student")), (student, student["dev"], onnx("student")),
                shipped_run]
        labels = zip(report.GIVEN_ROWS, GIVEN_KEYS)
    else:
        teacher_entry = ex["models"]["teacher"]
        plan = [] if teacher_rows else [(teacher_entry, records["teacher"]["dev"], pytorch("teacher")),
                                (teacher_entry, teacher_entry["dev"], onnx("teacher"))]
        plan += [(student, records["distil"]["dev"], pytorch("student")), (student, student["dev"], onnx("student")),
                 shipped_run]
        labels = zip(report.ROWS[len(teacher_rows):], KEYS[len(teacher_rows):])
    for (stage, key), (model, dev, measure) in zip(labels, plan):
        b = measure()
        rows.append({"stage": stage, "key": key, "parameters": model["parameters"], "bytes": b["bytes"],
                     "exact_match": dev.get("exact_match"), "f1": dev.get("f1"), "p50_ms": b["p50_ms"],
                     "load_s": b["load_s"]})
        print(f"package: {stage}: p50 {b['p50_ms'][cfg.sequence.max_seq_len]:.1f} ms, load {b['load_s']:.3f} s")
    _keep_teacher_rows(cfg, ex, rows)
    return rows


def teacher_rows_path(cfg: BuildConfig) -> Path:
    return stage_dir(cfg) / "teacher.rows.json"


def _keep_teacher_rows(cfg: BuildConfig, ex: dict, rows: list[dict]) -> None:
    """Writes the teacher rows timed here, with the fingerprint of the teacher they timed, to ``teacher_rows_path``
    (rows reused from it are left as they are)."""
    kept = [r for r in rows if r["key"].startswith("teacher_") and not r.get("from_record")]
    if kept:
        teacher_rows_path(cfg).write_text(json.dumps({"fingerprint": ex["inputs"]["teacher"], "rows": kept,
                                                      "cpu": benchmark.machine()["cpu"]}, indent=2))


def _saved_teacher_rows(cfg: BuildConfig, ex: dict) -> list[dict]:
    """The teacher rows an earlier run timed, when the teacher cannot be timed here (its weights are gone, or its
    export entry came from the record); [] when it can."""
    if not (ex["models"]["teacher"].get("from_record") or export.teacher_weights_gone(cfg)):
        return []
    path = teacher_rows_path(cfg)
    saved = json.loads(path.read_text()) if path.is_file() else None
    lengths = {str(n) for n in benchmark.window_lengths(cfg.sequence.max_seq_len)}
    if saved and saved["fingerprint"] == ex["inputs"]["teacher"] and all(
            set(r["p50_ms"]) == lengths for r in saved["rows"]):
        return [{**r, "p50_ms": {int(n): ms for n, ms in r["p50_ms"].items()}, "from_record": True,
                 "cpu": saved.get("cpu")} for r in saved["rows"]]
    found = "is missing" if saved is None else "was saved for another teacher or other window lengths"
    raise BuildFailed(f"package: the teacher cannot be timed (its weights are gone from "
                      f"{export.model_dirs(cfg)['teacher']}) and {path}, its rows timed by an earlier run, {found}: "
                      f"restore the file saved with this teacher (records/README.md, \"After a lost "
                      f"machine\"), or retrain it (--stage teacher --force)")


def _notes(cfg: BuildConfig, rows: list[dict]) -> str:
    """``[package] notes``, and which rows were reused from an earlier run."""
    reused = [r for r in rows if r.get("from_record")]
    note = (f"*The {' and '.join(r['stage'] for r in reused)} rows are reused from an earlier run (timed on "
            f"{reused[0]['cpu']}): the teacher's weights are not on this machine.*" if reused else "")
    return "\n\n".join(n.strip() for n in (cfg.package.notes, note) if n)


def run(cfg: BuildConfig, force: bool = False, command: str | None = None) -> dict:
    out, work = Path(cfg.package.out), stage_dir(cfg)
    records = _records(cfg)
    q_dir = quantize.stage_dir(cfg)
    int8 = q_dir / records["quantize"]["kept"]["file"]
    tok_path = export.model_dirs(cfg)["student"] / "tokenizer.json"
    inputs = {
        "config": cfg.section_hash("package", "sequence", "export", "quantize"),
        "upstream": {name: rec["inputs_hash"] for name, rec in records.items()},
        "int8": file_sha256(int8),
        "tokenizer": file_sha256(tok_path),
        "dev": file_sha256(cfg.data.dev),
    }
    if not force and (record := fresh_record(work, inputs)) and _intact(out, record):
        print(f"package: inputs unchanged and {out} intact, skipped")
        _keep_teacher_rows(cfg, records["export"], record["benchmarks"])
        return record

    if out.is_dir() and any(out.iterdir()) and not (out / "manifest.json").is_file():
        raise BuildFailed(f"package: {out} holds files but no manifest.json; refusing to replace them "
                          f"(point [package] out at an empty folder or a previous artifact)")
    ex, qr = records["export"], records["quantize"]
    teacher_rows = _saved_teacher_rows(cfg, ex) if cfg.given is None else []  # fails before anything is measured
    _keep_better(cfg, out, inputs["dev"], qr["kept"]["dev"]["f1"], q_dir)  # the quantize stage's score, first
    tok = QATokenizer(tok_path)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    batches = export.parity_batches(dev, tok, serving_spec(cfg, tok), cfg.export.parity_windows)
    n = cfg.sequence.max_seq_len
    window = benchmark.windows(tok, [n])[n]
    variants = load_variants.measure(int8, work, batches, window, cfg.package.latency_runs,
                                     cfg.package.load_runs, cfg.package.preoptimize)
    ship, variant_why = load_variants.choose(variants, cfg.package.min_load_gain, cfg.export.atol)
    print(f"package: {variant_why}")

    extra = {
        "source": _source(cfg, records),
        "inputs": ex["models"]["student"].get("inputs"),
        "model": _architecture(export.model_dirs(cfg)["student"]),
        "onnx": {"opset": ex["opset"], "optimized": ship["optimized"], "transformer_fusion": ex["optimized"],
                 "format": "ort" if ship["model_file"].endswith(".ort") else "onnx",
                 "ort_preoptimized": "ORT_ENABLE_EXTENDED" if ship["optimized"] else None},
        "quantization": {**{k: qr["kept"][k] for k in ("name", "per_channel", "op_types", "reduce_range",
                                                        "quantized_ops", "weight_type", "activations")},
                         "fp32_matmuls": qr["kept"].get("fp32_matmuls", []),
                         "method": "onnxruntime.quantization.quantize_dynamic", "gate": qr["gate"]},
        "versions": benchmark.versions(),
        "dev_set": {"file": Path(cfg.data.dev).name, "sha256": inputs["dev"]},
        "build": {"command": command or "python -m build_model --config <config>"},
    }
    staging = work / "artifact"  # [package] out changes only once everything passed
    manifest = write_artifact(staging, Path(ship["path"]), tok_path.read_text(encoding="utf-8"), artifact_name(cfg),
                              dataclasses.asdict(cfg.sequence), extra=extra, model_file=ship["model_file"])
    shipped_dev, no_answer = _score_shipped(cfg, staging, dev)
    gate = quantize.quality_gate(ex["models"]["student"]["dev"], shipped_dev, cfg.quantize.max_f1_drop,
                                 cfg.quantize.max_em_drop)
    if not gate["passed"]:
        raise BuildFailed(f"package: the shipped model loses {gate['f1_drop']:.2f} F1 / {gate['em_drop']:.2f} EM "
                          f"against the fp32 ONNX student through the function's loader")
    in_place = _keep_better(cfg, out, inputs["dev"], shipped_dev["f1"], staging)
    rows = _benchmarks(cfg, records, tok, staging / ship["model_file"], ship["optimized"], shipped_dev,
                      teacher_rows)
    facts = _facts(cfg, records, rows, variants, variant_why, gate, extra["build"]["command"], dev)
    facts["replaced"] = _against_replaced(cfg, out, staging / ship["model_file"], ship["optimized"], tok)
    if facts["replaced"] and in_place:
        facts["replaced"].update(dev_f1=in_place["f1"], new_dev_f1=shipped_dev["f1"])
    facts["no_answer"] = no_answer
    facts["artifact_bytes"] = sum(manifest["files"][f]["bytes"] for f in (manifest["model_file"], "tokenizer.json"))
    files = report.write(staging, facts)
    metrics = {r["key"]: {k: r[k] for k in ("parameters", "bytes", "exact_match", "f1", "p50_ms", "load_s")}
               for r in rows}
    manifest = update_manifest(staging, {**manifest, "metrics": metrics, "latency": {
        "threads": benchmark.THREADS, "runs": cfg.package.latency_runs, "machine": facts["machine"]},
        "report": files, "no_answer": no_answer})
    _publish(staging, out)
    print(f"package: {out} ({manifest['artifact_hash'][:12]}), dev F1 {shipped_dev['f1']:.2f}")
    return save_record(work, inputs, {"artifact": str(out), "artifact_hash": manifest["artifact_hash"],
                                      "model_file": manifest["model_file"], "dev": shipped_dev, "gate": gate,
                                      "variants": variants, "variant_why": variant_why, "benchmarks": rows,
                                      "replaced": facts["replaced"]})


def _source(cfg: BuildConfig, records: dict) -> dict:
    """Where the served model came from: the given model, or the teacher and the student cut from it."""
    dirs = export.model_dirs(cfg)
    if cfg.given is not None:
        return {"given": {"model": cfg.given.model, "fingerprint": source_fingerprint(cfg.given.model),
                          "architecture": records["given"].get("architecture"),
                          "checkpoint": source_fingerprint(str(dirs["student"]))}}
    return {"teacher": {"model": cfg.teacher.model, "fingerprint": source_fingerprint(cfg.teacher.model),
                        "fine_tuned": cfg.teacher.fine_tune, "checkpoint": records["export"]["inputs"]["teacher"]},
            "student": {"model": records["distil"].get("model"), "keep_layers": records["distil"].get("keep_layers"),
                        "checkpoint": source_fingerprint(str(dirs["student"]))}}


def _keep_better(cfg: BuildConfig, out: Path, dev_sha256: str, f1: float, where: Path) -> dict | None:
    """Fails when the artifact in ``out`` scored a higher dev F1 than ``f1`` on the same dev file (unless
    ``[package] replace_better``); returns that artifact's score, or None when there is none to compare with."""
    in_place = replaced_score(out, dev_sha256)
    if in_place and in_place["f1"] > f1 and not cfg.package.replace_better:
        raise BuildFailed(f"package: {out} holds {in_place['name']} ({in_place['artifact_hash'][:12]}), dev F1 "
                          f"{in_place['f1']:.2f} on this dev file; the new model scores {f1:.2f}, so it was not "
                          f"replaced (the new int8 model is in {where}). Replace it anyway with "
                          f"--set package.replace_better=true, or point [package] out at another folder")
    return in_place


def replaced_score(out: Path, dev_sha256: str) -> dict | None:
    """Name, hash and int8 dev EM/F1 of the intact artifact in ``out``, when it was scored on the same dev
    file (same sha256); None otherwise (no artifact, another dev set, or no int8 score recorded)."""
    try:
        old = load_manifest(out)
        verify(old)
    except (ArtifactError, OSError):
        return None
    if old.raw.get("dev_set", {}).get("sha256") != dev_sha256:
        return None
    metrics = old.raw.get("metrics", {})
    scores = next((metrics[k] for k in ("student_onnx_int8", "model_onnx_int8") if k in metrics), {})
    if scores.get("f1") is None:
        return None
    return {"name": old.name, "artifact_hash": old.artifact_hash, "f1": scores["f1"],
            "exact_match": scores.get("exact_match")}


def _against_replaced(cfg: BuildConfig, out: Path, shipped: Path, optimized: bool, tok: QATokenizer) -> dict | None:
    """p50 of the new int8 model and of the artifact in ``out`` it replaces, interleaved on the same windows
    (None when ``out`` holds no intact artifact)."""
    from function.model.onnx_model import OnnxQAModel

    try:
        old = load_manifest(out)
        verify(old)
    except (ArtifactError, OSError):
        return None
    old_vocab = QATokenizer(old.tokenizer_path).vocab_size
    lengths = benchmark.window_lengths(cfg.sequence.max_seq_len)
    windows = benchmark.windows(tok, lengths, vocab_size=min(tok.vocab_size, old_vocab))
    models = {"new": OnnxQAModel(shipped, benchmark.THREADS, optimized=optimized),
              "old": OnnxQAModel(old.model_path, benchmark.THREADS, optimized=old.graph_optimized)}
    p50 = {n: benchmark.interleaved_p50_ms(models, b, cfg.package.latency_runs) for n, b in windows.items()}
    replaced = {"name": old.name, "artifact_hash": old.artifact_hash,
                "p50_ms": {n: v["old"] for n, v in p50.items()}, "new_p50_ms": {n: v["new"] for n, v in p50.items()},
                "ratio": {n: round(v["new"] / v["old"], 3) for n, v in p50.items()}}
    n = cfg.sequence.max_seq_len
    print(f"package: against the replaced {old.name}: {replaced['new_p50_ms'][n]:.1f} vs "
          f"{replaced['p50_ms'][n]:.1f} ms per {n}-token window ({replaced['ratio'][n]:.2f}x)")
    return replaced


ARCHITECTURE = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
                "max_position_embeddings", "type_vocab_size")


def _architecture(model_dir: Path) -> dict:
    """The served model's type and sizes (what a stand-in of the same shape needs: ``bench stand-in``).

    Read through transformers' configuration class, whose attribute map gives every architecture the
    same names (DistilBERT's ``dim`` is its ``hidden_size``).
    """
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model_dir)
    sizes = {k: getattr(config, k) for k in ARCHITECTURE if isinstance(getattr(config, k, None), int)}
    return {"type": config.model_type, "config": sizes}


def artifact_name(cfg: BuildConfig) -> str:
    """``[package] name``, or for a model taken as given without one, the model's own name + ``-int8``."""
    if cfg.package.name or cfg.given is None:
        return cfg.package.name
    return f"{Path(cfg.given.model.rstrip('/')).name}-int8"


def _publish(staging: Path, out: Path) -> None:
    """Replace the files of ``out`` with the staged artifact's, and check they arrived intact."""
    out.mkdir(parents=True, exist_ok=True)
    for p in out.iterdir():
        if p.is_file():
            p.unlink()
    for p in staging.iterdir():
        shutil.copyfile(p, out / p.name)
    verify(load_manifest(out))
    if describe_files(out) != load_manifest(out).raw["files"]:
        raise BuildFailed(f"package: the files copied to {out} do not match its manifest")


def _score_shipped(cfg: BuildConfig, out: Path, dev) -> tuple[dict, dict]:
    """EM/F1 of the artifact as the function loads it, and its ``no_answer`` entry: the SQuAD 2.0 figures on
    the dev questions asked against a paragraph of another article, and the F1-best threshold
    (``build_model.no_answer``)."""
    from build_model import no_answer
    from function.model.load import load_model

    model, _ = load_model(load_manifest(out), cfg.threads or 0)
    try:
        result = no_answer.measure(model, dev)
    except ValueError as e:  # a dev set of one article: no other article to ask its questions against
        print(f"package: no answer not measured ({e}); the model will not abstain")
        scores = evaluate(dev, model.tokenizer, model.spec, model.infer,
                          max_answer_tokens=model.manifest.sequence["max_answer_tokens"])
        return scores, {"supported": False, "reason": str(e)}
    entry = no_answer.manifest_entry(result, Path(cfg.data.dev), default=cfg.package.abstain_by_default)
    print(f"package: no answer: {'can' if entry['supported'] else 'cannot'} abstain; threshold "
          f"{entry['threshold']:.3f}, SQuAD 2.0-style F1 {entry['metrics']['v2']['best_f1']:.2f} "
          f"(never abstaining {entry['metrics']['v2']['f1_never_abstain']:.2f})")
    return result["v1"], entry


def _student_origin(cfg: BuildConfig, ds: dict, teacher_layers: int) -> str:
    """Where the student's layers come from, in words: the distil stage's record says which model they were cut from."""
    if not ds.get("keep_layers"):
        return str(ds.get("model"))
    layers = ", ".join(str(i) for i in ds["keep_layers"])
    if ds.get("intermediate_size"):
        layers += f" (feed-forward blocks narrowed to {ds['intermediate_size']} units)"
    if ds.get("model") == "base layers" and cfg.base is not None:
        config = distil.teacher_model_dir(cfg, "base") / "config.json"
        depth = json.loads(config.read_text())["num_hidden_layers"]
        taught = (f"the {teacher_layers}-layer teacher's and the base's distributions mixed "
                  f"(base weight {cfg.student.base_weight:g})" if cfg.student.base_weight else
                  f"the {teacher_layers}-layer teacher")
        return (f"layers {layers} of the {depth}-layer base, {Path(cfg.base.model).name} fine-tuned on SQuAD; "
                f"distilled from {taught}")
    return f"layers {layers} of the {teacher_layers}-layer teacher"


def _facts(cfg: BuildConfig, records: dict, rows: list[dict], variants: list[dict], variant_why: str,
           gate: dict, command: str, dev) -> dict:
    ex, qr = records["export"], records["quantize"]
    ds = records.get("distil", {})
    if cfg.given is not None:
        g = records["given"]
        origin = f"{cfg.given.model} ({g['architecture']}), taken as given"
    else:
        origin = _student_origin(cfg, ds, ex["models"]["teacher"]["layers"])
    label = {"teacher": "teacher", "student": "model" if cfg.given is not None else "student"}
    diffs = {f"{label[name]} {kind}": ex["models"][name][kind]["max_logit_diff"]
             for name in ex["models"] for kind in ("raw", "fused")
             if "max_logit_diff" in ex["models"][name].get(kind, {})}
    fusion = {label[name]: {"attention_fused": m["fused"].get("attention_fused"),
                            "fused_ops": m["fused"].get("fused_ops"), "rejected": m["fused"].get("rejected")}
              for name, m in ex["models"].items() if "fused" in m}
    return {
        "given": cfg.given is not None, "fusion": fusion,
        "name": artifact_name(cfg), "notes": _notes(cfg, rows), "command": command, "window": cfg.sequence.max_seq_len,
        "threads": benchmark.THREADS, "latency_runs": cfg.package.latency_runs, "rows": rows,
        "student_origin": origin, "kd_held_out": ds.get("kd_held_out"),
        "dev": {"file": Path(cfg.data.dev).name, "questions": len(dev.questions)},
        "candidates": qr["candidates"], "kept": qr["kept"]["name"], "why": qr["why"], "gate": gate,
        "parity": {**ex["parity"], "atol": ex["atol"], "diffs": diffs, "int8": qr["kept"]["max_logit_diff_vs_fp32"]},
        "variants": variants, "variant_why": variant_why, "targets": dataclasses.asdict(cfg.targets),
        "machine": benchmark.machine(), "versions": benchmark.versions(),
    }
