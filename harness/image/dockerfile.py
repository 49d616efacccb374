"""The Dockerfile, read: stages, their instructions, what each stage copies and where.

Enough of the Dockerfile's syntax for this repository's Dockerfile (FROM ... AS,
continued lines, comments, COPY/RUN flags, exec-form CMD, ENV); anything the
assembler cannot reproduce is refused rather than guessed.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from harness.paths import REPO

DOCKERFILE = REPO / "Dockerfile"


@dataclass
class Instruction:
    keyword: str  # upper case
    args: str  # the rest of the line, continuations joined
    flags: dict[str, str] = field(default_factory=dict)  # --from=..., --chown=...


@dataclass
class Stage:
    base: str
    name: str
    instructions: list[Instruction]

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]


def _logical_lines(text: str) -> list[str]:
    lines, current = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if current and stripped.startswith("#"):
            continue  # comment inside a continued instruction
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append((current + stripped).strip())
        current = ""
    if current.strip():
        lines.append(current.strip())
    return lines


def _split_flags(args: str) -> tuple[dict[str, str], str]:
    flags = {}
    while args.startswith("--"):
        token, _, args = args.partition(" ")
        key, _, value = token[2:].partition("=")
        flags[key] = value
        args = args.lstrip()
    return flags, args


def read_dockerfile(path: Path = DOCKERFILE) -> list[Stage]:
    stages: list[Stage] = []
    for line in _logical_lines(path.read_text(encoding="utf-8")):
        keyword, _, args = line.partition(" ")
        keyword, args = keyword.upper(), args.strip()
        if keyword == "FROM":
            flags, rest = _split_flags(args)
            parts = rest.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else ""
            stages.append(Stage(parts[0], name, []))
            continue
        if not stages:
            continue  # global ARGs
        flags, rest = _split_flags(args) if keyword in ("COPY", "ADD", "RUN") else ({}, args)
        stages[-1].instructions.append(Instruction(keyword, rest, flags))
    return stages


def exec_form(args: str) -> list[str]:
    """A JSON-array CMD/ENTRYPOINT; raises ValueError for the shell form."""
    value = json.loads(args)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"not an exec-form array: {args}")
    return value


def parse_env(args: str) -> dict[str, str]:
    """``ENV a=1 b="two words"`` (or the legacy ``ENV a 1``) into a dict, values unexpanded."""
    tokens = shlex.split(args, posix=True)
    if tokens and "=" not in tokens[0]:
        return {tokens[0]: " ".join(tokens[1:])}
    return dict(t.split("=", 1) for t in tokens)


def final_stage(stages: list[Stage] | None = None) -> Stage:
    return (stages or read_dockerfile())[-1]


def stage_by_name(stages: list[Stage], name: str) -> Stage:
    """The stage ``docker build --target NAME`` builds (stage names are case-insensitive, as Docker's)."""
    for s in stages:
        if s.name and s.name.lower() == name.lower():
            return s
    raise KeyError(f"no stage named {name!r} in the Dockerfile")


def parent_stage(stages: list[Stage], stage: Stage) -> Stage | None:
    """The stage ``stage`` is built FROM, resolved as Docker does; None for an external image.

    ``FROM serving`` names a stage only when one of that name comes earlier in the file (a later
    one would be an image to pull), so a chain always walks backwards and cannot loop. A stage
    not in ``stages`` (a flattened one) may name any of them.
    """
    position = next((i for i, s in enumerate(stages) if s is stage), len(stages))
    for s in reversed(stages[:position]):
        if s.name and s.name.lower() == stage.base.lower():
            return s
    return None


def base_chain(stages: list[Stage], stage: Stage) -> list[Stage]:
    """The stage and the stages it is built FROM, nearest first: ``runtime``, ``serving``, ``app``, ``base``."""
    chain = [stage]
    while (parent := parent_stage(stages, chain[-1])) is not None:
        chain.append(parent)
    return chain


def shared_base(stages: list[Stage], *names: str) -> Stage:
    """The nearest stage every named target is built FROM (or is): the layers their images share."""
    chains = [base_chain(stages, stage_by_name(stages, name)) for name in names]
    for candidate in chains[0]:
        if all(any(candidate is s for s in chain) for chain in chains[1:]):
            return candidate
    raise ValueError(f"the targets {', '.join(names)} share no stage of the Dockerfile")


def flatten(stages: list[Stage], stage: Stage) -> Stage:
    """The stage as one image: the instructions of the stages it is built FROM first, its own last.

    ``FROM app AS ingest`` holds ``app``'s copies, RUN steps and ENV; ``FROM serving AS runtime``
    holds ``app``'s and then ``serving``'s settings, whatever the chain's length. The result's
    base is the external image (``python:...``) and its name the stage's own.
    """
    chain = base_chain(stages, stage)
    instructions = [ins for s in reversed(chain) for ins in s.instructions]
    return Stage(chain[-1].base, stage.name, instructions)


def image_stage(stages: list[Stage] | None = None, target: str | None = None) -> Stage:
    """What ``docker build [--target TARGET]`` builds, flattened: the last stage when no target is named."""
    stages = stages or read_dockerfile()
    return flatten(stages, stage_by_name(stages, target) if target else final_stage(stages))


@dataclass
class Copy:
    sources: list[str]
    dest: str  # absolute path in the image
    from_stage: str  # "" for the build context


def copy_of(ins: Instruction, workdir: str = "/") -> Copy:
    """One COPY instruction, its destination made absolute against ``workdir``."""
    if ins.keyword == "ADD":
        raise ValueError("ADD is not supported here; the Dockerfile should use COPY")
    parts = exec_form(ins.args) if ins.args.startswith("[") else ins.args.split()
    *sources, dest = parts
    absolute = PurePosixPath(workdir) / dest
    dest_s = str(absolute) + ("/" if dest.endswith("/") or dest in (".", "./") else "")
    return Copy(sources, dest_s, ins.flags.get("from", ""))


def copies(stage: Stage) -> list[Copy]:
    """The stage's COPY instructions, destinations made absolute against WORKDIR."""
    wd = PurePosixPath("/")
    found = []
    for ins in stage.instructions:
        if ins.keyword == "WORKDIR":
            wd = wd / ins.args
        elif ins.keyword in ("COPY", "ADD"):
            found.append(copy_of(ins, str(wd)))
    return found


def workdir(stage: Stage) -> str:
    wd = PurePosixPath("/")
    for ins in stage.instructions:
        if ins.keyword == "WORKDIR":
            wd = wd / ins.args
    return str(wd)
