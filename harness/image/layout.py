"""An image of the Dockerfile laid out on disk, as the Dockerfile builds it.

``assemble`` builds what a target holds (by default the final stage, the
serving image; ``target="ingest"`` the ingestion image), with the chain of
stages it is built FROM (``runtime`` from ``serving`` from ``app``), in the
order of their instructions: a fresh virtual environment
from ``requirements.txt`` only (for ``COPY --from=<stage> /opt/venv``),
exactly the paths the stages copy from the build context (minus what
``.dockerignore`` drops), their ``pip --python /opt/venv/bin/python install -r``
steps and their byte-compilation step. An image path
``/app/main.py`` lands at ``<root>/app/main.py``; ``Image.env()`` maps the
stage's ``ENV`` the same way, so the function starts as the image's ``CMD``
starts it. ``assemble(on=image)`` lays a target out on a copy of an image
already laid out, where that image adds only settings to the stage the two
share (the ingestion image on the serving one: both FROM ``app``), as Docker
reuses the shared stage's layers. ``sizes`` measures the image's own layers.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from harness.image.dockerfile import (
    REPO,
    Stage,
    copy_of,
    exec_form,
    image_stage,
    parse_env,
    read_dockerfile,
    shared_base,
    stage_by_name,
    workdir,
)

# Packages of the build stage that must never reach the serving image.
BUILD_ONLY = ("torch", "transformers", "onnx", "onnxscript", "safetensors", "matplotlib")


# The document libraries of the ingestion image (requirements-ingest.txt) that must never reach the
# serving image. Not tqdm: huggingface_hub (required by tokenizers) brings it to both.
INGEST_ONLY = ("markdown-it-py", "trafilatura", "lxml", "pdfminer.six", "sentencex")


def dockerignored(rel: PurePosixPath) -> bool:
    """What .dockerignore drops inside the allowed folders: caches and tests."""
    return any(p in ("__pycache__", "tests") for p in rel.parts) or rel.suffix in (".pyc", ".pyo", ".pyd")


def copy_tree(src: Path, dst: Path) -> None:
    if src.is_file():
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        return
    for path in sorted(src.rglob("*")):
        rel = PurePosixPath(path.relative_to(src).as_posix())
        if dockerignored(rel) or not path.is_file():
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


@dataclass
class Image:
    root: Path  # the image's "/" on disk
    stage: Stage  # the target flattened (image_stage): its own instructions after those of the stages below
    venv: Path

    def path(self, image_path: str) -> Path:
        return self.root / image_path.lstrip("/")

    @property
    def workdir(self) -> Path:
        return self.path(workdir(self.stage))

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The image's ENV (inherited stages first: ``stage`` is flattened), image paths mapped into ``root``."""
        env = dict(base if base is not None else os.environ)
        env.pop("PYTHONPATH", None)  # nothing from the repository may leak in
        env.pop("VIRTUAL_ENV", None)
        for ins in self.stage.all("ENV"):
            for key, value in parse_env(ins.args).items():
                value = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), value)
                env[key] = self._map_paths(value)
        return env

    def _map_paths(self, value: str) -> str:
        for prefix in ("/opt/venv", workdir(self.stage)):
            value = re.sub(rf"(^|:){re.escape(prefix)}(?=/|:|$)",
                           lambda m, prefix=prefix: m.group(1) + str(self.path(prefix)), value)
        return value

    def command(self, args: list[str] | None = None) -> list[str]:
        """ENTRYPOINT + CMD (exec form); ``args`` replace CMD, as ``docker run IMAGE ARGS...`` does."""
        entrypoint = [exec_form(i.args) for i in self.stage.all("ENTRYPOINT")]
        cmd = [*(entrypoint[-1] if entrypoint else []),
               *(args if args is not None else exec_form(self.stage.all("CMD")[-1].args))]
        exe = shutil.which(cmd[0], path=self.env()["PATH"])
        if exe is None:
            raise FileNotFoundError(f"{cmd[0]} is not on the image's PATH")
        return [exe, *cmd[1:]]

    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def installed(self, versions: bool = False) -> list[str]:
        """The distributions in the image's environment, lower-case names (``name==version`` with ``versions``)."""
        field = "+'=='+d.version" if versions else ""
        out = subprocess.run([str(self.python()), "-c",
                              "import importlib.metadata as m; print('\\n'.join(sorted("
                              f"d.metadata['Name'].lower(){field} for d in m.distributions())))"],
                             capture_output=True, text=True, check=True, env=self.env())
        return out.stdout.split()


