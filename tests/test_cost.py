"""The cost model's arithmetic, and ``python -m bench cost`` counting what the store code bills."""

import json

import pytest

from bench import cost, cost_model, prices
from harness.paths import REPO, SAMPLE


def test_a_request_alone_is_billed_in_whole_100_ms_steps():
    assert [cost_model.billed_alone_s(ms) for ms in (0.5, 17.5, 100.0, 100.1, 250)] == pytest.approx(
        [0.1, 0.1, 0.1, 0.2, 0.3])
    assert cost_model.billed_busy_s(10.0, 400) == pytest.approx(0.025)
    with pytest.raises(ValueError):
        cost_model.billed_busy_s(10.0, 0)


def test_dollars_per_million_add_up_from_the_list_prices():
    d = cost_model.per_million(cost_model.Units(instance_s=0.1, reads=2, writes=1), vcpus=1, memory_gib=0.5)
    assert d["cpu"] == pytest.approx(0.1 * prices.REQUEST_VCPU_S * 1e6)  # 2.40 at 2026-11 prices
    assert d["memory"] == pytest.approx(0.1 * 0.5 * prices.REQUEST_GIB_S * 1e6)
    assert d["requests"] == prices.PER_MILLION_REQUESTS
    firestore = prices.FIRESTORE_LOCATIONS[prices.FIRESTORE_DEFAULT]
    assert d["firestore"] == pytest.approx((2 * firestore.read_per_100k + firestore.write_per_100k) * 10)
    assert d["total"] == pytest.approx(d["cpu"] + d["memory"] + d["requests"] + d["firestore"])


def test_firestore_is_priced_at_the_database_location():
    units = cost_model.Units(instance_s=0.1, reads=4, writes=1)
    multi = cost_model.per_million(units, vcpus=1, memory_gib=0.5)  # the default: the highest row
    oregon = cost_model.per_million(units, 1, 0.5, prices.FIRESTORE_LOCATIONS["us-west1"])
    assert multi["firestore"] == pytest.approx((4 * 0.06 + 0.18) * 10)
    assert oregon["firestore"] == pytest.approx((4 * 0.03 + 0.09) * 10)
    assert {k: oregon[k] for k in ("cpu", "memory", "requests")} == {k: multi[k] for k in ("cpu", "memory", "requests")}


RECORD = REPO / "records" / "bench" / "cost-scattered" / "cost.json"


def test_a_record_is_billed_again_at_another_location_without_measuring(tmp_path):
    record = json.loads(RECORD.read_text())
    assert cost.main(["--reprice", str(RECORD), "--out", str(tmp_path / "same")]) == 0
    same = json.loads((tmp_path / "same" / "cost.json").read_text())
    assert same["bill"] == record["bill"] and same["measured"] == record["measured"]  # today's prices = the record's
    assert same["measured_by"] == record["command"] and same["repriced_from"] == str(RECORD)
    assert cost.main(["--reprice", str(RECORD), "--firestore-location", "us-west1", "--out", str(tmp_path / "or")]) == 0
    oregon = json.loads((tmp_path / "or" / "cost.json").read_text())
    assert oregon["firestore_location"] == "us-west1" and "Oregon" in (tmp_path / "or" / "cost.md").read_text()
    assert len(oregon["bill"]["rows"]) == len(record["bill"]["rows"])
    for before, after in zip(record["bill"]["rows"], oregon["bill"]["rows"], strict=True):
        b, a = before["dollars_per_million"], after["dollars_per_million"]
        assert a["firestore"] == pytest.approx(b["firestore"] / 2, abs=1e-4)  # Oregon's row is half the multi-region's
        assert (a["cpu"], a["memory"], a["requests"]) == (b["cpu"], b["memory"], b["requests"])


