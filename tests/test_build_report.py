"""Build report text: a teacher that scores F1 0 (a tiny test model can) must not crash the report."""

from build_model.packaging.report import ROWS, targets, why_student


def _facts(teacher_f1: float) -> dict:
    def row(stage, f1, params, size, ms):
        return {"stage": stage, "f1": f1, "exact_match": f1, "parameters": params, "bytes": size,
                "p50_ms": {384: ms}, "load_s": 0.1}
    rows = [row(ROWS[0], teacher_f1, 22e6, 90e6, 0.0), row(ROWS[1], teacher_f1, 22e6, 90e6, 40.0),
            row(ROWS[2], 50.0, 17e6, 70e6, 0.0), row(ROWS[3], 50.0, 17e6, 70e6, 20.0),
            row(ROWS[4], 49.5, 17e6, 18e6, 10.0)]
    return {"rows": rows, "window": 384, "threads": 2, "artifact_bytes": 18e6, "gate": {"f1_drop": 0.5},
            "student_origin": "layers 0, 2, 4 of the teacher"}


def test_teacher_f1_zero_reports_ratio_as_not_available():
    facts = _facts(teacher_f1=0.0)
    share = next(t for t in targets(facts) if t[0].startswith("student int8 F1"))
    assert share[1].startswith("n/a") and share[2] is False
    assert "(n/a of the teacher's 0.00)" in why_student(facts)


def test_ratios_are_reported_when_defined():
    facts = _facts(teacher_f1=66.0)
    share = next(t for t in targets(facts) if t[0].startswith("student int8 F1"))
    assert share[1].startswith("75.0%") and share[2] is False
    speed = next(t for t in targets(facts) if t[0].startswith("int8 >= 2x"))
    assert speed[1].startswith("4.00x") and speed[2] is True
    assert "(76% of the teacher's 66.00)" in why_student(facts)


def test_targets_follow_the_configuration_and_a_missing_comparison_is_not_met():
    facts = {**_facts(teacher_f1=76.0), "targets": {"teacher_f1": 75.0, "student_f1": 66.0, "student_share": 0.0,
                                                    "speedup_vs_teacher": 0.0, "max_slowdown_vs_replaced": 1.1}}
    names = [t[0] for t in targets(facts)]
    assert names[:2] == ["teacher dev F1 >= 75", "student int8 dev F1 >= 66"]
    assert not any(n.startswith(("student int8 F1 >=", "int8 >= ")) for n in names)  # turned off
    met = {t[0]: t[2] for t in targets(facts)}
    assert met["teacher dev F1 >= 75"] and not met["student int8 dev F1 >= 66"]
    replaced = next(t for t in targets(facts) if "replaces" in t[0])
    assert replaced[1] == "no artifact was replaced" and replaced[2] is False


def test_the_replaced_artifact_comparison_is_a_ratio_of_the_interleaved_runs():
    facts = {**_facts(teacher_f1=66.0), "targets": {"max_slowdown_vs_replaced": 1.1},
             "replaced": {"name": "old-int8", "artifact_hash": "ab" * 32, "p50_ms": {128: 9.0, 384: 30.0},
                          "new_p50_ms": {128: 9.5, 384: 34.5}, "ratio": {128: 9.5 / 9.0, 384: 1.15}}}
    row = next(t for t in targets(facts) if "replaces" in t[0])
    assert row[1] == "1.15x (34.5 vs 30.0 ms)" and row[2] is False
    assert "old-int8" in row[0] and "384 tokens 34.5 vs 30.0 ms" in why_student(facts)
