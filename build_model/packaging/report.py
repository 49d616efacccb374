"""REPORT.md and report.png for the artifact folder, from the numbers the stages measured.

``facts`` is a plain dict assembled by the package stage: one row per model
(``ROWS`` order), the quantisation candidates, the parity checks, the load-time
variants, the machine, the versions and the command that reproduces the build.
Nothing here measures anything.
"""

from __future__ import annotations

from pathlib import Path

MB = 1e6
REPORT_MD = "REPORT.md"
REPORT_PNG = "report.png"
ROWS = ("teacher PyTorch fp32", "teacher ONNX fp32", "student PyTorch fp32", "student ONNX fp32",
        "student ONNX int8 (shipped)")
GIVEN_ROWS = ("model PyTorch fp32", "model ONNX fp32", "model ONNX int8 (shipped)")  # a model taken as given
ORIGINAL = ("original write-up (bert-large, always-on server)", "16 GB memory", "30 s cold start",
            "1500 ms per question")


def _f(value, fmt: str = ".2f", missing: str = "n/a") -> str:
    return missing if value is None else format(value, fmt)


def _ratio(num, den) -> float | None:
    """num / den, or None when den is zero (a tiny test model can score F1 0)."""
    return num / den if den else None


def targets(facts: dict) -> list[tuple[str, str, bool]]:
    """(target, measured, met) for each target of ``facts["targets"]`` (``TargetsConfig``) that is on."""
    from build_model.config import TargetsConfig

    goal = TargetsConfig(**facts.get("targets", {}))
    rows = {r["stage"]: r for r in facts["rows"]}
    shipped = facts["rows"][-1]
    teacher, teacher_onnx = rows.get(ROWS[0]), rows.get(ROWS[1])
    n = facts["window"]
    served = facts["artifact_bytes"]
    drop = facts["gate"]["f1_drop"]
    out = []
    if teacher is None or teacher_onnx is None:  # a model taken as given: nothing to compare with a teacher
        for name, value in (("teacher_f1", goal.teacher_f1), ("student_share", goal.student_share),
                            ("speedup_vs_teacher", goal.speedup_vs_teacher)):
            if value:
                out.append((f"{name} {value:g}", "no teacher in this build", False))
        goal = TargetsConfig(**{**facts.get("targets", {}), "teacher_f1": 0.0, "student_share": 0.0,
                                "speedup_vs_teacher": 0.0})
    else:
        speedup = _ratio(teacher_onnx["p50_ms"][n], shipped["p50_ms"][n])
        share = _ratio(shipped["f1"], teacher["f1"])
    if goal.teacher_f1:
        out.append((f"teacher dev F1 >= {goal.teacher_f1:g}", f"{teacher['f1']:.2f}", teacher["f1"] >= goal.teacher_f1))
    if goal.student_f1:
        out.append((f"{'model' if facts.get('given') else 'student'} int8 dev F1 >= {goal.student_f1:g}",
                    f"{shipped['f1']:.2f}",
                    shipped["f1"] >= goal.student_f1))
    if goal.student_share:
        out.append((f"student int8 F1 >= {goal.student_share:.0%} of the teacher's",
                    f"{_f(share, '.1%')} ({shipped['f1']:.2f} / {teacher['f1']:.2f})",
                    share is not None and share >= goal.student_share))
    if goal.speedup_vs_teacher:
        out.append((f"int8 >= {goal.speedup_vs_teacher:g}x faster than the teacher's fp32 ONNX (one {n}-token "
                    f"window, {facts['threads']} threads)",
                    f"{_f(speedup)}x ({shipped['p50_ms'][n]:.1f} vs {teacher_onnx['p50_ms'][n]:.1f} ms)",
                    speedup is not None and speedup >= goal.speedup_vs_teacher))
    if goal.max_slowdown_vs_replaced:
        replaced = facts.get("replaced")
        if replaced is None:
            out.append((f"int8 {n}-token run <= {goal.max_slowdown_vs_replaced:g}x the artifact it replaces",
                        "no artifact was replaced", False))
        else:
            ratio = replaced["ratio"][n]
            out.append((f"int8 {n}-token run <= {goal.max_slowdown_vs_replaced:g}x the artifact it replaces "
                        f"({replaced['name']}, interleaved in one run)",
                        f"{ratio:.2f}x ({replaced['new_p50_ms'][n]:.1f} vs {replaced['p50_ms'][n]:.1f} ms)",
                        ratio <= goal.max_slowdown_vs_replaced))
    if goal.max_artifact_mb:
        out.append((f"artifact (model + tokenizer) <= {goal.max_artifact_mb:g} MB", f"{served / MB:.1f} MB",
                    served <= goal.max_artifact_mb * MB))
    if goal.max_int8_f1_drop:
        out.append((f"int8 vs fp32 ONNX F1 drop <= {goal.max_int8_f1_drop:g}", f"{drop:.2f}",
                    drop <= goal.max_int8_f1_drop))
    return out


