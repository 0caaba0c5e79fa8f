"""The operator's files in deploy/ say what docs/running-a-relay.md says they do, and
the tools they are for accept them: HAProxy its configuration, systemd the unit, and
`gin relay` the command line and settings the unit gives each instance."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import build_parser as gin_parser
from relay.config import SETTINGS, config_from_args
from tests.support.cluster import HAPROXY_CFG, UNIT, haproxy_config, unit_service


def test_the_haproxy_configuration_routes_rooms_by_their_path_and_checks_health(
    haproxy: str, tmp_path: Path
) -> None:
    shipped = HAPROXY_CFG.read_text()
    lines = {" ".join(line.split()) for line in shipped.splitlines()}
    for needed in (
        "balance uri depth 2",  # /j/ROOM: both players of a room on one relay
        "hash-type consistent",  # a relay down moves only its rooms
        "option forwardfor",  # the relays count players by the address HAProxy adds
        "timeout tunnel 120s",  # a WebSocket idles up to 30 s between pings
        "option httpchk",
        "http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host relay",
        "http-check expect status 200",
        "http-request deny deny_status 404 if { path /metrics }",
    ):
        assert needed in lines, needed
    assert not any("redispatch" in line and not line.startswith("#") for line in lines)
    check = subprocess.run([haproxy, "-c", "-f", str(HAPROXY_CFG)], capture_output=True,
                           text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    # What the tests run is the shipped file with its addresses changed, nothing else.
    made = haproxy_config(shipped, 9000, [9001, 9002, 9003], tmp_path / "admin.sock")
    changed = set(made.splitlines()) ^ set(shipped.splitlines())
    assert {line.split()[0] for line in changed} == {"bind", "server", "stats", "log"}
    assert made.count("\n    server relay") == 3


def test_the_unit_runs_one_relay_per_port_with_the_shared_key(tmp_path: Path) -> None:
    argv, env = unit_service(UNIT.read_text(), 8702, "127.0.0.2", Path("/run/credentials/x"))
    assert argv == ["relay", "--port", "8702", "--metrics-listen", "127.0.0.2:8702"]
    settings = {setting.env for setting in SETTINGS}
    assert {name for name in env if name.startswith("GIN_")} <= settings
    config = config_from_args(gin_parser().parse_args(argv), env)
    assert (config.host, config.port) == ("127.0.0.1", 8702)
    assert config.metrics_listen == ("127.0.0.2", 8702)
    assert config.trust_forwarded
    assert config.key_file == Path("/run/credentials/x/relay.key")


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    gin = Path(sys.executable).with_name("gin")
    program = str(gin if gin.exists() else sys.executable)
    # The unit as installed, its gin program one that exists here.
    unit = UNIT.read_text().replace("/opt/gin/venv/bin/gin", program)
    (tmp_path / "gin-relay@.service").write_text(unit)
    (tmp_path / "gin-relay@8701.service").symlink_to(tmp_path / "gin-relay@.service")
    run = subprocess.run([analyze, "verify", "--man=no", str(tmp_path / "gin-relay@8701.service")],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0 and run.stderr.strip() == "", run.stderr
