"""Reading, merging and writing the table's config: its files and the state folder.

``load(path)`` reads the shipped ``defaults.toml``, lays the organiser's file over it key by
key, builds the result against the schema (``schema.build``) and checks how it fits
together (``checks.check``). ``dumps`` writes the effective config back as TOML (tomli-w),
which ``load`` reads back the same, except the pairing key: ``klik config`` prints
``key = "<hidden>"`` in its place.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

import tomli_w

from klik.table.config.checks import check
from klik.table.config.schema import SECTIONS, Config, build, defaults_text
from klik.table.config.types import HIDDEN, ConfigError, Secret, as_toml


def load(path: str | Path | None) -> Config:
    """The effective config: the shipped defaults with ``path`` laid over them (None: defaults).

    Raises ConfigError with one line naming the file, the key and what is allowed.
    """
    merged = _parse(defaults_text(), "defaults.toml")
    source = "<defaults>"
    if path is not None:
        source = str(path)
        try:
            # utf-8-sig: Windows editors start a UTF-8 file with a byte order mark.
            text = Path(path).read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise ConfigError(
                f"{path}: no such file (give --config an existing TOML file)"
            ) from None
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ConfigError(f"{path}: cannot read ({reason})") from None
        _merge(merged, _parse(text, source))
    return _checked(merged, source)


def from_text(text: str, source: str = "<text>") -> Config:
    """Like ``load`` for a config given as text (tests, the virtual table's own overrides)."""
    merged = _parse(defaults_text(), "defaults.toml")
    _merge(merged, _parse(text, source))
    return _checked(merged, source)


def make_state_dir(config: Config, flag: str | None = None) -> None:
    """Make the journal's folder ``[table] state_dir`` (and its parents) if it is missing.

    The daemons call this before they open any hardware. Raises ConfigError, one line naming
    the key (or the command line's ``flag``, e.g. ``--state-dir``) and why it cannot be used.
    """
    path = config.table.state_dir
    where = f"{flag} {path}" if flag else f"{config.source}: [table] state_dir = {as_toml(path)}"
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        # mkdir(exist_ok=True) says "File exists" when the name is a file's: say that plainly.
        reason = "a file is in the way" if isinstance(error, FileExistsError) else error.strerror
        raise ConfigError(f"{where}: cannot make this folder ({reason or error})") from None
    # A folder that is there but takes no writes (a card gone read-only, a permission) is
    # not refused: the players still get their clock, and the card says why nothing is
    # kept (``klik.table.game.card``).


def dumps(config: Config) -> str:
    """The effective config as TOML, every key shown, in the schema's order; a pairing key
    that is set as ``"<hidden>"``."""
    data: dict[str, Any] = {name: _printed(getattr(config, name)) for name in SECTIONS}
    data["players"] = dict(config.players)
    data["panels"] = {
        "retry_s": config.panels.retry_s,
        **_printed(config.panels.common),
        **{seat: _printed(panel) for seat, panel in config.panels.seats},
    }
    return f"# effective config: defaults.toml + {config.source}\n\n" + tomli_w.dumps(data)


def _checked(data: dict[str, Any], source: str) -> Config:
    config = build(data, source)
    check(config, source)
    return config


def _parse(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML ({error})") from None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> None:
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _printed(section: Any) -> dict[str, Any]:
    """A section's keys and values, a secret that is set as ``"<hidden>"``."""
    values = {f.name: getattr(section, f.name) for f in fields(section)}
    for f in fields(section):
        if isinstance(f.metadata.get("allowed"), Secret) and values[f.name]:
            values[f.name] = HIDDEN
    return values
