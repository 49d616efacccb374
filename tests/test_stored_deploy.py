"""Stored cosines, deployable: the pipeline's `_INDEX=stored` (the Dockerfile's runtime-cosines, ingest-cosines and
runtime-cosines-corpus targets), INDEX=stored in infra/deploy.sh, infra/ingest_job.sh and infra/release.sh.

Nothing reaches Google: the scripts run with --dry-run, the pipeline as in tests/test_cloudbuild.py. The images'
contents answering with stored cosines: tests/test_image_contents.py.
"""

from __future__ import annotations

import pytest

from harness.paths import REPO
from tests.test_cloudbuild import BUILD_ID, Pipeline
from tests.test_infra import DryRun, _env_vars, _flag, _one
from tests.test_lance_deploy import IMAGE, _docker_builds

ENCODER = "/app/encoder"  # where the cosines images keep the sentence encoder (the Dockerfile's ENV)


@pytest.fixture
def dry(tmp_path):
    return DryRun(tmp_path)


def test_stored_pipeline_builds_the_cosines_targets_and_names_their_encoder(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    assert p.run({"_INDEX": "stored"})[-1] == "promote", p.output
    calls = p.calls()
    serving, ingest = _docker_builds(calls)
    assert serving[serving.index("--target") + 1] == "runtime-cosines"
    assert ingest[ingest.index("--target") + 1] == "ingest-cosines"
    assert f"{IMAGE}:{BUILD_ID}" in serving and f"{IMAGE}-ingest:{BUILD_ID}" in ingest  # the usual names
    env = _env_vars(_one(calls, "gcloud", "run", "deploy"))
    assert env["QA_INDEX_ENCODER"] == ENCODER and "QA_INDEX_URI" not in env


def test_stored_corpus_pipeline_builds_the_cosines_corpus_target(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    (p.ws / "corpus").mkdir()
    (p.ws / "corpus" / "passages.sqlite").write_bytes(b"")
    assert p.run({"_CORPUS": "image", "_INDEX": "stored"})[-1] == "promote", p.output
    serving, _ = _docker_builds(p.calls())
    assert serving[serving.index("--target") + 1] == "runtime-cosines-corpus"
    env = _env_vars(_one(p.calls(), "gcloud", "run", "deploy"))
    assert env["QA_STORE"] == "sqlite" and not {k for k in env if k.startswith(("QA_INDEX", "QA_FIRESTORE"))}


def test_the_cosines_targets_exist_in_the_dockerfile():
    dockerfile = (REPO / "Dockerfile").read_text()
    for target in ("runtime-cosines", "ingest-cosines", "runtime-cosines-corpus"):
        assert f" AS {target}\n" in dockerfile, target
    assert "FROM runtime-cosines AS runtime-cosines-corpus\n" in dockerfile
    assert f"ENV QA_INDEX_ENCODER={ENCODER}\n" in dockerfile


def test_deploy_and_the_ingestion_job_name_the_encoder_without_a_table(dry):
    _, commands = dry("deploy.sh", INDEX="stored")
    env = _env_vars(_one(commands, "gcloud", "run", "deploy"))
    assert env["QA_INDEX_ENCODER"] == ENCODER and "QA_INDEX_URI" not in env and env["QA_STORE"] == "firestore"
    done, commands = dry("ingest_job.sh", "--image", "r/i:1", "gs://corpus-b/x/", INDEX="stored")
    job = _env_vars(_one(commands, "gcloud", "run", "jobs", "deploy"))
    assert job["QA_INDEX_ENCODER"] == ENCODER and "QA_INDEX_URI" not in job
    assert "stored cosines" in done.stderr
    # without INDEX=stored neither names one (a plain image has no encoder)
    _, commands = dry("deploy.sh")
    assert "QA_INDEX_ENCODER" not in _env_vars(_one(commands, "gcloud", "run", "deploy"))


@pytest.mark.parametrize("script, args", [("deploy.sh", ()), ("ingest_job.sh", ("--image", "r/i:1", "gs://c-b/x/")),
                                          ("release.sh", ())])
def test_stored_with_a_table_is_refused(dry, script, args):
    done, commands = dry(script, *args, ok=False, INDEX="stored", QA_INDEX_URI="gs://b-2/idx/t",
                         ARTIFACT_SOURCE="cache")
    assert done.returncode == 1 and "INDEX=stored keeps no table" in done.stderr and commands == [], done.stderr


def test_functions_deploy_with_stored_cosines_stages_the_encoder(dry, tiny_artifact, tmp_path):
    stage = tmp_path / "function-source"
    _, commands = dry("deploy.sh", "--functions", ARTIFACT_DIR=str(tiny_artifact.folder), STAGE_DIR=str(stage),
                      INDEX="stored")
    assert sorted(p.name for p in (stage / "encoder").iterdir()) == sorted(
        p.name for p in (REPO / "encoder").iterdir() if p.is_file())
    assert "pylance==" not in (stage / "requirements.txt").read_text()  # nothing to install: the reader's runtime
    env = _env_vars(_one(commands, "gcloud", "functions", "deploy"))
    assert env["QA_INDEX_ENCODER"] == "encoder"  # from the source folder, the function's working directory


def test_release_passes_stored_to_the_pipeline(dry):
    done, commands = dry("release.sh", ARTIFACT_SOURCE="cache", BUILD_CONFIG="build_model/configs/sandbox.toml",
                         INDEX="stored")
    subs = dict(kv.split("=", 1) for kv in _flag(_one(commands, "gcloud", "builds", "submit"), "substitutions")
                .split(","))
    assert subs["_INDEX"] == "stored" and "stored cosines" in done.stderr
