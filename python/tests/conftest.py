"""Starts hoglaked for the tests against the test PostgreSQL, as
tests/integration/harness.c does: a database of its own, a free port, the
admin token it bootstraps, and a file:// warehouse in a temporary directory.

Environment: HOGLAKE_TEST_PG_URL (the PostgreSQL server's admin URL) and
HOGLAKED (the server binary; default: hoglaked on PATH)."""

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

import pytest

import hoglake


def _child_env():
    """The environment of the programs the tests start: without the
    interpreter's libasan preload (a sanitized run), which psql does not
    survive and hoglaked does not need, nor anything configuring the server."""
    drop = ("LD_PRELOAD", "HOGLAKE_DATABASE_URL", "HOGLAKE_PORT", "HOGLAKE_DATA_DIR",
            "HOGLAKE_AUTH")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _psql(url, sql):
    subprocess.run(["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                   stdout=subprocess.DEVNULL, env=_child_env(), timeout=60)


def _db_url(admin, name):
    # Replace the URI's database: the path after the authority.
    scheme, rest = admin.split("://", 1)
    query = ""
    if "?" in rest:
        rest, query = rest.split("?", 1)
        query = "?" + query
    authority = rest.split("/", 1)[0]
    return f"{scheme}://{authority}/{name}{query}"


def _die_with_parent():
    """Runs in the server's child process: SIGTERM when the test process dies,
    so that a crash of the interpreter leaves no server running."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class Server:
    def __init__(self, base, token, workdir):
        self.base = base
        self.token = token
        self.workdir = workdir

    def client(self):
        return hoglake.HoglakeClient(self.base, self.token)

    def warehouse(self, name):
        path = os.path.join(self.workdir, "warehouse", name)
        os.makedirs(path, exist_ok=True)
        return "file://" + path


@pytest.fixture(scope="session")
def server():
    admin = os.environ.get("HOGLAKE_TEST_PG_URL")
    if not admin:
        pytest.fail("HOGLAKE_TEST_PG_URL is not set (source the test stack's env)")
    binary = os.environ.get("HOGLAKED") or shutil.which("hoglaked")
    if not binary:
        pytest.fail("hoglaked not found: set HOGLAKED")
    workdir = tempfile.mkdtemp(prefix="hlpy.")
    os.chmod(workdir, 0o755)  # the server may run as another user
    db = f"hlpy_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    _psql(admin, f"CREATE DATABASE {db}")
    port_file = os.path.join(workdir, "port")
    data_dir = os.path.join(workdir, "data")
    args = [binary, "--port", "0", "--port-file", port_file, "--data-dir", data_dir,
            "--database-url", _db_url(admin, db), "--file-roots", workdir]
    if os.geteuid() == 0:
        args.append("--allow-root")
    log = open(os.path.join(workdir, "hoglaked.log"), "w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=_child_env(),
                            preexec_fn=_die_with_parent)
    try:
        port = None
        for _ in range(3000):
            if proc.poll() is not None:
                break
            try:
                with open(port_file) as f:
                    port = int(f.read().strip() or 0) or None
            except FileNotFoundError:
                pass
            if port:
                break
            time.sleep(0.02)
        if not port:
            log.flush()
            with open(log.name) as f:
                pytest.fail("hoglaked did not start:\n" + f.read())
        with open(os.path.join(data_dir, "admin.token")) as f:
            token = f.read().strip()
        yield Server(f"http://127.0.0.1:{port}", token, workdir)
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        _psql(admin, f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def client(server):
    return server.client()


@pytest.fixture
def catalog(server, client):
    """A fresh catalog per test, with its data in the test's warehouse."""
    name = "c" + uuid.uuid4().hex[:12]
    return client.create_catalog(name, server.warehouse(name))


def pytest_configure(config):
    config.addinivalue_line("markers", "leaks: the long leak loop (ctest python.leaks)")
