"""The offline reasoner's last-resort wording rules are data with provenance, and none of
them decides against the knowledge docs more often than with them."""

import pytest

from agent.knowledge import load_docs
from agent.reasoners.wording import WORDING_RULES, first_rule
from agent.schema import SUBCATEGORIES


@pytest.mark.parametrize("rule", WORDING_RULES, ids=lambda r: f"{r.category}/{r.subcategory}")
def test_every_rule_decides_its_own_real_example(rule):
    assert rule.subcategory in SUBCATEGORIES[rule.category]
    assert rule.source
    assert first_rule(rule.example) is rule


def test_no_rule_decides_against_the_docs_more_often_than_with_them():
    examples = [(d.category, d.subcategory, s.example) for d in load_docs() for s in d.signatures]
    for rule in WORDING_RULES:
        decided = [(c, s) for c, s, text in examples if first_rule(text) is rule]
        agree = sum(1 for c, s in decided if (c, s) == (rule.category, rule.subcategory))
        assert decided, f"{rule.regex.pattern} fires on no public example line"
        assert agree / len(decided) >= 0.4, f"{rule.regex.pattern}: agrees on {agree}/{len(decided)} doc examples"


def test_a_feature_that_needs_more_than_the_job_has_reads_as_the_users_setup() -> None:
    # hicann/torchtitan-npu docs (custom_cp.md, low_precision_training.md), NVIDIA-NeMo/RL docs.
    rule = first_rule("CP on deepseek_v32 requires 'npu_dsa' converter")
    assert rule is not None and (rule.category, rule.subcategory) == ("user", "configuration")
    rule = first_rule("[MXFP8/Hif8] is only supported on Ascend950 or higher architecture")
    assert rule is not None and (rule.category, rule.subcategory) == ("user", "software_incompatibility")
    rule = first_rule("AssertionError: FP8 block scaled GEMM requires Hopper and CUDA >= 12.9.")
    assert rule is not None and rule.subcategory == "software_incompatibility"
    # A kernel's bounds check is no version ("Assertion `t >= 0 && t < n_classes` failed.", pytorch Loss.cu).
    rule = first_rule("Assertion `t >= 0 && t < n_classes` failed.")
    assert rule is None or rule.subcategory != "software_incompatibility"


def test_a_bus_error_reads_as_shared_memory_but_a_pcie_bus_error_does_not() -> None:
    # epfLLM/Megatron-LLM FAQ: a shard loader's bus error under a small /dev/shm.
    rule = first_rule("17300 Bus error (core dumped)")
    assert rule is not None and (rule.category, rule.subcategory) == ("platform", "resource_management")
    rule = first_rule("pcieport 0000:80:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer")
    assert rule is None or rule.category != "platform"
