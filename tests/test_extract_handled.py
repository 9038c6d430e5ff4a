"""Python's exception chains: the job dies of the exception that escaped, not of one it was handling."""

from __future__ import annotations

from pathlib import Path

from agent.pipeline import analyze
from tests.minedjobs import write_logs

# The shape of verl-project/verl PR #5687's launch log: TensorRT-LLM caught its MetaInitException
# to retry without meta tensors, and the retry hit the heads/TP assertion that ended the job.
CHAIN = [
    "INFO starting rollout server with tensor_model_parallel_size=8",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/models/modeling_utils.py", line 95, in __torch_dispatch__',
    "    raise MetaInitException(",
    "tensorrt_llm._torch.models.modeling_utils.MetaInitException: Meta tensor used in unsupported function: aten.set_.source_Storage",
    "",
    "During handling of the above exception, another exception occurred:",
    "",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/modules/attention.py", line 251, in __init__',
    "    assert self.num_heads % tp_size == 0",
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    "AssertionError",
]


def test_the_exception_that_escaped_is_the_root_and_its_check_a_setting(tmp_path: Path) -> None:
    d = analyze(write_logs(tmp_path, {"console": CHAIN}), workers=1, use_pool=False).diagnosis
    assert d.events[0].occurrences[0].text == "AssertionError"
    handled = [e for e in d.events if "MetaInitException" in e.template]
    assert not handled or "an exception being handled when another was raised" in handled[0].reasons
    assert (d.category, d.subcategory) == ("user", "configuration")  # a divisibility check of a parallel size
