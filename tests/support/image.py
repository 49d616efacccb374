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
    python -m tests.support.image profile    # memory, cold start and latency of the served model
    python -m tests.support.image stand-in --encoder DIR --out DIR [--distilbert]
                                             # an artifact shaped like the shipped one (or the
                                             # production recipe's) for the figures before the
                                             # real one exists; its answers are junk

Each command takes ``--artifact DIR`` (default: artifact/, else the tiny test artifact).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tests.support.services import free_port

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

def tool(name: str) -> str | None:
    """A command from the test environment's bin folder (``make test`` does not activate it), else PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def start(image: Image, extra_env: dict[str, str | None]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = image.env()
    for key, value in extra_env.items():  # None unsets a variable the image sets
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    env["PORT"] = str(port)
    return popen_server(image.command(), image.workdir, env), f"http://127.0.0.1:{port}/"


def popen_server(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen:
    """Start a server with its output in a file (a pipe nobody reads would fill and block it)."""
    log = tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", delete=False)
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    proc.log_path = Path(log.name)
    return proc


def server_log(proc: subprocess.Popen) -> str:
    path = getattr(proc, "log_path", None)
    return path.read_text(errors="replace") if path and path.exists() else ""


def wait_until_up(url: str, proc: subprocess.Popen, timeout_s: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}:\n{server_log(proc)[-3000:]}")
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
    out = server_log(proc)
    if getattr(proc, "log_path", None):
        proc.log_path.unlink(missing_ok=True)
    return out


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
    return popen_server([str(ff), "--target=answer"], REPO, env), f"http://127.0.0.1:{port}/"


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


# ---- command line: the figures in README.md, "Measured" ---------------------------------

def _artifact_source(work: Path, chosen: str | None = None) -> Path:
    if chosen:
        return Path(chosen)
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
    image = assemble(work / "image", {"artifact/": _artifact_source(work, args.artifact)})
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


def _toggle_pycache(folder: Path, on: bool) -> None:
    """Hide (rename) or restore the __pycache__ folders under ``folder``."""
    old, new = ("__pycache__.off", "__pycache__") if on else ("__pycache__", "__pycache__.off")
    for p in sorted(folder.rglob(old)):
        p.rename(p.with_name(new))


def cmd_startup(args) -> int:
    """Cold start as built vs without byte-compiled code; variants interleaved to spread machine noise."""
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    image = assemble(work / "image", {"artifact/": _artifact_source(work, args.artifact)})
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(work / "db.sqlite"), "QA_EAGER_LOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    code, venv = image.workdir, image.venv
    variants = {  # the folders whose .pyc files are hidden
        "as built (all .pyc)": [],
        "function/ not compiled": [code],
        "venv + function/ not compiled": [code, venv],
    }
    runs: dict[str, list] = {name: [] for name in variants}
    _first_answer_ms(image, env)  # warm the page cache: measure CPU work, not disk reads
    for _ in range(args.runs):
        for name, hidden in variants.items():
            for folder in hidden:
                _toggle_pycache(folder, False)
            try:
                runs[name].append(_first_answer_ms(image, env))
            finally:
                for folder in hidden:
                    _toggle_pycache(folder, True)
    results = {}
    for name, values in runs.items():
        results[name] = {"listening_ms": round(statistics.median(r[0] for r in values)),
                         "first_answer_ms": round(statistics.median(r[1] for r in values))}
        print(f"{name:28s} listening {results[name]['listening_ms']:5d} ms, "
              f"first answer {results[name]['first_answer_ms']:5d} ms (median of {args.runs})", flush=True)
    sources = [(p.read_text(encoding="utf-8"), str(p)) for p in sorted((code / "function").rglob("*.py"))]
    times = []
    for _ in range(20):
        t = time.perf_counter()
        for text, name in sources:
            compile(text, name, "exec")
        times.append(time.perf_counter() - t)
    compile_ms = round(statistics.median(times) * 1000, 1)
    print(f"compiling all {len(sources)} function/ modules takes {compile_ms} ms (median of 20): "
          f"the most that compiling them at build time can save per cold start")
    print(json.dumps({"results": results, "function_compile_ms": compile_ms, "load_average": os.getloadavg()}))
    return 0

def _rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (gunicorn's arbiter and worker), MB."""
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return round(total / 1e6, 1)


