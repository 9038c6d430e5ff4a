"""Fault library: doc signatures and user-confirmed patterns match the lines they should."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.config import l4_home
from agent.knowledge import bundled_dir, load_docs, required_literal
from agent.library import MASK_PATTERNS, FaultLibrary, LibraryError, template_regex

DOCS = load_docs()
IB12 = "gpu-node-031:48812:49210 [2] NCCL WARN NET/IB : Got completion from peer 10.20.3.17<51234> with status=12 opcode=0 len=0 vendor err 129"
EJ0001 = "EJ0001: [PID: 9931] 2025-04-01-09:13:44.102.883 Failed to initialize the HCCP process. Reason: Maybe the last training process is running."


@pytest.fixture
def lib() -> FaultLibrary:
    return FaultLibrary.load(DOCS)


def test_library_matches_known_line(lib: FaultLibrary) -> None:
    matches = lib.match([("worker-7", IB12), ("worker-7", IB12), ("worker-1", "iteration 10 | loss 2.1")])
    assert [m.id for m in matches] == ["nccl-ib-completion-error-12-retry-exceeded"]
    m = matches[0]
    assert (m.category, m.subcategory, m.source, m.doc_id) == ("hardware", "network", "doc", m.id)
    assert m.nodes == ["worker-7"] and m.count == 2 and m.samples == [IB12]
    assert m.remediation and m.title and m.confidence >= 0.85


def test_family_signature_is_less_confident(lib: FaultLibrary) -> None:
    by_id = {m.id: m for m in lib.match([EJ0001])}  # plain texts work too
    specific = by_id["ascend-device-occupied-residual-process"]
    family = by_id["cann-ej-hccp-error-family"]
    assert specific.confidence > family.confidence
    assert family.confidence < 0.6
    assert next(iter(by_id)) == specific.id


def test_transformers_staged_save_is_its_own_doc_not_the_generic_rank_race(lib: FaultLibrary) -> None:
    # hiyouga/LLaMA-Factory#1839: transformers' tmp-checkpoint-N rename has its own doc (a version fix);
    # a plain "tmp -> final" rename lost to another rank is the generic race (huggingface/pytorch-image-models#693).
    staged = ("FileNotFoundError: [Errno 2] No such file or directory: '/data/model/qwen_14b_chat_lora_1214/tmp-checkpoint-950' "
              "-> '/data/model/qwen_14b_chat_lora_1214/checkpoint-950'")
    assert [m.id for m in lib.match([staged])] == ["transformers-tmp-checkpoint-rename-race"]
    plain = ("FileNotFoundError: [Errno 2] No such file or directory: 'output/timm_confs/effnet_b0.txt/tmp.pth.tar' -> "
             "'output/timm_confs/effnet_b0.txt/last.pth.tar'")
    assert [m.id for m in lib.match([plain])] == ["ranks-race-on-shared-path"]


def test_no_match_on_benign_lines(lib: FaultLibrary) -> None:
    benign = [
        " iteration      100/  500000 | consumed samples: 204800 | lm loss: 2.3411E+00 | loss scale: 65536.0 |",
        "NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
        "[2025-01-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=100, skipped=0, lr=[0.0003]",
        "saving checkpoint at iteration     500 to /ckpt",
    ]
    assert lib.match(benign) == []


def test_required_literal_prefilter() -> None:
    assert required_literal(r"NET/IB ?: Got completion from peer \S+") == (": Got completion from peer ", False)
    assert required_literal(r"(?i)device-side assert triggered") == ("device-side assert triggered", True)
    assert required_literal(r"\bEJ\d{4}\b") == (None, False)
    assert required_literal(r"foo|barbaz") == (None, False)  # alternation: nothing is required


@pytest.mark.parametrize(
    ("mask", "value"),
    [
        ("NUM", "-12.5e3"),
        ("IP", "10.20.3.17"),
        ("HEX", "0x7f3a9c00"),
        ("TS", "2025-04-01 09:13:44,102"),
        ("PATH", "/ckpt/iter_0001/model.pt"),
        ("RANK", "17"),
        ("ITER", "1520"),
        ("NODE", "gpu-node-031"),
        ("PCI", "0000:3b:00.0"),
    ],
)
def test_mask_patterns_match_their_values(mask: str, value: str) -> None:
    assert re.fullmatch(MASK_PATTERNS[mask], value)
    rx = template_regex(f"failure on disk at <{mask}> while saving")
    assert re.search(rx, f"failure on disk at {value} while saving")


def test_template_regex_trims_noise_and_tolerates_spacing() -> None:
    rx = template_regex(
        "<TS> <NODE>:<NUM>:<NUM> [<NUM>] NCCL WARN NET/IB : Got completion from peer <IP><<NUM>> with status=<NUM> opcode=<NUM>"
    )
    assert rx.startswith(r"NCCL\s+WARN") and rx.endswith("opcode=")
    assert re.search(rx, "h1:1:2 [0] NCCL WARN  NET/IB : Got completion from peer 10.0.0.1<99> with status=5 opcode=1")
    assert re.search(template_regex("Task <*> failed: code=<NUM> on <*>"), "Task abc-9 failed: code=3 on w1")


def _event(template: str, *texts: str) -> dict[str, object]:
    return {
        "template": template,
        "score": 0.9,
        "occurrences": [{"node": "worker-3", "line": i + 1, "text": t} for i, t in enumerate(texts)],
    }


def test_confirm_then_match_round_trip(lib: FaultLibrary) -> None:
    events = [
        _event(
            "[E <TS>] storage-agent: lease renewal for volume vol-<NUM> failed after <NUM> attempts (backend=<IP>)",
            "[E 2025-03-01 10:00:00,001] storage-agent: lease renewal for volume vol-8812 failed after 5 attempts (backend=10.9.0.2)",
        ),
        {"template": "", "samples": ["trainer: checkpoint writer stalled for 930 s on shard 17"]},
    ]
    pattern = lib.confirm(
        events,
        "hardware",
        "storage",
        "Storage lease loss stalls checkpoints",
        remediation="fail over the volume",
        source_job="job-42",
    )
    assert pattern.id.startswith("user-storage-lease-loss") and len(pattern.regexes) == 2
    assert pattern.remediation == ["fail over the volume"] and pattern.source_job == "job-42"
    saved = l4_home() / "library" / f"{pattern.id}.json"
    assert json.loads(saved.read_text())["regexes"] == pattern.regexes

    # a later job: other numbers, other hosts, other spacing; found after a reload from disk
    fresh = FaultLibrary.load(DOCS)
    other_job = [
        (
            "node-9",
            "[E 2025-07-19 22:41:13,870] storage-agent: lease renewal for volume vol-10 failed after 12 attempts (backend=172.16.0.40)",
        ),
        ("node-9", "trainer: checkpoint writer stalled for 77 s on shard 3"),
    ]
    matches = fresh.match(other_job)
    assert matches[0].id == pattern.id and matches[0].source == "user"
    assert (matches[0].category, matches[0].subcategory) == ("hardware", "storage")
    assert matches[0].confidence == pytest.approx(0.95) and matches[0].nodes == ["node-9"]
    half = fresh.match(other_job[:1])[0]
    assert half.id == pattern.id and half.confidence < matches[0].confidence


def test_confirm_falls_back_to_masked_sample(lib: FaultLibrary) -> None:
    # a template from another masker that does not match its own sample
    ev = _event("NCCL WARN NET/IB : Got completion from peer <IP> with status=<NUM>", IB12)
    pattern = lib.confirm([ev], "hardware", "network", "IB retry on rail 3")
    assert re.search(pattern.regexes[0], IB12)
    assert (
        lib.match([IB12.replace("10.20.3.17<51234>", "10.1.1.1<7>").replace("gpu-node-031", "gpu-node-999")])[0].id
        == pattern.id
    )


def test_confirm_rejects_bad_input(lib: FaultLibrary) -> None:
    with pytest.raises(LibraryError, match="subcategory"):
        lib.confirm([_event("disk failed", "disk failed")], "hardware", "scheduling", "x")
    with pytest.raises(LibraryError, match="specific"):
        lib.confirm([_event("<NUM> <*> <NUM>", "12 ab 13")], "hardware", "node", "too generic")
    with pytest.raises(LibraryError):
        lib.confirm([], "hardware", "node", "nothing")


def test_user_patterns_listed_removed_and_never_in_package(lib: FaultLibrary) -> None:
    package_files = {
        p for root in (Path(__file__).resolve().parents[1] / "agent", bundled_dir()) for p in root.rglob("*.json")
    }
    p = lib.confirm(
        [_event("fan tray <NUM> failure detected on chassis", "fan tray 2 failure detected on chassis")],
        "hardware",
        "node",
        "fan tray failure",
    )
    after = {p for root in (Path(__file__).resolve().parents[1] / "agent", bundled_dir()) for p in root.rglob("*.json")}
    assert after == package_files
    assert (l4_home() / "library" / f"{p.id}.json").is_file()
    assert [u.id for u in FaultLibrary.load(DOCS).list_user_patterns()] == [p.id]
    lib.remove_user_pattern(p.id)
    assert lib.list_user_patterns() == [] and not (l4_home() / "library" / f"{p.id}.json").exists()
    with pytest.raises(LibraryError, match="no user pattern"):
        lib.remove_user_pattern(p.id)
    with pytest.raises(LibraryError, match="inside the l4 package"):
        FaultLibrary.load(DOCS, user_dir=bundled_dir() / "library")


def test_damaged_user_file_is_skipped_with_warning() -> None:
    udir = l4_home() / "library"
    udir.mkdir(parents=True)
    (udir / "user-broken.json").write_text("{not json")
    (udir / "user-wrong.json").write_text(
        json.dumps({"schema": "l4-user-pattern/1", "id": "x", "category": "hardware", "subcategory": "nope"})
    )
    lib = FaultLibrary.load(DOCS)
    assert lib.list_user_patterns() == [] and len(lib.warnings) == 2


def test_a_damaged_user_pattern_is_reported_by_diagnose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Probe: FaultLibrary.warnings were never printed, so a skipped pattern went unnoticed."""
    from typer.testing import CliRunner

    from agent import pipeline
    from agent.cli import app

    monkeypatch.setenv("L4_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(pipeline, "_LIBRARY", [])  # load the library of this L4_HOME
    (tmp_path / "home" / "library").mkdir(parents=True)
    (tmp_path / "home" / "library" / "broken.json").write_text("{not json")
    (tmp_path / "w.log").write_text("2024-05-12 10:00:05 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n")
    result = CliRunner().invoke(app, ["diagnose", str(tmp_path / "w.log"), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "broken.json" in result.stderr.replace("\n", "")
