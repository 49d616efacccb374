"""infra/monitoring.sh and infra/monitoring/ (log-based metrics, dashboard, alert policies, logs.py).

The dry runs use tests/test_infra.py's stand-in gcloud; the metric definitions
are checked against the log lines a real functions-framework process writes
while it answers (and refuses) requests, so a renamed log field fails here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.client import post
from harness.launch import FunctionServer
from infra.monitoring import logs as monitoring_logs
from tests.support import fake_tools
from tests.test_infra import INFRA, PROJECT, DryRun, _clean_env, _find, _flag, _one

MONITORING = INFRA / "monitoring"
METRIC_FILES = sorted((MONITORING / "metrics").glob("*.json"))
METRIC_NAMES = [p.stem for p in METRIC_FILES]
POLICY_FILES = sorted((MONITORING / "policies").glob("*.json"))
BUILT_IN = ("request_count", "request_latencies", "container/cpu/utilizations", "container/memory/utilizations",
            "container/instance_count", "container/startup_latencies")


@pytest.fixture
def dry(tmp_path):
    return DryRun(tmp_path)


def _policies(commands) -> dict[str, dict]:
    """displayName -> the filled-in policy file each create/update command sends."""
    found = {}
    for c in _find(commands, "gcloud", "alpha", "monitoring", "policies"):
        if c[4] in ("create", "update"):
            policy = json.loads(Path(_flag(c, "policy-from-file")).read_text())
            found[policy["displayName"]] = policy
    return found


# ---- infra/monitoring.sh in --dry-run --------------------------------------------------

def test_dry_run_creates_every_metric_the_dashboard_and_the_policies(dry, tmp_path):
    _, commands = dry("monitoring.sh", "--out", str(tmp_path / "out"))
    enable = _one(commands, "gcloud", "services", "enable")
    assert enable[3:5] == ["monitoring.googleapis.com", "logging.googleapis.com"]
    created = {c[4]: _flag(c, "config-from-file") for c in _find(commands, "gcloud", "logging", "metrics", "create")}
    assert created == {name: str(MONITORING / "metrics" / f"{name}.json") for name in METRIC_NAMES}
    described = {c[4] for c in _find(commands, "gcloud", "logging", "metrics", "describe")}
    assert described == set(METRIC_NAMES)  # create only when absent, else update
    listing = _one(commands, "gcloud", "monitoring", "dashboards", "list")
    assert _flag(listing, "filter") == 'displayName="QA bert-qa"'
    dashboard = json.loads(Path(_flag(_one(commands, "gcloud", "monitoring", "dashboards", "create"),
                                      "config-from-file")).read_text())
    assert dashboard["displayName"] == "QA bert-qa"
    assert '"@' not in json.dumps(dashboard) and 'resource.label.service_name=\\"bert-qa\\"' in json.dumps(dashboard)
    assert len(_find(commands, "gcloud", "alpha", "monitoring", "policies", "list")) == 2
    assert set(_policies(commands)) == {"bert-qa: 5xx error rate", "bert-qa: p99 request latency"}
    assert all(_flag(c, "project") == PROJECT for c in commands)
    assert all("--quiet" in c for c in commands if not {"describe", "list"} & set(c))


def test_alert_policies_are_created_disabled(dry, tmp_path):
    _, commands = dry("monitoring.sh", "--out", str(tmp_path / "out"))
    policies = _policies(commands)
    assert len(policies) == len(POLICY_FILES) == 2
    for policy in policies.values():
        assert policy["enabled"] is False and policy["notificationChannels"] == []
    rate = policies["bert-qa: 5xx error rate"]["conditions"][0]["conditionThreshold"]
    assert rate["thresholdValue"] == 0.05 and rate["aggregations"][0]["alignmentPeriod"] == "300s"
    assert 'response_code_class="5xx"' in rate["filter"] and "response_code_class" not in rate["denominatorFilter"]
    p99 = policies["bert-qa: p99 request latency"]["conditions"][0]["conditionThreshold"]
    assert p99["thresholdValue"] == 2000 and p99["aggregations"][0]["crossSeriesReducer"] == "REDUCE_PERCENTILE_99"
    assert "run.googleapis.com/request_latencies" in p99["filter"]


def test_enable_alerts_with_a_channel_and_thresholds(dry, tmp_path):
    channel = f"projects/{PROJECT}/notificationChannels/123"
    _, commands = dry("monitoring.sh", "--enable-alerts", "--notification-channel", channel,
                      "--out", str(tmp_path / "out"), ERROR_RATE_PERCENT="2", P99_LATENCY_MS="800",
                      SERVICE="bert-qa-fn")
    policies = _policies(commands)
    assert set(policies) == {"bert-qa-fn: 5xx error rate", "bert-qa-fn: p99 request latency"}
    for policy in policies.values():
        assert policy["enabled"] is True and policy["notificationChannels"] == [channel]
        assert 'service_name="bert-qa-fn"' in policy["conditions"][0]["conditionThreshold"]["filter"]
    thresholds = {name: p["conditions"][0]["conditionThreshold"]["thresholdValue"] for name, p in policies.items()}
    assert thresholds == {"bert-qa-fn: 5xx error rate": 0.02, "bert-qa-fn: p99 request latency": 800}


@pytest.mark.parametrize("args, env, message", [
    ([], {"ERROR_RATE_PERCENT": "0"}, "ERROR_RATE_PERCENT=0"),
    ([], {"P99_LATENCY_MS": "2s"}, "P99_LATENCY_MS=2s"),
    (["--notification-channel", "email:me@example.com"], {}, "projects/PROJECT/notificationChannels/ID"),
    (["--alerts"], {}, "unknown option --alerts"),
    ([], {"PROJECT_ID": None}, "PROJECT_ID is not set"),
])
def test_bad_settings_are_refused(dry, args, env, message):
    done, commands = dry("monitoring.sh", *args, ok=False, **env)
    assert done.returncode != 0 and message in done.stderr, done.stderr
    assert commands == []


def test_a_second_run_updates_and_keeps_enabled_alerts_on(tmp_path):
    """Not a dry run: a stand-in gcloud that knows every metric, the dashboard and the policies."""
    log = tmp_path / "calls.jsonl"
    bin_dir = tmp_path / "bin"
    responses = [
        {"prefix": ["services", "enable"]},
        {"prefix": ["logging", "metrics", "describe"]},
        {"prefix": ["logging", "metrics", "update"]},
        {"prefix": ["monitoring", "dashboards", "list"], "stdout": "projects/1/dashboards/d1\n"},
        {"prefix": ["monitoring", "dashboards", "update", "projects/1/dashboards/d1"]},
        {"prefix": ["alpha", "monitoring", "policies", "list"], "stdout": "projects/1/alertPolicies/a1\n"},
        {"prefix": ["alpha", "monitoring", "policies", "describe"], "stdout": "True\n"},
        {"prefix": ["alpha", "monitoring", "policies", "update", "projects/1/alertPolicies/a1"]},
    ]
    fake_tools.fake_tool(bin_dir, "gcloud", log, responses)
    done = subprocess.run(["bash", str(INFRA / "monitoring.sh"), "--out", str(tmp_path / "out")],
                          env=_clean_env(tmp_path, bin_dir), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = fake_tools.calls(log)
    assert not [c for c in calls if "create" in c]
    assert sorted(c[4] for c in calls if c[1:4] == ["logging", "metrics", "update"]) == METRIC_NAMES
    updates = [c for c in calls if c[1:5] == ["alpha", "monitoring", "policies", "update"]]
    assert len(updates) == 2
    for c in updates:  # a policy a user turned on stays on
        assert json.loads(Path(_flag(c, "policy-from-file")).read_text())["enabled"] is True


def test_setup_sets_up_monitoring_without_a_second_api_call(dry):
    _, commands = dry("setup.sh")
    assert len(_find(commands, "gcloud", "services", "enable")) == 1  # setup.sh's own, with --skip-api here
    assert len(_find(commands, "gcloud", "logging", "metrics", "create")) == len(METRIC_NAMES)
    _one(commands, "gcloud", "monitoring", "dashboards", "create")
    assert len(_find(commands, "gcloud", "alpha", "monitoring", "policies", "create")) == 2
    assert all(p["enabled"] is False for p in _policies(commands).values())


# ---- the files ---------------------------------------------------------------------------

@pytest.mark.parametrize("path", METRIC_FILES, ids=lambda p: p.stem)
def test_metric_file_is_a_log_metric_the_summariser_reads(path):
    config = json.loads(path.read_text())
    assert config["name"] == path.stem and re.fullmatch(r"qa_[a-z_]+", path.stem)
    assert config["filter"].startswith('resource.type="cloud_run_revision" AND ')
    terms = monitoring_logs.parse_filter(config["filter"])  # only the subset both sides understand
    assert any(t.path.startswith("jsonPayload.") for t in terms)
    descriptor = config["metricDescriptor"]
    assert descriptor["metricKind"] == "DELTA" and descriptor["valueType"] in ("DISTRIBUTION", "INT64")
    assert {label["key"] for label in descriptor["labels"]} == set(config.get("labelExtractors") or {})
    for extractor in (config.get("labelExtractors") or {}).values():
        monitoring_logs.Extractor.parse(extractor)
    if descriptor["valueType"] == "DISTRIBUTION":
        assert config["valueExtractor"].startswith("EXTRACT(jsonPayload.")
        if descriptor["unit"] == "ms":
            buckets = config["bucketOptions"]["exponentialBuckets"]
            top = buckets["scale"] * buckets["growthFactor"] ** buckets["numFiniteBuckets"]
            assert top >= 10_000, f"{path.stem}: the last finite bucket ends at {top:.0f} ms"
        else:  # a count per request (documents read): one bucket per count, well past the usual
            assert descriptor["unit"] == "1"
            buckets = config["bucketOptions"]["linearBuckets"]
            assert buckets["offset"] == 0 and buckets["width"] == 1 and buckets["numFiniteBuckets"] >= 32
    else:
        assert "valueExtractor" not in config and "bucketOptions" not in config


def test_the_dashboard_shows_every_metric_and_cloud_runs_own():
    text = (MONITORING / "dashboard.json").read_text()
    dashboard = json.loads(text)
    referenced = set(re.findall(r"logging\.googleapis\.com/user/(\w+)", text))
    assert referenced == set(METRIC_NAMES)
    for metric in BUILT_IN:
        assert f"run.googleapis.com/{metric}" in text, metric
    tiles = dashboard["mosaicLayout"]["tiles"]
    columns = dashboard["mosaicLayout"]["columns"]
    assert all(t["xPos"] + t["width"] <= columns for t in tiles)
    spots = {(t["xPos"], t["yPos"]) for t in tiles}
    assert len(spots) == len(tiles)  # no tile on top of another
    assert set(re.findall(r"@(\w+)@", text)) == {"SERVICE", "DASHBOARD"}
    for policy in POLICY_FILES:
        assert json.loads(policy.read_text())["enabled"] is False


# ---- against the lines the function writes ----------------------------------------------

@pytest.fixture(scope="module")
def served_log(tiny_artifact, firestore_emulator, tmp_path_factory):
    """A log of infra.monitoring.logs.DEMO_REQUESTS served with the tiny artifact from the Firestore emulator (so that
    the request lines count Firestore reads), then a failed eager load."""
    from harness.firestore import emulator_env

    folder = tmp_path_factory.mktemp("monitoring")
    firestore_emulator.reset()
    log = monitoring_logs.demo(folder / "demo", tiny_artifact.folder, emulator_env(firestore_emulator))
    broken = folder / "broken.log"
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(folder / "broken.sqlite"),
           "QA_EAGER_LOAD": "1", "QA_ARTIFACT_DIR": str(folder / "none"), "PYTHONPATH": None}
    with FunctionServer(env, broken) as srv:
        assert post(srv.url, {"question": "Who?", "context": "Somebody."}).status == 503
        deadline = time.monotonic() + 20
        while not any("eager load failed" in line.get("message", "") for line in srv.logs()):
            assert time.monotonic() < deadline, srv.output()[-2000:]
            time.sleep(0.1)
    combined = folder / "function.log"
    combined.write_text(log.read_text() + "gunicorn says hello, not JSON\n" + broken.read_text())
    return combined


def test_the_figures_match_the_requests_made(served_log):
    entries, skipped = monitoring_logs.read_entries(served_log)
    assert skipped >= 1
    s = monitoring_logs.summarise(entries, skipped)
    assert {k: (v["count"], v["cache_hits"]) for k, v in s["by_kind"].items()} == {
        "context": (2, 1), "passage_ids": (2, 1), "retrieval": (1, 0)}
    assert s["answers"] == 5 and s["cache"] == {"hit": 2, "miss": 3, "hit_rate": 0.4}
    assert {k: v["count"] for k, v in s["stages_ms"].items()} == {"inference": 3, "fetch": 2, "retrieve": 1}
    assert s["errors"] == {"400": 1, "404": 1, "405": 1, "503": 1}
    assert s["errors_by_method"] == {"POST": 3, "PUT": 1}
    cold = s["cold_starts"]
    assert cold["count"] == 1 and cold["eager"] == {"false": 1} and cold["first_answers"] == 1
    assert 0 < cold["model_load_ms"]["p50"] <= cold["time_to_ready_ms"]["p50"]
    assert s["load_failures"] == 1
    assert all(s["by_kind"][k]["p50"] > 0 for k in monitoring_logs.KINDS)
    # Firestore reads: none for a question with its context; on the passage_ids miss the two named passages
    # and the corpus generation (read once: the demo's QA_CORPUS_CHECK_S outlasts it), none on its in-process
    # cache hit; the retrieved passages (and the index) for the question alone
    reads = s["store_reads"]
    assert {k: (r["count"], r["total"]) for k, r in reads.items() if k != "retrieval"} == {
        "context": (2, 0), "passage_ids": (2, 3)}
    assert reads["retrieval"]["count"] == 1 and reads["retrieval"]["total"] >= 1
    # every log-based metric sees the lines it is for
    assert {name for name, n in s["metrics"].items() if n == 0} == set()


def _paths(config: dict) -> set[str]:
    text = " ".join([config["filter"], config.get("valueExtractor", ""), *(config.get("labelExtractors") or {})
                     .values()])
    return set(re.findall(r"jsonPayload(?:\.\w+)+", text))


@pytest.mark.parametrize("path", METRIC_FILES, ids=lambda p: p.stem)
def test_every_field_a_metric_reads_is_in_the_lines_it_matches(served_log, path):
    """A field the function renames or drops fails here, not silently on the dashboard."""
    entries, _ = monitoring_logs.read_entries(served_log)
    metric = monitoring_logs.Metric.load(path)
    matched = [e for e in entries if metric.matches(e)]
    assert matched, f"{path.stem} matches none of the function's lines"
    config = json.loads(path.read_text())
    for field in _paths(config):
        present = [e for e in matched if monitoring_logs.field_value(e, field) is not monitoring_logs._MISSING]
        assert present, f"{path.stem}: no line it matches has {field}"
    for key, extractor in metric.labels.items():
        assert all(extractor(e) not in (None, "") for e in matched), f"{path.stem}: label {key} is empty"


def test_the_error_code_label_is_the_http_status(served_log):
    entries, _ = monitoring_logs.read_entries(served_log)
    metric = monitoring_logs.Metric.load(MONITORING / "metrics" / "qa_errors.json")
    errors = [e for e in entries if metric.matches(e)]
    assert len(errors) == 4
    for e in errors:
        assert metric.labels["code"](e) == str(e["httpRequest"]["status"])
        assert metric.labels["method"](e) == e["httpRequest"]["requestMethod"]


def test_a_cloud_logging_export_gives_the_same_figures(served_log, tmp_path):
    """gcloud logging read --format=json: special fields (severity, httpRequest) lifted out of jsonPayload."""
    entries, skipped = monitoring_logs.read_entries(served_log)
    exported = []
    for e in entries:
        payload = {k: v for k, v in e.items() if k not in ("severity", "httpRequest")}
        entry = {"jsonPayload": payload, "severity": e.get("severity", "DEFAULT"),
                 "resource": {"type": "cloud_run_revision", "labels": {"service_name": "bert-qa"}}}
        if "httpRequest" in e:
            entry["httpRequest"] = e["httpRequest"]
        exported.append(entry)
    export = tmp_path / "export.json"
    export.write_text(json.dumps(exported))
    again, _ = monitoring_logs.read_entries(export)
    assert monitoring_logs.summarise(again, skipped) == monitoring_logs.summarise(entries, skipped)


def test_the_command_writes_markdown_json_and_a_chart(served_log, tmp_path, capsys):
    assert monitoring_logs.main([str(served_log), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    md = (tmp_path / "summary.md").read_text()
    assert printed == md
    assert "| context | 2 | 1 |" in md and "| passage_ids | 2 | 1 |" in md and "| retrieval | 1 | 0 |" in md
    assert "2 hits, 3 misses: hit rate 40.0 %" in md and "| 503 | 1 |" in md and "![summary](summary.png)" in md
    assert (tmp_path / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((tmp_path / "summary.json").read_text())["answers"] == 5


def test_without_matplotlib_the_markdown_says_so(served_log, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert monitoring_logs.main([str(served_log), "--out", str(tmp_path)]) == 0
    assert "No chart: matplotlib is not installed" in (tmp_path / "summary.md").read_text()
    assert not (tmp_path / "summary.png").exists()


def test_the_logs_tool_runs_as_a_module_beside_the_metrics_it_reads(repo, tmp_path):
    """``python -m infra.monitoring.logs`` from the checkout; ``python -m bench`` no longer lists it."""
    from bench.cli import COMMANDS

    done = subprocess.run([sys.executable, "-m", "infra.monitoring.logs", "--help"], cwd=repo, capture_output=True,
                          text=True, check=True)
    assert "python -m infra.monitoring.logs" in done.stdout and "logs" not in COMMANDS
    assert monitoring_logs.METRICS_DIR == MONITORING / "metrics"


@pytest.mark.parametrize("text", ['jsonPayload.a=1 OR jsonPayload.b=2', 'NOT jsonPayload.a:*', '(jsonPayload.a>1)'])
def test_filters_beyond_the_checked_subset_are_refused(text):
    with pytest.raises(ValueError):
        monitoring_logs.parse_filter(text)


def test_files_parse_as_their_api_messages(dry, tmp_path):
    """With the Google Cloud client libraries at hand (not a dependency): field names and enum values."""
    json_format = pytest.importorskip("google.protobuf.json_format")
    dashboards = pytest.importorskip("google.cloud.monitoring_dashboard_v1")
    monitoring = pytest.importorskip("google.cloud.monitoring_v3")
    logging_v2 = pytest.importorskip("google.cloud.logging_v2")
    _, commands = dry("monitoring.sh", "--out", str(tmp_path / "out"))
    json_format.ParseDict(json.loads((tmp_path / "out" / "dashboard.json").read_text()), dashboards.Dashboard.pb()())
    for policy in _policies(commands).values():
        json_format.ParseDict(policy, monitoring.AlertPolicy.pb()())
    for path in METRIC_FILES:
        json_format.ParseDict(json.loads(path.read_text()), logging_v2.types.LogMetric.pb()())
