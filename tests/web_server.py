"""A real `solver serve` for the page's tests (the web_server fixture of conftest): a process
of its own on a free port of 127.0.0.1 with small limits (60 s a search, two searches at once)."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Server:
    host: str
    port: int
    process: subprocess.Popen
    banner: str
    data: Path

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | dict | None = None,
        headers: dict | None = None,
    ) -> tuple[int, dict, bytes]:
        """(status, headers, body) of one request."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        if isinstance(body, dict):
            body = json.dumps(body)
        hdrs = {"Content-Type": "application/json"} if body is not None else {}
        hdrs |= headers or {}
        conn.request(method, path, body=body, headers=hdrs)
        res = conn.getresponse()
        out = res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
        conn.close()
        return out

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        status, _, data = self.request("POST", path, body)
        return status, json.loads(data)

    def events(self, path: str, body: dict) -> list[dict]:
        """A streamed answer's events, to its end."""
        status, _, data = self.request("POST", path, body)
        assert status == 200, data
        return [json.loads(line) for line in data.decode().splitlines()]


def start_server(data: Path, *extra: str) -> Server:
    env = os.environ | {"PATTERNDB_DATA": str(data)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solver.cli",
            "serve",
            "--port",
            "0",
            "--max-seconds",
            "60",
            "--max-searches",
            "2",
            *extra,
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    banner = proc.stderr.readline().strip()
    m = re.search(r"http://(\[?[\w.:]+\]?):(\d+)/", banner)
    assert m, f"no address in {banner!r}: {proc.stderr.read() if proc.poll() is not None else ''}"
    server = Server(m.group(1).strip("[]"), int(m.group(2)), proc, banner, data)
    deadline = time.monotonic() + 30
    while True:
        try:
            if server.request("GET", "/api/info")[0] == 200:
                return server
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def stop_server(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(10)
    except subprocess.TimeoutExpired:
        server.process.kill()
