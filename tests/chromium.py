"""A headless Chromium driven over the Chrome DevTools Protocol (CDP), for tests of the HTML views.

Debian's ``chromium`` package; the protocol runs over a websocket (``websocket-client``). It records the
page's console messages, uncaught exceptions and browser log entries (CSP violations, failed loads), so
a test can assert a page rendered without errors.

    with Chromium.launch(tmp_path) as browser:
        browser.open(Path("page.html").resolve().as_uri())
        browser.evaluate("document.title")
        browser.screenshot(tmp_path / "page.png")
        assert not browser.errors()
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-default-apps",
    "--mute-audio", "--hide-scrollbars", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
)

#: Generous limits that only stop a hung browser; nothing is asserted about how long anything takes.
STARTUP_LIMIT_S = 120
MESSAGE_LIMIT_S = 120


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class CDPError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page, its CDP websocket and the events it reported."""

    def __init__(self, process: subprocess.Popen, profile: Path, log_path: Path, page_ws_url: str):
        self.process = process
        self.profile = profile
        self.log_path = log_path
        self.ws = websocket.create_connection(page_ws_url, timeout=MESSAGE_LIMIT_S, suppress_origin=True)
        self._ids = itertools.count(1)
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    @classmethod
    def launch(cls, workdir: Path, *, width: int = 1280, height: int = 1200) -> Chromium:
        binary = chromium_path()
        if binary is None:
            raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
        profile = Path(workdir) / "chromium-profile"
        profile.mkdir(parents=True, exist_ok=True)
        log_path = Path(workdir) / "chromium.log"
        log = open(log_path, "wb")
        process = subprocess.Popen([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                                    f"--window-size={width},{height}", "about:blank"],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        try:
            port = cls._wait_for_port(process, profile, log_path)
            page_ws_url = cls._page_target(port)
            return cls(process, profile, log_path, page_ws_url)
        except BaseException:
            process.kill()
            process.wait()
            raise

    @staticmethod
    def _wait_for_port(process: subprocess.Popen, profile: Path, log_path: Path) -> int:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise CDPError(f"chromium exited with {process.returncode}: {log_path.read_text(errors='replace')[-2000:]}")
            if port_file.exists():
                lines = port_file.read_text().split()
                if lines and lines[0].isdigit():
                    return int(lines[0])
            time.sleep(0.05)
        raise CDPError(f"chromium did not open its DevTools port within {STARTUP_LIMIT_S} s")

    @staticmethod
    def _page_target(port: int) -> str:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while time.monotonic() < deadline:
            with opener.open(f"http://127.0.0.1:{port}/json/list", timeout=MESSAGE_LIMIT_S) as response:
                targets = json.load(response)
            pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
            time.sleep(0.05)
        raise CDPError("chromium has no page target")

    # -- protocol -------------------------------------------------------------------------------

    def send(self, method: str, params: dict | None = None) -> dict:
        """Call a CDP method and return its result; events that arrive meanwhile are recorded."""
        message_id = next(self._ids)
        self.ws.send(json.dumps({"id": message_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == message_id:
                if "error" in message:
                    raise CDPError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for_event(self, method: str, *, since: int = 0) -> dict:
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            since = len(self.events)
            message = json.loads(self.ws.recv())
            if "method" in message:
                self.events.append(message)

    # -- page -----------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Navigate and wait for the load event (scripts have run by then)."""
        mark = len(self.events)
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise CDPError(f"navigating to {url}: {result['errorText']}")
        self.wait_for_event("Page.loadEventFired", since=mark)
        self.evaluate("document.readyState")  # let pending console/log events arrive before we look

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise CDPError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        data = self.send("Page.captureScreenshot", params)["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    def errors(self, *, since: int = 0) -> list[str]:
        """Uncaught exceptions, console.error/assert calls and error-level browser log entries."""
        found = []
        for event in self.events[since:]:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append("uncaught: " + str(details.get("exception", {}).get("description") or details.get("text")))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in {"error", "assert"}:
                found.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                found.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
        return found

    # -- lifetime -------------------------------------------------------------------------------

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except Exception:  # noqa: BLE001 - the browser may already be gone
            pass
        try:
            self.ws.close()
        finally:
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
