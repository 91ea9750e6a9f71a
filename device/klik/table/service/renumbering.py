"""The hub's ``renumber`` command, the table's side: the judge gave this table another number.

A table paired at the table keeps what the judge's accept gave in ``paired.toml``
(``klik.table.config.paired``): the file is rewritten with the new number, atomically
(``paired.keep``), everything else in it kept, so a restart keeps the number. A table paired
by ``klik pair`` keeps its pairing in the organiser's config, which the table never edits:
it takes the number until it restarts, and the log says which keys to change.
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import replace

from klik.table.config import Config, paired

log = logging.getLogger("klik.table.service.renumbering")


def renumbered(config: Config, table: int) -> tuple[Config, bool]:
    """``config`` as table ``table`` (``[hub] table`` and ``[table] name``), and whether a
    restart keeps it (``paired.toml`` rewritten). OSError when the file cannot be written:
    the file is then as it was, and the caller tries again later. A file that is not this
    table's pairing is left alone (logged): the number holds until the restart."""
    path = paired.path_of(config)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        kept = False
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        log.error("%s: cannot read (%s): the new number is not kept", path, error)
        kept = False
    else:
        hub = data.get("hub")
        kept = isinstance(hub, dict) and hub.get("device_id") == config.hub.device_id
        if isinstance(hub, dict) and kept:
            paired.keep(config, {**hub, "table": table})
        else:
            log.error("%s: not this table's pairing: the new number is not kept", path)
    changed = replace(
        config,
        hub=replace(config.hub, table=table),
        table=replace(config.table, name=str(table)),
    )
    return changed, kept
