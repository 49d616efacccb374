"""cloudbuild.yaml: valid for Cloud Build, and its shell steps do the right thing when run.

The static tests read the YAML the way Cloud Build does (step fields,
substitutions, images). The simulation renders the substitutions and runs
every step in order in a scratch workspace, with stand-ins for gcloud and
docker that record their calls; the smoke-test step talks to a real local
server over HTTP. Nothing reaches Google.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import yaml

from harness.paths import REPO
from tests.support import fake_tools

CONFIG = yaml.safe_load((REPO / "cloudbuild.yaml").read_text())
BUILT_IN = {"PROJECT_ID", "BUILD_ID", "PROJECT_NUMBER", "LOCATION", "SERVICE_ACCOUNT_EMAIL",
            "SERVICE_ACCOUNT", "TRIGGER_NAME", "COMMIT_SHA", "REVISION_ID", "SHORT_SHA", "REPO_NAME",
            "REPO_FULL_NAME", "BRANCH_NAME", "TAG_NAME", "REF_NAME", "TRIGGER_BUILD_CONFIG_PATH"}
BUILD_FIELDS = {"steps", "substitutions", "images", "options", "timeout", "artifacts", "tags",
                "availableSecrets", "serviceAccount", "logsBucket", "queueTtl"}
STEP_FIELDS = {"name", "args", "env", "dir", "id", "waitFor", "entrypoint", "secretEnv", "volumes",
               "timeout", "script", "automapSubstitutions", "allowFailure", "allowExitCodes"}
# $NAME or ${NAME} that is not the escape $$ (bash's own variables are written $$name).
SUBSTITUTION = re.compile(r"(?<!\$)(?:\$\$)*\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_][A-Za-z0-9_]*))")


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def _used() -> set[str]:
    names = set()
    for text in _strings([CONFIG["steps"], CONFIG["images"]]):
        for braced, bare in SUBSTITUTION.findall(text):
            names.add(braced or bare)
    return names


def _image_repo() -> str:
    return "${_REGION}-docker.pkg.dev/$PROJECT_ID/${_REPOSITORY}/${_SERVICE}"


# ---- what Cloud Build requires ----------------------------------------------------------

def test_only_build_fields():
    assert set(CONFIG) <= BUILD_FIELDS, set(CONFIG) - BUILD_FIELDS
    assert re.fullmatch(r"\d+s", CONFIG["timeout"])


def test_every_step_has_what_cloud_build_requires():
    ids = [s.get("id") for s in CONFIG["steps"]]
    assert all(ids) and len(set(ids)) == len(ids), ids
    for step in CONFIG["steps"]:
        assert set(step) <= STEP_FIELDS, (step["id"], set(step) - STEP_FIELDS)
        assert isinstance(step["name"], str) and step["name"], step
        assert ("args" in step) != ("script" in step), f"{step['id']}: args or script"
        assert all(isinstance(a, str) for a in step.get("args", [])), step["id"]
        for env in step.get("env", []):
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", env), (step["id"], env)
        for dep in step.get("waitFor", []):
            assert dep == "-" or dep in ids[:ids.index(step["id"])], (step["id"], dep)
        image = step["name"]
        assert ":" in image.split("/")[-1] or image.startswith("gcr.io/cloud-builders/"), \
            f"{step['id']}: pin the step image {image}"


def test_steps_run_in_release_order():
    ids = [s["id"] for s in CONFIG["steps"]]
    assert ids == ["artifact-fetch", "artifact-build", "artifact-upload", "image-build", "image-push",
                   "deploy", "smoke-test", "promote"]
    assert not any("waitFor" in s for s in CONFIG["steps"]), "sequential: each step needs the last"


def test_every_substitution_used_is_defined_and_every_defined_one_used():
    defined = set(CONFIG["substitutions"])
    assert all(re.fullmatch(r"_[A-Z0-9_]+", k) for k in defined), defined
    used = _used()
    assert used - BUILT_IN <= defined, used - BUILT_IN - defined
    # Cloud Build refuses a substitution that the template does not use.
    assert defined <= used, defined - used
    assert {"_REGION", "_SERVICE", "_BUCKET", "_REPOSITORY"} <= defined and "PROJECT_ID" in used


def test_substitutions_have_defaults():
    subs = CONFIG["substitutions"]
    assert subs["_REGION"] and subs["_SERVICE"] and subs["_REPOSITORY"]
    assert subs["_ARTIFACT_SOURCE"] in ("repo", "cache", "build")
    assert subs["_BUCKET"] == "", "empty: infra/lib.sh makes it $PROJECT_ID-bert-qa"


def test_the_pushed_images_are_listed_in_images():
    by_id = {s["id"]: s for s in CONFIG["steps"]}
    build = by_id["image-build"]["args"][-1]
    tags = re.findall(r'--tag "\$\$image:([^"]+)"', build)
    assert tags == ["$BUILD_ID", "latest"], tags
    ingest_tags = re.findall(r'--tag "\$\$image-ingest:([^"]+)"', build)
    assert ingest_tags == tags, "the ingestion image is tagged like the serving image"
    assert f'image="{_image_repo()}"' in build
    push = by_id["image-push"]["args"][-1]
    assert f'image="{_image_repo()}"' in push
    assert re.findall(r"docker push --all-tags (\S+)", push) == ['"$$image"', '"$$image-ingest"']
    assert CONFIG["images"] == [f"{_image_repo()}:{t}" for t in tags] + \
        [f"{_image_repo()}-ingest:{t}" for t in ingest_tags]


def test_image_build_uses_the_layer_cache():
    build = {s["id"]: s for s in CONFIG["steps"]}["image-build"]
    assert "DOCKER_BUILDKIT=1" in build["env"]
    script = build["args"][-1]
    assert '--cache-from "$$image:latest"' in script and "BUILDKIT_INLINE_CACHE=1" in script
    assert re.search(r'docker pull "\$\$image:latest" \|\|', script), "a first build has no cache"


def test_ingest_image_reuses_the_serving_build():
    """--target ingest after the serving build, in the same step: its shared stages come from that build."""
    script = {s["id"]: s for s in CONFIG["steps"]}["image-build"]["args"][-1]
    builds = [b for b in re.split(r"\n(?=docker build)", script) if b.startswith("docker build")]
    # the serving image: the default target unless _INDEX=lance (tests/test_lance_deploy.py runs both)
    assert len(builds) == 2 and builds[0].startswith('docker build $${target:+--target "$$target"} ')
    assert re.search(r'^\s*""\)\s+target="" ingest_target=ingest ;;$', script, re.M)
    assert re.search(r"^\s*lance\)\s+target=runtime-lance ingest_target=ingest-lance ;;$", script, re.M)
    ingest = builds[1]
    assert '--target "$$ingest_target"' in ingest
    assert '--cache-from "$$image-ingest:latest"' in ingest
    assert "BUILDKIT_INLINE_CACHE=1" in ingest and 'artifact-version=$$version' in ingest
    assert re.search(r'docker pull "\$\$image-ingest:latest" \|\|', script), "a first build has no cache"


def test_user_service_account_logging():
    assert CONFIG["options"]["logging"] == "CLOUD_LOGGING_ONLY"


def test_smoke_test_uses_an_identity_token():
    smoke = (REPO / "infra" / "smoke_test.sh").read_text()
    assert 'gcloud auth print-identity-token --audiences="$AUDIENCE"' in smoke
    assert '-H "Authorization: Bearer $TOKEN"' in smoke


# ---- the steps, run --------------------------------------------------------------------

PROJECT, BUILD_ID = "test-project-42", "0a1b2c3d-4e5f-6789-abcd-ef0123456789"
TAG = "build-0a1b2c3d"
SUBS = {"PROJECT_ID": PROJECT, "BUILD_ID": BUILD_ID, **CONFIG["substitutions"]}


def _render(text: str, subs: dict[str, str]) -> str:
    """Cloud Build's substitution: $NAME / ${NAME} replaced, then $$ becomes $."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
            continue
        m = re.match(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))", text[i:])
        if m:
            out.append(subs[m.group(1) or m.group(2)])
            i += m.end()
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def test_render_escapes():
    assert _render('a=$$x ${_REGION} $PROJECT_ID $$(cat f)', SUBS) == f"a=$x europe-west1 {PROJECT} $(cat f)"


