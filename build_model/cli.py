"""``python -m build_model``: run the build stages in order, skipping those whose inputs did not change."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

STAGES = ("teacher", "base", "distil", "export", "quantize", "package")  # train a student
GIVEN_STAGES = ("given", "export", "quantize", "package")  # package a QA model as it is ([given])
DEFAULT_CONFIG = Path(__file__).parent / "configs" / "sandbox.toml"


def _parse_value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m build_model", description=__doc__)
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="TOML build configuration")
    names = STAGES[:3] + GIVEN_STAGES
    p.add_argument("--stage", choices=names + ("all",), default="all",
                   help="run one stage (its inputs must exist) or all of them")
    p.add_argument("--from-stage", choices=names, default=None, help="run this stage and the ones after it")
    p.add_argument("--force", action="store_true",
                   help="re-run the selected stages even if their inputs did not change")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a configuration value (JSON literal or string), e.g. --set teacher.epochs=1")
    return p.parse_args(argv)


def reproduce_command(args: argparse.Namespace) -> str:
    """The command line that rebuilds this configuration (config path relative to here when inside)."""
    config = args.config.resolve()
    if config.is_relative_to(Path.cwd()):
        config = config.relative_to(Path.cwd())
    parts = ["python", "-m", "build_model", "--config", str(config)]
    for item in args.set:
        parts += ["--set", item]
    return shlex.join(parts)


def main(argv=None) -> int:
    args = parse_args(argv)
    from build_model import pipeline
    from build_model.config import ConfigError, load_config
    from build_model.errors import BuildFailed
    from build_model.squad import SquadFormatError

    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            print(f"--set needs SECTION.KEY=VALUE, got {item!r}", file=sys.stderr)
            return 2
        overrides[key] = _parse_value(value)
    try:
        cfg = load_config(args.config, overrides)
    except (ConfigError, OSError, ValueError) as e:
        print(f"configuration error: {e}", file=sys.stderr)
        return 2
    stages = GIVEN_STAGES if cfg.given is not None else STAGES
    for chosen in (args.stage, args.from_stage):
        if chosen not in (None, "all") and chosen not in stages:
            kind = "takes the model as given ([given])" if cfg.given is not None else "trains a student"
            print(f"--stage {chosen}: {args.config} {kind}; its stages are {', '.join(stages)}", file=sys.stderr)
            return 2
    if args.stage != "all":
        selected = [args.stage]
    elif args.from_stage:
        selected = list(stages[stages.index(args.from_stage):])
    else:
        selected = list(stages)
    try:
        pipeline.run(cfg, selected, force=args.force, command=reproduce_command(args))
    except BuildFailed as e:
        print(f"BUILD FAILED: {e}", file=sys.stderr)
        return 1
    except SquadFormatError as e:
        print(f"BUILD FAILED: {e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError) as e:
        print(f"BUILD FAILED: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    return 0
