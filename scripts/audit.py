"""`make audit`: pip-audit over the distributions installed in the venv.

Fails (exit 1) on a known vulnerability that has a fixed version, and fails closed
(exit 2) when a dependency could not be audited or PyPI's vulnerability data cannot
be read: an audit that checked nothing must not pass.  Vulnerabilities without a fix
are listed but do not fail.  The project itself (installed editable) is skipped.

``--if-reachable`` (CI) turns "PyPI's vulnerability data cannot be read at all" into
a loud skip instead (exit 0), for machines that reach a PyPI mirror without that
data; any other failure still fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import requests

#: pip-audit's PyPI service reads https://pypi.org/pypi/<name>/<version>/json
PROBE = "https://pypi.org/pypi/pip-audit/{version}/json"


def vulnerability_data_unreadable() -> str | None:
    """Why PyPI's per-release vulnerability data cannot be read here, or None."""
    url = PROBE.format(version=version("pip-audit"))
    try:
        response = requests.get(url, timeout=30)
    except requests.RequestException as exc:
        return f"{url}: {type(exc).__name__}: {exc}"
    if response.status_code != 200 or "vulnerabilities" not in response.json():
        return f"{url} answered {response.status_code} without vulnerability data"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--if-reachable", action="store_true",
                        help="skip, loudly, when PyPI's vulnerability data cannot be read at all")
    args = parser.parse_args()

    if reason := vulnerability_data_unreadable():
        if args.if_reachable:
            print(f"AUDIT SKIPPED: PyPI's vulnerability data cannot be read from this machine ({reason}). "
                  "No dependency was audited; run `make audit` where it can be read.", file=sys.stderr)
            return 0
        print(f"audit failed: PyPI's vulnerability data cannot be read ({reason})", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "audit.json"
        run = subprocess.run(
            [str(Path(sys.executable).with_name("pip-audit")), "--strict", "--skip-editable",
             "--progress-spinner", "off", "--format", "json", "--output", str(report)],
            check=False,
        )
        if not report.exists() or not report.stat().st_size:  # --strict: a dependency was not audited
            print(f"audit failed: pip-audit exited {run.returncode} without a report", file=sys.stderr)
            return 2
        dependencies = json.loads(report.read_text())["dependencies"]

    return judge(dependencies)


def judge(dependencies: list[dict]) -> int:
    """Print every vulnerability found; 1 if any has a fixed version, else 0."""
    fixable = 0
    for dep in dependencies:
        for vuln in dep.get("vulns", []):
            fixes = ", ".join(vuln.get("fix_versions") or []) or "no fix yet"
            print(f"{dep['name']} {dep.get('version', '?')}: {vuln['id']} (fixed in: {fixes})")
            fixable += bool(vuln.get("fix_versions"))
    print(f"audited {len(dependencies)} distributions: {fixable} known vulnerabilities with a fix")
    return 1 if fixable else 0

if __name__ == "__main__":
    sys.exit(main())
