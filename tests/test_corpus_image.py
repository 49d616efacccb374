"""The corpus in the image (the Dockerfile's runtime-corpus and runtime-lance-corpus targets): the pipeline's
`_CORPUS`, release.sh's CORPUS and the deployment it makes. The image's contents answering from its corpus:
tests/test_image_contents.py; deploy.sh's CORPUS=image: tests/test_infra.py.

Nothing reaches Google: the pipeline runs as in tests/test_cloudbuild.py, release.sh with --dry-run.
"""

from __future__ import annotations

import pytest

from harness.paths import REPO
from tests.test_cloudbuild import BUILD_ID, CONFIG, Pipeline
from tests.test_infra import DryRun, _env_vars, _flag, _one
from tests.test_lance_deploy import IMAGE, _docker_builds


def test_corpus_substitution_defaults_to_firestore():
    assert CONFIG["substitutions"]["_CORPUS"] == ""
    deploy = {s["id"]: s for s in CONFIG["steps"]}["deploy"]
    assert "CORPUS=${_CORPUS}" in deploy["env"]


@pytest.mark.parametrize("index, target", [("", "runtime-corpus"), ("lance", "runtime-lance-corpus")])
def test_corpus_pipeline_builds_the_corpus_target_and_deploys_without_firestore(tmp_path, tiny_artifact,
                                                                               local_service, index, target):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    (p.ws / "corpus").mkdir()
    (p.ws / "corpus" / "passages.sqlite").write_bytes(b"")
    assert p.run({"_CORPUS": "image", "_INDEX": index})[-1] == "promote", p.output
    calls = p.calls()
    serving, _ = _docker_builds(calls)
    assert serving[serving.index("--target") + 1] == target and f"{IMAGE}:{BUILD_ID}" in serving
    env = _env_vars(_one(calls, "gcloud", "run", "deploy"))
    assert env["QA_STORE"] == "sqlite"  # the image's own file and index: no gs:// index, no Firestore collection
    assert not {k for k in env if k.startswith(("QA_INDEX", "QA_FIRESTORE", "QA_PASSAGES"))}


def test_corpus_pipeline_stops_before_building_when_the_context_has_no_corpus(tmp_path, tiny_artifact,
                                                                              local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    assert "image-build" not in p.run({"_CORPUS": "image"})
    assert "corpus/passages.sqlite is not in the build context" in p.output
    assert not _docker_builds(p.calls())


def test_release_passes_the_corpus_and_refuses_without_one(tmp_path):
    dry = DryRun(tmp_path)
    done, commands = dry("release.sh", ok=False, ARTIFACT_SOURCE="cache", CORPUS="bucket")
    assert done.returncode == 1 and "CORPUS=bucket" in done.stderr and not commands
    if (REPO / "corpus" / "passages.sqlite").exists():
        pytest.skip("corpus/ exists here")
    done, commands = dry("release.sh", ok=False, ARTIFACT_SOURCE="cache", CORPUS="image")
    assert done.returncode == 1 and "corpus/passages.sqlite is missing" in done.stderr and not commands
    _, commands = dry("release.sh", ARTIFACT_SOURCE="cache")
    subs = dict(kv.split("=", 1) for kv in _flag(_one(commands, "gcloud", "builds", "submit"), "substitutions")
                .split(","))
    assert subs["_CORPUS"] == ""
