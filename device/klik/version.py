"""The software's version, as installed: what a table's heartbeat says and its hub compares."""

from __future__ import annotations

from functools import cache
from importlib import metadata

from klik import __version__


@cache
def installed() -> str:
    """The installed package's version (``pyproject.toml``'s), read once; a source tree that
    was never installed says the package's own ``__version__``."""
    try:
        return metadata.version("klik")
    except metadata.PackageNotFoundError:
        return __version__
