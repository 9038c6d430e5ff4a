"""Follow-up questions: the job tools, the offline grammar, and the LLM loop with a fake model."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent.chat import (
    HELP,
    MAX_LINE_CHARS,
    MAX_OUTPUT_CHARS,
    MAX_TOOL_ROUNDS,
    ChatSession,
    JobTools,
    find_citations,
    parse_command,
)
from agent.chat.registry import Node
from agent.errors import ToolError
from agent.pipeline import Analysis, analyze

N_NODES = 8
FAULTY = "worker-7"
NCCL_LINE = 22  # worker-7's NCCL WARN (after 2 start-up lines and 19 iterations)
NCCL_ERROR_LINE = 23
WATCHDOG_LINE = 22  # each peer's watchdog timeout
SECRET = "hunter2"


def _ts(s: int) -> str:
    return f"2024-05-12 10:{s // 60:02d}:{s % 60:02d}"


def _node_lines(n: int, faulty: bool) -> list[str]:
    lines = [
        f"{_ts(0)} INFO Starting rank {n} world_size {N_NODES}",
        f"{_ts(1)} INFO Loading checkpoint from /ckpt/iter_0001500",
    ]
    t = 0
    for it in range(1501, 1520):
        t = 10 + (it - 1501) * 2
        lines.append(f"{_ts(t)} INFO iteration {it}/ 10000 | loss {2.0 + it % 7 / 10:.3f} | lr 1e-4")
    if faulty:
        lines.append(
            f"{_ts(t + 1)} WARN NCCL WARN NET/IB : Got completion from peer 10.0.0.3<1234> with status=12 password={SECRET}"
        )
        lines.append(f"{_ts(t + 1)} ERROR NCCL error: unhandled system error, remote process exited")
    else:
        lines.append(
            f"{_ts(t + 600)} ERROR [Rank {n}] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=1520, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out."
        )
    return lines


def make_job(root: Path) -> Path:
    root.mkdir(parents=True)
    for n in range(N_NODES):
        (root / f"worker-{n}.log").write_text("\n".join(_node_lines(n, f"worker-{n}" == FAULTY)) + "\n")
    return root


def make_console_job(root: Path) -> Path:
    """One torchrun console file: ranks interleaved, rank3 faulty, a launcher preamble."""
    root.mkdir(parents=True)
    per_rank = {r: _node_lines(r, r == 3) for r in range(4)}
    out = ["launching 4 ranks with torchrun", "W0512 10:00:00.000 torch/distributed/run.py: OMP_NUM_THREADS set"]
    for i in range(max(len(v) for v in per_rank.values())):
        for r, lines in per_rank.items():
            if i < len(lines):
                out.append(f"[rank{r}]:{lines[i]}")
    (root / "console.log").write_text("\n".join(out) + "\n")
    return root


def _analyze(job: Path, home: Path) -> Analysis:
    with pytest.MonkeyPatch.context() as mp:  # module-scoped: conftest's isolation is not active yet
        mp.setenv("L4_HOME", str(home))
        for name in ("L4_BASE_URL", "L4_API_KEY", "L4_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
            mp.delenv(name, raising=False)
        return analyze(job, use_pool=False)


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Analysis]:
    root = make_job(tmp_path_factory.mktemp("chat") / "job")
    return root, _analyze(root, tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def console_job(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Analysis]:
    root = make_console_job(tmp_path_factory.mktemp("chat") / "console")
    return root, _analyze(root, tmp_path_factory.mktemp("home"))


@pytest.fixture
def tools(job: tuple[Path, Analysis]) -> JobTools:
    root, analysis = job
    return JobTools(root, analysis.diagnosis, analysis, kb=FakeKB())


@pytest.fixture
def session(job: tuple[Path, Analysis]) -> ChatSession:
    root, analysis = job
    return ChatSession(root, analysis.diagnosis, analysis, kb=FakeKB())


def test_the_fixture_job_is_diagnosed_as_intended(job: tuple[Path, Analysis]) -> None:
    d = job[1].diagnosis
    assert d.faulty_nodes[0].node == FAULTY
    assert (FAULTY, NCCL_LINE) in {(o.node, o.line) for o in d.events[0].occurrences}


# ------------------------------------------------------------------------- tools


def test_grep_cites_exact_lines_case_insensitively(tools: JobTools) -> None:
    result = tools.grep("net/ib : got completion")
    assert result.citations == [(FAULTY, NCCL_LINE)]
    assert f"{FAULTY}:{NCCL_LINE}  " in result.text
    case_sensitive = tools.grep("net/ib : got completion", ignore_case=False)
    assert case_sensitive.citations == []
    assert "no line matches" in case_sensitive.text


def test_grep_node_filter_and_hit_cap(tools: JobTools) -> None:
    assert tools.grep("watchdog", node="worker-3").citations == [("worker-3", WATCHDOG_LINE)]
    capped = tools.grep("iteration", max_hits=5)
    assert len(capped.citations) == 5
    assert "more exist" in capped.text


def test_grep_invalid_regex_is_a_clear_error(tools: JobTools) -> None:
    with pytest.raises(ToolError, match=r"invalid regular expression.*backslash"):
        tools.grep("NCCL (WARN")


def test_unknown_node_lists_the_nodes(tools: JobTools) -> None:
    with pytest.raises(ToolError) as err:
        tools.window("worker-99", 3)
    message = str(err.value)
    assert "no node 'worker-99'" in message
    assert "worker-0, worker-1" in message and "worker-7" in message
    assert tools.resolve("WORKER-7") == FAULTY  # case does not matter


def test_window_marks_the_line_and_cites_neighbours(tools: JobTools) -> None:
    result = tools.window(FAULTY, NCCL_LINE, before=2, after=1)
    assert result.citations == [(FAULTY, 20), (FAULTY, 21), (FAULTY, NCCL_LINE), (FAULTY, NCCL_ERROR_LINE)]
    assert f"> {FAULTY}:{NCCL_LINE}" in result.text
    with pytest.raises(ToolError, match=f"last line is {FAULTY}:{NCCL_ERROR_LINE}"):
        tools.window(FAULTY, 500)


def test_first_error(tools: JobTools) -> None:
    assert tools.first_error(FAULTY).citations == [(FAULTY, NCCL_ERROR_LINE)]
    assert tools.first_error("worker-3").citations == [("worker-3", WATCHDOG_LINE)]


def test_compare_shows_both_directions(tools: JobTools) -> None:
    result = tools.compare(FAULTY)
    assert (FAULTY, NCCL_LINE) in result.citations  # its own error: no peer printed it
    assert ("worker-0", WATCHDOG_LINE) in result.citations  # every peer's timeout, missing on worker-7
    plain = tools.compare("worker-3")
    assert plain.citations == []
    assert plain.text.count("(none)") == 2


def test_why_suspect_and_why_not(tools: JobTools) -> None:
    suspect = tools.why(FAULTY)
    assert "suspect #1" in suspect.text and "prints the root event" in suspect.text
    assert (FAULTY, NCCL_LINE) in suspect.citations
    other = tools.why("worker-3")
    assert "worker-3 was not singled out" in other.text
    assert "does not print the root event" in other.text
    assert ("worker-3", WATCHDOG_LINE) in other.citations  # its timeout, a consequence
    assert "consequence" in other.text


def test_events_and_show(tools: JobTools) -> None:
    events = tools.events()
    assert (FAULTY, NCCL_LINE) in events.citations
    assert events.text.startswith("1. ")
    shown = tools.show(1)
    assert shown.citations == [(FAULTY, NCCL_LINE)]
    with pytest.raises(ToolError, match="numbered 1 to"):
        tools.show(99)


def test_iteration_shows_what_was_logged_around_it(tools: JobTools) -> None:
    result = tools.iteration(1520)
    assert "never logged" in result.text and "1519" in result.text
    assert {(FAULTY, NCCL_LINE), ("worker-0", WATCHDOG_LINE)} <= set(result.citations)
    logged = tools.iteration(1505)
    assert ("worker-3", 7) in logged.citations  # "iteration 1505" is line 7 of every node
    assert "nothing but progress lines" in logged.text


@dataclass
class _Hit:
    id: str
    title: str
    score: float


@dataclass
class _Doc:
    title: str
    body: str
    remediation: list[str]


class FakeKB:
    """Stands in for KnowledgeBase (building the real store takes seconds)."""

    def __init__(self) -> None:
        self.queries: list[tuple[str, str]] = []

    def search(self, query: str, top: int = 5, stack: str | None = None, *, mode: Any = "hybrid") -> list[Any]:
        self.queries.append((query, mode))
        return (
            [_Hit("nccl-ib-completion-error", "NCCL NET/IB completion error", 0.9)] if "nccl" in query.lower() else []
        )

    def get(self, doc_id: str) -> Any:
        return _Doc(
            "NCCL NET/IB completion error",
            "# Title\n\nA transport retry counter was exceeded.\n",
            ["Check the IB port."],
        )


def test_kb_lists_id_title_excerpt(job: tuple[Path, Analysis]) -> None:
    kb = FakeKB()
    tools = JobTools(job[0], job[1].diagnosis, job[1], kb=kb)
    text = tools.kb("NCCL status 12").text
    assert "nccl-ib-completion-error" in text and "retry counter" in text and "Check the IB port" in text
    assert kb.queries == [("NCCL status 12", "bm25")]
    assert "no knowledge doc" in tools.kb("zzz").text


def test_console_log_cites_console_line_numbers(console_job: tuple[Path, Analysis]) -> None:
    root, analysis = console_job
    tools = JobTools(root, analysis.diagnosis, analysis)
    assert {"rank0", "rank3", "console"} <= set(tools.node_names)
    lines = (root / "console.log").read_text().splitlines()
    expected = next(i for i, line in enumerate(lines, 1) if "NET/IB" in line)
    assert lines[expected - 1].startswith("[rank3]:")
    assert tools.grep("NET/IB").citations == [("rank3", expected)]
    window = tools.window("rank3", expected, before=1, after=1)
    cited = [line for node, line in window.citations]
    assert all(node == "rank3" for node, _ in window.citations)
    assert expected in cited and all(lines[n - 1].startswith("[rank3]:") for n in cited)
    assert tools.first_error("console").text.startswith("console logged no ERROR")


def test_outputs_are_bounded_and_terminal_safe(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    lines = [f"2024-05-12 10:00:00 ERROR boom {i} \x1b[31mred\x1b[0m" for i in range(5000)]
    lines.append("2024-05-12 10:00:01 ERROR long " + "x" * 50_000)
    (root / "node-1.log").write_text("\n".join(lines) + "\n")
    (root / "node-2.log").write_text("2024-05-12 10:00:00 INFO fine\n")
    from agent.schema import Diagnosis

    tools = JobTools(root, Diagnosis.model_validate({"job": str(root)}))  # no analysis: tools mine the job themselves
    result = tools.grep("boom|long", max_hits=10_000)
    assert len(result.text) <= MAX_OUTPUT_CHARS + 200
    assert "\x1b" not in result.text and "truncated" in result.text
    long = tools.grep("long")
    assert long.citations == [("node-1", 5001)]
    assert max(len(line) for line in long.text.splitlines()) <= MAX_LINE_CHARS + 20
    assert len(tools.window("node-1", 2500, before=10_000, after=10_000).citations) <= 101
    assert len(tools.compare("node-1").text) <= MAX_OUTPUT_CHARS + 200


# ------------------------------------------------------------------ offline grammar


@pytest.mark.parametrize(
    ("question", "command", "exact"),
    [
        ("help", ("help", {}), True),
        ("show", ("overview", {}), True),
        ("show 2", ("show", {"n": 2}), True),
        ("events", ("events", {}), True),
        ("nodes", ("nodes", {}), True),
        ("why worker-7", ("why", {"node": "worker-7"}), True),
        ("why not worker-3?", ("why", {"node": "worker-3"}), True),
        ("grep NCCL WARN", ("grep", {"pattern": "NCCL WARN", "node": None}), True),
        ("grep NCCL on worker-7", ("grep", {"pattern": "NCCL", "node": "worker-7"}), True),
        ('grep "a on b" on worker-2', ("grep", {"pattern": "a on b", "node": "worker-2"}), True),
        ("grep foo.", ("grep", {"pattern": "foo.", "node": None}), True),
        ("window worker-7:22", ("window", {"node": "worker-7", "line": 22}), True),
        ("window worker-7:22 3", ("window", {"node": "worker-7", "line": 22, "before": 3, "after": 3}), True),
        ("show the lines around worker-7:22", ("window", {"node": "worker-7", "line": 22}), True),
        ("first error on worker-7", ("first_error", {"node": "worker-7"}), True),
        ("compare worker-7", ("compare", {"node": "worker-7"}), True),
        ("iteration 1520", ("iteration", {"n": 1520}), True),
        ("kb NCCL IB error", ("kb", {"query": "NCCL IB error"}), True),
        ("show the lines around the first error on worker-7", ("first_error_window", {"node": "worker-7"}), False),
        ("what changed at iteration 1520?", ("iteration", {"n": 1520}), False),
        ("Why is worker-7 the culprit?", ("why", {"node": "worker-7"}), False),
        ("how does worker-3 differ from the others", ("compare", {"node": "worker-3"}), False),
        ("what did rank 3 log just before worker-7:22?", ("window", {"node": "worker-7", "line": 22}), False),
        ("what is the root cause, really?", None, False),
    ],
)
def test_parse_command(question: str, command: tuple[str, dict[str, Any]] | None, exact: bool) -> None:
    names = [f"worker-{i}" for i in range(N_NODES)]
    assert parse_command(question, names) == (command, exact)


@pytest.mark.parametrize(
    ("question", "tools_used", "citation"),
    [
        ("show", ["show"], (FAULTY, NCCL_LINE)),
        ("show 1", ["show"], (FAULTY, NCCL_LINE)),
        ("events", ["events"], (FAULTY, NCCL_LINE)),
        ("why worker-7", ["why"], (FAULTY, NCCL_LINE)),
        ("grep got completion on worker-7", ["grep"], (FAULTY, NCCL_LINE)),
        ("window worker-7:23", ["window"], (FAULTY, NCCL_LINE)),
        ("first error on worker-3", ["first_error"], ("worker-3", WATCHDOG_LINE)),
        ("compare worker-7", ["compare"], (FAULTY, NCCL_LINE)),
        ("iteration 1520", ["iteration"], (FAULTY, NCCL_LINE)),
        # the natural-language examples
        ("why not worker-3?", ["why"], ("worker-3", WATCHDOG_LINE)),
        ("show the lines around the first error on worker-7", ["first_error", "window"], (FAULTY, NCCL_LINE)),
        ("what changed at iteration 1520?", ["iteration"], (FAULTY, NCCL_LINE)),
    ],
)
def test_offline_commands_answer_with_citations(
    session: ChatSession, question: str, tools_used: list[str], citation: tuple[str, int]
) -> None:
    answer = session.ask(question)
    assert answer.used_tools == tools_used
    assert citation in answer.citations
    assert f"{citation[0]}:{citation[1]}" in answer.text
    assert not answer.needs_llm
    assert session.history[-1].question == question and session.history[-1].answer is answer


def test_offline_misc_commands(session: ChatSession) -> None:
    assert session.ask("help").text == HELP
    nodes = session.ask("nodes").text
    assert nodes.splitlines()[1].strip().startswith(f"* {FAULTY}")
    assert "nccl-ib-completion-error" in session.ask("kb NCCL completion").text
    bad = session.ask("grep (oops")
    assert "invalid regular expression" in bad.text and not bad.needs_llm
    unknown = session.ask("why not worker-99?")
    assert "no node 'worker-99'" in unknown.text and "worker-0" in unknown.text


def test_free_form_question_offline_is_a_helpful_refusal(session: ChatSession) -> None:
    answer = session.ask("Is this the same failure as last Tuesday?")
    assert answer.needs_llm
    assert "L4_BASE_URL" in answer.text and "L4_MODEL" in answer.text
    assert "grep PATTERN" in answer.text and "why NODE" in answer.text
    assert answer.citations == []


def test_offline_session_never_imports_langchain(job: tuple[Path, Analysis], tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from agent.chat import ChatSession\n"
        "from agent.schema import Diagnosis\n"
        f"s = ChatSession({str(job[0])!r}, Diagnosis(job='j'))\n"
        "assert 'worker-7:22' in s.ask('grep got completion').text\n"
        "assert s.ask('what now?').needs_llm\n"
        "assert not [m for m in sys.modules if m.startswith(('langchain', 'openai'))], 'langchain imported'\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("L4_", "OPENAI_"))}
    env["L4_HOME"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------- LLM loop


class FakeChat:
    """A scripted chat model: returns the queued replies, records every message list."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.calls: list[list[Any]] = []

    def invoke(self, messages: list[Any]) -> Any:
        self.calls.append(list(messages))
        if not self.replies:
            raise AssertionError("the fake model ran out of replies")
        reply = self.replies.pop(0)
        return reply() if callable(reply) else reply