def _load(url: str, questions: list[tuple[str, str]], clients: int) -> dict:
    """``clients`` callers asking the questions back to back: throughput and latency percentiles."""
    from concurrent.futures import ThreadPoolExecutor

    def ask(item):
        question, pid = item
        t = time.perf_counter()
        status, _ = post(url, {"question": question, "passage_ids": [pid]})
        return status, (time.perf_counter() - t) * 1000

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        done = list(pool.map(ask, questions))
    seconds = time.perf_counter() - t0
    ms = sorted(m for _, m in done)
    return {"ok": sum(s == 200 for s, _ in done), "requests_per_s": round(len(done) / seconds, 1),
            "p50_ms": round(ms[len(ms) // 2], 1), "p90_ms": round(ms[int(len(ms) * 0.9)], 1),
            "p99_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 1)}


def cmd_profile(args) -> int:
    """Serve the model from the assembled image as on Cloud Run and measure it."""
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    image = assemble(work / "image", {"artifact/": _artifact_source(work, args.artifact)})
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(work / "db.sqlite"), "QA_EAGER_LOAD": "1",
           "QA_THREADS": str(args.threads), "QA_CACHE": "0"}
    env.update((kv.split("=", 1) + [None])[:2] for kv in args.env)  # NAME alone: unset it
    sample = REPO / "samples" / "squad_sample.json"
    done = ingest(image, [str(sample)], {k: v for k, v in env.items() if v is not None})
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    data = json.loads(sample.read_text(encoding="utf-8"))["data"]
    questions = [(qa["question"], f"{a['title'].replace('/', '_')}-{i:04d}")
                 for a in data for i, p in enumerate(a["paragraphs"]) for qa in p["qas"]][:args.requests]
    t0 = time.perf_counter()
    proc, url = start(image, env)
    try:
        health = wait_until_up(url, proc, timeout_s=120)
        listening_ms = (time.perf_counter() - t0) * 1000
        while not health.get("model_loaded"):  # QA_EAGER_LOAD: the worker loads in the background
            if time.perf_counter() - t0 > 120:
                raise TimeoutError("the model did not load within 120 s")
            time.sleep(0.02)
            health = wait_until_up(url, proc)
        loaded_ms = (time.perf_counter() - t0) * 1000
        rss_loaded = _rss_mb(proc.pid)
        client, server = [], []
        for question, pid in questions:
            t = time.perf_counter()
            status, body = post(url, {"question": question, "passage_ids": [pid]})
            if status != 200:
                raise RuntimeError(f"{status}: {body}")
            client.append((time.perf_counter() - t) * 1000)
            server.append(body["timings_ms"])
        concurrent = {}
        for clients in args.concurrency:
            concurrent[clients] = _load(url, questions, clients)
        rss_after = _rss_mb(proc.pid)
    finally:
        stop(proc)

    def pct(values, q):
        values = sorted(values)
        return round(values[min(len(values) - 1, int(q * len(values)))], 1)

    inference = [t["inference"] for t in server]
    result = {
        "artifact": health["model"], "threads": args.threads, "requests": len(questions),
        "cold_start_ms": health.get("cold_start_ms"), "listening_after_ms": round(listening_ms),
        "model_loaded_after_ms": round(loaded_ms),
        "rss_mb_after_load": rss_loaded, "rss_mb_after_requests": rss_after,
        "request_ms_p50": pct(client, 0.5), "request_ms_p90": pct(client, 0.9),
        "inference_ms_p50": pct(inference, 0.5), "inference_ms_p90": pct(inference, 0.9),
        "concurrent_clients": concurrent,
        "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
    }
    print(json.dumps(result, indent=2))
    return 0


def cmd_stand_in(args) -> int:
    """The shipped artifact's shape from a public encoder: MiniLM layers 0, 2, 4, untrained QA head, int8.

    Same vocabulary, width, depth, sequence settings and quantisation as the
    sandbox recipe's artifact, so memory and latency match it; the answers do not.
    """
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import BertForQuestionAnswering

    sys.path.insert(0, str(REPO))
    from build_model.artifact_writer import write_artifact
    from build_model.onnx_export import export_onnx, optimize_bert

    out, work = Path(args.out), Path(args.out).parent / (Path(args.out).name + "-work")
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    if args.distilbert:  # the production recipe's student: DistilBERT's shape, random weights
        from transformers import DistilBertConfig, DistilBertForQuestionAnswering

        model = DistilBertForQuestionAnswering(DistilBertConfig(attn_implementation="eager")).eval()
        heads, hidden, name, what = 12, 768, "stand-in-distilbert-int8", "DistilBERT shape, random weights"
    else:
        model = BertForQuestionAnswering.from_pretrained(args.encoder, attn_implementation="eager").eval()
        keep = [int(i) for i in args.keep_layers.split(",")]
        model.bert.encoder.layer = torch.nn.ModuleList(model.bert.encoder.layer[i] for i in keep)
        model.config.num_hidden_layers = len(keep)
        heads, hidden = model.config.num_attention_heads, model.config.hidden_size
        name, what = "stand-in-minilm-l3-int8", f"layers {keep} of {args.encoder}, untrained QA head"
    export_onnx(model, work / "fp32.onnx", opset=17)
    optimize_bert(work / "fp32.onnx", work / "opt.onnx", heads, hidden)
    quantize_dynamic(str(work / "opt.onnx"), str(work / "int8.onnx"),
                     op_types_to_quantize=["MatMul", "Gather", "EmbedLayerNormalization", "Attention"],
                     per_channel=False, weight_type=QuantType.QInt8,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    tokenizer_json = (Path(args.encoder) / "tokenizer.json").read_text(encoding="utf-8")
    sequence = {"max_seq_len": 384, "stride": 128, "max_query_tokens": 64, "max_answer_tokens": 30}
    write_artifact(out, work / "int8.onnx", tokenizer_json, name, sequence,
                   extra={"onnx": {"opset": 17, "optimized": True}, "stand_in": what})
    print(f"{out}: model.onnx {(out / 'model.onnx').stat().st_size / 1e6:.1f} MB")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.support.image", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", default=str(REPO / "build" / "image"), help="scratch folder (replaced)")
    p.add_argument("--artifact", help="artifact folder (default: artifact/, else the tiny test artifact)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("size", help="assemble the image and print its own layers' size")
    st = sub.add_parser("startup", help="median cold start: as built vs without .pyc files")
    st.add_argument("--runs", type=int, default=5)
    pr = sub.add_parser("profile", help="memory, cold start and latency of the served model")
    pr.add_argument("--threads", type=int, default=1, help="QA_THREADS: the vCPUs of the instance")
    pr.add_argument("--requests", type=int, default=100, help="sample questions asked, one at a time")
    pr.add_argument("--concurrency", type=int, nargs="*", default=[8],
                    help="then ask them again with this many concurrent clients")
    pr.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="extra environment of the server; NAME alone unsets NAME")
    si = sub.add_parser("stand-in", help="an artifact shaped like the shipped one, from a public encoder")
    si.add_argument("--encoder", required=True,
                    help="a BERT encoder folder (all-MiniLM-L6-v2); its tokenizer is used in any case")
    si.add_argument("--keep-layers", default="0,2,4")
    si.add_argument("--distilbert", action="store_true",
                    help="the production recipe's DistilBERT student's shape instead (random weights)")
    si.add_argument("--out", required=True)
    args = p.parse_args(argv)
    commands = {"size": cmd_size, "startup": cmd_startup, "profile": cmd_profile, "stand-in": cmd_stand_in}
    return commands[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())

