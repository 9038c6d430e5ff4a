"""Remove secrets from log text before any of it leaves the machine.

Training logs routinely echo environments and command lines: ``HF_TOKEN=hf_...``,
``WANDB_API_KEY=...``, an ``Authorization: Bearer`` header from a failed download, a
storage URL with ``user:pass@``. Everything the LLM reasoner sends goes through a
``Redactor`` first.

The patterns favour precision on ordinary log content over catching every conceivable
secret: a redactor that mangles ranks, hex addresses, NCCL/HCCL lines or paths would
corrupt the very evidence the model must read. So each pattern is anchored on a known
token shape (``sk-``, ``ghp_``, ``AKIA``, ``xox?-``, ``hf_``, JWT ``eyJ..``) or on a
secret-looking *name* (``*_TOKEN=``, ``password:``) with a value that is not a number,
a boolean or a placeholder. Short or ambiguous names (``key=``, ``sig=``) count only
when the value looks random (long, mixed characters, high Shannon entropy). E-mail addresses and IP addresses are personal or
site-identifying rather than secret, and useful for diagnosing network faults, so they are
kept unless asked for.

A replacement keeps the kind (``[REDACTED:api-key]``) so the model still knows that a
credential was there, and running ``redact`` twice changes nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MARK = "[REDACTED:{kind}]"

# Values of a secret-looking name that are not secrets (and must stay readable).
_HARMLESS_VALUE = re.compile(
    r"""(?ix) ^(?: [-+]?\d+(?:\.\d+)? | true | false | none | null | nil | yes | no | on | off
              | \*+ | x+ | <[^>]*> | \$\{?\w+\}? | \[REDACTED:[\w-]+\] | ["']{2}
              | (?:/|\./|~/)[^\s]* )$"""
)

# A name that holds a secret: the keyword ends the name (``HF_TOKEN``, ``db.password``), so
# ``tokenizer_model`` or ``max_tokens`` do not qualify.
_SECRET_NAME = (
    r"(?:[A-Za-z0-9]+[_.\-])*"
    r"(?:password|passwd|passphrase|secret|token|api[_\-]?key|apikey|access[_\-]?key"
    r"|secret[_\-]?key|private[_\-]?key|client[_\-]?secret|credentials?|auth)"
)


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: re.Pattern[str]
    hints: tuple[str, ...]  # lower-case substrings one of which every match contains (a cheap pre-filter)
    replace: Callable[[re.Match[str], str], str] | None = None  # None: the whole match becomes the mark


def _keep_group1(match: re.Match[str], mark: str) -> str:
    return match.group(1) + mark


def _assignment(match: re.Match[str], mark: str) -> str:
    name, sep, value = match.group("name"), match.group("sep"), match.group("value")
    bare = value.strip("\"'")
    if not bare or _HARMLESS_VALUE.match(value) or _HARMLESS_VALUE.match(bare):
        return match.group(0)
    # "Invalid token: expected ']'" is prose, not a secret: with a colon, the bare word
    # must look like an identifier (HF_TOKEN:, api_key:) or be a password-ish word.
    if ":" in sep and "=" not in sep and re.fullmatch(r"(?i)token|auth|secret|credentials?", name):
        return match.group(0)
    quote = value[0] if value[0] in "\"'" and value[-1:] == value[0] and len(value) > 1 else ""
    return f"{match.group('lead')}{name}{sep}{quote}{mark}{quote}"


# Short or ambiguous names (``key=``, ``sig=``) hold secrets only when the value looks random:
# these need the entropy check, so ``key=epoch`` or ``sig=SIGTERM`` stay readable.
_MAYBE_SECRET_NAME = r"(?:[A-Za-z0-9]+[_.\-])*(?:key|sig|signature|pwd|sas|salt|session[_\-]?id|cookie|license)"
MIN_ENTROPY_BITS = 3.0  # per character; English words and counters score below, keys above
MIN_RANDOM_LENGTH = 16


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for the empty string)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def looks_random(value: str) -> bool:
    """A long value of mixed characters with high entropy: a key, not a word or a number."""
    bare = value.strip("\"'")
    classes = sum(bool(re.search(c, bare)) for c in ("[a-z]", "[A-Z]", "[0-9]"))
    return (
        len(bare) >= MIN_RANDOM_LENGTH
        and classes >= 2  # a dotted name or a number is one or two classes in words, not a mix
        and re.fullmatch(r"[A-Za-z0-9+/=_\-~%]+", bare) is not None  # no dots: module and file names
        and shannon_entropy(bare) >= MIN_ENTROPY_BITS
    )


def _random_assignment(match: re.Match[str], mark: str) -> str:
    if not looks_random(match.group("value")):
        return match.group(0)
    return _assignment(match, mark)


def _rules(emails: bool, ips: bool) -> list[_Rule]:
    rules = [
        # PEM private keys: the whole block, or from BEGIN to the end of the text when the
        # block was cut (a single log line).
        _Rule(
            "private-key",
            re.compile(
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)",
                re.DOTALL,
            ),
            ("private key",),
        ),
        # Credentials in URLs: keep the scheme and host, drop user:pass.
        _Rule(
            "url-credentials",
            re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.\-]{1,15}://)[^\s:/@]+:[^\s/@]+@"),
            ("://",),
            lambda m, mark: f"{m.group(1)}{mark}@",
        ),
        # HTTP auth headers (also in curl -H '...' and Python reprs).
        _Rule(
            "auth-header",
            re.compile(
                r"(?i)(\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest|bot)\s+)"
                r"[A-Za-z0-9\-._~+/=:]{6,}"
            ),
            ("authorization",),
            _keep_group1,
        ),
        _Rule("auth-header", re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{16,}=*"), ("bearer",), _keep_group1),
        # Provider token shapes.
        _Rule("api-key", re.compile(r"\bsk-(?:[a-z]{2,8}-)?[A-Za-z0-9_\-]{20,}"), ("sk-",)),
        _Rule("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), ("gh", "github_pat_")),
        _Rule("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), ("akia", "asia", "abia", "acca")),
        _Rule(
            "aws-secret-key",
            re.compile(r"(?i)(\baws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"),
            ("secret",),
            _keep_group1,
        ),
        _Rule("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), ("xox",)),
        # Shapes other scanners know (detect-secrets, gitleaks), written here for offline use.
        _Rule(
            "slack-webhook",
            re.compile(r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_/\-]{20,}"),
            ("hooks.slack.com",),
            _keep_group1,
        ),
        _Rule("webhook", re.compile(r"(https://discord(?:app)?\.com/api/webhooks/\d+/)[A-Za-z0-9_\-]{30,}"), ("webhooks",), _keep_group1),
        _Rule(
            "azure-storage-key",
            re.compile(r"(?i)(\b(?:AccountKey|SharedAccessKey)\s*=\s*)[A-Za-z0-9+/]{20,}={0,2}"),
            ("accountkey", "sharedaccesskey"),
            _keep_group1,
        ),
        _Rule("azure-sas", re.compile(r"([?&;]sig=)[A-Za-z0-9%+/=]{20,}"), ("sig=",), _keep_group1),
        # wandb prints its 40-hex API key bare (wandb login KEY, "key=..." in wandb.login()):
        # bare 40-hex is also a git hash, so only a line that names wandb counts.
        _Rule("wandb-key", re.compile(r"(?i)(\bwandb\b.*?)(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])"), ("wandb",), _keep_group1),
        _Rule("stripe-key", re.compile(r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{20,}"), ("k_live_", "k_test_")),
        _Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), ("aiza",)),
        _Rule("gitlab-token", re.compile(r"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_\-]{20,}"), ("gl",)),
        _Rule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",)),
        _Rule("pypi-token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), ("pypi-",)),
        _Rule("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), ("sg.",)),
        _Rule("twilio-key", re.compile(r"\bSK[0-9a-f]{32}\b"), ("sk",)),
        _Rule("databricks-token", re.compile(r"\bdapi[0-9a-f]{32}(?:-\d)?\b"), ("dapi",)),
        _Rule("telegram-token", re.compile(r"\bbot\d{8,10}:[A-Za-z0-9_\-]{35}\b"), ("bot",)),
        _Rule("mailchimp-key", re.compile(r"\b[0-9a-f]{32}-us\d{1,2}\b"), ("-us",)),
        _Rule("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), ("sk-ant-",)),
        _Rule("hf-token", re.compile(r"\bhf_(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{30,}\b"), ("hf_",)),
        _Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{6,}\.eyJ[A-Za-z0-9_\-]{6,}\.[A-Za-z0-9_\-]{6,}"), ("eyj",)),
        # Generic NAME=value / "name": "value" / --name value, after the shapes above so a
        # known token keeps its specific kind.
        _Rule(
            "secret",
            re.compile(
                r"(?P<lead>(?:^|[^A-Za-z0-9_.\-])-{0,2}[\"']?)"
                rf"(?P<name>{_SECRET_NAME})"
                r"(?P<sep>[\"']?\s*[:=]\s*|[\"']?\s*=>\s*)"
                r"(?P<value>\[REDACTED:[\w-]+\]|\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"'}\])=]+={0,2}(?![=:\w$]))",
                re.IGNORECASE,
            ),
            ("pass", "pwd", "secret", "token", "key", "credential", "auth"),
            _assignment,
        ),
        _Rule(
            "secret",
            re.compile(
                rf"(?P<lead>(?:^|\s)--)(?P<name>{_SECRET_NAME})(?P<sep>\s+)(?P<value>(?!-)[^\s\"']+)",
                re.IGNORECASE,
            ),
            ("--",),
            _assignment,
        ),
        _Rule(
            "secret",
            re.compile(
                r"(?P<lead>(?:^|[^A-Za-z0-9_.\-])-{0,2}[\"']?)"
                rf"(?P<name>{_MAYBE_SECRET_NAME})"
                r"(?P<sep>[\"']?\s*[:=]\s*)"
                r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&\"'}\])]+)",
                re.IGNORECASE,
            ),
            ("key", "sig", "pwd", "sas", "salt", "session", "cookie", "license"),
            _random_assignment,
        ),
    ]
    if emails:
        rules.append(_Rule("email", re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b"), ("@",)))
    if ips:
        octet = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
        rules.append(_Rule("ip", re.compile(rf"(?<![\w.]){octet}(?:\.{octet}){{3}}(?!\w|\.\d)"), ()))
    return rules


class Redactor:
    """Replace secrets in text with ``[REDACTED:<kind>]``; counts what it replaced."""

    def __init__(self, emails: bool = False, ips: bool = False) -> None:
        self._rules = _rules(emails, ips)
        self.counts: Counter[str] = Counter()

    @property
    def count(self) -> int:
        """Items redacted so far, all kinds."""
        return sum(self.counts.values())

    def reset(self) -> None:
        self.counts.clear()

    def redact(self, text: str) -> str:
        """The text with every secret replaced; ``count`` and ``counts`` grow accordingly."""
        if not text:
            return text
        lowered = text.lower()
        for rule in self._rules:
            if rule.hints and not any(h in lowered for h in rule.hints):
                continue
            mark = MARK.format(kind=rule.kind)
            replaced = 0

            def sub(match: re.Match[str], rule: _Rule = rule, mark: str = mark) -> str:
                nonlocal replaced
                out = rule.replace(match, mark) if rule.replace else mark
                if out != match.group(0):
                    replaced += 1
                return out

            new = rule.regex.sub(sub, text)
            if replaced:
                self.counts[rule.kind] += replaced
                text, lowered = new, new.lower()
        return text

    def redact_all(self, texts: Iterable[str]) -> list[str]:
        return [self.redact(t) for t in texts]


def redact(text: str, *, emails: bool = False, ips: bool = False) -> str:
    """One-off convenience: ``Redactor(emails, ips).redact(text)``."""
    return Redactor(emails=emails, ips=ips).redact(text)
