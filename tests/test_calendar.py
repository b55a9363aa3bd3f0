"""Nothing in the suite depends on the date it runs on: the tests of stored data pass 400 days from now.

libfaketime (Debian's faketime, which ``make test`` installs) moves the wall clock of a child pytest run 400 days
ahead. Its monotonic clock moves by the same offset, which leaves durations as they are (with
``FAKETIME_DONT_FAKE_MONOTONIC=1`` libfaketime 0.9.10 breaks ``time.sleep``). The child runs on SQLite only: a
PostgreSQL server started under libfaketime is another program's calendar. The whole suite was also run this way by
hand (see docs/testing.md); this keeps the part that stores timestamps honest in every run.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
from xml.etree import ElementTree

import pytest
from support import ROOT

STORED_DATA = ["tests/test_old_saves.py", "tests/test_wallclock.py", "tests/test_setup_sessions.py"]


@pytest.mark.skipif(shutil.which("faketime") is None, reason="no faketime here (make test installs Debian's)")
def test_the_stored_data_tests_pass_400_days_from_now(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FAKETIME", "PYTEST_"))}
    shown = subprocess.run(["faketime", "-f", "+400d", sys.executable, "-c",
                            "import datetime; print(datetime.date.today().isoformat())"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert (datetime.date.fromisoformat(shown.stdout.strip()) - datetime.date.today()).days >= 399  # it did move
    report = tmp_path / "report.xml"  # pytest's closing line goes missing under libfaketime; its report does not
    run = subprocess.run(["faketime", "-f", "+400d", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-k", "not postgresql", f"--junitxml={report}", *STORED_DATA], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert int(suite.get("tests")) >= 10 and suite.get("failures") == suite.get("errors") == "0", run.stdout[-4000:]
    assert suite.get("timestamp") > f"{datetime.date.today().year + 1}"  # the run's own stamp is a year ahead