def _call(name: str, args: dict[str, Any], call_id: str = "c1") -> Any:
    from langchain_core.messages import AIMessage

    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _final(text: str) -> Any:
    from langchain_core.messages import AIMessage

    return AIMessage(content=text)


def _contents(messages: list[Any]) -> Iterator[str]:
    for m in messages:
        yield m.content if isinstance(m.content, str) else str(m.content)


@pytest.fixture
def llm_session(job: tuple[Path, Analysis]) -> Iterator[tuple[ChatSession, FakeChat]]:
    pytest.importorskip("agent.redact")
    pytest.importorskip("langchain_core")
    fake = FakeChat()
    root, analysis = job
    yield ChatSession(root, analysis.diagnosis, analysis, llm=fake, kb=FakeKB()), fake


def test_llm_loop_tool_call_then_cited_answer(llm_session: tuple[ChatSession, FakeChat]) -> None:
    from langchain_core.messages import SystemMessage, ToolMessage

    session, fake = llm_session
    fake.replies += [
        _call("grep", {"pattern": "got completion", "node": FAULTY}),
        _final(f"worker-7 lost its IB link: see {FAULTY}:{NCCL_LINE}. Peers only timed out."),
    ]
    answer = session.ask("Is the network to blame?")
    assert answer.used_tools == ["grep"]
    assert answer.citations == [(FAULTY, NCCL_LINE)]
    assert not answer.needs_llm and "IB link" in answer.text
    first, second = fake.calls
    assert isinstance(first[0], SystemMessage) and "never an instruction" in first[0].content
    tool_msg = second[-1]
    assert isinstance(tool_msg, ToolMessage) and tool_msg.tool_call_id == "c1"
    content = str(tool_msg.content)
    assert f"{FAULTY}:{NCCL_LINE}" in content
    assert content.startswith("<<<LOG-DATA ") and "<<<END-LOG-DATA " in content  # fenced as data
    assert session.history[-1].via == "llm"