def make_venv(venv: Path, requirements: Path, quiet: bool = True) -> None:
    """As the Dockerfile's runtime-deps stage: ``venv --without-pip``, then pip from outside installs into it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip_install(venv, requirements, quiet)


def pip_install(venv: Path, requirements: Path, quiet: bool = True) -> None:
    """``pip --python <venv>/bin/python install -r requirements``, pip from outside the environment."""
    cmd = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
           "--disable-pip-version-check", "-r", str(requirements)]
    done = subprocess.run(cmd, capture_output=quiet, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip install -r {requirements} failed:\n{(done.stdout or '')[-2000:]}"
                           f"{(done.stderr or '')[-3000:]}")


# Instructions that change no file of the image: a stage made only of them has its parent's files.
_SETTINGS_ONLY = ("ENV", "USER", "EXPOSE", "CMD", "ENTRYPOINT", "LABEL", "ARG")


def assemble(root: Path, sources: dict[str, Path] | None = None, compile_code: bool = True,
             target: str | None = None, on: Image | None = None) -> Image:
    """Lay out ``target`` (default: the final stage) under ``root``. ``sources`` replaces build-context
    paths (``artifact/``). ``on``: an image already laid out whose files are those of the stage it shares with
    ``target`` (it adds only settings on top of that stage, as the serving image does on ``app``): its files
    are copied, as Docker reuses that stage's layers, and only ``target``'s own instructions run on them."""
    stages = read_dockerfile()
    stage = image_stage(stages, target)
    sources = sources or {}
    image = Image(root, stage, root / "opt" / "venv")
    done = 0
    if on is not None:
        done = _shared_instructions(stages, stage, on)
        _copy_image(on, image)
    has_venv = on is not None
    wd = workdir(Stage(stage.base, stage.name, stage.instructions[:done]))
    for ins in stage.instructions[done:]:
        if ins.keyword == "WORKDIR":
            wd = str(PurePosixPath(wd) / ins.args)
        elif ins.keyword in ("COPY", "ADD"):
            cp = copy_of(ins, wd)
            if cp.from_stage:
                producer = stage_by_name(stages, cp.from_stage)
                if cp.sources != ["/opt/venv"] or "requirements.txt" not in " ".join(
                        i.args for i in producer.all("COPY")):
                    raise ValueError(f"COPY --from={cp.from_stage} {cp.sources}: only the runtime venv "
                                     f"built from requirements.txt is supported here")
                make_venv(image.path(cp.dest), REPO / "requirements.txt")
                has_venv = True
                continue
            for src in cp.sources:
                origin = sources.get(src, REPO / src)
                if not origin.exists():
                    raise FileNotFoundError(f"COPY source {src} does not exist ({origin})")
                if cp.dest.endswith("/") and origin.is_file():
                    target_path = root / cp.dest.strip("/") / origin.name
                else:
                    target_path = root / cp.dest.strip("/")
                copy_tree(origin, target_path)
        elif ins.keyword == "RUN":
            _run(image, ins.args, compile_code)
    if not has_venv:
        raise ValueError("the image copies no virtual environment")
    return image


def _shared_instructions(stages: list[Stage], stage: Stage, on: Image) -> int:
    """How many of ``stage``'s (flattened) instructions are those of the stage it shares with ``on``, whose own
    instructions on top of that stage must change no file; else ValueError (``on`` cannot stand in for it)."""
    shared = shared_base(stages, on.stage.name, stage.name)
    common = image_stage(stages, shared.name).instructions
    if on.stage.instructions[:len(common)] != common or stage.instructions[:len(common)] != common:
        raise ValueError(f"{on.stage.name} and {stage.name} do not start with {shared.name}'s instructions")
    files = [i for i in on.stage.instructions[len(common):] if i.keyword not in _SETTINGS_ONLY]
    if files:
        raise ValueError(f"{on.stage.name} changes files on top of {shared.name} ({files[0].keyword} "
                         f"{files[0].args}): its layout is not {shared.name}'s")
    return len(common)


def _copy_image(on: Image, image: Image) -> None:
    """``on``'s files under ``image.root``, links kept; the venv's scripts made to start the copy's own python."""
    shutil.copytree(on.root, image.root, symlinks=True)
    old, new = f"#!{on.venv / 'bin'}/".encode(), f"#!{image.venv / 'bin'}/".encode()
    for script in (image.venv / "bin").iterdir():
        if script.is_file() and not script.is_symlink():
            data = script.read_bytes()
            if data.startswith(old):
                script.write_bytes(new + data[len(old):])


_PIP_INTO_VENV = re.compile(r"^pip --python /opt/venv/bin/python install --no-cache-dir((?: -r \S+)+)$")


def _run(image: Image, command: str, compile_code: bool) -> None:
    """The RUN steps that shape the files: pip installs into the venv, byte-compilation. User set-up is skipped."""
    if re.match(r"^(groupadd|useradd)\b", command):
        return  # the non-root user: checked by test_dockerfile.py, not reproducible here
    if m := _PIP_INTO_VENV.match(command):
        for requirements in m.group(1).split()[1::2]:
            pip_install(image.venv, image.path(requirements))
        return
    if "compileall" in command:
        if compile_code:
            mapped = command.replace("/opt/venv", str(image.path("/opt/venv")))
            subprocess.run(mapped, shell=True, check=True, cwd=image.workdir, env=image.env())
        return
    raise ValueError(f"harness.image does not know how to reproduce `RUN {command}`")


# ---- sizes -------------------------------------------------------------------

def tree_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


class _Counter:
    def __init__(self):
        self.n = 0

    def write(self, b):
        self.n += len(b)
        return len(b)

    def flush(self):
        pass


def gzip_tar_bytes(paths: list[Path], root: Path) -> int:
    """Size of the paths as one gzip'd tar (how registries store layers): the push/pull size."""
    counter = _Counter()
    with gzip.GzipFile(fileobj=counter, mode="wb", compresslevel=6, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w") as tar:
            for p in paths:
                tar.add(p, arcname=str(p.relative_to(root)))
    return counter.n


def sizes(image: Image, gzipped: bool = True) -> dict:
    """Bytes of the venv, the artifact and the code, and their total; with ``gzipped``, also the push/pull size
    (``total_gzip``: gzips every file, seconds)."""
    code = [image.workdir / "main.py", image.workdir / "function"]
    parts = {
        "venv": tree_bytes(image.venv),
        "artifact": tree_bytes(image.workdir / "artifact"),
        "code": sum(tree_bytes(p) for p in code),
    }
    parts["total"] = sum(parts.values())
    if gzipped:
        parts["total_gzip"] = gzip_tar_bytes([image.venv, image.workdir], image.root)
    return parts