class Pipeline:
    def __init__(self, tmp: Path, artifact: Path, service_url: str, service_exists: bool = True,
                 squad_in_bucket: bool = False):
        self.ws = tmp / "workspace"
        shutil.copytree(REPO / "infra", self.ws / "infra")
        shutil.copy(REPO / "cloudbuild.yaml", self.ws)
        shutil.copytree(artifact, self.ws / "artifact")
        self.log = tmp / "calls.jsonl"
        self.bin = tmp / "bin"
        service = {"status": {"url": "https://bert-qa-xyz-ew.a.run.app",
                              "traffic": [{"percent": 100, "revisionName": "bert-qa-00001-abc"},
                                          {"tag": TAG, "url": service_url}]}}
        describe = ["run", "services", "describe", "bert-qa"]
        fake_tools.fake_tool(self.bin, "gcloud", self.log, [
            {"prefix": describe, "with": ["--format=json"], "stdout": json.dumps(service)},
            {"prefix": describe, "rc": 0 if service_exists else 1},
            {"prefix": ["auth", "print-identity-token"], "stdout": "id-token\n"},
            {"prefix": ["storage", "objects", "describe"], "rc": 1},
            {"prefix": ["storage", "ls"], "rc": 0 if squad_in_bucket else 1},
            {"prefix": ["storage", "cp"]}, {"prefix": ["run", "deploy"]},
            {"prefix": ["run", "services", "update-traffic"]},
        ])
        fake_tools.fake_tool(self.bin, "docker", self.log, [
            {"prefix": ["pull"], "rc": 1}, {"prefix": ["build"]}, {"prefix": ["push"]}])

    def run(self, subs: dict[str, str] | None = None) -> list[str]:
        """Run the steps in order until one fails; returns the ids of the steps that passed."""
        subs = {**SUBS, **(subs or {})}
        passed = []
        for step in CONFIG["steps"]:
            args = [_render(a, subs) for a in step["args"]]
            entry = step.get("entrypoint") or ("docker" if "cloud-builders/docker" in step["name"] else "gcloud")
            env = {"PATH": f"{self.bin}:{os.environ['PATH']}", "HOME": str(self.ws),
                   "SMOKE_EXPECT": "", "SMOKE_ATTEMPTS": "1"}
            env.update(dict(_render(e, subs).split("=", 1) for e in step.get("env", [])))
            args = [a.replace("/workspace/", f"{self.ws}/") for a in args]
            done = subprocess.run([entry, *args], cwd=self.ws, env=env, capture_output=True, text=True,
                                  timeout=120)
            self.output = done.stdout + done.stderr
            if done.returncode != 0:
                break
            passed.append(step["id"])
        return passed

    def calls(self) -> list[list[str]]:
        return fake_tools.calls(self.log)



