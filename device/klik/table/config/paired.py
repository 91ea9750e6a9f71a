"""What pairing at the table gave, kept in the state folder: ``paired.toml``.

The card's config is the shipped default plus the organiser's file, which pairing never
edits; what the judge's accept gives (``klik.link.joining``: the table's number, device id,
key and the hub's TLS pin), with the url of the hub that gave it, is written beside the
journal, atomically, readable by the table's user only (0600), and laid over ``[hub]`` (and
``[table] name``: the number the hub knows it by) when the daemon starts. The url matters to
a table that found its hub on the network (no ``[hub] url``): it goes on with that hub; a
config's own ``[hub] url`` wins. Deleting the file (or a re-pair) makes the table ask again.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import tomli_w

from klik.table.config.load import from_text
from klik.table.config.schema import Config
from klik.table.config.types import ConfigError

FILE = "paired.toml"
KEPT = ("table", "device_id", "key", "tls_pin_sha256")  # what the judge's accept gives


def path_of(config: Config) -> Path:
    return Path(config.table.state_dir) / FILE


def applied(config: Config) -> Config:
    """``config`` with ``paired.toml`` from its state folder laid over it, if there is one
    and the config itself asks to join (a ``[hub]`` that ``klik pair`` filled in wins).

    Raises ConfigError, one line, for a file that cannot be read or is not what ``keep``
    writes.
    """
    if not config.hub.asks_to_join:
        return config
    path = path_of(config)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return config
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read ({error}); delete it to pair again") from None
    hub = data.get("hub")
    if not isinstance(hub, dict) or set(hub) - {"url", *KEPT} or not set(KEPT[:3]) <= set(hub):
        raise ConfigError(f"{path}: not a paired table's file; delete it to pair again")
    url = config.hub.url or hub.get("url", "")  # the card's own [hub] url wins
    given = {key: value for key, value in hub.items() if key != "url"}
    # The link it asked to join by: serial (with the config's port, baud and channel), else
    # http to the url.
    link: Literal["http", "serial"] = "serial" if config.hub.link == "serial" else "http"
    try:
        checked = from_text(  # the schema's checks, key by key
            tomli_w.dumps({"hub": {"link": link, "url": url, **given}}), str(path)
        ).hub
    except ConfigError as error:
        raise ConfigError(f"{error}; delete it to pair again") from None
    return replace(
        config,
        hub=replace(
            config.hub,
            link=link,
            url=checked.url,
            table=checked.table,
            device_id=checked.device_id,
            key=checked.key,
            tls_pin_sha256=checked.tls_pin_sha256 or config.hub.tls_pin_sha256,
        ),
        table=replace(config.table, name=str(checked.table)),
    )


def keep(config: Config, given: dict[str, Any]) -> Path:
    """Write ``given`` (url, table, device_id, key, tls_pin_sha256) as ``paired.toml``:
    atomically, fsynced, 0600 from the start (the key is a secret)."""
    path = path_of(config)
    text = "# From pairing at the table (the judge's accept); delete to pair again.\n"
    text += tomli_w.dumps({"hub": {k: v for k, v in given.items() if v is not None}})
    partial = path.with_name(path.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(partial, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a power cut
    finally:
        os.close(folder)
    return path
