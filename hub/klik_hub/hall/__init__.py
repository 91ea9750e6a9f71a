"""The hall's tables as the hub serves them: a module per concept (``devices``: pairing and
whose envelope to believe; ``results``: keeping a table's results; ``heartbeats``: a table's
state and the commands waiting for it; ``commands``: queueing them; ``pairing``: the tables
asking to join).

The tables' side of the hub, as ``klik_hub.office`` is the judge's: between the links (HTTP in
``app``, the serial channel in ``klik_hub.serial``, both through ``inbox``) and the database
(``klik_hub.sql``). Each use case is a function of the hub's ``Store``, which gives the
transactions and the clock. It raises the hub's own errors, which know no HTTP.

Used as ``from klik_hub import hall`` and ``hall.devices.pair(store, 7)``.
"""

from klik_hub.hall import commands, devices, heartbeats, pairing, results

__all__ = ["commands", "devices", "heartbeats", "pairing", "results"]
