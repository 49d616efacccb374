"""The serving image without a container engine: read the Dockerfile, lay out its final stage on disk.

``read_dockerfile`` parses the Dockerfile into stages. ``assemble`` builds what
the final stage holds, the way the Dockerfile builds it: a fresh virtual
environment from ``requirements.txt`` only (for ``COPY --from=<stage> /opt/venv``),
exactly the paths the stage copies from the build context (minus what
``.dockerignore`` drops), and the stage's byte-compilation step. An image path
``/app/main.py`` lands at ``<root>/app/main.py``; ``Image.env()`` maps the
stage's ``ENV`` the same way, so the function starts as the image's ``CMD``
starts it.

    python -m tests.support.image size       # the image's own layers (venv + code + artifact)
    python -m tests.support.image startup    # cold start with and without byte-compiled code
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
# Packages of the build stage that must never reach the serving image.
BUILD_ONLY = ("torch", "transformers", "onnx", "onnxscript", "safetensors", "matplotlib")


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
    for s in stages:
        if s.name == name:
            return s
    raise KeyError(f"no stage named {name!r} in the Dockerfile")


def base_chain(stages: list[Stage], stage: Stage) -> list[Stage]:
    """The stage and the stages it is built FROM, nearest first."""
    chain = [stage]
    names = {s.name: s for s in stages if s.name}
    while chain[-1].base in names:
        chain.append(names[chain[-1].base])
    return chain


@dataclass
class Copy:
    sources: list[str]
    dest: str  # absolute path in the image
    from_stage: str  # "" for the build context


def copies(stage: Stage) -> list[Copy]:
    """The stage's COPY instructions, destinations made absolute against WORKDIR."""
    workdir = PurePosixPath("/")
    found = []
    for ins in stage.instructions:
        if ins.keyword == "WORKDIR":
            workdir = workdir / ins.args
        elif ins.keyword in ("COPY", "ADD"):
            if ins.keyword == "ADD":
                raise ValueError("ADD is not supported here; the Dockerfile should use COPY")
            parts = exec_form(ins.args) if ins.args.startswith("[") else ins.args.split()
            *sources, dest = parts
            absolute = workdir / dest
            dest_s = str(absolute) + ("/" if dest.endswith("/") or dest in (".", "./") else "")
            found.append(Copy(sources, dest_s, ins.flags.get("from", "")))
    return found


def workdir(stage: Stage) -> str:
    wd = PurePosixPath("/")
    for ins in stage.instructions:
        if ins.keyword == "WORKDIR":
            wd = wd / ins.args
    return str(wd)


def _dockerignored(rel: PurePosixPath) -> bool:
    """What .dockerignore drops inside the allowed folders: caches and tests."""
    return any(p in ("__pycache__", "tests") for p in rel.parts) or rel.suffix in (".pyc", ".pyo", ".pyd")


def _copy_tree(src: Path, dst: Path) -> None:
    if src.is_file():
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        return
    for path in sorted(src.rglob("*")):
        rel = PurePosixPath(path.relative_to(src).as_posix())
        if _dockerignored(rel) or not path.is_file():
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)


@dataclass
class Image:
    root: Path  # the image's "/" on disk
    stage: Stage
    venv: Path

    def path(self, image_path: str) -> Path:
        return self.root / image_path.lstrip("/")

    @property
    def workdir(self) -> Path:
        return self.path(workdir(self.stage))

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The final stage's ENV (inherited stages first), image paths mapped into ``root``."""
        env = dict(base if base is not None else os.environ)
        env.pop("PYTHONPATH", None)  # nothing from the repository may leak in
        env.pop("VIRTUAL_ENV", None)
        stages = read_dockerfile()
        for stage in reversed(base_chain(stages, self.stage)):
            for ins in stage.all("ENV"):
                for key, value in parse_env(ins.args).items():
                    value = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), value)
                    env[key] = self._map_paths(value)
        return env

    def _map_paths(self, value: str) -> str:
        for prefix in ("/opt/venv", workdir(self.stage)):
            value = re.sub(rf"(^|:){re.escape(prefix)}(?=/|:|$)",
                           lambda m: m.group(1) + str(self.path(prefix)), value)
        return value

    def command(self) -> list[str]:
        cmd = exec_form(self.stage.all("CMD")[-1].args)
        exe = shutil.which(cmd[0], path=self.env()["PATH"])
        if exe is None:
            raise FileNotFoundError(f"{cmd[0]} is not on the image's PATH")
        return [exe, *cmd[1:]]

    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def installed(self) -> list[str]:
        out = subprocess.run([str(self.python()), "-c",
                              "import importlib.metadata as m; print('\\n'.join(sorted("
                              "d.metadata['Name'].lower() for d in m.distributions())))"],
                             capture_output=True, text=True, check=True, env=self.env())
        return out.stdout.split()