def test_llm_history_is_kept_across_questions(llm_session: tuple[ChatSession, FakeChat]) -> None:
    session, fake = llm_session
    fake.replies += [_final(f"It is worker-7 ({FAULTY}:{NCCL_LINE})."), _final("Drain worker-7 and check its HCA.")]
    session.ask("Which node failed?")
    session.ask("What should I do about it?")
    second = list(_contents(fake.calls[1]))
    assert "Which node failed?" in second
    assert f"It is worker-7 ({FAULTY}:{NCCL_LINE})." in second
    assert second[-1] == "What should I do about it?"
    assert [t.question for t in session.history] == ["Which node failed?", "What should I do about it?"]


def test_llm_never_sees_secrets(llm_session: tuple[ChatSession, FakeChat]) -> None:
    session, fake = llm_session
    fake.replies += [
        _call("grep", {"pattern": "password"}),
        _call("window", {"node": FAULTY, "line": NCCL_LINE}, "c2"),
        _final("done"),
    ]
    session.ask(f"What is password={SECRET} doing in the log?")
    session.ask("show 1")  # a command answered locally, then re-sent as history
    fake.replies.append(_final("ok"))
    session.ask("and now?")
    sent = "\n".join(c for call in fake.calls for c in _contents(call))
    assert "grep" in sent and f"{FAULTY}:{NCCL_LINE}" in sent  # the evidence did arrive
    assert SECRET not in sent
    assert "[REDACTED:" in sent


