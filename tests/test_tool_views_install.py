"""Install and build progress (recorded-style outputs under fixtures/tool_output/): progress folded, errors kept."""

from __future__ import annotations

import re

from _tool_views import fixture, planned

from wuu_tools.logs.tools.install import pip_rule


def test_pip_install_folds_progress_and_keeps_the_result() -> None:
    lines = fixture("pip_install.txt")
    plan, kept, folded = planned("python -m pip install rich", lines)
    assert plan.tool == "pip install"
    assert plan.summary == "Successfully installed markdown-it-py-4.0.0 mdurl-0.1.2 rich-14.2.0"
    assert [line for line in kept if line.strip()] == [plan.summary]
    assert any("━━━" in line for line in folded) and any(line.startswith("[notice]") for line in folded)
    assert re.search(r"\b3 Collecting\b", plan.folds[0].label) and "progress bar" in plan.folds[0].label


def test_pip_install_keeps_every_error_line() -> None:
    lines = fixture("pip_install_error.txt")
    plan, kept, folded = planned("pip install -e .", lines, 1)
    assert plan.summary == "error: subprocess-exited-with-error"
    errors = [line for line in lines if "error" in line.lower() or "Traceback" in line or "exit code" in line]
    assert all(line in kept for line in errors)
    assert "      OSError: Readme file does not exist: README.md" in kept
    assert any("Running pip as the 'root' user" in line for line in folded)
    assert all("error" not in line for line in folded)


def test_pip_quietly_before_a_script_keeps_the_script_output() -> None:
    warning = "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour."
    lines = [warning, "Test directory: /tmp/x", "Permissions: 0o600", "Are they the same? False"]
    _plan, kept, folded = planned("pip install pytz -q && python reproduce_issue.py", lines)
    assert folded == [warning] and kept == lines[1:]


def test_pip_rule_knows_only_pip_install() -> None:
    assert pip_rule("pip list", ["Package Version"], 0) is None
    assert pip_rule(None, fixture("pip_install.txt"), 0) is None
    assert pip_rule("uv pip install rich", fixture("pip_install.txt"), 0) is not None


def test_npm_install_counts_deprecations_and_hints() -> None:
    lines = fixture("npm_install.txt")
    plan, kept, folded = planned("npm install", lines)
    assert plan.tool == "npm install"
    assert plan.folds[0].label == "4 npm WARN deprecated lines"
    assert "added 157 packages, and audited 158 packages in 14s" in kept
    assert "6 moderate severity vulnerabilities" in kept
    assert plan.summary == "added 157 packages, and audited 158 packages in 14s"
    hints = ("fund", "audit", "issues")
    assert all(line.startswith("npm WARN") or any(h in line for h in hints) or not line for line in folded)


def test_npm_build_folds_a_warning_printed_again_and_keeps_the_first() -> None:
    lines = fixture("npm_build.txt")
    plan, kept, folded = planned("npm run build 2>&1", lines)
    assert plan.tool == "npm run build" and plan.summary == "✓ built in 4.40s"
    warning = next(line for line in lines if line.startswith("DEPRECATION WARNING"))
    assert kept.count(warning) == 1 and folded.count(warning) == 2
    assert "src/components/Sidebar.svelte:12:4 A11y: <div> with click handler must have an ARIA role" in kept


def test_cargo_build_counts_compiling_lines_and_keeps_warnings() -> None:
    lines = fixture("cargo_build.txt")
    plan, kept, folded = planned("cargo build", lines)
    assert plan.tool == "cargo build"
    assert plan.summary and plan.summary.startswith("Finished `dev` profile")
    assert re.search(r"\b6 Compiling\b", plan.folds[-1].label), plan.folds[-1].label
    assert kept[0] == "warning: unused variable: `x`" and 'warning: `demo` (bin "demo") generated 1 warning' in kept
    assert all(line.strip().split()[0] in {"Updating", "Locking", "Downloaded", "Compiling"} for line in folded)


def test_an_install_before_a_test_run_is_left_to_the_test_runner() -> None:
    from wuu_tools.logs.tools.install import cargo_rule, npm_rule

    lines = fixture("pip_install.txt")
    assert pip_rule("pip install -q pytz && python -m pytest tests/", lines, 0) is None
    assert pip_rule("cd /testbed && pip install -q pytz && ./tests/runtests.py queries", lines, 0) is None
    assert npm_rule("npm ci && npm test", fixture("npm_install.txt"), 0) is None
    assert cargo_rule("cargo build && cargo test", fixture("cargo_build.txt"), 0) is None
    assert pip_rule("pip install -q pytz && python reproduce.py", lines, 0) is not None