def make_venv(venv: Path, requirements: Path, quiet: bool = True) -> None:
    """As the Dockerfile's runtime-deps stage: ``venv --without-pip``, then pip from outside installs into it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    cmd = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
           "--disable-pip-version-check", "-r", str(requirements)]
    done = subprocess.run(cmd, capture_output=quiet, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip install -r {requirements} failed:\n{(done.stdout or '')[-2000:]}"
                           f"{(done.stderr or '')[-3000:]}")


def assemble(root: Path, sources: dict[str, Path] | None = None, compile_code: bool = True) -> Image:
    """Lay out the final stage under ``root``. ``sources`` replaces build-context paths (``artifact/``)."""
    stages = read_dockerfile()
    stage = final_stage(stages)
    sources = sources or {}
    venv = None
    for cp in copies(stage):
        if cp.from_stage:
            producer = stage_by_name(stages, cp.from_stage)
            if cp.sources != ["/opt/venv"] or "requirements.txt" not in " ".join(
                    i.args for i in producer.all("COPY")):
                raise ValueError(f"COPY --from={cp.from_stage} {cp.sources}: only the runtime venv "
                                 f"built from requirements.txt is supported here")
            venv = root / cp.dest.strip("/")
            make_venv(venv, REPO / "requirements.txt")
            continue
        for src in cp.sources:
            origin = sources.get(src, REPO / src)
            if not origin.exists():
                raise FileNotFoundError(f"COPY source {src} does not exist ({origin})")
            if cp.dest.endswith("/") and origin.is_file():
                target = root / cp.dest.strip("/") / origin.name
            else:
                target = root / cp.dest.strip("/")
            _copy_tree(origin, target)
    if venv is None:
        raise ValueError("the final stage copies no virtual environment")
    image = Image(root, stage, venv)
    for ins in stage.all("RUN"):
        _run(image, ins.args, compile_code)
    return image


def _run(image: Image, command: str, compile_code: bool) -> None:
    """The final stage's RUN steps that shape the files: byte-compilation. User set-up is skipped."""
    if re.match(r"^(groupadd|useradd)\b", command):
        return  # the non-root user: checked by test_dockerfile.py, not reproducible here
    if "compileall" in command:
        if compile_code:
            mapped = command.replace("/opt/venv", str(image.path("/opt/venv")))
            subprocess.run(mapped, shell=True, check=True, cwd=image.workdir, env=image.env())
        return
    raise ValueError(f"tests/support/image.py does not know how to reproduce `RUN {command}`")


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


def sizes(image: Image) -> dict:
    code = [image.workdir / "main.py", image.workdir / "function"]
    parts = {
        "venv": tree_bytes(image.venv),
        "artifact": tree_bytes(image.workdir / "artifact"),
        "code": sum(tree_bytes(p) for p in code),
    }
    parts["total"] = sum(parts.values())
    parts["total_gzip"] = gzip_tar_bytes([image.venv, image.workdir], image.root)
    return parts


# ---- serving -----------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(image: Image, extra_env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = image.env()
    env.update(extra_env)
    env["PORT"] = str(port)
    proc = subprocess.Popen(image.command(), cwd=image.workdir, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}/"


