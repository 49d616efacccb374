"""The Lance retrieval index, deployable (issue 30): the pipeline's `_INDEX`, the accounts and grants of
infra/setup.sh, QA_INDEX_URI in infra/deploy.sh and infra/ingest_job.sh, and Lance on a ``gs://`` bucket.

Nothing reaches Google: the scripts run with --dry-run or against stand-in tools, the pipeline as in
tests/test_cloudbuild.py, and Lance against ``tests.support.gcs_counter.CountingBucket`` (Cloud Storage's XML
API on a local folder, counting each request by billing class).
"""

from __future__ import annotations

import pytest

from harness.paths import REPO
from tests.support import gcs_counter
from tests.test_cloudbuild import BUILD_ID, CONFIG, PROJECT, Pipeline
from tests.test_infra import DryRun, _env_vars, _find, _flag, _grants, _one

BUCKET = f"{PROJECT}-bert-qa"
DEFAULT_URI = f"gs://{BUCKET}/index/bert-qa"
RUNTIME_SA = f"qa-runtime@{PROJECT}.iam.gserviceaccount.com"
INGEST_SA = f"qa-ingest@{PROJECT}.iam.gserviceaccount.com"
IMAGE = f"europe-west1-docker.pkg.dev/{PROJECT}/bert-qa/bert-qa"


@pytest.fixture
def dry(tmp_path):
    return DryRun(tmp_path)


# ---- cloudbuild.yaml: _INDEX -----------------------------------------------------------------------

def _docker_builds(calls):
    return [c for c in calls if c[:2] == ["docker", "build"]]


def test_index_substitution_defaults_to_the_store_s_own_index():
    assert CONFIG["substitutions"]["_INDEX"] == ""
    deploy = {s["id"]: s for s in CONFIG["steps"]}["deploy"]
    assert "INDEX=${_INDEX}" in deploy["env"]


def test_default_pipeline_builds_and_deploys_exactly_as_before(tmp_path, tiny_artifact, local_service):
    """_INDEX empty: the same two docker builds, argument for argument, and no index in the deployment."""
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    assert p.run()[-1] == "promote", p.output
    calls = p.calls()
    version = next(c for c in _docker_builds(calls))[-6].split("=", 1)[1]
    assert _docker_builds(calls) == [
        ["docker", "build", "--cache-from", f"{IMAGE}:latest", "--build-arg", "BUILDKIT_INLINE_CACHE=1",
         "--label", f"artifact-version={version}", "--tag", f"{IMAGE}:{BUILD_ID}", "--tag", f"{IMAGE}:latest", "."],
        ["docker", "build", "--target", "ingest", "--cache-from", f"{IMAGE}-ingest:latest", "--build-arg",
         "BUILDKIT_INLINE_CACHE=1", "--label", f"artifact-version={version}", "--tag",
         f"{IMAGE}-ingest:{BUILD_ID}", "--tag", f"{IMAGE}-ingest:latest", "."]]
    deploy = _one(calls, "gcloud", "run", "deploy")
    assert not {k for k in _env_vars(deploy) if k.startswith("QA_INDEX")}


