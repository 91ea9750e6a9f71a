"""A fresh card finds the hub (issue: DNS-SD discovery), with two real processes on
loopback: ``klik hub --advertise`` and ``klik sim`` whose config has ``[hub] link = "http"``
and no url. The table browses for ``_klik._tcp``, asks the hub it found to join, the judge
accepts its digits, and ``paired.toml`` keeps that hub's url (and its pin, over https)."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import pytest

from klik_hub.door.tls import CERT_FILE, fingerprint
from tests.hub.test_demo import until  # waits on real servers, on the real clock
from tests.hub.test_pairing_at_the_table import call, free_port, pairing_of, running

pytestmark = pytest.mark.slow  # real `klik hub` and `klik sim` processes, multicast on loopback


def test_a_table_with_no_url_finds_the_hub_and_pairs_with_it(tmp_path: Path) -> None:
    hub_port, sim_port = free_port(), free_port()
    # A name of the test's own: a hub another test or `make demo` advertises is not this one.
    name = f"test-hub-{secrets.token_hex(3)}"
    hub, sim = f"https://127.0.0.1:{hub_port}", f"http://127.0.0.1:{sim_port}"
    config = f'[hub]\nlink = "http"\nname = "{name}"\n'
    started = time.monotonic()
    hub_args = ["--tls", "--advertise", "--advertise-name", name]
    with running(tmp_path, config, hub_port, hub_args, sim_port):
        until(lambda: call(f"{sim}/api/state")[0] == 200)
        assert pairing_of(sim)["state"] == "asking"  # looking for the hub, then asking it
        shown = until(lambda: (p := pairing_of(sim))["digits"] and p)
        print(f"digits shown {time.monotonic() - started:.2f} s after the start")
        (asking,) = until(lambda: call(f"{hub}/api/v1/pairing")[1])
        assert asking["digits"] == shown["digits"]
        status, said = call(
            f"{hub}/api/v1/pairing/{asking['id']}", {"table": 4, "digits": shown["digits"]}
        )
        assert status == 201, said
        assert until(lambda: pairing_of(sim)["state"] == "paired")
        until(lambda: [t for t in call(f"{hub}/api/v1/tables")[1] if t["seen_s_ago"] is not None])
    kept = (tmp_path / "table" / "paired.toml").read_text(encoding="utf-8")
    assert f'url = "{hub}"' in kept
    assert f'tls_pin_sha256 = "{fingerprint((tmp_path / CERT_FILE).read_bytes())}"' in kept
