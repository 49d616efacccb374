"""Audit the runtime requirements (what the image installs) for known vulnerabilities.

    python scripts/audit_deps.py [requirements.txt]

Runs pip-audit on the pinned file and exits 1 when a package has a known
vulnerability that a newer release fixes (upgrade the pin), 2 when the audit
itself could not run. Vulnerabilities without a fix are listed but do not fail
the build: there is nothing to upgrade to. Packages the advisory service does
not know at the pinned version are listed as not audited (on these machines the
package index serves releases the public PyPI JSON API answers 404 for).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def audit(requirements: Path) -> dict:
    cmd = [sys.executable, "-m", "pip_audit", "-r", str(requirements), "-f", "json",
           "--progress-spinner", "off"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    # pip-audit exits 1 when it found vulnerabilities; anything without a JSON report is a failure.
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"pip-audit failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}") from None


def classify(report: dict) -> tuple[list[str], list[str], list[str]]:
    """(fixable, unfixed, skipped) as printable lines."""
    fixable, unfixed, skipped = [], [], []
    for dep in report.get("dependencies", []):
        if "skip_reason" in dep:
            skipped.append(f"{dep['name']}: {dep['skip_reason']}")
            continue
        for v in dep.get("vulns", []):
            line = f"{dep['name']} {dep['version']}: {v['id']}"
            if v.get("fix_versions"):
                fixable.append(f"{line} (fixed in {', '.join(v['fix_versions'])})")
            else:
                unfixed.append(f"{line} (no fixed release yet)")
    return fixable, unfixed, skipped


def main(argv: list[str]) -> int:
    requirements = Path(argv[0]) if argv else REPO / "requirements.txt"
    try:
        report = audit(requirements)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 2
    fixable, unfixed, skipped = classify(report)
    audited = len(report.get("dependencies", [])) - len(skipped)
    groups = (("not audited", skipped), ("vulnerable, no fix", unfixed), ("VULNERABLE, fix available", fixable))
    for title, lines in groups:
        for line in lines:
            print(f"{title}: {line}")
    print(f"audited {audited} packages of {requirements.name}: {len(fixable)} fixable, "
          f"{len(unfixed)} without a fix, {len(skipped)} not audited")
    return 1 if fixable else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
