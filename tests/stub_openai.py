"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests, serving canned replies.

The LLM reasoner is exercised through the real ``openai`` client and real HTTP (STYLE 11),
so what is asserted is what would go over the wire: ``raw`` keeps every request body as
bytes. Replies are queued; each request takes the next one. With ``reject_json_mode`` set,
any request asking for ``response_format`` gets a 400 without taking a reply, like a server
that does not implement JSON mode.

    with StubOpenAI() as stub:
        stub.enqueue(Reply.json({...}), Reply.fail(500), Reply.slow(2.0, Reply.text("...")))
        LLMReasoner(stub.base_url, "k", "m", ...)
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One canned response."""

    status: int = 200
    content: str | None = None  # the assistant message (status 200)
    error: str = ""  # the error message (other statuses)
    delay_s: float = 0.0  # sleep before answering (a slow server)

    @classmethod
    def text(cls, content: str) -> Reply:
        return cls(content=content)

    @classmethod
    def json(cls, obj: Any) -> Reply:
        return cls(content=json.dumps(obj))

    @classmethod
    def fail(cls, status: int = 500, message: str = "stub: internal error") -> Reply:
        return cls(status=status, error=message)

    @classmethod
    def slow(cls, delay_s: float, then: Reply | None = None) -> Reply:
        base = then or cls(content="{}")
        return cls(status=base.status, content=base.content, error=base.error, delay_s=delay_s)

    def body(self, model: str) -> dict[str, Any]:
        if self.status != 200:
            return {"error": {"message": self.error, "type": "invalid_request_error" if self.status < 500 else "server_error", "code": None}}
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": self.content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


@dataclass
class StubOpenAI:
    """The server; use as a context manager."""

    reject_json_mode: bool = False
    raw: list[bytes] = field(default_factory=list)  # every request body, as received
    headers: list[dict[str, str]] = field(default_factory=list)  # every request's headers (lower-case names)
    _queue: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The request bodies, parsed."""
        return [json.loads(b) for b in self.raw]

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the stub first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def _next(self, body: dict[str, Any]) -> Reply:
        if self.reject_json_mode and "response_format" in body:
            return Reply.fail(400, "stub: response_format is not supported")
        with self._lock:
            return self._queue.popleft() if self._queue else Reply.fail(503, "stub: no reply queued")

    def __enter__(self) -> StubOpenAI:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with stub._lock:
                    stub.raw.append(data)
                    stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"stub: no route {self.path}"}})
                    return
                body = json.loads(data or b"{}")
                reply = stub._next(body)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                self._send(reply.status, reply.body(str(body.get("model", ""))))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                out = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
