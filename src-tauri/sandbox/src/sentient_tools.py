"""Sentient's tools for scripts: ``from sentient_tools import tools, result``.

``tools.<name>(**arguments)`` calls one of Sentient's tools and returns its JSON result;
``tools.available()`` lists the tools this script may call; ``result(value)`` sets the value
the script returns (otherwise what it prints is returned). A refused call raises
``ToolRefused``; a tool that fails, or answers with an ``error``, raises ``ToolError``.
Standard library only: scripts run with ``python3 -I``.
"""

import json
import os
import sys

__all__ = ["tools", "result", "ToolError", "ToolRefused"]

# Where Sentient's tools answer: "unix:<socket>" (a contained script), "files:<folder>" (a
# container: request files) or "http://127.0.0.1:<port>". Each way imports what it needs on the
# first call: urllib.request alone takes 50 ms to import, longer than a short script runs.
_URL = os.environ.get("SENTIENT_TOOLS_URL", "")
_TOKEN = os.environ.get("SENTIENT_TOOLS_TOKEN", "")
# The name tracebacks and error messages give the script.
_SCRIPT = "script.py"
_REQUESTS = [0]


class ToolError(Exception):
    """A tool failed, or answered with an error."""


class ToolRefused(ToolError):
    """Sentient did not run the call (approvals, rules, Read only apps or the script's limits)."""


def _answered(status, text):
    if status != 200:
        raise ToolError("Sentient's tools answered with status %d." % status)
    return json.loads(text)


def _over_socket(path, method, body):
    """One HTTP/1.1 request on the run's Unix socket. Written out here rather than through
    http.client, which takes 40 ms to import (it brings the email package): the endpoint is
    Sentient's own and always answers with a Content-Length and then closes."""
    import socket

    head = "%s %s HTTP/1.1\r\nHost: sentient\r\nAuthorization: Bearer %s\r\nConnection: close\r\n" % (
        method,
        path,
        _TOKEN,
    )
    if body is not None:
        head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(_URL[len("unix:"):])
            sock.sendall(head.encode("latin-1") + b"\r\n" + (body or b""))
            chunks = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
    except OSError as error:
        raise ToolError("Sentient's tools could not be reached: %s" % error) from None
    answer = b"".join(chunks)
    header, _, text = answer.partition(b"\r\n\r\n")
    try:
        status = int(header.split(b" ", 2)[1])
    except (IndexError, ValueError):
        raise ToolError("Sentient's tools gave an answer that could not be read.") from None
    return _answered(status, text.decode("utf-8"))


def _over_files(path, method, payload):
    import time

    folder = _URL[len("files:"):]
    _REQUESTS[0] += 1
    name = os.path.join(folder, "%d-%d" % (os.getpid(), _REQUESTS[0]))
    request = {"method": method, "path": path, "token": _TOKEN, "body": payload}
    with open(name + ".tmp", "w", encoding="utf-8") as file:
        json.dump(request, file, default=str)
    os.rename(name + ".tmp", name + ".json")
    while not os.path.exists(name + ".answer"):
        time.sleep(0.002)
    with open(name + ".answer", encoding="utf-8") as file:
        answer = json.load(file)
    os.remove(name + ".answer")
    if answer.get("status") != 200:
        raise ToolError("Sentient's tools answered with status %d." % answer.get("status", 0))
    return answer.get("body")