def test_llm_unverified_citations_are_flagged(llm_session: tuple[ChatSession, FakeChat]) -> None:
    session, fake = llm_session
    fake.replies.append(_final(f"See {FAULTY}:{NCCL_LINE} and worker-2:3 and 10.0.0.3:1234."))
    answer = session.ask("Where is the evidence?")
    assert answer.citations == [(FAULTY, NCCL_LINE)]  # from the diagnosis the model was shown
    assert "check before trusting: worker-2:3" in answer.text


def test_llm_exact_commands_run_locally(llm_session: tuple[ChatSession, FakeChat]) -> None:
    session, fake = llm_session
    answer = session.ask("first error on worker-3")
    assert answer.citations == [("worker-3", WATCHDOG_LINE)]
    assert fake.calls == []
    assert session.history[-1].via == "command"


def test_llm_tool_errors_go_back_to_the_model(llm_session: tuple[ChatSession, FakeChat]) -> None:
    from langchain_core.messages import ToolMessage

    session, fake = llm_session
    fake.replies += [
        _call("window", {"node": "worker-99", "line": 1}),
        _call("no_such_tool", {}, "c2"),
        _final("I could not find that node."),
    ]
    answer = session.ask("look at worker-99 please")
    tool_msgs = [m for m in fake.calls[-1] if isinstance(m, ToolMessage)]
    assert "tool error: no node 'worker-99'" in tool_msgs[0].content
    assert "no tool 'no_such_tool'" in tool_msgs[1].content
    assert answer.text == "I could not find that node."


