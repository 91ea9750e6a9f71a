"""The table's link to the hub: the protocol both sides import, framing, the outbox, clients."""