def test_lance_pipeline_builds_the_lance_targets_and_deploys_the_index(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    assert p.run({"_INDEX": "lance"})[-1] == "promote", p.output
    calls = p.calls()
    serving, ingest = _docker_builds(calls)
    assert serving[serving.index("--target") + 1] == "runtime-lance"
    assert ingest[ingest.index("--target") + 1] == "ingest-lance"
    # under the usual names: infra/ingest_job.sh finds IMAGE-ingest:TAG beside the image the service runs
    assert f"{IMAGE}:{BUILD_ID}" in serving and f"{IMAGE}-ingest:{BUILD_ID}" in ingest
    assert [c for c in calls if c[:2] == ["docker", "push"]] == [
        ["docker", "push", "--all-tags", IMAGE], ["docker", "push", "--all-tags", f"{IMAGE}-ingest"]]
    env = _env_vars(_one(calls, "gcloud", "run", "deploy"))
    assert env["QA_INDEX_URI"] == DEFAULT_URI


def test_lance_targets_exist_in_the_dockerfile():
    dockerfile = (REPO / "Dockerfile").read_text()
    for target in ("runtime-lance", "ingest-lance", "ingest"):
        assert f" AS {target}\n" in dockerfile, target


def test_an_unknown_index_stops_the_build_before_any_image(tmp_path, tiny_artifact, local_service):
    p = Pipeline(tmp_path, tiny_artifact.folder, local_service)
    passed = p.run({"_INDEX": "tantivy"})
    assert passed[-1] == "artifact-upload" and "_INDEX=tantivy" in p.output
    assert not _docker_builds(p.calls())


# ---- infra/setup.sh: the accounts and their grants --------------------------------------------------

def _condition_fields(value: str) -> dict[str, str]:
    """gcloud's --condition dict; ^;^ at the start makes ';' its separator."""
    sep = ","
    if value.startswith("^"):
        sep, value = value[1], value[3:]
    return dict(field.split("=", 1) for field in value.split(sep))


def _bucket_binding(commands, member: str, role: str) -> list[list[str]]:
    return [c for c in _find(commands, "gcloud", "storage", "buckets", "add-iam-policy-binding")
            if _flag(c, "member") == f"serviceAccount:{member}" and _flag(c, "role") == role]


def test_setup_creates_the_ingestion_account(dry):
    _, commands = dry("setup.sh", "--skip-rules")
    created = {c[4] for c in _find(commands, "gcloud", "iam", "service-accounts", "create")}
    assert created == {"qa-runtime", "qa-ingest", "qa-build"}


def test_runtime_account_reads_the_index_prefix_only(dry):
    _, commands = dry("setup.sh", "--skip-rules")
    (read,) = _bucket_binding(commands, RUNTIME_SA, "roles/storage.objectViewer")
    condition = _condition_fields(_flag(read, "condition"))
    expression = condition["expression"]
    assert f'resource.name.startsWith("projects/_/buckets/{BUCKET}/objects/index/")' in expression
    # Lance lists <table>/_versions/ to find the newest version: listings of the prefix are allowed too
    assert 'api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("index/")' in expression
    assert condition["title"]
    roles = {role for role, _ in _grants(commands)[RUNTIME_SA]}
    assert roles == {"roles/datastore.user", "roles/storage.objectViewer"}, "read-only: nothing that writes"
    # the bucket-wide read it had when the ingestion job ran as the runtime account is taken back
    (removed,) = _find(commands, "gcloud", "storage", "buckets", "remove-iam-policy-binding")
    assert _flag(removed, "member") == f"serviceAccount:{RUNTIME_SA}" and _flag(removed, "condition") == "None"
    assert _flag(removed, "role") == "roles/storage.objectViewer"


def test_ingestion_account_writes_the_index_and_reads_the_corpus(dry):
    _, commands = dry("setup.sh", "--skip-rules", BUCKET="other-bucket-1")
    grants = _grants(commands)[INGEST_SA]
    assert grants == {("roles/datastore.user", f"projects {PROJECT}"),
                      ("roles/storage.objectViewer", "storage gs://other-bucket-1"),
                      ("roles/storage.objectUser", "storage gs://other-bucket-1")}
    (write,) = _bucket_binding(commands, INGEST_SA, "roles/storage.objectUser")
    expression = _condition_fields(_flag(write, "condition"))["expression"]
    assert 'startsWith("projects/_/buckets/other-bucket-1/objects/index/")' in expression
    (corpus,) = _bucket_binding(commands, INGEST_SA, "roles/storage.objectViewer")
    assert _flag(corpus, "condition") is None
    firestore = [c for c in commands if "add-iam-policy-binding" in c and _flag(c, "role") == "roles/datastore.user"
                 and _flag(c, "member") == f"serviceAccount:{INGEST_SA}"][0]
    assert f'resource.name=="projects/{PROJECT}/databases/(default)"' in _flag(firestore, "condition")


# ---- deploy.sh, ingest_job.sh, release.sh: QA_INDEX_URI ------------------------------------------------

def test_deploy_without_an_index_sets_none(dry):
    _, commands = dry("deploy.sh")
    assert not {k for k in _env_vars(_one(commands, "gcloud", "run", "deploy")) if k.startswith("QA_INDEX")}


def test_deploy_with_the_lance_index(dry):
    from function.config import VARIABLES

    _, commands = dry("deploy.sh", INDEX="lance", QA_INDEX_REFRESH_S="30")
    env = _env_vars(_one(commands, "gcloud", "run", "deploy"))
    assert env["QA_INDEX_URI"] == DEFAULT_URI and env["QA_INDEX_REFRESH_S"] == "30"
    assert {"QA_INDEX_URI", "QA_INDEX_REFRESH_S"} <= {v.name for v in VARIABLES}
    _, commands = dry("deploy.sh", QA_INDEX_URI="gs://other-bucket-1/qa/index", SERVICE="qa2")
    env = _env_vars(_one(commands, "gcloud", "run", "deploy"))
    assert env["QA_INDEX_URI"] == "gs://other-bucket-1/qa/index" and "QA_INDEX_REFRESH_S" not in env


@pytest.mark.parametrize("setting, message", [
    ({"INDEX": "faiss"}, "INDEX=faiss"), ({"QA_INDEX_URI": ".data/index"}, "gs://BUCKET/PATH"),
    ({"QA_INDEX_URI": "gs://b-1/x,y"}, "commas"), ({"INDEX": "lance", "QA_INDEX_REFRESH_S": "soon"}, "seconds"),
])
def test_deploy_and_ingest_refuse_a_bad_index_setting(dry, setting, message):
    for script, args in (("deploy.sh", ()), ("ingest_job.sh", ("--image", "r/i:1", "gs://corpus-b/x/"))):
        done, commands = dry(script, *args, ok=False, **setting)
        assert done.returncode == 1 and message in done.stderr and commands == [], (script, done.stderr)


def test_functions_deploy_with_the_index_stages_lance(dry, tiny_artifact, tmp_path):
    stage = tmp_path / "function-source"
    dry("deploy.sh", "--functions", ARTIFACT_DIR=str(tiny_artifact.folder), STAGE_DIR=str(stage), INDEX="lance")
    staged = (stage / "requirements.txt").read_text()
    assert (REPO / "requirements.txt").read_text() in staged and "pylance==" in staged


def test_ingest_job_runs_as_the_ingestion_account(dry):
    _, commands = dry("ingest_job.sh", "--image", "r/i:1", "gs://corpus-b/x/")
    job = _one(commands, "gcloud", "run", "jobs", "deploy")
    assert _flag(job, "service-account") == INGEST_SA
    assert "QA_INDEX_URI" not in _env_vars(job)


def test_ingest_job_writes_the_index_it_is_given(dry):
    _, commands = dry("ingest_job.sh", "--image", "r/i:1", "gs://corpus-b/x/", INDEX="lance")
    job = _one(commands, "gcloud", "run", "jobs", "deploy")
    assert _flag(job, "service-account") == INGEST_SA and _env_vars(job)["QA_INDEX_URI"] == DEFAULT_URI
    # the serving side reads the same table
    _, commands = dry("deploy.sh", INDEX="lance")
    assert _env_vars(_one(commands, "gcloud", "run", "deploy"))["QA_INDEX_URI"] == DEFAULT_URI
    _, commands = dry("ingest_job.sh", "--delete", "a.md", "--image", "r/i:1", QA_INDEX_URI="gs://b-2/idx/t")
    assert _env_vars(_one(commands, "gcloud", "run", "jobs", "deploy"))["QA_INDEX_URI"] == "gs://b-2/idx/t"


def test_release_passes_the_index_to_the_pipeline(dry):
    settings = {"ARTIFACT_SOURCE": "cache", "BUILD_CONFIG": "build_model/configs/sandbox.toml"}

    def substitutions(**env) -> dict[str, str]:
        _, commands = dry("release.sh", **settings, **env)
        submit = _one(commands, "gcloud", "builds", "submit")
        return dict(kv.split("=", 1) for kv in _flag(submit, "substitutions").split(","))

    assert substitutions(INDEX="lance")["_INDEX"] == "lance"
    assert substitutions()["_INDEX"] == ""
    done, commands = dry("release.sh", ok=False, QA_INDEX_URI="gs://b-2/idx/t", **settings)
    assert done.returncode == 1 and "infra/deploy.sh" in done.stderr and commands == []


# ---- Lance on Cloud Storage's XML API (a local stand-in) ------------------------------------------

def test_billing_classes_cover_every_request_the_bucket_counts():
    assert set(gcs_counter.GCS_CLASS.values()) == {"A", "B", "free"}
    assert gcs_counter.GCS_CLASS["list"] == gcs_counter.GCS_CLASS["put"] == "A" and gcs_counter.GCS_CLASS["get"] == "B"
    assert gcs_counter.GCS_CLASS["delete"] == "free"
    assert gcs_counter.table_part("index/bert-qa/_versions/1.manifest") == "_versions"
    assert gcs_counter.table_part("index/bert-qa/data/x.lance") == "data"


@pytest.fixture
def counted_index(tmp_path):
    pytest.importorskip("lance")
    from function.retrieval.lance_index import IndexRow

    bucket = gcs_counter.CountingBucket(tmp_path / "bucket")
    rows = [IndexRow(f"p{i:03d}", f"d{i // 4}", f"alpha w{i % 17} x{i % 5} common") for i in range(200)]
    yield bucket, rows
    bucket.close()


def test_lance_writes_and_reads_through_the_counting_bucket(counted_index):
    from function.retrieval.lance_index import LanceIndex

    bucket, rows = counted_index
    uri = "gs://qa-bucket/index/bert-qa"
    writer = LanceIndex(uri, storage_options=bucket.storage_options)
    writer.upsert(rows[:100])
    writer.upsert(rows[100:])
    written = bucket.take()
    assert written["kinds"]["put"] > 0 and written["class_a"] >= written["kinds"]["put"]
    assert written["bytes_written"] > 0 and (bucket.root / "index" / "bert-qa" / "_versions").is_dir()
    writer.delete(["p000"])
    writer.optimize()
    writer.close()
    bucket.take()
    reader = LanceIndex(uri, refresh_s=1e9, storage_options=bucket.storage_options)
    hits = reader.search(["w3", "x3"], 5)
    cold = bucket.take()
    assert hits and hits[0].passage_id in {f"p{i:03d}" for i in range(200) if i % 17 == 3 and i % 5 == 3}
    assert cold["kinds"]["list"] >= 1 and cold["where"].get("list _versions", 0) >= 1  # the newest version
    assert cold["class_b"] >= 2 and cold["bytes_read"] > 0
    reader.search(["w3", "x3"], 5)
    warm = bucket.take()
    assert warm["class_a"] == 0, "a table kept open does not list again"
    assert "p000" not in [h.passage_id for h in reader.search(["w0", "x0"], 20)]
    reader.close()
