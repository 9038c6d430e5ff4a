"""The redactor removes each kind of secret and leaves ordinary training-log lines alone."""

from __future__ import annotations

import time

import pytest

from agent.redact import Redactor, redact

JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nAbCdEf0123\n-----END PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        ("export OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", "api-key"),
        ("key sk-AbCdEfGhIjKlMnOpQrStUvWx0123 used", "sk-AbCdEfGhIjKlMnOpQrStUvWx0123", "api-key"),
        ("GITHUB_TOKEN ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "github-token"),
        ("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github-token"),
        ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws-secret-key"),
        ("webhook xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "xoxb-123456789012-1234567890123-AbCdEfGhIjKl", "slack-token"),
        ("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 torchrun", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf-token"),
        (f"session {JWT} expired", JWT, "jwt"),
        ("curl -H 'Authorization: Bearer abcdef0123456789abcdef'", "abcdef0123456789abcdef", "auth-header"),
        ("headers={'Authorization': 'Basic dXNlcjpwYXNzd29yZA=='}", "dXNlcjpwYXNzd29yZA==", "auth-header"),
        (f"Authorization: Bearer {JWT}", JWT, "auth-header"),
        ("token=abc123def456", "abc123def456", "secret"),
        ("WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef01234567", "secret"),
        ("{'password': 'hunter2', 'user': 'bob'}", "hunter2", "secret"),
        ('{"client_secret": "s3cr3t-value"}', "s3cr3t-value", "secret"),
        ("db.password: Tr0ub4dor!3x", "Tr0ub4dor!3x", "secret"),
        ("python train.py --hf-token abcdefgh12345678 --lr 1e-4", "abcdefgh12345678", "secret"),
        ("git clone https://bob:s3cr3tpass@git.example.com/org/repo.git", "s3cr3tpass", "url-credentials"),
        (f"loaded key {PEM} ok", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", "private-key"),
        ("-----BEGIN RSA PRIVATE KEY-----MIIEowIBAAKCAQEAxyz", "MIIEowIBAAKCAQEAxyz", "private-key"),
    ],
)
def test_each_kind_is_redacted(text: str, secret: str, kind: str) -> None:
    r = Redactor()
    out = r.redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert r.count >= 1 and r.counts[kind] >= 1


def test_context_is_kept() -> None:
    assert redact("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 && torchrun") == "export HF_TOKEN=[REDACTED:hf-token] && torchrun"
    assert redact("https://bob:pw12345@host.example.com/x") == "https://[REDACTED:url-credentials]@host.example.com/x"
    assert redact("{'password': 'hunter2'}") == "{'password': '[REDACTED:secret]'}"
    assert redact("Authorization: Bearer abcdef0123456789abcdef") == "Authorization: Bearer [REDACTED:auth-header]"
    assert redact(f"{PEM}\nnext line") == "[REDACTED:private-key]\nnext line"


def test_idempotent_and_counted_once() -> None:
    r = Redactor()
    once = r.redact("OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123 token=abcdefgh123")
    assert r.count == 2
    assert r.redact(once) == once
    assert r.count == 2
    r.reset()
    assert r.count == 0


def test_emails_and_ips_are_optional() -> None:
    line = "rank 3 alice@example.com connect 10.0.0.12:29500 failed"
    assert redact(line) == line
    out = Redactor(emails=True, ips=True).redact(line)
    assert out == "rank 3 [REDACTED:email] connect [REDACTED:ip]:29500 failed"
    assert Redactor(ips=True).redact("torch 2.1.0.1234 v1.2.3.4") == "torch 2.1.0.1234 v1.2.3.4"


NORMAL_LINES = [
    "worker-7:1234:1290 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.8<50170> with error 12, opcode 0, len 0, vendor err 129",
    "worker-0:88:88 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.1.2.3<0>",
    "NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7",
    "[E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, OpType=ALLREDUCE, NumelIn=1, Timeout(ms)=600000) ran for 600321 milliseconds before timing out.",
    "[ERROR] HCCL(12345,python):2024-05-01-10:00:00.123.456 [hccl_communicator.cc:123] [HCCL_TIMEOUT] HCCL_CONNECT_TIMEOUT=1800 EI0006: Getting socket times out.",
    "EJ0001: Failed to initialize the HCCP process. Reason: Maybe the last training process is running.",
    " iteration     1520/  500000 | consumed samples:      3112960 | elapsed time per iteration (ms): 5123.4 | learning rate: 2.999E-04 | global batch size:  2048 | lm loss: 2.345678E+00 | loss scale: 65536.0 | grad norm: 0.873 |",
    "  tokenizer_type .................................. GPT2BPETokenizer",
    "  use_auth_token .................................. False",
    "--tokenizer-model /data/tokenizers/llama3/tokenizer.model --max-tokens 4096 --token-dropping",
    "max_tokens=4096 num_tokens: 8192 pad_token=<pad> tokenizer_model=/mnt/tok.model use_auth_token=False",
    "password=None token= api_key=$OPENAI_API_KEY secret_file=/run/secrets/key",
    "GOOGLE_APPLICATION_CREDENTIALS=/secrets/sa.json PWD=/home/user/megatron",
    "Invalid token: expected ']' at position 17",
    "CUDA error: an illegal memory access was encountered at 0x7f3a2c000000 (device 0x0000:3b:00.0)",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 3; 79.15 GiB total capacity)",
    'File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 2050, in all_reduce',
    "saving checkpoint at iteration    2000 to /mnt/ckpt/llama70b/iter_0002000/mp_rank_03_007/model_optim_rng.pt",
    "Xid 79: GPU has fallen off the bus. PCI:0000:b3:00",
    "sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 model.safetensors",
    "[default3]:[rank3]: torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED",
    "slurmstepd: error: *** STEP 4242.0 ON node-17 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***",
    "skipped batch with hf_dataset shard hf_shard_00017 at step 1520",
]


@pytest.mark.parametrize("line", NORMAL_LINES)
def test_no_false_positives_on_training_logs(line: str) -> None:
    r = Redactor()
    assert r.redact(line) == line
    assert r.count == 0


def test_fast_enough() -> None:
    lines = NORMAL_LINES * 500 + ["export OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123"] * 100
    r = Redactor(emails=True, ips=True)
    t0 = time.perf_counter()
    r.redact_all(lines)
    assert time.perf_counter() - t0 < 2.0
    assert r.counts["api-key"] == 100
