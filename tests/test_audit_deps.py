"""The dependency audit fails on fixable vulnerabilities only (pip-audit's JSON report, no network)."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("audit_deps", Path(__file__).parent.parent / "scripts" / "audit_deps.py")
audit_deps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(audit_deps)

REPORT = {"dependencies": [
    {"name": "jinja2", "version": "3.1.4", "vulns": [
        {"id": "GHSA-q2x7-8rv6-6q7h", "fix_versions": ["3.1.5"]},
        {"id": "PYSEC-0000-1", "fix_versions": []}]},
    {"name": "numpy", "version": "2.3.5", "vulns": []},
    {"name": "onnxruntime", "skip_reason": "Dependency not found on PyPI"},
]}


def test_classify_splits_fixable_unfixed_and_skipped():
    fixable, unfixed, skipped = audit_deps.classify(REPORT)
    assert fixable == ["jinja2 3.1.4: GHSA-q2x7-8rv6-6q7h (fixed in 3.1.5)"]
    assert unfixed == ["jinja2 3.1.4: PYSEC-0000-1 (no fixed release yet)"]
    assert skipped == ["onnxruntime: Dependency not found on PyPI"]


def test_exit_status(monkeypatch, capsys):
    monkeypatch.setattr(audit_deps, "audit", lambda _p: REPORT)
    assert audit_deps.main(["requirements.txt"]) == 1
    clean = {"dependencies": [d for d in REPORT["dependencies"] if d["name"] != "jinja2"]}
    monkeypatch.setattr(audit_deps, "audit", lambda _p: clean)
    assert audit_deps.main(["requirements.txt"]) == 0
    assert "audited 1 packages" in capsys.readouterr().out


def test_audit_that_cannot_run_is_an_error(monkeypatch):
    def broken(_p):
        raise RuntimeError("pip-audit failed (exit 1): no network")

    monkeypatch.setattr(audit_deps, "audit", broken)
    assert audit_deps.main([]) == 2