def test_llm_tool_rounds_are_bounded(llm_session: tuple[ChatSession, FakeChat]) -> None:
    session, fake = llm_session
    fake.replies += [_call("events", {}, f"c{i}") for i in range(MAX_TOOL_ROUNDS + 1)]
    answer = session.ask("keep digging")
    assert len(fake.calls) == MAX_TOOL_ROUNDS + 1
    assert "did not finish" in answer.text
    assert answer.used_tools == ["events"] * MAX_TOOL_ROUNDS
    assert (FAULTY, NCCL_LINE) in answer.citations


def test_llm_endpoint_failure_keeps_the_session(llm_session: tuple[ChatSession, FakeChat]) -> None:
    session, fake = llm_session

    def boom() -> Any:
        raise ConnectionError("connection refused")

    fake.replies.append(boom)
    answer = session.ask("what happened?")
    assert answer.needs_llm and "connection refused" in answer.text
    assert session.ask("events").citations  # offline commands still work


def test_from_settings_picks_the_backend(job: tuple[Path, Analysis], monkeypatch: pytest.MonkeyPatch) -> None:
    root, analysis = job
    assert ChatSession.from_settings(root, analysis.diagnosis, analysis).llm is None
    pytest.importorskip("langchain_openai")
    monkeypatch.setenv("L4_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("L4_MODEL", "test-model")
    session = ChatSession.from_settings(root, analysis.diagnosis, analysis)
    assert session.llm is not None and hasattr(session.llm, "invoke")


def test_find_citations() -> None:
    text = "see worker-7:22, (host1/rank0:5) and 10.0.0.3:1234 or rank3:7."
    assert find_citations(text) == [("worker-7", 22), ("host1/rank0", 5), ("rank3", 7)]


def test_langchain_backend_against_a_local_openai_server(
    job: tuple[Path, Analysis], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real ChatOpenAI path, on 127.0.0.1: a tool call, then an answer citing its result."""
    pytest.importorskip("langchain_openai")
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    requests: list[dict[str, Any]] = []

    def completion(message: dict[str, Any]) -> dict[str, Any]:
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        }

    replies = [
        completion(
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "first_error", "arguments": json.dumps({"node": FAULTY})},
                    }
                ],
            }
        ),
        completion({"content": f"The first error is {FAULTY}:{NCCL_ERROR_LINE}."}),
    ]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            requests.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            body = json.dumps(replies.pop(0)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("L4_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
        monkeypatch.setenv("L4_MODEL", "test-model")
        root, analysis = job
        session = ChatSession.from_settings(root, analysis.diagnosis, analysis)
        answer = session.ask("Where did worker-7 first fail?")
    finally:
        server.shutdown()
        server.server_close()
    assert answer.text == f"The first error is {FAULTY}:{NCCL_ERROR_LINE}."
    assert answer.citations == [(FAULTY, NCCL_ERROR_LINE)]
    assert answer.used_tools == ["first_error"]
    assert {t["function"]["name"] for t in requests[0]["tools"]} >= {"grep", "window", "why", "iteration"}
    tool_reply = requests[1]["messages"][-1]
    assert tool_reply["role"] == "tool" and tool_reply["tool_call_id"] == "call_1"
    assert f"{FAULTY}:{NCCL_ERROR_LINE}" in tool_reply["content"]
    assert SECRET not in json.dumps(requests)


# ------------------------------------------------------------------ one tool registry


def test_a_tools_spec_is_derived_from_its_signature_and_docstring() -> None:
    from agent.chat import TOOL_SPECS

    window = next(s["function"] for s in TOOL_SPECS if s["function"]["name"] == "window")
    assert window["description"] == "A node's log lines around node:line (before/after lines of that node)."
    assert window["parameters"] == {
        "type": "object",
        "properties": {
            "node": {"type": "string", "description": "a node name of this job, e.g. worker-7 or rank3"},
            "line": {"type": "integer"},
            "before": {"type": "integer", "default": 5},
            "after": {"type": "integer", "default": 5},
        },
        "required": ["node", "line"],
    }
    grep = next(s["function"] for s in TOOL_SPECS if s["function"]["name"] == "grep")
    assert "ignore_case" not in grep["parameters"]["properties"]  # keyword-only: a local knob


def test_a_new_tool_method_is_offered_and_dispatched_without_another_table() -> None:
    from agent.chat.registry import tool, tools_of

    class Extended(JobTools):
        @tool
        def echo(self, node: Node, times: int = 1) -> str:
            """Repeat a node name."""
            return node * times

    tools = tools_of(Extended)
    assert list(tools)[-1] == "echo" and "grep" in tools
    assert tools["echo"].spec["function"]["parameters"]["required"] == ["node"]
    assert tools["echo"].call(Extended.__new__(Extended), {"node": "w1", "times": "2"}) == "w1w1"
    with pytest.raises(ToolError, match="unexpected colour"):
        tools["echo"].call(Extended.__new__(Extended), {"node": "w1", "colour": "red"})
    with pytest.raises(ToolError, match="missing node"):
        tools["echo"].call(Extended.__new__(Extended), {})


def test_every_tool_is_in_help_and_every_grammar_command_is_a_tool() -> None:
    from agent.chat import TOOL_NAMES
    from agent.chat.grammar import _STRICT_RULES

    for name in TOOL_NAMES:
        assert name.replace("_", " ") in HELP, name
    session_commands = {"help", "overview", "first_error_window"}
    questions = ["help", "show", "show 2", "events", "nodes", "why worker-3", "window worker-3:5", "first error on worker-3",
                 "compare worker-3", "iteration 5", "kb nccl", "grep boom", "why not worker-3?",
                 "show the lines around the first error on worker-3", "what changed at iteration 1520?"]
    assert len(questions) > len(_STRICT_RULES)
    for q in questions:
        command, _ = parse_command(q, ["worker-3"])
        assert command is not None and (command[0] in TOOL_NAMES or command[0] in session_commands), q


def test_the_chat_backend_follows_the_key_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OPENAI_API_KEY lying in the environment never goes to a custom endpoint (config.choose_api_key)."""
    pytest.importorskip("langchain_openai")
    from agent.chat import langchain_backend
    from agent.config import load_settings

    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("L4_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("L4_MODEL", "m")
    bound = langchain_backend(load_settings())
    assert bound.bound.openai_api_key.get_secret_value() == "not-needed"  # type: ignore[attr-defined]
    monkeypatch.setenv("L4_API_KEY", "sk-for-this-endpoint")
    bound = langchain_backend(load_settings())
    assert bound.bound.openai_api_key.get_secret_value() == "sk-for-this-endpoint"  # type: ignore[attr-defined]
