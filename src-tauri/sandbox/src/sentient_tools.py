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
import urllib.error
import urllib.request

__all__ = ["tools", "result", "ToolError", "ToolRefused"]

_URL = os.environ.get("SENTIENT_TOOLS_URL", "")
_TOKEN = os.environ.get("SENTIENT_TOOLS_TOKEN", "")
# The endpoint is on this computer: never through a proxy.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
# The name tracebacks and error messages give the script.
_SCRIPT = "script.py"


class ToolError(Exception):
    """A tool failed, or answered with an error."""


class ToolRefused(ToolError):
    """Sentient did not run the call (approvals, rules, Read only apps or the script's limits)."""


def _send(path, payload=None):
    body = None if payload is None else json.dumps(payload, default=str).encode("utf-8")
    request = urllib.request.Request(_URL + path, data=body, method="GET" if body is None else "POST")
    request.add_header("Authorization", "Bearer " + _TOKEN)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(request) as answer:
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


def _main(path):
    """Runs the script at ``path``: checked whole before anything runs, then executed with
    ``tools`` and ``result`` already in its globals. Errors go to Sentient with their line."""
    import builtins
    import linecache
    import traceback

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
