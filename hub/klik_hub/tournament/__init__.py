"""The tournament's own logic, pure: draws, formats, seeding and standings.

No I/O, no clock, no database: the hub's adapters (the API, the store) feed it plain data and
keep what it returns. Randomness comes only from a ``random.Random`` seeded with the draw's
recorded seed, so every draw can be made again from its seed.
"""
