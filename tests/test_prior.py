"""The shipped prior of healthy runs: it loads from the package, demotes a benign line in
cold start, never demotes a line that reads as a fault, and gives way to normal jobs."""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
from pathlib import Path

from agent.doctor import examine
from agent.extract import extract
from agent.extract.crossjob import PRIOR_REASON, JobCounts, NormalProfile, judge
from agent.mining import Masker, Miner, mine_job
from agent.pipeline import Diagnoser
from agent.prior import PRIOR_DIR, HealthyPrior, PriorTemplate, known_events, load_prior, prior_key, read_prior

ROOT = Path(__file__).resolve().parent.parent

# NCCL_DEBUG=INFO prints this on every healthy run without the CollNet plugin; it says
# "Failed", so without a prior it is reported beside the crash below it.
BENIGN = "gpu-node-3:51234:51234 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v6 symbol."
CRASH = [
    "Traceback (most recent call last):",
    '  File "train.py", line 212, in <module>',
    "RuntimeError: CUDA error: an illegal memory access was encountered",
]
START = [f"loading shard {i} of 40 from the dataset index" for i in range(40)]
NCCL_WARN = "gpu-node-3:51234:51301 [0] include/socket.h:403 NCCL WARN Connect to 10.1.2.3<4567> failed : Connection refused"


def _job(tmp_path: Path, lines: list[str], name: str = "logs") -> Path:
    logs = tmp_path / name
    logs.mkdir()
    (logs / "console.log").write_text("\n".join(lines) + "\n")
    return logs


def _prior_of(*lines: str, sources: int = 9) -> HealthyPrior:
    """A prior that knows exactly these lines' shapes."""
    masker = Masker()
    return HealthyPrior([PriorTemplate(prior_key(masker.mask(line)), sources, ("cuda",)) for line in lines])


def test_prior_key_keeps_words_and_makes_values_wildcards() -> None:
    masked = Masker().mask(BENIGN)
    assert prior_key(masked) == "<*> <*> NCCL INFO NET/Plugin: Failed to find <*> symbol."


def test_the_shipped_prior_loads_from_the_package_with_its_sources() -> None:
    packaged = importlib.resources.files("agent").joinpath("_prior")
    assert packaged.joinpath("healthy_templates.jsonl").is_file() and packaged.joinpath("sources.json").is_file()
    prior = read_prior()
    assert load_prior() is not None
    assert len(prior.templates) > 100 and all(t.sources >= 2 for t in prior.templates)
    assert set(prior.stacks()) == {"cuda", "ascend"} and len(prior.sources) >= 50
    ids = [s["id"] for s in prior.sources]
    assert len(ids) == len(set(ids))
    for source in prior.sources:  # every source says where to get it again
        assert ("repo" in source and "path" in source and len(str(source["commit"])) == 40) or ("url" in source and "where" in source)
    assert (PRIOR_DIR / "healthy_templates.jsonl").stat().st_size < 1_000_000
    assert prior.sources_of(Masker().mask(BENIGN)) >= 2


def test_a_benign_healthy_run_line_is_demoted_in_cold_start(tmp_path: Path) -> None:
    mined = mine_job(_job(tmp_path, [*START, BENIGN, *CRASH]), workers=1)
    without = extract(mined, None, None)
    assert "illegal memory access" in without.events[0].template
    assert any("NET/Plugin" in e.template for e in without.events[1:])  # reported as evidence beside the crash
    with_prior = extract(mined, None, None, healthy=known_events(load_prior(), mined))
    assert "illegal memory access" in with_prior.events[0].template
    assert not any("NET/Plugin" in e.template for e in [*with_prior.events, *with_prior.cascades])
    assert any("NET/Plugin" in mined.miner.template(t) for t in with_prior.prior_benign)


def test_a_fault_line_the_prior_also_knows_is_not_demoted(tmp_path: Path) -> None:
    lines = [*START, BENIGN, NCCL_WARN, *CRASH]
    mined = mine_job(_job(tmp_path, lines), workers=1)
    prior = _prior_of(BENIGN, NCCL_WARN, CRASH[-1])  # healthy runs can print rare errors too
    healthy = known_events(prior, mined)
    assert len(healthy) == 3
    extraction = extract(mined, None, None, healthy=healthy)
    demoted = {mined.miner.template(t) for t in extraction.prior_benign}
    assert any("NET/Plugin" in t for t in demoted)
    assert not any("NCCL WARN" in t or "RuntimeError" in t for t in demoted)
    shown = [e.template for e in extraction.events]
    assert any("illegal memory access" in t for t in shown) and any("NCCL WARN" in t for t in shown)


def test_judge_says_why_and_needs_enough_healthy_sources() -> None:
    verdict = judge(None, 7, 1, healthy_sources=3)
    assert not verdict.keep and verdict.reason.startswith(PRIOR_REASON)
    assert judge(None, 7, 1, healthy_sources=1).reason == "no normal jobs to compare with"