def why_given(facts: dict) -> str:
    """What became of a model taken as given: its accuracy and speed at each step, and what fusion did."""
    pt, fp32, q = facts["rows"]
    n = facts["window"]
    missed = [name for name, _, ok in targets(facts) if not ok]
    text = (f"The model ({facts['student_origin']}) has {q['parameters'] / 1e6:.1f} M parameters. It answers "
            f"with dev F1 {_f(pt['f1'])} in PyTorch, {_f(fp32['f1'])} as fp32 ONNX and {_f(q['f1'])} as int8, in "
            f"{q['p50_ms'][n]:.1f} ms per {n}-token window ({_f(_ratio(fp32['p50_ms'][n], q['p50_ms'][n]), '.1f')}x "
            f"faster than fp32 ONNX, {_f(_ratio(pt['p50_ms'][n], q['p50_ms'][n]), '.1f')}x faster than PyTorch) "
            f"in a file of {q['bytes'] / MB:.1f} MB ({_f(_ratio(fp32['bytes'], q['bytes']), '.1f')}x smaller). ")
    for f in (facts.get("fusion") or {}).values():
        if f.get("rejected"):
            text += f"ONNX Runtime's transformer fusion was rejected ({f['rejected']}): the unfused graph ships. "
        elif not f.get("attention_fused"):
            text += ("Attention is not fused for this architecture (ONNX Runtime's BERT fusion does not match "
                     "its attention, e.g. DeBERTa's disentangled or MPNet's relative-position attention); "
                     f"fused: {', '.join(f'{k} {v}' for k, v in (f.get('fused_ops') or {}).items()) or 'nothing'}. ")
    text += ("It meets every target below." if not missed else f"It misses: {'; '.join(missed)}.")
    return text


