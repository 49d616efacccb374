"""What a model taken from the hub costs to serve: int8 size and latency of stand-ins of the same shape.

    .venv/bin/python -m experiments.hub_standins --out records/build/given/hub_standins.json [--only NAME ...]
        [--runs N]

Size and speed do not depend on the weights' values, so no download is needed:
each architecture's ``*ForQuestionAnswering`` model is built from its published
configuration (``STANDINS``: the hub model's ``config.json`` values, written
here as constants) with random weights and eager attention, and goes through
the chain a given model's build runs: ``export_onnx`` (opset 17, the inputs
``build_model.hf.reads_segments`` picks), ``optimize_bert`` (the fused graph is
kept only if its logits stay within 1e-3 of the plain graph's on a full window
and on a padded batch, as the export stage does for a given model), and
``quantize_dynamic`` (int8 weights of MatMul, Gather and fused Attention, per tensor, full range).
Each int8 model is then timed on one full 384-token window (batch 1, a 16-token
question, random ids in the model's vocabulary, attention mask all ones) with
the function's own session (``OnnxQAModel``, 2 threads, ``ORT_ENABLE_ALL`` as
the build serves a plain quantised graph), all models and the shipped
``artifact/model.onnx`` taken in turn (``interleaved_p50_ms``), so that each
figure is also a ratio to the shipped model measured in the same minutes.

Each architecture's int8 graph and record are cached in
``build/hub_standins/NAME/`` (the fp32 graphs are deleted once quantised), so a
re-run only re-times. Quality is not measured here: the published figures in
``STANDINS`` are the model cards' (random weights answer nothing).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from build_model.evaluation import benchmark
from function.model.windows import Batch, WindowSpec, build_batch

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "build" / "hub_standins"
OPSET = 17
WINDOW = 384
FUSION_ATOL = 1e-3  # [export] atol of build_model/configs/given.toml
LOAD_RUNS = 3
# The given build's candidates (build_model/configs/given.toml) at per tensor, full range. "Attention" matters
# where the optimizer fused one: without it the fused QKV weights stay fp32 (DistilBERT: 97 MB instead of 67).
QUANTIZATION = {"per_channel": False, "op_types": ["MatMul", "Gather", "Attention"], "reduce_range": False,
                "weight_type": "QInt8", "activations": "dynamic QUInt8"}
RECORD = "standin.json"
INT8 = "model.int8.onnx"
FORMAT = 1  # bump to invalidate every cached stand-in


@dataclass(frozen=True)
class Standin:
    """One architecture: the published configuration of an example hub model, and its published quality."""

    name: str  # short key: the cache folder and --only
    architecture: str
    hub_id: str  # an example model on the hub with this configuration
    config_class: str  # a transformers config class
    config: dict  # the hub model's config.json values that decide its shape
    config_source: str
    special: tuple[int, int, int, int]  # cls, sep, pad ids and separators between question and passage
    published: dict | None = None  # {"dataset", "f1", "source"}: the model card's figure, not measured here
    note: str = ""


_BERT_SPECIAL = (101, 102, 0, 1)
_BERT_BASE = {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
              "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu"}

STANDINS: tuple[Standin, ...] = (
    Standin("distilbert", "DistilBERT (6 layers, 768)", "distilbert-base-cased-distilled-squad", "DistilBertConfig",
            {"vocab_size": 28996, "dim": 768, "n_layers": 6, "n_heads": 12, "hidden_dim": 3072,
             "max_position_embeddings": 512, "activation": "gelu"},
            "config.json of distilbert-base-cased-distilled-squad", _BERT_SPECIAL,
            {"dataset": "SQuAD v1.1 dev", "f1": 87.1,
             "source": "https://huggingface.co/distilbert/distilbert-base-cased-distilled-squad"}),
    Standin("roberta-base", "RoBERTa-base", "deepset/roberta-base-squad2", "RobertaConfig",
            {**_BERT_BASE, "vocab_size": 50265, "max_position_embeddings": 514, "type_vocab_size": 1,
             "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": 1e-5},
            "config.json of deepset/roberta-base-squad2 (roberta-base)", (0, 2, 1, 2),
            {"dataset": "SQuAD v2.0 dev", "f1": 82.95,
             "source": "https://huggingface.co/deepset/roberta-base-squad2 (model-index, verified)"}),
    Standin("minilm-l12-h384", "MiniLM-L12-H384 (BERT-shaped)", "deepset/minilm-uncased-squad2", "BertConfig",
            {**_BERT_BASE, "vocab_size": 30522, "hidden_size": 384, "intermediate_size": 1536},
            "config.json of deepset/minilm-uncased-squad2 (microsoft/MiniLM-L12-H384-uncased)", _BERT_SPECIAL,
            {"dataset": "SQuAD v2.0 dev", "f1": 79.55,
             "source": "https://huggingface.co/deepset/minilm-uncased-squad2 (model-index, verified)"}),
    Standin("deberta-v3-base", "DeBERTa-v3-base", "deepset/deberta-v3-base-squad2", "DebertaV2Config",
            {**_BERT_BASE, "vocab_size": 128100, "type_vocab_size": 0, "relative_attention": True,
             "position_buckets": 256, "max_relative_positions": -1, "pos_att_type": ["p2c", "c2p"],
             "norm_rel_ebd": "layer_norm", "share_att_key": True, "position_biased_input": False,
             "layer_norm_eps": 1e-7, "pad_token_id": 0},
            "config.json of deepset/deberta-v3-base-squad2 (microsoft/deberta-v3-base)", (1, 2, 0, 1),
            {"dataset": "SQuAD v2.0 dev", "f1": 87.41,
             "source": "https://huggingface.co/deepset/deberta-v3-base-squad2 (model-index, verified)"},
            "disentangled attention: no Attention kernel"),
    Standin("electra-base", "ELECTRA-base", "deepset/electra-base-squad2", "ElectraConfig",
            {**_BERT_BASE, "vocab_size": 30522, "embedding_size": 768},
            "config.json of deepset/electra-base-squad2 (google/electra-base-discriminator)", _BERT_SPECIAL,
            {"dataset": "SQuAD v2.0 dev", "f1": 81.72,
             "source": "https://huggingface.co/deepset/electra-base-squad2 (model-index, verified)"}),
    Standin("mobilebert", "MobileBERT (24 layers, 512/128)", "csarron/mobilebert-uncased-squad-v2",
            "MobileBertConfig",
            {"vocab_size": 30522, "hidden_size": 512, "num_hidden_layers": 24, "num_attention_heads": 4,
             "intermediate_size": 512, "embedding_size": 128, "true_hidden_size": 128, "intra_bottleneck_size": 128,
             "use_bottleneck": True, "use_bottleneck_attention": False, "key_query_shared_bottleneck": True,
             "num_feedforward_networks": 4, "normalization_type": "no_norm", "hidden_act": "relu",
             "trigram_input": True, "max_position_embeddings": 512, "type_vocab_size": 2},
            "config.json of csarron/mobilebert-uncased-squad-v2 (google/mobilebert-uncased)", _BERT_SPECIAL,
            {"dataset": "SQuAD v2.0 dev", "f1": 78.8,
             "source": "https://huggingface.co/csarron/mobilebert-uncased-squad-v2 (model card, Results)"}),
    Standin("mpnet-base", "MPNet-base", "a SQuAD fine-tune of `microsoft/mpnet-base`", "MPNetConfig",
            {**_BERT_BASE, "vocab_size": 30527, "max_position_embeddings": 514, "relative_attention_num_buckets": 32,
             "layer_norm_eps": 1e-5, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2},
            "config.json of microsoft/mpnet-base", (0, 2, 1, 2), None,
            "relative position bias: no Attention kernel"),
    Standin("bert-base", "BERT-base uncased", "csarron/bert-base-uncased-squad-v1", "BertConfig",
            {**_BERT_BASE, "vocab_size": 30522},
            "config.json of csarron/bert-base-uncased-squad-v1 (bert-base-uncased)", _BERT_SPECIAL,
            {"dataset": "SQuAD v1.1 dev", "f1": 88.2,
             "source": "https://huggingface.co/csarron/bert-base-uncased-squad-v1 (model card, Results)"}),
    Standin("albert-base-v2", "ALBERT-base-v2 (shared layers)", "twmkn9/albert-base-v2-squad2", "AlbertConfig",
            {**_BERT_BASE, "vocab_size": 30000, "embedding_size": 128, "num_hidden_groups": 1,
             "inner_group_num": 1, "hidden_act": "gelu_new", "pad_token_id": 0, "bos_token_id": 2,
             "eos_token_id": 3},
            "config.json of twmkn9/albert-base-v2-squad2 (albert-base-v2)", (2, 3, 0, 1),
            {"dataset": "SQuAD v2.0 dev, a 6,078-question subset", "f1": 81.9,
             "source": "https://huggingface.co/twmkn9/albert-base-v2-squad2 (model card, Results)"}),
    Standin("bert-large-wwm", "BERT-large uncased (24 layers, 1024)",
            "bert-large-uncased-whole-word-masking-finetuned-squad", "BertConfig",
            {**_BERT_BASE, "vocab_size": 30522, "hidden_size": 1024, "num_hidden_layers": 24,
             "num_attention_heads": 16, "intermediate_size": 4096},
            "config.json of google-bert/bert-large-uncased-whole-word-masking-finetuned-squad", _BERT_SPECIAL,
            {"dataset": "SQuAD v1.1 dev", "f1": 93.15,
             "source": "https://huggingface.co/google-bert/bert-large-uncased-whole-word-masking-finetuned-squad "
                       "(model card; transformers examples/question-answering README)"}),
)
BY_NAME = {s.name: s for s in STANDINS}


# ---- building one stand-in --------------------------------------------------------------------------

def make_model(standin: Standin, seed: int = 0):
    """The ``*ForQuestionAnswering`` model of ``standin``'s configuration, random weights, eager attention."""
    import torch
    import transformers

    torch.manual_seed(seed)
    config = getattr(transformers, standin.config_class)(**standin.config)
    model = transformers.AutoModelForQuestionAnswering.from_config(config, attn_implementation="eager")
    return model.eval()


