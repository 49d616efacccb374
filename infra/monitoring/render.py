"""Fill in a dashboard or alert policy file of infra/monitoring/ for one deployment (stdlib only).

    python3 infra/monitoring/render.py SRC DEST --set SERVICE=bert-qa --set P99_LATENCY_MS=2000 \
        [--enabled true|false] [--channel projects/P/notificationChannels/ID ...]

``@NAME@`` in any string is replaced by the value given with ``--set NAME=VALUE``;
a string that is only a placeholder and whose value is a number becomes that
number (thresholds). ``--enabled`` and ``--channel`` set an alert policy's
``enabled`` and ``notificationChannels``. A placeholder left without a value is
an error, so a file never reaches gcloud half filled.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def fill(node, values: dict[str, str]):
    """``node`` with every placeholder replaced; raises KeyError naming one without a value."""
    if isinstance(node, dict):
        return {key: fill(value, values) for key, value in node.items()}
    if isinstance(node, list):
        return [fill(value, values) for value in node]
    if not isinstance(node, str):
        return node
    whole = PLACEHOLDER.fullmatch(node)
    if whole and _number(values.get(whole.group(1), "")) is not None:
        return _number(values[whole.group(1)])

    def one(m: re.Match) -> str:
        if m.group(1) not in values:
            raise KeyError(m.group(1))
        return values[m.group(1)]

    return PLACEHOLDER.sub(one, node)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src")
    parser.add_argument("dest")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--enabled", choices=("true", "false"))
    parser.add_argument("--channel", action="append", default=[])
    args = parser.parse_args(argv)
    values = dict(item.split("=", 1) for item in args.set)
    with open(args.src, encoding="utf-8") as f:
        config = json.load(f)
    try:
        config = fill(config, values)
    except KeyError as e:
        print(f"render.py: {args.src}: no value for @{e.args[0]}@ (--set {e.args[0]}=...)", file=sys.stderr)
        return 2
    if args.enabled is not None:
        config["enabled"] = args.enabled == "true"
    if args.channel:
        config["notificationChannels"] = args.channel
    with open(args.dest, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