def _index(calls, *prefix):
    return [i for i, c in enumerate(calls) if c[:len(prefix)] == list(prefix)]


def test_pipeline_deploys_smoke_tests_then_promotes(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    passed = p.run()
    assert passed == [s["id"] for s in CONFIG["steps"]], p.output
    calls = p.calls()
    version = "repo-" + json.loads((tiny_artifact.folder / "manifest.json").read_text())["artifact_hash"][:16]
    uploads = [c for c in calls if c[:3] == ["gcloud", "storage", "cp"]]
    assert uploads and all(c[4] == f"gs://{PROJECT}-bert-qa/artifacts/{version}/" for c in uploads)
    assert uploads[-1][3].endswith("manifest.json"), "manifest.json last: it marks a complete upload"
    image = f"europe-west1-docker.pkg.dev/{PROJECT}/bert-qa/bert-qa"
    build, ingest_build = [c for c in calls if c[:2] == ["docker", "build"]]
    assert "--tag" in build and f"{image}:{BUILD_ID}" in build and f"{image}:latest" in build
    assert f"artifact-version={version}" in build and "--target" not in build
    assert ingest_build[ingest_build.index("--target") + 1] == "ingest"
    assert f"{image}-ingest:{BUILD_ID}" in ingest_build and f"{image}-ingest:latest" in ingest_build
    assert f"{image}-ingest:latest" in ingest_build[ingest_build.index("--cache-from") + 1:][:1]
    assert f"artifact-version={version}" in ingest_build
    pushes = [c for c in calls if c[:2] == ["docker", "push"]]
    assert pushes == [["docker", "push", "--all-tags", image], ["docker", "push", "--all-tags", f"{image}-ingest"]]
    deploy = [c for c in calls if c[:3] == ["gcloud", "run", "deploy"]][0]
    assert f"--image={image}:{BUILD_ID}" in deploy and f"--tag={TAG}" in deploy and "--no-traffic" in deploy
    assert "--no-allow-unauthenticated" in deploy
    token = _index(calls, "gcloud", "auth", "print-identity-token")
    promote = _index(calls, "gcloud", "run", "services", "update-traffic")
    assert token and promote and _index(calls, "gcloud", "run", "deploy")[0] < token[0] < promote[0]
    assert "--to-latest" in calls[promote[0]] and f"--remove-tags={TAG}" in calls[promote[0]]


def test_failed_smoke_test_fails_the_build_and_keeps_traffic(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    manifest = p.ws / "artifact" / "manifest.json"  # the image "contains" another artifact
    manifest.write_text(manifest.read_text().replace(
        json.loads(manifest.read_text())["artifact_hash"], "f" * 64))
    passed = p.run()
    assert passed[-1] == "deploy", p.output
    assert "smoke test failed" in p.output
    assert not _index(p.calls(), "gcloud", "run", "services", "update-traffic")


def test_first_deploy_takes_traffic_at_once(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service, service_exists=False)
    assert p.run()[-1] == "promote", p.output
    deploy = [c for c in p.calls() if c[:3] == ["gcloud", "run", "deploy"]][0]
    assert "--no-traffic" not in deploy


def _with_build_code(p: Pipeline) -> None:
    shutil.copytree(REPO / "build_model", p.ws / "build_model", ignore=shutil.ignore_patterns("__pycache__"))
    (p.ws / "function" / "model").mkdir(parents=True)
    for name in ("artifact.py", "tokenizer.py"):
        shutil.copy(REPO / "function" / "model" / name, p.ws / "function" / "model")
    shutil.copy(REPO / "requirements.txt", p.ws)


def test_cache_miss_stops_the_build_before_anything_is_deployed(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    _with_build_code(p)
    passed = p.run({"_ARTIFACT_SOURCE": "cache", "_BUILD_CONFIG": "build_model/configs/sandbox.toml"})
    assert passed == [] and "infra/train_vertex.sh" in p.output
    assert not [c for c in p.calls() if c[0] == "docker" or c[1:3] == ["run", "deploy"]]


def test_build_source_builds_the_artifact_then_stores_it(tmp_path, tiny_artifact, local_service):
    """_ARTIFACT_SOURCE=build with nothing stored: the build step runs build_model (here a stand-in)."""
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service, squad_in_bucket=True)
    _with_build_code(p)
    built = p.ws / "artifact"
    shutil.move(built, tmp_path / "made-by-build")
    fake_tools.fake_tool(p.bin, "pip", p.log, [{"prefix": ["install"]}])
    (p.bin / "python").write_text(f"#!/bin/sh\necho python \"$@\" >> {tmp_path}/python.log\n"
                                  f"cp -r {tmp_path}/made-by-build {built}\n")
    (p.bin / "python").chmod(0o755)
    passed = p.run({"_ARTIFACT_SOURCE": "build", "_BUILD_CONFIG": "build_model/configs/sandbox.toml"})
    assert passed[-1] == "promote", p.output
    ran = (tmp_path / "python.log").read_text()
    assert "-m build_model --config build_model/configs/sandbox.toml" in ran
    assert f"package.out={p.ws}/artifact" in ran
    key = subprocess.run([str(REPO / "infra" / "artifact_key.sh"), "build_model/configs/sandbox.toml"],
                         capture_output=True, text=True, check=True).stdout.strip()
    copies = [c for c in p.calls() if c[:3] == ["gcloud", "storage", "cp"]]
    assert copies[0][3:5] == [f"gs://{PROJECT}-bert-qa/squad/*.json", "data/squad/"], "SQuAD for the build"
    uploads = copies[1:]
    assert uploads and all(c[4] == f"gs://{PROJECT}-bert-qa/artifacts/config-{key}/" for c in uploads)


def test_builder_pipeline_builds_the_model_target():
    """infra/builder.cloudbuild.yaml: the build-stage image that infra/train_vertex.sh runs on Vertex AI."""
    builder = yaml.safe_load((REPO / "infra" / "builder.cloudbuild.yaml").read_text())
    assert set(builder) <= BUILD_FIELDS
    (step,) = builder["steps"]
    assert set(step) <= STEP_FIELDS and step["name"] == "gcr.io/cloud-builders/docker"
    assert step["args"][:2] == ["build", "--target=model"] and "--tag=${_IMAGE}" in step["args"]
    assert builder["images"] == ["${_IMAGE}"] and "_IMAGE" in builder["substitutions"]
    assert builder["options"]["logging"] == "CLOUD_LOGGING_ONLY"
