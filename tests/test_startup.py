"""The ``skald`` entry point (``skald.startup``): the collector is paused for the imports, what they made is frozen,
and the collector is back on before any command runs."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_installed_script_and_python_m_skald_use_the_entry_point():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["skald"] == "skald.startup:main"
    assert "from skald.startup import main" in (ROOT / "backend/skald/__main__.py").read_text()


def test_the_collector_runs_again_when_a_command_starts_and_the_imports_are_frozen():
    code = ("import gc, sys\n"
            "import skald.cli.main as cli\n"
            "seen = []\n"
            "cli.app.command('probe')(lambda: seen.append((gc.isenabled(), gc.get_freeze_count())))\n"
            "sys.argv = ['skald', 'probe']\n"
            "from skald.startup import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(*seen[0])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    enabled, frozen = done.stdout.split()
    assert enabled == "True"
    assert int(frozen) > 10_000  # the modules' objects, out of every later full collection
