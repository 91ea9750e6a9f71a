"""The table daemon's config: shipped defaults, a typed schema, one clear line per mistake.

Split as Mopidy's is, each module a layer you can name in a word:

- ``types``: what a key may be (a range, a text, a pattern, the pairing key's secret) and
  how a message shows a value; ``ConfigError``, a ``KlikError``.
- ``schema``: the sections and their keys, and ``build``, which turns TOML data into a
  ``Config`` one checked key at a time. No key has a default in code: ``defaults.toml``
  (beside this package) is the only place one is written, and ``Config()`` is its config.
- ``checks``: how the keys fit together: the engine's settings, the pins, the hub link.
- ``load``: the I/O: read the defaults and the organiser's file, lay one over the other,
  write the effective config as TOML (tomli-w).
- ``paired``: what pairing at the table gave, kept in the state folder (``paired.toml``)
  and laid over ``[hub]`` when the daemon starts.

A mistake is one line naming the file, the key, the value and what is allowed::

    table.toml: [buttons] storm_s = 0.0: allowed are 0.05 to 1 s

The one exception is ``[hub] key``, the pairing secret: a message names the key and says
what is wrong with it (``[hub] key: must be 64 lower-case hex digits (got 12 characters)``)
but never shows its value, and ``klik config --config FILE``, which prints the effective
config as TOML, prints ``key = "<hidden>"`` in its place.
"""

from klik.table.config.load import dumps, from_text, load, make_state_dir
from klik.table.config.schema import BAUD_RATES, Config
from klik.table.config.types import PORT, ConfigError

__all__ = [
    "BAUD_RATES",
    "PORT",
    "Config",
    "ConfigError",
    "dumps",
    "from_text",
    "load",
    "make_state_dir",
]
