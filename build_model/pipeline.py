"""Runs the selected stages in order."""

from __future__ import annotations

import importlib

from build_model.config import BuildConfig

_MODULES = {
    "teacher": "build_model.stages.teacher",
    "given": "build_model.stages.given",
    "base": "build_model.stages.base",
    "distil": "build_model.stages.distil",
    "export": "build_model.stages.export",
    "quantize": "build_model.stages.quantize",
    "package": "build_model.stages.package",
}


def run(cfg: BuildConfig, stages: list[str], force: bool = False, command: str | None = None) -> dict:
    """``command`` (the command line that reproduces the build) goes into the package's report."""
    records = {}
    for name in stages:
        module = importlib.import_module(_MODULES[name])
        extra = {"command": command} if name == "package" and command else {}
        records[name] = module.run(cfg, force=force, **extra)
    return records