def test_normal_jobs_given_take_precedence_over_the_prior(tmp_path: Path) -> None:
    profile = NormalProfile("s", Miner(), [JobCounts("n1", 1, 10, {}, {})])
    assert not judge(profile, 7, 1, healthy_sources=50).reason.startswith(PRIOR_REASON)

    failed = _job(tmp_path, [*START, BENIGN, *CRASH])
    normal = _job(tmp_path, [*START[:10], "all 40 shards loaded"], name="normal")
    diagnoser = Diagnoser(library=None, kb=None, reasoner=None, prior=load_prior())
    cold = diagnoser.analyze(failed)
    assert cold.extraction.prior_benign
    given = diagnoser.analyze(failed, normal_jobs=[normal])
    assert given.extraction.prior_benign == {} and given.extraction.normal_jobs == 1
    reasons = [r for e in given.extraction.events for r in e.reasons]
    assert not any(r.startswith(PRIOR_REASON) for r in reasons) and "absent from normal jobs" in reasons


def test_doctor_lists_the_prior(tmp_path: Path) -> None:
    found = [f.what for f in examine(tmp_path / "home") if "prior of normal behaviour" in f.what]
    assert found and "healthy runs (ascend" in found[0]


def test_the_build_script_counts_sources_and_leaves_out_faults(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("build_normal_prior", ROOT / "benchmarks" / "build_normal_prior.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    logs = tmp_path / "logs"
    logs.mkdir()
    bodies = {
        "a": [BENIGN, NCCL_WARN, "only run a prints this line"],
        "b": [BENIGN.replace("gpu-node-3", "dgx-a7"), NCCL_WARN],
        "c": ["ip-10-0-3-7:88:88 [1] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v7 symbol."],
    }
    sources = []
    for sid, lines in bodies.items():
        (logs / f"{sid}.log").write_text("\n".join(lines) + "\n")
        sources.append({"id": sid, "stack": "cuda", "kind": "test", "url": f"https://example.org/{sid}", "where": "all"})
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({"schema": "l4-normal-prior/1", "sources": sources}))
    out = tmp_path / "out"
    assert script.build(logs, 2, set(), out, manifest) == 0
    rows = [json.loads(line) for line in (out / "healthy_templates.jsonl").read_text().splitlines()]
    assert [(r["template"], r["sources"]) for r in rows] == [("<*> <*> NCCL INFO NET/Plugin: Failed to find <*> symbol.", 3)]


def test_no_prior_source_comes_from_a_test_repository_now_or_later() -> None:
    """The prior must not have read the held-out split: no source is from a test repository
    of the real corpus, and each is from one the split rule would put in dev, so a case added
    from it later cannot land in test either. None is from a dev repository, so dev numbers
    measured with the prior are not flattered by it."""
    from agent.splits import RealSplits, rule_split, source_repo

    splits = RealSplits.load(ROOT / "benchmarks" / "real")
    assert splits is not None
    for source in read_prior().sources:
        repo = source_repo(str(source.get("repo") or source["url"]))
        assert repo not in splits.test and repo not in splits.dev, (source["id"], repo)
        assert rule_split(repo) == "dev", (source["id"], repo)


def test_the_cli_says_when_the_prior_set_lines_aside(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agent.cli import app

    logs = _job(tmp_path, [*START, BENIGN, *CRASH])
    runner = CliRunner()
    env = {"L4_HOME": str(tmp_path / "home")}
    on = runner.invoke(app, ["diagnose", str(logs), "--reasoner", "offline", "-f", "json"], env=env)  # on by default
    assert on.exit_code == 0, on.output
    assert "1 message type(s) that healthy public runs also print were set aside" in " ".join(on.stderr.split())
    assert "NET/Plugin" not in on.stdout
    off = runner.invoke(app, ["diagnose", str(logs), "--no-prior", "--reasoner", "offline", "-f", "json"], env=env)
    assert off.exit_code == 0 and "set aside" not in off.stderr and "NET/Plugin" in off.stdout


def test_a_word_of_failure_where_healthy_runs_varied_is_not_vouched_for() -> None:
    """Healthy runs print "- Init COMPLETE" and "- Abort COMPLETE" (MLPerf teardown), so the
    template has a wildcard there; an aborted communicator of a failed run stays evidence."""
    prior = HealthyPrior([PriorTemplate("<*> <*> NCCL INFO comm <*> rank <*> nranks <*> cudaDev <*> busId <*> - <*> COMPLETE", 5, ("cuda",))])
    line = "slave1:126624:126758 [1] NCCL INFO comm 0x7f7258228580 rank {r} nranks {n} cudaDev {r} busId 3b000 - {what} COMPLETE"
    masker = Masker()
    assert prior.sources_of(masker.mask(line.format(r=3, n=8, what="Init"))) == 5
    assert prior.sources_of(masker.mask(line.format(r=-1, n=-1, what="Abort"))) == 0


def test_a_message_matches_the_prior_whatever_log_header_it_carries() -> None:
    """torch 2.4's torchrun logs its OMP_NUM_THREADS notice under a glog header
    (KellerJordan/modded-nanogpt#61); the healthy runs printed it bare."""
    notice = ("Setting OMP_NUM_THREADS environment variable for each process to be <*> in default, to avoid your "
              "system being overloaded, please further tune the variable for optimal performance in your application as needed.")
    prior = HealthyPrior([PriorTemplate(notice, 9, ("cuda",))])
    masker = Masker()
    bare = notice.replace("<*>", "1")
    assert prior.sources_of(masker.mask(bare)) == 9
    assert prior.sources_of(masker.mask("W0104 13:46:27.896000 80302 torch/distributed/run.py:792] " + bare)) == 9
    assert prior.sources_of(masker.mask("W0104 13:46:27.896000 80302 torch/distributed/run.py:792] Setting up")) == 0