def _send(path, payload=None):
    method = "GET" if payload is None else "POST"
    if _URL.startswith("files:"):
        return _over_files(path, method, payload)
    body = None if payload is None else json.dumps(payload, default=str).encode("utf-8")
    if _URL.startswith("unix:"):
        return _over_socket(path, method, body)
    import urllib.error
    import urllib.request

    # The endpoint is on this computer: never through a proxy.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(_URL + path, data=body, method=method)
    request.add_header("Authorization", "Bearer " + _TOKEN)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with opener.open(request) as answer:
            return json.loads(answer.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise ToolError("Sentient's tools answered with status %d." % error.code) from None
    except urllib.error.URLError as error:
        raise ToolError("Sentient's tools could not be reached: %s" % error.reason) from None


def _call(name, arguments):
    answer = _send("/call", {"name": name, "arguments": arguments})
    if answer.get("refused"):
        raise ToolRefused(answer.get("error") or "Sentient did not run %s." % name)
    if not answer.get("ok"):
        raise ToolError(answer.get("error") or "%s failed." % name)
    value = answer.get("value")
    if isinstance(value, dict) and value.get("error"):
        error = value["error"]
        raise ToolError(error if isinstance(error, str) else json.dumps(error))
    return value


class _Tools:
    """Sentient's tools, called by name with keyword arguments: tools.time_now(timezone="UTC")."""

    def available(self):
        """The names of the tools this script may call now."""
        return list(_send("/available")["tools"])

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **arguments):
            if args:
                raise TypeError(
                    "tools.%s() takes keyword arguments only, like tools.%s(name=value)" % (name, name)
                )
            return _call(name, arguments)

        call.__name__ = name
        call.__qualname__ = "tools." + name
        return call

    def __dir__(self):
        try:
            return sorted(set(self.available()) | {"available"})
        except ToolError:
            return ["available"]

    def __repr__(self):
        return "<Sentient tools: tools.available() lists them>"


tools = _Tools()


def result(value):
    """Sets the value the script returns to Sentient (instead of what it printed)."""
    _send("/result", {"value": value})
    return value


def _report(kind, line, message, code=""):
    try:
        _send("/error", {"kind": kind, "line": line, "message": message, "code": code})
    except ToolError:
        pass


def _limit(limits):
    """Sets the script's limits (``memory=<bytes>``, ``processes=<n>``, ``file=<bytes>``) for
    it and everything it starts; they can't be raised again."""
    if not limits:
        return
    import resource

    kinds = {"memory": resource.RLIMIT_AS, "processes": resource.RLIMIT_NPROC, "file": resource.RLIMIT_FSIZE}
    for item in limits:
        name, _, value = item.partition("=")
        resource.setrlimit(kinds[name], (int(value), int(value)))


def _trigger_event(path):
    """The event that started a triggered script job (``trigger_event.json`` beside the
    script), or None."""
    import json
    import os

    event = os.path.join(os.path.dirname(path), "trigger_event.json")
    if not os.path.exists(event):
        return None
    with open(event, encoding="utf-8") as file:
        return json.load(file)


def _main(path, limits=()):
    """Runs the script at ``path``: checked whole before anything runs, then executed with
    ``tools`` and ``result`` already in its globals. Errors go to Sentient with their line."""
    import builtins
    import linecache

    _limit(limits)

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(encoding="utf-8", errors="backslashreplace", write_through=True)
        except (AttributeError, ValueError):
            pass
    with open(path, encoding="utf-8", errors="replace") as file:
        source = file.read()
    try:
        code = compile(source, _SCRIPT, "exec", dont_inherit=True)
    except SyntaxError as error:
        _report("syntax", error.lineno, error.msg or "invalid syntax", (error.text or "").strip())
        return 2
    except ValueError as error:
        _report("syntax", None, str(error))
        return 2
    # Tracebacks show the script's lines without a file on the path.
    linecache.cache[_SCRIPT] = (len(source), None, source.splitlines(True), _SCRIPT)
    scope = {
        "__name__": "__main__",
        "__builtins__": builtins,
        "tools": tools,
        "result": result,
        "ToolError": ToolError,
        "ToolRefused": ToolRefused,
        "trigger_event": _trigger_event(path),
    }
    try:
        exec(code, scope)
    except SystemExit as stop:
        status = stop.code
        if status is None or status == 0:
            return 0
        if not isinstance(status, int):
            print(status, file=sys.stderr)
            status = 1
        _report("exit", None, "The script ended with exit code %d." % status)
        return status
    except BaseException as error:
        import traceback

        line = None
        for frame, number in traceback.walk_tb(error.__traceback__):
            if frame.f_code.co_filename == _SCRIPT:
                line = number
        # Without this runner's own frame: the script's lines are what matter.
        shown = error.__traceback__.tb_next if error.__traceback__ is not None else None
        traceback.print_exception(type(error), error, shown, file=sys.stderr)
        text = str(error)
        message = "%s: %s" % (type(error).__name__, text) if text else type(error).__name__
        code_line = linecache.getline(_SCRIPT, line).strip() if line else ""
        _report("runtime", line, message, code_line)
        return 1
    return 0
