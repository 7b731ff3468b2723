"""Open a local HTML file in a real headless Chromium and report what a person would see.

Python standard library only. Talks the Chrome DevTools Protocol over
``--remote-debugging-pipe``: the browser reads commands from its fd 3 and writes
replies and events to its fd 4, each message a JSON object followed by a NUL byte.

    from chromium import open_page
    report = open_page("report.html", screenshot="report.png",
                       evaluate={"svgs": "document.querySelectorAll('svg').length"})
    assert report.ok, report.problems()

To open several pages with one browser, use ``with Chromium() as browser:
browser.open_page(...)``.

Command line: ``python3 tests/browser/chromium.py FILE.html [--screenshot OUT.png]``
prints the report as JSON and exits 1 if the page logged errors, threw, or
touched the network (2 if the browser could not be run).
"""

from __future__ import annotations

import base64
import errno
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

__all__ = [
    "Chromium",
    "Tab",
    "ChromiumError",
    "ChromiumTimeout",
    "PageReport",
    "find_chromium",
    "open_page",
]

# Schemes that never leave the machine; anything else a page asks for counts as network access.
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")
# Chromium cannot paint a texture taller than 16384 px; full-page screenshots stop here.
MAX_SCREENSHOT_HEIGHT = 16000
# After the load event, wait until nothing has happened for this long (but no longer than
# SETTLE_MAX) so that errors logged late (timers, failed loads that finish after load) are seen.
SETTLE_QUIET = 0.3
SETTLE_MAX = 3.0

FLAGS = [
    "--headless=new",
    # Running as root in a container: Chromium refuses to start sandboxed as root, and
    # Docker's default 64 MB /dev/shm is too small for it.
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    # Keep the browser itself off the network and quiet, so only the page's requests remain.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--metrics-recording-only",
    "--mute-audio",
    "--password-store=basic",
    "--use-mock-keychain",
    # Screenshots that do not depend on the machine.
    "--hide-scrollbars",
    "--force-color-profile=srgb",
]


class ChromiumError(RuntimeError):
    """The browser could not be started, died, or answered a command with an error."""


class ChromiumTimeout(ChromiumError):
    """The browser did not answer (or the page did not load) in time."""


@dataclass
class PageReport:
    url: str
    # console.error / console.assert calls, and browser-logged errors (failed resource
    # loads, CSP violations, ...), each as one line of text.
    console_errors: list[str] = field(default_factory=list)
    # Uncaught exceptions and unhandled promise rejections.
    exceptions: list[str] = field(default_factory=list)
    # Every URL the page requested whose scheme is not file:, data:, about: or blob:.
    requests: list[str] = field(default_factory=list)
    # name -> value of each `evaluate` expression (JSON-compatible, by value).
    values: dict[str, Any] = field(default_factory=dict)
    screenshot: Path | None = None
    # Messages of alert/confirm/prompt dialogs (they are accepted so the page never blocks).
    dialogs: list[str] = field(default_factory=list)
    load_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """No console errors, no exceptions and no network access."""
        return not (self.console_errors or self.exceptions or self.requests)

    def problems(self) -> str:
        """The reasons `ok` is false, one per line (for assertion messages)."""
        lines = [f"console error: {m}" for m in self.console_errors]
        lines += [f"exception: {m}" for m in self.exceptions]
        lines += [f"network request: {u}" for u in self.requests]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["screenshot"] = str(self.screenshot) if self.screenshot else None
        return d


def find_chromium() -> str | None:
    """The browser to run: $CHROMIUM if set, else chromium, chromium-browser or google-chrome."""
    env = os.environ.get("CHROMIUM")
    if env:
        return shutil.which(env) or (env if os.access(env, os.X_OK) else None)
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