def why_student(facts: dict) -> str:
    if facts.get("given"):
        return why_given(facts)
    rows = {r["stage"]: r for r in facts["rows"]}
    t, s, q, t_onnx = rows[ROWS[0]], rows[ROWS[2]], rows[ROWS[4]], rows[ROWS[1]]
    n = facts["window"]
    kd = facts.get("kd_held_out") or {}
    missed = [name for name, _, ok in targets(facts) if not ok]
    text = (
        f"The student ({facts['student_origin']}) has {s['parameters'] / 1e6:.1f} M parameters, "
        f"{_f(_ratio(s['parameters'], t['parameters']), '.0%')} of the teacher's {t['parameters'] / 1e6:.1f} M. "
        f"Distilled on the teacher's soft targets, it reaches dev F1 {s['f1']:.2f} in PyTorch "
        f"({_f(_ratio(s['f1'], t['f1']), '.0%')} of the teacher's {t['f1']:.2f})"
    )
    if kd:
        moved = "fell" if kd["after"] < kd["before"] else "rose"
        text += (f"; on {kd['features']} held-out dev windows its distillation loss {moved} from "
                 f"{kd['before']:.3f} to {kd['after']:.3f}")
    text += (
        f". Quantised to int8 it answers with F1 {q['f1']:.2f} in {q['p50_ms'][n]:.1f} ms per {n}-token "
        f"window, {_f(_ratio(t_onnx['p50_ms'][n], q['p50_ms'][n]), '.1f')}x faster than the teacher's fp32 ONNX "
        f"({t_onnx['p50_ms'][n]:.1f} ms) in a file {_f(_ratio(t_onnx['bytes'], q['bytes']), '.1f')}x smaller "
        f"({q['bytes'] / MB:.1f} MB vs {t_onnx['bytes'] / MB:.1f} MB). "
    )
    if replaced := facts.get("replaced"):
        text += (f"Against the artifact it replaces ({replaced['name']}, {replaced['artifact_hash'][:12]}), run "
                 f"interleaved on the same windows: " + ", ".join(
                     f"{k} tokens {replaced['new_p50_ms'][k]:.1f} vs {replaced['p50_ms'][k]:.1f} ms"
                     for k in sorted(replaced["p50_ms"])) + ". ")
        if replaced.get("dev_f1") is not None:
            text += f"On the same dev file: F1 {replaced['new_dev_f1']:.2f} vs {replaced['dev_f1']:.2f}. "
    text += ("It meets every target below." if not missed else
             f"It misses: {'; '.join(missed)}.")
    return text


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def markdown(facts: dict) -> str:
    n = facts["window"]
    lines = [f"# {facts['name']}: build report", "",
             f"Reproduce: `{facts['command']}`", "", f"## Why this {'model' if facts.get('given') else 'student'}", "",
             why_student(facts), ""]
    if facts.get("notes"):
        lines += [facts["notes"].strip(), ""]
    lines += ["## Models", "",
              f"Dev set: {facts['dev']['questions']} questions ({facts['dev']['file']}). Latency: median of "
              f"{facts['latency_runs']} runs of one {n}-token window (batch 1) after warm-up, "
              f"{facts['threads']} intra-op threads; ONNX through the function's own session options. "
              "Load: median ONNX Runtime session creation, or PyTorch `from_pretrained`.", ""]
    header = ["model", "parameters", "file size (MB)", "dev EM", "dev F1", f"p50, {n} tokens (ms)", "load (s)"]
    body = [[r["stage"], f"{r['parameters'] / 1e6:.1f} M", f"{r['bytes'] / MB:.1f}", _f(r["exact_match"]),
             _f(r["f1"]), f"{r['p50_ms'][n]:.1f}", f"{r['load_s']:.3f}"] for r in facts["rows"]]
    body.append([f"*{ORIGINAL[0]}*", "340 M", f"*{ORIGINAL[1]}*", "", "", f"*{ORIGINAL[3]}*", f"*{ORIGINAL[2]}*"])
    lines += _table(header, body)
    lines += ["", "> For scale, the original write-up: bert-large on an always-on server, 16 GB of memory, "
              "a 30 s cold start and 1500 ms per question.", ""]
    lengths = sorted(facts["rows"][0]["p50_ms"])
    if len(lengths) > 1:
        lines += ["p50 latency (ms) by window length:", ""]
        lines += _table(["model", *[f"{k} tokens" for k in lengths]],
                        [[r["stage"], *[f"{r['p50_ms'][k]:.1f}" for k in lengths]] for r in facts["rows"]])
        lines.append("")
    lines += ["## Targets", ""]
    lines += _table(["target", "measured", "met"], [[t, m, "yes" if ok else "**no**"] for t, m, ok in targets(facts)])
    lines += ["", "## Quantisation candidates", "",
              "Dynamic quantisation (ONNX Runtime `quantize_dynamic`): int8 weights, uint8 activations "
              "quantised per call. Each candidate scored on dev through the function's session.", ""]
    lines += _table(
        ["candidate", "per-channel", "reduce range", "quantised ops", "size (MB)", "dev EM", "dev F1",
         "p50 (ms)", "max logit diff vs fp32", "largest fp32 tensor (MB)"],
        [[c["name"] + (" **(kept)**" if c["name"] == facts["kept"] else ""), str(c["per_channel"]),
          str(c["reduce_range"]), ", ".join(c["quantized_ops"]), f"{c['bytes'] / MB:.2f}",
          _f(c["dev"]["exact_match"]), _f(c["dev"]["f1"]), f"{c['p50_ms']:.1f}",
          f"{c['max_logit_diff_vs_fp32']:.3f}", f"{c['largest_fp32_initializer']['bytes'] / MB:.2f}"]
         for c in facts["candidates"]])
    g = facts["gate"]
    lines += ["", f"Kept: {facts['why']}.", "",
              f"Quality gate: F1 drop {g['f1_drop']:.2f} (allowed {g['max_f1_drop']}), EM drop {g['em_drop']:.2f} "
              f"(allowed {g['max_em_drop']}) against the fp32 ONNX {'model' if facts.get('given') else 'student'}.",
              ""]
    if (na := facts.get("no_answer")) and "metrics" in na:
        v2, on = na["metrics"]["v2"], na["chosen_on"]
        lines += ["## No answer", "",
                  f"Each of the {on['answerable']} dev questions asked again against a paragraph of another article "
                  f"(unanswerable; much easier than SQuAD 2.0's adversarial questions), SQuAD 2.0 scoring: F1 "
                  f"{v2['best_f1']:.2f} at the F1-best threshold {na['threshold']:.3f} on the no-answer margin "
                  f"(answerable F1 {v2['at_threshold_HasAns_f1']:.2f}, "
                  f"unanswerable {v2['at_threshold_NoAns_f1']:.2f}); "
                  f"never abstaining {v2['f1_never_abstain']:.2f}, always {v2['f1_always_abstain']:.2f}, the "
                  f"threshold chosen on the other half {v2['f1_two_fold']:.2f}. The model "
                  + ("can abstain, and requests abstain by default (`\"abstain\": false` turns it off)."
                     if na["supported"] and na["default"] else
                     "can abstain; requests abstain only when they ask (`\"abstain\": true`)."
                     if na["supported"] else "does not beat never and always abstaining: it never abstains."),
                  ""]
    lines += ["## Conversion checks", "",
              f"PyTorch vs ONNX start/end logits on {facts['parity']['windows']} real dev windows "
              f"({facts['parity']['batches']} batches, {facts['parity']['padded_batches']} with padding, up to "
              f"{facts['parity']['max_windows_per_batch']} windows in one), attention-valid positions only; "
              f"tolerance {facts['parity']['atol']:.0e}, the build fails above it.", ""]
    lines += _table(["graph", "max abs logit difference", "tolerance"],
                    [[k, f"{v:.2e}", f"{facts['parity']['atol']:.0e}"] for k, v in facts["parity"]["diffs"].items()]
                    + [[f"{'model' if facts.get('given') else 'student'} int8 vs fp32 ONNX (informational)",
                        f"{facts['parity']['int8']:.3f}", "none"]])
    lines += ["", "## Shipped file and session creation", ""]
    lines += _table(["variant", "session creation (ms)", f"p50, {n} tokens (ms)", "size (MB)", "outputs vs plain"],
                    [[v["name"], f"{v['load_s'] * 1000:.1f}", f"{v['p50_ms']:.1f}", f"{v['bytes'] / MB:.2f}",
                      v["check"]] for v in facts["variants"]])
    lines += ["", facts["variant_why"], ""]
    m = facts["machine"]
    lines += ["## Machine and versions", "",
              f"CPU: {m['cpu']}, {m['logical_cpus']} logical CPUs ({m['available_cpus']} available to the build), "
              f"instruction sets: {', '.join(m['isa']) or 'none of avx2/avx512/vnni/amx'}; Python {m['python']}.", "",
              ", ".join(f"{k} {v}" for k, v in facts["versions"].items()), ""]
    return "\n".join(lines)


def plot(facts: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = facts["window"]
    labels = [r["stage"].replace(" (shipped)", "").replace(" ", "\n", 1) for r in facts["rows"]]
    panels = [("file size (MB)", [r["bytes"] / MB for r in facts["rows"]]),
              ("dev F1", [r["f1"] or 0.0 for r in facts["rows"]]),
              (f"p50 latency, one {n}-token window (ms)", [r["p50_ms"][n] for r in facts["rows"]])]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    colors = ["#8c8c8c", "#5b8bd0", "#c9a227", "#d08b5b", "#3a9d5d"]
    for ax, (title, values) in zip(axes, panels):
        bars = ax.bar(range(len(values)), values, color=colors[: len(values)])
        ax.bar_label(bars, fmt="%.1f", fontsize=8)
        ax.set_title(title)
        ax.set_xticks(range(len(values)), labels, fontsize=7)
    fig.suptitle(f"{facts['name']}: size, accuracy and latency per stage ({facts['threads']} threads)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write(folder: Path, facts: dict) -> list[str]:
    (folder / REPORT_MD).write_text(markdown(facts), encoding="utf-8")
    plot(facts, folder / REPORT_PNG)
    return [REPORT_MD, REPORT_PNG]
