"""Shared test setup: every test gets its own private store and no inherited budget."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests on a fixed sequence of examples (`.ci/run` sets HYPOTHESIS_PROFILE=ci), so a
# submission's verdict does not depend on the draw; local runs keep drawing new examples and keep
# the failures they find in .hypothesis/ to replay.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])

# mcp's stdio_client takes sys.stderr as its errlog default when it is first imported. Imported here,
# before any test swaps sys.stderr (capsys, typer's CliRunner), so that a client started by a later
# test in the same process (one pytest-xdist worker runs tests of many files) hands the server a real file.
with contextlib.suppress(ImportError):
    import mcp.client.stdio  # noqa: F401

SHARED = Path(__file__).resolve().parents[2] / "shared"
REALDATA = SHARED / "realdata"


def pytest_configure(config: pytest.Config) -> None:
    """Children get SIGINT's default action even when this run was started as a background job.

    A shell starts ``cmd &`` with SIGINT ignored, and an ignored signal stays ignored across exec:
    the signal tests' children (``wuu run``, a Python program) would then rightly ignore the
    SIGINT they are sent. Handled signals are reset to default on exec, so a handler here is enough.
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point WUU_STORE at a fresh directory and clear settings that would change results."""
    store = tmp_path_factory.mktemp("store")
    monkeypatch.setenv("WUU_STORE", str(store))
    for var in (
        "WUU_BUDGET",
        "WUU_STORE_MAX_BYTES",
        "WUU_LOG_MAX_BYTES",
        "WUU_MEDIA_MAX_BYTES",
        "WUU_TIMEOUT",
        "WUU_SESSION",
        "WUU_CONTINUE_AS",  # set by the hook's rewritten line: this suite may itself run under an agent's hook
    ):
        monkeypatch.delenv(var, raising=False)
    # The real pytest runs the tests start (views by tool) would load this venv's plugins first: langsmith,
    # hypothesis and anyio cost ~1.6 s of a 1.8 s run, and none is what those runs test.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:langsmith_plugin -p no:hypothesispytest -p no:anyio")
    return store


@pytest.fixture
def store_dir(_isolated_store: Path) -> Path:
    """The test's private store directory."""
    return _isolated_store


@pytest.fixture
def realdata() -> Path:
    """``../shared/realdata`` beside the checkout; the test is skipped, with the reason, when it is absent."""
    if not REALDATA.is_dir():
        pytest.skip(f"{REALDATA} is absent: the real third-party data lives in ../shared/realdata beside the checkout")
    return REALDATA
