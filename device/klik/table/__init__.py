"""The table: the daemon and its adapters around the pure core (clock, pins, panels, journal).

``config`` reads the organiser's file, ``engine`` runs the core on the queue of edges,
``daemon`` puts it together with the hardware (``gpio``, ``panels``, ``i2cbus``) and systemd
(``notify``); ``view``, ``screens`` and ``signals`` decide what the players see and hear;
``journal`` and ``durable`` keep what must survive a power cut; ``sim`` is the virtual table.
"""