def wait_until_up(url: str, proc: subprocess.Popen, timeout_s: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            raise RuntimeError(f"the server exited with code {proc.returncode}:\n{out[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return json.loads(r.read())
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.05)
    raise TimeoutError(f"{url} did not answer within {timeout_s:.0f} s")


def post(url: str, body: dict, timeout_s: float = 60.0) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.stdout.read().decode(errors="replace") if proc.stdout else ""


def ingest(image: Image, inputs: list[str], extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    """The Cloud Run ingestion job's command, run with the image's python and code."""
    env = image.env()
    env.update(extra_env)
    return subprocess.run([str(image.python()), "-m", "function.ingest", *inputs, "--quiet"],
                          cwd=image.workdir, env=env, capture_output=True, text=True)


def start_repo(extra_env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """The repository's function served by the test environment's functions-framework (no image)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra_env)
    env["PORT"] = str(port)
    ff = Path(sys.executable).with_name("functions-framework")
    proc = subprocess.Popen([str(ff), "--target=answer"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc, f"http://127.0.0.1:{port}/"


# ---- stand-ins for cloud command-line tools (the infra and pipeline tests) -----

_FAKE = r"""
import json, sys
spec = json.load(open(SPEC))
args = sys.argv[1:]
with open(spec["log"], "a") as f:
    f.write(json.dumps([NAME] + args) + "\n")
for r in spec["responses"]:
    if args[:len(r["prefix"])] == r["prefix"] and all(a in args for a in r.get("with", [])):
        sys.stdout.write(r.get("stdout", ""))
        sys.exit(r.get("rc", 0))
sys.stderr.write(f"fake {NAME}: unexpected call: {args}\n")
sys.exit(99)
"""


def fake_tool(bin_dir: Path, name: str, log: Path, responses: list[dict] = ()) -> Path:
    """An executable ``name`` that records its arguments (one JSON list per line in ``log``).

    It answers a call whose arguments start with a response's ``prefix`` (and
    contain its ``with`` items) with that response's ``stdout`` and ``rc``; any
    other call exits 99, so a command that should not run fails loudly.
    """
    bin_dir.mkdir(parents=True, exist_ok=True)
    spec = bin_dir / f".{name}.json"
    spec.write_text(json.dumps({"log": str(log), "responses": list(responses)}))
    script = bin_dir / name
    script.write_text(f"#!{sys.executable}\nSPEC = {str(spec)!r}\nNAME = {name!r}\n{_FAKE}")
    script.chmod(0o755)
    return script


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


# ---- command line: the figures in docs/DEPLOY.md ---------------------------------

def _artifact_source(work: Path) -> Path:
    real = REPO / "artifact"
    if (real / "manifest.json").exists():
        return real
    sys.path.insert(0, str(REPO))
    from tests.support.tiny import make_tiny_artifact

    print("artifact/ is absent: using the tiny random test artifact", file=sys.stderr)
    return make_tiny_artifact(work / "tiny-artifact").folder


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def cmd_size(args) -> int:
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    image = assemble(work / "image", {"artifact/": _artifact_source(work)})
    s = sizes(image)
    print(json.dumps(s))
    print(f"venv {_mb(s['venv'])} + artifact {_mb(s['artifact'])} + code {_mb(s['code'])} "
          f"= {_mb(s['total'])} on disk, {_mb(s['total_gzip'])} as gzip'd layers")
    bad = [p for p in image.installed() if p in BUILD_ONLY]
    print("build-only packages in the image:", bad or "none")
    return 1 if bad else 0


def _first_answer_ms(image: Image, env: dict[str, str]) -> tuple[float, float]:
    """(ms from process start to the port answering, ms to the first answer) for one cold start."""
    question = {"question": "In what country is Normandy located?",
                "context": "The Normans gave their name to Normandy, a region in France."}
    t0 = time.perf_counter()
    proc, url = start(image, env)
    try:
        wait_until_up(url, proc)
        up = (time.perf_counter() - t0) * 1000
        status, _ = post(url, question)
        if status != 200:
            raise RuntimeError(f"status {status}")
        return up, (time.perf_counter() - t0) * 1000
    finally:
        stop(proc)


def _drop_pycache(folder: Path) -> None:
    for p in folder.rglob("__pycache__"):
        shutil.rmtree(p)


def cmd_startup(args) -> int:
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    image = assemble(work / "image", {"artifact/": _artifact_source(work)})
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(work / "db.sqlite"), "QA_EAGER_LOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    code = image.workdir / "function"
    variants = {"as built (all .pyc)": lambda: None,
                "function/ not compiled": lambda: _drop_pycache(code),
                "nothing compiled": lambda: _drop_pycache(image.root)}
    results = {}
    for name, prepare in variants.items():
        prepare()
        _first_answer_ms(image, env)  # warm the page cache: measure CPU work, not disk reads
        runs = [_first_answer_ms(image, env) for _ in range(args.runs)]
        results[name] = {"listening_ms": round(statistics.median(r[0] for r in runs)),
                         "first_answer_ms": round(statistics.median(r[1] for r in runs))}
        print(f"{name:28s} listening {results[name]['listening_ms']:5d} ms, "
              f"first answer {results[name]['first_answer_ms']:5d} ms (median of {args.runs})", flush=True)
    print(json.dumps(results))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.support.image", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", default=str(REPO / "build" / "image"), help="scratch folder (replaced)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("size", help="assemble the image and print its own layers' size")
    st = sub.add_parser("startup", help="median cold start: as built vs without .pyc files")
    st.add_argument("--runs", type=int, default=5)
    args = p.parse_args(argv)
    return {"size": cmd_size, "startup": cmd_startup}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())

