"""Redaction as a table: secret shapes that must go, and ordinary training lines that must stay
byte for byte (hex comm ids, PCI addresses, hashes, UUIDs are evidence, not secrets)."""

from __future__ import annotations

import pytest

from agent.redact import Redactor, looks_random, shannon_entropy

WANDB = "3f9a1c0e7b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a"  # 40 hex, as wandb prints its API key

SECRETS = [
    # (line, the secret that must not survive)
    (f"wandb: Appending key for api.wandb.ai to your netrc file: {WANDB}", WANDB),
    (f"$ wandb login {WANDB}", WANDB),
    (f"wandb.login(key='{WANDB}')", WANDB),
    ("notify https://hooks.slack.com/services/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", "aB3dE6gH9jK2mN5pQ8sT1vW4"),
    ("SLACK_URL=https://hooks.slack.com/workflows/T01ABCDEF/A02GHIJKL/345678901/zYxWvUtSrQpOnMlK", "zYxWvUtSrQpOnMlK"),
    ("conn DefaultEndpointsProtocol=https;AccountName=ckpts;AccountKey=q8Zt3vXw9YbA2cD4eF6gH8iJ0kL1mN3oP5qR7sT9uV1w+xY=;EndpointSuffix=core.windows.net",
     "q8Zt3vXw9YbA2cD4eF6gH8iJ0kL1mN3oP5qR7sT9uV1w+xY="),
    ("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6Kl9No2Q=",
     "Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6Kl9No2Q="),
    ("GET https://acct.blob.core.windows.net/c/x.pt?sv=2022-11-02&se=2025-01-01&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA%3D%3D",
     "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"),
    ("export OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123"),
    ("ANTHROPIC_API_KEY sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("cloning with ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("CI_JOB_TOKEN glpat-Ab3De6Gh9Jk2Mn5Pq8St", "glpat-Ab3De6Gh9Jk2Mn5Pq8St"),
    ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("bot xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-123456789012-1234567890123-AbCdEfGhIjKl"),
    ("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 torchrun", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"),
    ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc12345", "sk_live_4eC39HqLyjWDarjtT1zdp7dc12345"),
    ("maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("//registry.npmjs.org/:_authToken=npm_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6", "npm_Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6"),
    ("twine upload -p pypi-AgEIcHlwaS5vcmcCJGI4ZjQ2YjE2LTk0MmMtNGE0Ny1hMGU2LWQ2NmQ3YmQ3ZjNiNgACKlszLCJ",
     "pypi-AgEIcHlwaS5vcmcCJGI4ZjQ2YjE2LTk0MmMtNGE0Ny1hMGU2LWQ2NmQ3YmQ3ZjNiNgACKlszLCJ"),
    ("mail 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", "SG.Ab3De6Gh9Jk2Mn5Pq8St1V"),
    ("twilio SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef0123456789abcdef"),
    ("DATABRICKS_HOST=x dapi0123456789abcdef0123456789abcdef", "dapi0123456789abcdef0123456789abcdef"),
    ("alert https://api.telegram.org/bot123456789:AAEhBP0av18f2Ab3De6Gh9Jk2Mn5Pq8St1V/sendMessage",
     "AAEhBP0av18f2Ab3De6Gh9Jk2Mn5Pq8St1V"),
    ("mailchimp 0123456789abcdef0123456789abcdef-us14", "0123456789abcdef0123456789abcdef-us14"),
    ("hook https://discord.com/api/webhooks/123456789012345678/Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6Kl9",
     "Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef3Hi6Kl9"),
    ("session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV"),
    ("curl -H 'Authorization: Bearer abcdef0123456789abcdef'", "abcdef0123456789abcdef"),
    ("git clone https://bob:s3cr3tpass@git.example.com/org/repo.git", "s3cr3tpass"),
    ("{'password': 'hunter2', 'user': 'bob'}", "hunter2"),
    ("python train.py --hf-token abcdefgh12345678 --lr 1e-4", "abcdefgh12345678"),
    ("encryption_key=Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8L", "Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8L"),
    ("license=Q2Fz3Xb8Rk1Tm7Vn4Wp9Ys6Zc0Ad5Be2", "Q2Fz3Xb8Rk1Tm7Vn4Wp9Ys6Zc0Ad5Be2"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
]

ORDINARY = [
    "node-3:1234:5678 [0] NCCL INFO comm 0x7f3a2c000f50 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 1b000 commId 0x9f3b2a1c4d5e6f70 - Init COMPLETE",
    "NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
    "NCCL WARN NET/IB : Got completion from peer 10.0.3.7<41247> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
    "[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error",
    "NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:3d:00): 48, pid=2345, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0.",
    "[ERROR] RUNTIME(12345,python):2024-05-12-10:45:12.123.456 [device_error_proc.cc:123] report error module_type=1, module_name=EZ9999",
    "EI0006: Getting socket times out. Reason: Remote Rank did not send the data in time.",
    "[ERROR] HCCL(3120,python):2024-05-12-10:45:12.123 [hccl_communicator.cc:456] [HCCL_TRACE]HcclAllReduce failed, tag[AllReduce_10.0.0.1%eth0_60000_0_1700000000000000], ret[7]",
    "commit 3f9a1c0e7b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a",
    "Megatron-LM git hash: 3f9a1c0e7b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a branch main",
    "checkpoint sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 saved to /ckpt/iter_0001200/model.pt",
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5a1b2c3d-4e5f-6789-abcd-ef0123456789)",
    "MIG device uuid=MIG-7d2e5f0a-1b3c-5d7e-9f0a-2b4c6d8e0f1a",
    "iteration     1200/  500000 | consumed samples: 1228800 | elapsed time per iteration (ms): 1432.1 | learning rate: 2.999E-04 | lm loss: 2.345678E+00",
    "[rank0]:[E512 10:45:12.123456 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000)",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB",
    "ptr=0x7f8a1c0043e0 size=4096 stream=0x55d1e3a0b2c0",
    "Loading tokenizer from /data/tokenizers/llama3/tokenizer.model, max_tokens=8192",
    "key=epoch value=12",
    "received signal sig=SIGTERM from launcher",
    "cache key: layer.12.attention.dense.weight",
    "tokenizer_model=/models/llama/tokenizer.model",
    "WARNING: token indices sequence length is longer than the specified maximum sequence length",
    "data_path=/lustre/datasets/pile/train_text_document split=949,50,1",
    "session_id=42 resumed",
    "wandb: Run data is saved locally in /workspace/wandb/run-20240512_104512-3f9a1c0e",
    "wandb: Syncing run golden-sun-42 to https://wandb.ai/team/project/runs/abcd1234",
    "run id 9c1b2f3e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c, resumed from iteration 1000",
    "mlx5_0:1/IB: port 1 state changed to DOWN (ibv_async_event)",
    "kernel: [12345.678901] EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0",
    "job 123456 on nodes gpu-[001-016] with MASTER_ADDR=10.0.3.7 MASTER_PORT=29500",
    "tensor sig=0x1f2e3d4c hash=ab12cd34",
    "Authorization failed for user bob: permission denied",
]


@pytest.mark.parametrize(("line", "secret"), SECRETS, ids=[f"s{i:02d}" for i in range(len(SECRETS))])
def test_each_secret_shape_is_removed(line: str, secret: str) -> None:
    out = Redactor().redact(line)
    assert secret not in out, out
    assert "[REDACTED:" in out
    assert Redactor().redact(out) == out  # idempotent


@pytest.mark.parametrize("line", ORDINARY, ids=[f"o{i:02d}" for i in range(len(ORDINARY))])
def test_ordinary_training_lines_stay_unchanged(line: str) -> None:
    assert Redactor().redact(line) == line


def test_the_table_is_large_enough() -> None:
    assert len(SECRETS) >= 30 and len(ORDINARY) >= 30


def test_entropy_separates_keys_from_words() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert looks_random("Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8L")
    assert not looks_random("layer.12.attention.dense.weight")  # a dotted name, however mixed
    assert not looks_random("1234567890123456789")
    assert not looks_random("epoch")