def window(standin: Standin, length: int = WINDOW, seed: int = 0, rows: int = 1) -> Batch:
    """Full windows of ``length`` tokens as the function builds them (as ``benchmark.windows``, with the
    stand-in's special ids): a 16-token question and a passage of random ids in the vocabulary."""
    cls, sep, pad, seps = standin.special
    vocab = int(standin.config["vocab_size"])
    low = min(1000, vocab // 2)
    rng = np.random.default_rng(seed)
    spec = WindowSpec(length, min(128, length // 4), benchmark.QUESTION_TOKENS, cls, sep, pad, seps)
    question = rng.integers(low, vocab, benchmark.QUESTION_TOKENS)
    budget = spec.passage_budget(benchmark.QUESTION_TOKENS)
    passages = [rng.integers(low, vocab, budget - 7 * r) for r in range(rows)]  # later rows padded
    return build_batch(question, passages, spec)


def cache_key(standin: Standin) -> str:
    from build_model.evaluation.benchmark import versions

    shape = {"config_class": standin.config_class, "config": standin.config}  # what the int8 graph depends on
    raw = json.dumps({"format": FORMAT, "standin": shape, "opset": OPSET, "quantization": QUANTIZATION,
                      "fusion_atol": FUSION_ATOL, "versions": versions()}, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


def _fusion_diff(raw: Path, fused: Path, batches: list[Batch]) -> float:
    from build_model.conversion.onnx_export import max_logit_diff
    from function.model.onnx_model import OnnxQAModel

    return max_logit_diff(OnnxQAModel(raw, benchmark.THREADS, optimized=False),
                          OnnxQAModel(fused, benchmark.THREADS, optimized=True), batches)


def build_int8(standin: Standin, folder: Path, length: int = WINDOW, log: Callable[[str], None] = print) -> dict:
    """Export, fuse (if the fused graph keeps the logits), quantise; returns the record (cached in ``folder``)."""
    from build_model.conversion.onnx_export import export_onnx, graph_inputs, optimize_bert
    from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate

    key = cache_key(standin)
    record_path = folder / RECORD
    if record_path.is_file() and (folder / INT8).is_file():
        record = json.loads(record_path.read_text())
        if record.get("cache_key") == key:
            log(f"{standin.name}: int8 graph cached ({folder / INT8})")
            return record
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    model = make_model(standin)
    raw, fused, int8 = folder / "model.onnx", folder / "model.opt.onnx", folder / INT8
    export_onnx(model, raw, OPSET)
    record = {"name": standin.name, "cache_key": key, "model_type": model.config.model_type,
              "parameters": sum(p.numel() for p in model.parameters()), "inputs": list(graph_inputs(model)),
              "num_heads": model.config.num_attention_heads, "hidden_size": model.config.hidden_size,
              "layers": model.config.num_hidden_layers, "fp32_onnx_bytes": raw.stat().st_size}
    del model
    log(f"{standin.name}: exported ({record['parameters'] / 1e6:.1f} M parameters, "
        f"{record['fp32_onnx_bytes'] / 1e6:.0f} MB fp32, inputs {record['inputs']})")
    fusion: dict = {"fused_ops": {}, "attention_fused": False, "used": False}
    try:
        fusion["fused_ops"] = optimize_bert(raw, fused, num_heads=record["num_heads"],
                                            hidden_size=record["hidden_size"])
        fusion["attention_fused"] = bool(fusion["fused_ops"].get("Attention")
                                         or fusion["fused_ops"].get("MultiHeadAttention"))
        checks = [window(standin, length), window(standin, length, seed=1, rows=2)]
        fusion["max_logit_diff"] = diff = _fusion_diff(raw, fused, checks)
        fusion["used"] = diff <= FUSION_ATOL
        if not fusion["used"]:
            fusion["rejected"] = (f"fused graph's logits differ from the plain graph's by {diff:.2e} "
                                  f"(> {FUSION_ATOL:.0e}): the plain graph is quantised")
    except Exception as e:  # an optimizer failure is a finding; the plain graph goes on
        fusion["rejected"] = f"optimize_bert failed: {type(e).__name__}: {str(e).splitlines()[0][:300]}"
    record["fusion"] = fusion
    log(f"{standin.name}: fused ops {fusion['fused_ops']}; "
        + ("fused graph used" if fusion["used"] else fusion.get("rejected", "")))
    src = fused if fusion["used"] else raw
    record["quantized_from"] = "fused" if fusion["used"] else "plain"
    present = graph_ops(src)
    ops = tuple(QUANTIZATION["op_types"])
    record["quantization"] = {**QUANTIZATION, **quantize_candidate(
        src, int8, Candidate(QUANTIZATION["per_channel"], ops, QUANTIZATION["reduce_range"]), present)}
    record["int8_bytes"] = int8.stat().st_size
    if "Attention" in present:  # the other candidate's size: fused attention weights left in fp32
        other = folder / "model.int8-no-attention.onnx"
        quantize_candidate(src, other, Candidate(QUANTIZATION["per_channel"], tuple(o for o in ops if o != "Attention"),
                                                 QUANTIZATION["reduce_range"]), present)
        record["int8_bytes_attention_not_quantized"] = other.stat().st_size
        other.unlink()
    record["build_s"] = round(time.perf_counter() - t0, 1)
    for path in (raw, fused):  # fp32 graphs are large; the int8 graph is all the timing needs
        path.unlink(missing_ok=True)
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    log(f"{standin.name}: int8 {record['int8_bytes'] / 1e6:.1f} MB ({record['build_s']:.0f} s)")
    return record


# ---- timing all of them together --------------------------------------------------------------------

def _reference(artifact: Path, length: int) -> tuple[dict, Callable[[], object], Batch]:
    from function.model.artifact import load_manifest
    from function.model.onnx_model import OnnxQAModel
    from function.model.tokenizer import QATokenizer

    manifest = load_manifest(artifact.resolve())
    batch = benchmark.windows(QATokenizer(manifest.tokenizer_path), [length])[length]
    shipped = manifest.raw.get("metrics", {}).get("student_onnx_int8", {})
    info = {"name": "shipped", "model": manifest.name, "path": str(manifest.model_path),
            "int8_bytes": manifest.model_path.stat().st_size, "optimized": manifest.graph_optimized,
            "parameters": shipped.get("parameters"),
            # the build's own figure for this window length, timed alone on the build machine
            "manifest_p50_ms": shipped.get("p50_ms", {}).get(str(length))}

    def make() -> OnnxQAModel:
        return OnnxQAModel(manifest.model_path, benchmark.THREADS, optimized=manifest.graph_optimized)

    return info, make, batch


def measure(standins: list[Standin], work: Path, runs: int, artifact: Path | None, length: int = WINDOW,
            log: Callable[[str], None] = print) -> dict:
    """Build (or reuse) every stand-in's int8 graph, then time them all, interleaved, with the shipped model."""
    from function.model.onnx_model import OnnxQAModel

    rows, failed = [], []
    for s in standins:
        try:
            record = build_int8(s, work / s.name, length, log)
        except Exception as e:  # one architecture that fails must not stop the others
            error = f"{type(e).__name__}: {str(e).splitlines()[0][:500] if str(e) else ''}"
            log(f"{s.name}: FAILED: {error}")
            failed.append({"name": s.name, "hub_id": s.hub_id, "error": error,
                           "traceback": traceback.format_exc(limit=6)})
            continue
        rows.append((s, record))

    timed: dict[str, Callable[[Batch], object]] = {}
    loads: dict[str, float] = {}
    reference = None
    if artifact is not None:
        reference, make, batch = _reference(artifact, length)
        loads["shipped"], model = benchmark.median_seconds(make, LOAD_RUNS)
        timed["shipped"] = lambda _b, m=model, b=batch: m(b)
    for s, _ in rows:
        path = work / s.name / INT8
        # a plain quantised graph is served at ORT_ENABLE_ALL (optimized=False): it needs ORT's int8 fusions
        loads[s.name], model = benchmark.median_seconds(
            lambda p=path: OnnxQAModel(p, benchmark.THREADS, optimized=False), LOAD_RUNS)
        batch = window(s, length)
        timed[s.name] = lambda _b, m=model, b=batch: m(b)
    log(f"timing {len(timed)} models, {runs} interleaved runs each, one {length}-token window, "
        f"{benchmark.THREADS} threads")
    load_before = _loadavg()
    p50 = benchmark.interleaved_p50_ms(timed, None, runs) if timed else {}
    load_after = _loadavg()

    ref_ms = p50.get("shipped")
    scale = None
    if reference is not None:
        reference.update(p50_ms=ref_ms, load_s=loads["shipped"])
        if reference["manifest_p50_ms"] and ref_ms:
            # the machine was slower during the run by ref_ms / manifest_p50_ms: a ratio carries over, a time not
            scale = reference["manifest_p50_ms"] / ref_ms
    models = []
    for s, record in rows:
        ms = p50[s.name]
        models.append({
            "name": s.name, "architecture": s.architecture, "hub_id": s.hub_id, "model_type": record["model_type"],
            "config_class": s.config_class, "config": s.config, "config_source": s.config_source,
            "parameters": record["parameters"], "inputs": record["inputs"],
            "fp32_onnx_bytes": record["fp32_onnx_bytes"], "int8_bytes": record["int8_bytes"],
            "fusion": record["fusion"], "quantized_from": record["quantized_from"],
            "quantization": record["quantization"],
            "int8_bytes_attention_not_quantized": record.get("int8_bytes_attention_not_quantized"),
            "load_s": loads[s.name], "p50_ms": ms,
            "ratio_to_shipped": round(ms / ref_ms, 3) if ref_ms else None,
            "p50_ms_at_manifest_speed": round(ms * scale, 1) if scale else None,
            "published": s.published, "published_note": "the model card's figure, not measured here",
            "note": s.note,
        })
    return {"reference": reference, "models": models, "failed": failed,
            "loadavg": {"before_timing": load_before, "after_timing": load_after}}


def _loadavg() -> list[float] | None:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return None


def report(result: dict, out: Path, runs: int, length: int, command: str) -> dict:
    data = {
        "what": "int8 size and latency of stand-ins (random weights, published configurations) of hub QA models",
        "date": datetime.date.today().isoformat(), "command": command,
        "window": {"tokens": length, "batch": 1, "question_tokens": benchmark.QUESTION_TOKENS,
                   "attention_mask": "all ones"},
        "timing": {"threads": benchmark.THREADS, "runs_each": runs, "warmup_each": benchmark.WARMUP,
                   "interleaved": True, "session": "function.model.onnx_model.OnnxQAModel",
                   "load_runs": LOAD_RUNS},
        "opset": OPSET, "quantization": QUANTIZATION, "fusion_atol": FUSION_ATOL,
        "machine": benchmark.machine(), "versions": benchmark.versions(), **result,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    return data


def markdown(data: dict) -> str:
    """The table of docs/hub_models.md: measured columns, the quiet-machine estimate, published quality."""
    ref = data.get("reference")
    quiet = f"{ref['manifest_p50_ms']:g}" if ref and ref.get("manifest_p50_ms") else "?"
    lines = ["| architecture | example hub id | parameters | int8 MB | p50 ms, measured | x shipped | "
             "≈ ms, machine quiet | Attention kernel | published SQuAD F1 (not measured here) |",
             "|---|---|--:|--:|--:|--:|--:|---|---|"]
    if ref:
        lines.append(f"| shipped sandbox model ({ref['model']}) | `artifact/` | "
                     f"{(ref['parameters'] or 0) / 1e6:.1f} M | {ref['int8_bytes'] / 1e6:.1f} | "
                     f"{ref['p50_ms']:.0f} | 1.00 | {quiet} | yes | - |")
    for m in data["models"]:
        pub = m["published"]
        quality = (f"{pub['f1']:g}, {pub['dataset']} ([card]({pub['source'].split()[0]}))" if pub else "-")
        ratio = f"{m['ratio_to_shipped']:.2f}" if m["ratio_to_shipped"] is not None else "-"
        est = f"{m['p50_ms_at_manifest_speed']:.0f}" if m.get("p50_ms_at_manifest_speed") else "-"
        fused = "yes" if m["fusion"]["attention_fused"] and m["fusion"]["used"] else "no"
        hub = f"`{m['hub_id']}`" if " " not in m["hub_id"] else m["hub_id"]
        lines.append(f"| {m['architecture']} | {hub} | {m['parameters'] / 1e6:.1f} M | "
                     f"{m['int8_bytes'] / 1e6:.1f} | {m['p50_ms']:.0f} | {ratio} | {est} | {fused} | {quality} |")
    for f in data["failed"]:
        lines.append(f"| {f['name']} | `{f['hub_id']}` | failed: {f['error'][:120]} | | | | | | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.hub_standins", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=REPO / "records" / "build" / "given" / "hub_standins.json")
    p.add_argument("--only", nargs="+", choices=sorted(BY_NAME), help="these architectures only")
    p.add_argument("--runs", type=int, default=20, help="timed runs of each model (interleaved)")
    p.add_argument("--work", type=Path, default=WORK, help="cache of the int8 graphs")
    p.add_argument("--artifact", type=Path, default=REPO / "artifact", help="the shipped model, the reference")
    p.add_argument("--clean", action="store_true", help="delete the cached int8 graphs afterwards")
    p.add_argument("--table", type=Path, help="print the table of a JSON written before, and exit")
    args = p.parse_args(argv)
    if args.table:
        print(markdown(json.loads(args.table.read_text())))
        return 0
    standins = [BY_NAME[n] for n in args.only] if args.only else list(STANDINS)
    command = "python -m experiments.hub_standins " + " ".join(sys.argv[1:] if argv is None else argv)
    result = measure(standins, args.work, args.runs, args.artifact)
    data = report(result, args.out, args.runs, WINDOW, command.strip())
    print()
    print(markdown(data))
    print(f"\n{args.out}: {len(data['models'])} measured, {len(data['failed'])} failed; "
          f"{benchmark.THREADS} threads, {args.runs} interleaved runs each; machine: {data['machine']['cpu']}")
    if args.clean:
        shutil.rmtree(args.work, ignore_errors=True)
    return 0 if not data["failed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