def test_repricing_a_file_that_is_no_cost_record_says_which(tmp_path, capsys):
    bad = tmp_path / "docs.json"
    bad.write_text('{"questions": []}')
    assert cost.main(["--reprice", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert str(bad) in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_a_hit_rate_mixes_hits_into_misses():
    miss, hit = cost_model.Units(0.2, 3, 1), cost_model.Units(0.1, 1, 0)
    mixed = miss.mixed(hit, 0.4)
    assert (mixed.instance_s, mixed.reads, mixed.writes) == pytest.approx((0.16, 2.2, 0.6))
    assert miss.mixed(hit, 0.0) == miss


def test_an_always_on_instance_costs_the_month_at_instance_prices():
    month = cost_model.always_on_per_month(1, 0.5)
    assert month == pytest.approx(30 * 86400 * (prices.INSTANCE_VCPU_S + 0.5 * prices.INSTANCE_GIB_S), abs=0.01)


@pytest.mark.firestore
def test_the_cost_run_counts_what_each_kind_of_question_costs(tiny_artifact, tmp_path):
    data = tmp_path / "squad"  # the stream's corpus: the sample's two articles, one a split
    data.mkdir()
    sample = json.loads(SAMPLE.read_text())
    for split, article in zip(("dev", "train"), sample["data"], strict=True):
        (data / f"{split}.json").write_text(json.dumps({**sample, "data": [article]}))
    assert cost.main(["--artifact", str(tiny_artifact.folder), "--questions", "2", "--busy-seconds", "0.5",
                      "--clients", "2", "--stream", "30", "--data", str(data), "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "cost.json").read_text())
    m = result["measured"]
    # A miss reads the shared answer cache, then its passages (none for a context), and caches its answer.
    assert (m["miss"]["context"]["reads"], m["miss"]["context"]["writes"]) == (1, 1)
    assert (m["miss"]["passage"]["reads"], m["miss"]["passage"]["writes"]) == (2, 1)
    assert m["miss"]["retrieval"]["reads"] > 3 and m["miss"]["retrieval"]["writes"] == 1  # + the index's terms
    for kind in cost.KINDS:  # another instance finds every answer in the shared cache: one read
        assert (m["shared_hit"][kind]["reads"], m["shared_hit"][kind]["writes"]) == (1, 0)
        assert m["busy_miss"][kind]["hits"] == 0 and m["busy_miss"][kind]["writes"] == 0  # cache off
        assert m["busy_hit"][kind]["hits"] == m["busy_hit"][kind]["requests"]
    for kind in cost.KINDS:  # the shared tier off: no cache reads or writes, hits cost nothing in Firestore
        assert m["local_miss"][kind]["reads"] == m["miss"][kind]["reads"] - 1 and m["local_miss"][kind]["writes"] == 0
        assert (m["local_hit"][kind]["reads"], m["local_hit"][kind]["writes"]) == (0, 0)
    # Requests more than QA_CORPUS_CHECK_S apart each read the corpus generation, except a context's (it has none)
    assert cost.generation_reads(m) == {"context": 0, "passage": 1, "retrieval": 1}
    for kind in cost.KINDS:
        assert m["scattered_miss"][kind]["reads"] == m["local_miss"][kind]["reads"] + cost.generation_reads(m)[kind]
    rows = [r for r in result["bill"]["rows"] if "stream" not in r]
    assert len(rows) == len(cost.TIERS) * len(cost.KINDS) * 2 * len(cost.HIT_RATES)
    by = {(r["cache"], r["kind"], r["billed"], r["hit_rate"]): r for r in rows}
    assert by[("shared", "passage", "alone", 0.8)]["reads"] == pytest.approx(0.2 * 2 + 0.8 * 1 + 1)
    assert by[("local", "passage", "alone", 0.8)]["reads"] == pytest.approx(0.2 * 1 + 1)  # + the generation
    assert by[("local", "passage", "busy", 0.8)]["reads"] == pytest.approx(0.2 * 1)  # read once a second at most
    assert by[("local", "context", "alone", 0.0)]["reads"] == 0
    assert "$ per million" in (tmp_path / "cost.md").read_text()
    # The stream: every question a miss (the default, in-process answer cache: no write); what the instance keeps
    # is not read again
    stream = m["stream"]
    assert stream["questions"] == 30 and all(stream[k]["requests"] == 30 for k in cost.STREAM_CACHES)
    assert all(stream[k]["writes"] == 0 for k in cost.STREAM_CACHES)
    reads = {k: stream[k]["reads"] for k in cost.STREAM_CACHES}
    assert reads["both"] < min(reads["passages"], reads["terms"]) <= max(reads["passages"], reads["terms"]) < reads[
        "none"]
    assert len(stream["none"]["reads_by_window"]) == 1
    assert by[("local", "retrieval", "busy", 0.0)]["reads"] == m["local_miss"]["retrieval"]["reads"]  # nothing kept
    # the corpus in the image: the same questions from a SQLite file, nothing read from Firestore
    for name in (cost.IMAGE, cost.IMAGE_HYBRID):
        assert stream[name]["requests"] == 30 and (stream[name]["reads"], stream[name]["writes"]) == (0, 0)
    streamed = {(r["stream"], r["billed"], r["hit_rate"]): r for r in result["bill"]["rows"] if "stream" in r}
    assert len(streamed) == (len(cost.STREAM_CACHES) + 2) * 2 * len(cost.HIT_RATES)
    assert streamed[("both", "busy", 0.0)]["reads"] == reads["both"]
    assert streamed[("both", "alone", 0.0)]["reads"] == reads["both"] + 1  # + the generation, billed alone
    assert streamed[(cost.IMAGE, "alone", 0.0)]["reads"] == 0  # a SQLite file's reads are not billed
    billed = streamed[(cost.IMAGE, "alone", 0.0)]["dollars_per_million"]
    both = streamed[("both", "alone", 0.0)]["dollars_per_million"]
    assert billed["firestore"] == 0 and billed["total"] < both["total"]
    assert "A stream of 30 distinct dev questions" in (tmp_path / "cost.md").read_text()


# ---- a fraction of a vCPU (bench.cpu_quota) ----------------------------------------------------

def test_a_fraction_of_a_cpu_is_a_cfs_quota_in_either_cgroup_version(tmp_path):
    from bench import cpu_quota

    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1")
    procs = cpu_quota.cgroup(0.5, root=v1)
    assert procs == v1 / "cpu" / "bench-cpu-50000" / "cgroup.procs"
    assert (procs.parent / "cpu.cfs_quota_us").read_text() == "50000"
    assert (procs.parent / "cpu.cfs_period_us").read_text() == "100000"
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cgroup.controllers").write_text("cpu memory")
    procs = cpu_quota.cgroup(0.25, root=v2)
    assert (procs.parent / "cpu.max").read_text() == "25000 100000"
    with pytest.raises(cpu_quota.QuotaUnavailable, match="no cgroup cpu controller"):
        cpu_quota.cgroup(0.5, root=tmp_path / "none")
    with pytest.raises(ValueError):
        cpu_quota.cgroup(1.0, root=v2)


def test_a_held_command_is_the_process_that_joined_the_cgroup(tmp_path):
    import subprocess

    from bench import cpu_quota

    procs = tmp_path / "cgroup.procs"  # a plain file stands in: what the shell wrote there is its own pid
    done = subprocess.run(cpu_quota.held(["sh", "-c", "echo $$"], procs), capture_output=True, text=True, check=True)
    assert procs.read_text().strip() == done.stdout.strip()  # exec: the command kept the pid that joined


@pytest.mark.parametrize("args, says", [(["--vcpus", "0.5"], "--clients 1"), (["--vcpus", "0.05"], "0.08")])
def test_a_fraction_of_a_vcpu_is_refused_where_cloud_run_refuses_it(args, says, capsys):
    with pytest.raises(SystemExit) as stop:
        cost.main(args)
    assert stop.value.code == 2 and says in capsys.readouterr().err


def test_a_fraction_of_a_vcpu_is_never_measured_at_a_whole_cpu(monkeypatch, capsys):
    from bench import cpu_quota

    def unavailable(share, root=None):
        raise cpu_quota.QuotaUnavailable("no cgroup cpu controller under /nowhere")

    monkeypatch.setattr(cpu_quota, "cgroup", unavailable)
    with pytest.raises(SystemExit) as stop:
        cost.main(["--vcpus", "0.5", "--clients", "1"])
    assert stop.value.code == 2 and "no cgroup cpu controller" in capsys.readouterr().err
