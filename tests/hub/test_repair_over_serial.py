"""A table paired at the table over a serial link, re-paired by the judge key: the join frames
need the port its courier holds, so the courier stops while the table asks and takes the port
again when the judge's second hold stops asking; the judge's accept starts the new pairing's
courier. The real daemon (the virtual table's, mock pins) and the hub's ``SerialHub`` on the
two ends of a simulated cable."""

from __future__ import annotations

from pathlib import Path

import pytest

from klik.table import config as c
from klik.table.config import paired
from klik.table.sim import virtual as sim
from klik_hub import hall
from klik_hub.serial.hub import SerialHub
from klik_hub.storage.store import Store
from tests.helpers.radio import Radio
from tests.hub.test_table_renumbering import hold_judge_key, kept, soon
from tests.hub.test_table_to_hub import PLAYERS

pytestmark = pytest.mark.slow  # the daemon, the hub and a pty cable on the real clock

BAUD = 115200


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_a_serial_table_re_pairs_by_the_judge_key_and_its_courier_gives_way_meanwhile(
    store: Store, tmp_path: Path
) -> None:
    device, key = hall.devices.pair(store, 7)
    with Radio(2, BAUD) as radio:
        hub = SerialHub(store, radio.path(0), BAUD)
        hub.start()
        section = c.from_text(
            PLAYERS + f'[hub]\nlink = "serial"\nserial_port = "{radio.path(1)}"\n'
            f"serial_baud = {BAUD}\nheartbeat_s = 0.5\n"
        )
        paired.keep(sim.sim_config(section, str(tmp_path)),
                    {"table": 7, "device_id": device, "key": key})  # fmt: skip
        table = sim.make_daemon(section, str(tmp_path))
        table.start()
        try:
            soon(lambda: device in hub._heard)
            hold_judge_key(table, 5.5)
            soon(lambda: len(hall.pairing.asking(store)) == 1)
            assert table.courier is None  # the port is the joiner's meanwhile
            assert table.pairing == ("paired", None)

            hold_judge_key(table, 5.5)  # the judge changes their mind: stop asking
            soon(lambda: table.courier is not None)
            stopped_at = hub._heard[device]
            soon(lambda: hub._heard[device] > stopped_at)  # the old pairing's beats again
            assert kept(tmp_path)["device_id"] == device

            hold_judge_key(table, 5.5)
            soon(lambda: len(table.engine.views["A"].alerts) == 1)
            (shown,) = [a.text.replace(" ", "") for a in table.engine.views["A"].alerts]
            (asking,) = [a for a in hall.pairing.asking(store) if a["digits"] == shown]
            # Its join-again frame proved the old pairing: table 7 is taken back, no replace.
            new_device, _ = hall.pairing.accept(store, asking["id"], 7, shown, None)
            soon(lambda: table.config.hub.device_id == new_device)
            assert kept(tmp_path)["device_id"] == new_device
            soon(lambda: new_device in hub._heard)  # its courier took the port
            assert [t["device"] for t in hall.devices.tables(store)] == [new_device]
        finally:
            table.stop()
            hub.stop()