_TRAMPOLINE = (
    "import os, sys\n"
    "r, w = int(sys.argv[1]), int(sys.argv[2])\n"
    "os.dup2(r, 3); os.dup2(w, 4); os.close(r); os.close(w)\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)


def _high_fd(fd: int) -> int:
    """A close-on-exec duplicate of `fd` numbered 10 or higher (clear of the child's 3 and 4)."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return new


def _describe(obj: dict[str, Any]) -> str:
    """A Runtime.RemoteObject as console.log would print it (roughly)."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    if "unserializableValue" in obj:
        return obj["unserializableValue"]
    preview = obj.get("preview")
    if preview and obj.get("subtype") != "error" and "properties" in preview:
        more = ", …" if preview.get("overflow") else ""
        if preview.get("subtype") == "array":
            items = ", ".join(p.get("value", p["type"]) for p in preview["properties"])
            return f"[{items}{more}]"
        if preview.get("type") == "object" and not preview.get("subtype"):
            props = ", ".join(f"{p['name']}: {p.get('value', p['type'])}"
                              for p in preview["properties"])
            return f"{{{props}{more}}}"
    return obj.get("description") or obj.get("type", "?")


def _where(url: str | None, line: int | None) -> str:
    if not url:
        return ""
    return f" ({url}:{line + 1})" if line is not None else f" ({url})"


class Chromium:
    """One headless Chromium process; a context manager that always kills it on exit."""

    def __init__(self, executable: str | None = None, *, extra_flags: list[str] | None = None,
                 timeout: float = 60):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise ChromiumError(
                "no Chromium found: install it (apt-get install -y chromium) or set $CHROMIUM")
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-",
                                                    ignore_cleanup_errors=True)
        self._stderr = tempfile.TemporaryFile()
        self._buf = bytearray()
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self._closed = False

        # Our end writes commands into the child's fd 3 and reads the child's fd 4.
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()
        cmd_r, out_w = _high_fd(cmd_r), _high_fd(out_w)
        argv = [self.executable, *FLAGS, *(extra_flags or []),
                f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe", "about:blank"]
        # Crashpad's database and dconf's cache go under $XDG_CONFIG_HOME / $XDG_CACHE_HOME
        # whatever --user-data-dir says; keep them in the temporary profile too, not in $HOME.
        env = dict(os.environ,
                   XDG_CONFIG_HOME=os.path.join(self._profile.name, "xdg-config"),
                   XDG_CACHE_HOME=os.path.join(self._profile.name, "xdg-cache"))
        # Move the two pipe ends to fds 3 and 4 with a tiny trampoline instead of a preexec_fn
        # (unsafe with threads; /bin/sh (dash) cannot name fds above 9). execv keeps the pid,
        # so the pid we kill is the browser's.
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _TRAMPOLINE, str(cmd_r), str(out_w), *argv],
                stdin=subprocess.DEVNULL, stdout=self._stderr, stderr=self._stderr,
                pass_fds=(cmd_r, out_w), start_new_session=True, env=env)
        except BaseException:
            self._closed = True
            for fd in (cmd_r, cmd_w, out_r, out_w):
                os.close(fd)
            self._stderr.close()
            self._profile.cleanup()
            raise
        os.close(cmd_r)
        os.close(out_w)
        self._wfd, self._rfd = cmd_w, out_r
        try:
            deadline = time.monotonic() + timeout
            self.version = self.send("Browser.getVersion", deadline=deadline)["product"]
        except BaseException:
            self.close()
            raise

    # -- context manager -------------------------------------------------------------------

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def close(self) -> None:
        """Ask the browser to quit, then kill its whole process group; idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._write({"id": -1, "method": "Browser.close"})
            # The browser closes its end of the pipe when it exits.
            end = time.monotonic() + 2
            while time.monotonic() < end:
                if not select.select([self._rfd], [], [], max(0.0, end - time.monotonic()))[0]:
                    break
                if not os.read(self._rfd, 1 << 16):
                    break
        except OSError:
            pass
        # The browser is not reaped yet, so its process group id cannot have been reused:
        # this kills exactly the browser and the helpers it started (renderer, GPU, zygote).
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._proc.wait()
        for fd in (self._wfd, self._rfd):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()
        self._profile.cleanup()

    # -- protocol --------------------------------------------------------------------------

    def stderr_tail(self, n: int = 2000) -> str:
        """The end of the browser's stdout and stderr, without its D-Bus complaints (there is
        no D-Bus in a container, and Chromium logs dozens of lines saying so)."""
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [ln for ln in text.splitlines() if ":ERROR:dbus/" not in ln]
        return "\n".join(lines)[-n:]

    def _write(self, msg: dict[str, Any]) -> None:
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self._wfd, data):]

    def _recv(self, deadline: float, what: str) -> dict[str, Any]:
        """The next message from the browser, or ChromiumTimeout at `deadline`."""
        while True:
            end = self._buf.find(b"\0")
            if end >= 0:
                raw = bytes(self._buf[:end])
                del self._buf[:end + 1]
                return json.loads(raw)
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumTimeout(f"timed out waiting for {what}")
            if not select.select([self._rfd], [], [], left)[0]:
                continue
            chunk = os.read(self._rfd, 1 << 20)
            if not chunk:
                raise ChromiumError(
                    f"Chromium exited while waiting for {what}; its output ends with:\n"
                    + self.stderr_tail())
            self._buf += chunk

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: str | None = None, deadline: float | None = None) -> dict[str, Any]:
        """Send one command and return its result; events that arrive meanwhile are queued."""
        if self._closed:
            raise ChromiumError("browser is closed")
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            self._write(msg)
        except BrokenPipeError:
            raise ChromiumError(f"Chromium exited before {method} could be sent; its output "
                                "ends with:\n" + self.stderr_tail()) from None
        deadline = deadline if deadline is not None else time.monotonic() + self.timeout
        while True:
            reply = self._recv(deadline, f"the reply to {method}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise ChromiumError(f"{method} failed: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self._queue(reply)

    def _queue(self, event: dict[str, Any]) -> None:
        self._events.append(event)
        if event["method"] == "Page.javascriptDialogOpening":
            # Accept alert/confirm/prompt at once: the page (and any pending Runtime.evaluate)
            # is blocked until the dialog goes away.
            self._write({"id": -2, "method": "Page.handleJavaScriptDialog",
                         "params": {"accept": True}, "sessionId": event.get("sessionId")})

    def _pump(self, handle: Callable[[dict[str, Any]], bool | None], deadline: float,
              what: str, quiet: float | None = None) -> None:
        """Feed events to `handle` until it returns True, or (with `quiet`) until no event has
        arrived for `quiet` seconds; ChromiumTimeout at `deadline` unless `quiet` is set."""
        while True:
            while self._events:
                if handle(self._events.pop(0)):
                    return
            if quiet is not None:
                until = min(deadline, time.monotonic() + quiet)
                try:
                    msg = self._recv(until, what)
                except ChromiumTimeout:
                    return
            else:
                msg = self._recv(deadline, what)
            if "method" in msg:
                self._queue(msg)

    # -- pages -----------------------------------------------------------------------------

    def open_page(self, path: str | os.PathLike[str], *,
                  screenshot: str | os.PathLike[str] | None = None, width: int = 1280,
                  height: int = 900, full_page: bool = True,
                  evaluate: dict[str, str] | None = None,
                  timeout: float | None = None, fragment: str | None = None) -> PageReport:
        """Load `path` in a fresh tab, wait for the load event and a short settle, then take
        the screenshot and evaluate the expressions; see the module docstring. `fragment`
        opens the page at that anchor (with `full_page=False`, the screenshot shows it)."""
        file = Path(path).resolve()
        if not file.is_file():
            raise FileNotFoundError(errno.ENOENT, "no such HTML file", str(file))
        url = file.as_uri() + (f"#{fragment}" if fragment else "")
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        report = PageReport(url=url)

        target = self.send("Target.createTarget", {"url": "about:blank"},
                           deadline=deadline)["targetId"]
        try:
            session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                deadline=deadline)["sessionId"]
            state = {"loaded": False}
            handle = self._page_handler(session, report, state)

            def cmd(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
                return self.send(method, params, session=session, deadline=deadline)

            for domain in ("Page", "Runtime", "Log", "Network"):
                cmd(f"{domain}.enable")
            cmd("Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            started = time.monotonic()
            nav = cmd("Page.navigate", {"url": url})
            if nav.get("errorText"):
                raise ChromiumError(f"could not open {url}: {nav['errorText']}")
            self._pump(lambda ev: handle(ev) or state["loaded"], deadline,
                       f"the load event of {url}")
            report.load_seconds = round(time.monotonic() - started, 3)
            self._settle(handle, deadline, state, f"{url} to settle")

            if screenshot is not None:
                report.screenshot = self._screenshot(cmd, Path(screenshot), width, full_page)
            for name, expr in (evaluate or {}).items():
                res = cmd("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                               "awaitPromise": True, "userGesture": True})
                if "exceptionDetails" in res:
                    d = res["exceptionDetails"]
                    msg = _describe(d["exception"]) if "exception" in d else d.get("text")
                    raise ChromiumError(f"evaluate[{name!r}] ({expr}) threw: {msg}")
                report.values[name] = res["result"].get("value")
            if evaluate:
                # Anything the expressions themselves caused.
                self._settle(handle, deadline, state, f"{url} to settle after evaluate", 0.1)
        finally:
            try:
                self.send("Target.closeTarget", {"targetId": target},
                          deadline=time.monotonic() + 5)
            except ChromiumError:
                pass
            # Events of the closed tab (or of earlier tabs) must not leak into the next report.
            self._events.clear()
        return report

    def open_app(self, url: str, *, allowed: tuple[str, ...] = (), width: int = 1280,
                 height: int = 900, timeout: float | None = None) -> "Tab":
        """Open `url` (a local web app: requests to the `allowed` URL prefixes do not count
        as network access) in a fresh tab and return it, loaded and settled, to be driven:
        `tab.evaluate(expr)`, `tab.wait_for(expr)`, `tab.key("j")`, `tab.screenshot(path)`;
        `tab.report` collects errors and requests as `open_page` does. Close it with
        `tab.close()` or use it as a context manager."""
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        report = PageReport(url=url)
        target = self.send("Target.createTarget", {"url": "about:blank"},
                           deadline=deadline)["targetId"]
        tab = Tab(self, target, report, allowed, width)
        try:
            tab.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                    deadline=deadline)["sessionId"]
            tab.handle = self._page_handler(tab.session, report, tab.state, allowed)
            for domain in ("Page", "Runtime", "Log", "Network"):
                tab.cmd(f"{domain}.enable")
            tab.cmd("Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            started = time.monotonic()
            nav = tab.cmd("Page.navigate", {"url": url})
            if nav.get("errorText"):
                raise ChromiumError(f"could not open {url}: {nav['errorText']}")
            self._pump(lambda ev: tab.handle(ev) or tab.state["loaded"], deadline,
                       f"the load event of {url}")
            report.load_seconds = round(time.monotonic() - started, 3)
            self._settle(tab.handle, deadline, tab.state, f"{url} to settle")
        except BaseException:
            tab.close()
            raise
        return tab

    def _settle(self, handle: Callable[[dict[str, Any]], None], deadline: float,
                state: dict[str, Any], what: str, quiet: float = SETTLE_QUIET) -> None:
        """Drain events until `quiet` seconds pass with no event and no request pending
        (or SETTLE_MAX seconds)."""
        stop = min(deadline, time.monotonic() + SETTLE_MAX)
        while True:
            self._pump(handle, stop, what, quiet=quiet)
            if not state["pending"] or time.monotonic() >= stop:
                return

    def _page_handler(self, session: str, report: PageReport, state: dict[str, Any],
                      allowed: tuple[str, ...] = ()) -> Callable[[dict[str, Any]], None]:
        pending: set[str] = set()
        state["pending"] = pending

        def handle(ev: dict[str, Any]) -> None:
            if ev.get("sessionId") != session:
                return
            method, p = ev["method"], ev.get("params", {})
            if method == "Page.loadEventFired":
                state["loaded"] = True
            elif method == "Runtime.consoleAPICalled":
                if p.get("type") in ("error", "assert"):
                    text = " ".join(_describe(a) for a in p.get("args", []))
                    if p.get("type") == "assert":
                        text = "Assertion failed: " + text if text else "Assertion failed"
                    frames = (p.get("stackTrace") or {}).get("callFrames") or []
                    if frames:
                        text += _where(frames[0].get("url"), frames[0].get("lineNumber"))
                    report.console_errors.append(text)
            elif method == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                exc = d.get("exception")
                # "Uncaught" / "Uncaught (in promise)", then the error with its stack, as the
                # DevTools console shows it.
                text = d.get("text", "Uncaught")
                if exc:
                    text = f"{text} {_describe(exc)}"
                if d.get("url") and d["url"] not in text:
                    text += _where(d.get("url"), d.get("lineNumber"))
                report.exceptions.append(text)
            elif method == "Log.entryAdded":
                e = p.get("entry", {})
                if e.get("level") == "error":
                    text = e.get("text", "")
                    url = e.get("url")
                    if url and url not in text:
                        text += f" ({url})"
                    report.console_errors.append(text)
            elif method == "Network.requestWillBeSent":
                req_url = p.get("request", {}).get("url", "")
                pending.add(p.get("requestId"))
                local = req_url.startswith(LOCAL_SCHEMES) or any(
                    req_url.startswith(a) for a in allowed)
                if not local and req_url not in report.requests:
                    report.requests.append(req_url)
            elif method in ("Network.loadingFinished", "Network.loadingFailed"):
                pending.discard(p.get("requestId"))
            elif method == "Page.javascriptDialogOpening":
                report.dialogs.append(f"{p.get('type')}: {p.get('message')}")

        return handle

    def _screenshot(self, cmd: Callable[..., dict[str, Any]], out: Path, width: int,
                    full_page: bool) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            m = cmd("Page.getLayoutMetrics")
            size = m.get("cssContentSize") or m["contentSize"]
            params["clip"] = {
                "x": 0, "y": 0, "scale": 1,
                "width": max(width, min(int(size["width"] + 0.999), MAX_SCREENSHOT_HEIGHT)),
                "height": max(1, min(int(size["height"] + 0.999), MAX_SCREENSHOT_HEIGHT)),
            }
            params["captureBeyondViewport"] = True
        data = base64.b64decode(cmd("Page.captureScreenshot", params)["data"])
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise ChromiumError("Page.captureScreenshot did not return a PNG")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        return out


class Tab:
    """A tab of `Chromium.open_app`, driven step by step."""

    def __init__(self, browser: Chromium, target: str, report: PageReport,
                 allowed: tuple[str, ...], width: int) -> None:
        self.browser = browser
        self.target = target
        self.report = report
        self.allowed = allowed
        self.width = width
        self.session = ""
        self.state: dict[str, Any] = {"loaded": False}
        self.handle: Callable[[dict[str, Any]], None] = lambda ev: None

    def __enter__(self) -> "Tab":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cmd(self, method: str, params: dict[str, Any] | None = None,
            timeout: float = 30.0) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session,
                                 deadline=time.monotonic() + timeout)

    def settle(self, timeout: float = 10.0) -> None:
        """Drain events until the page is quiet (no request pending)."""
        self.browser._settle(self.handle, time.monotonic() + timeout, self.state,
                             f"{self.report.url} to settle", 0.1)

    def evaluate(self, expr: str) -> Any:
        """The value of `expr` in the page (promises awaited); then the page settles."""
        res = self.cmd("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                            "awaitPromise": True, "userGesture": True})
        if "exceptionDetails" in res:
            d = res["exceptionDetails"]
            msg = _describe(d["exception"]) if "exception" in d else d.get("text")
            raise ChromiumError(f"evaluate ({expr}) threw: {msg}")
        self.settle()
        return res["result"].get("value")

    def wait_for(self, expr: str, timeout: float = 10.0) -> Any:
        """Evaluate `expr` until it is truthy; its value (ChromiumTimeout if it never is)."""
        stop = time.monotonic() + timeout
        while True:
            value = self.evaluate(expr)
            if value:
                return value
            if time.monotonic() > stop:
                raise ChromiumTimeout(f"waited {timeout} s for {expr}")
            time.sleep(0.05)

    def key(self, key: str) -> None:
        """Press and release one key (a character such as "j", or "Enter", "Backspace")."""
        named = {"Enter": ("\r", 13), "Backspace": ("", 8), "Tab": ("", 9)}
        text, code = named.get(key, (key, ord(key.upper()) if len(key) == 1 else 0))
        down: dict[str, Any] = {"type": "keyDown", "key": key, "windowsVirtualKeyCode": code}
        if text:
            down["text"] = text
        self.cmd("Input.dispatchKeyEvent", down)
        self.cmd("Input.dispatchKeyEvent", {"type": "keyUp", "key": key,
                                            "windowsVirtualKeyCode": code})
        self.settle()

    def screenshot(self, out: str | os.PathLike[str], full_page: bool = True) -> Path:
        return self.browser._screenshot(self.cmd, Path(out), self.width, full_page)

    def close(self) -> None:
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target},
                              deadline=time.monotonic() + 5)
        except ChromiumError:
            pass
        self.browser._events.clear()


def open_page(path: str | os.PathLike[str], *, screenshot: str | os.PathLike[str] | None = None,
              width: int = 1280, height: int = 900, full_page: bool = True,
              evaluate: dict[str, str] | None = None, timeout: float = 60) -> PageReport:
    """Open `path` in a new headless Chromium (killed afterwards) and report on it.

    The whole call, browser start included, is bounded by `timeout` seconds."""
    deadline = time.monotonic() + timeout
    with Chromium(timeout=timeout) as browser:
        return browser.open_page(path, screenshot=screenshot, width=width, height=height,
                                 full_page=full_page, evaluate=evaluate,
                                 timeout=max(0.1, deadline - time.monotonic()))


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="the HTML file to open")
    ap.add_argument("--screenshot", metavar="OUT.png", help="save a full-page screenshot here")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--viewport-only", action="store_true",
                    help="screenshot the viewport, not the whole page")
    ap.add_argument("--eval", action="append", default=[], metavar="NAME=EXPR",
                    help="a JavaScript expression to evaluate after load (repeatable)")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args(argv)
    evaluate = dict(e.split("=", 1) for e in args.eval)
    try:
        report = open_page(args.file, screenshot=args.screenshot, width=args.width,
                           height=args.height, full_page=not args.viewport_only,
                           evaluate=evaluate or None, timeout=args.timeout)
    except (ChromiumError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report.to_json(), indent=2))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
