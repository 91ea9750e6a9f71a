"""The hub's tables. Alembic's migrations (``migrations/versions``) create them; a test
checks that the migrations and this module describe the same schema.

Idempotency and conflicts are the database's job, not Python's: a resend of the same result
hits ``uq_results_send``, and two different results for one send or one game meet at a
``claims`` row, so two hub processes on one PostgreSQL agree without any lock of ours.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    true,
)

from klik.link import protocol as p

metadata = MetaData()

# One row per paired table; pairing a table again replaces its row (a new device and key).
devices = Table(
    "devices",
    metadata,
    Column("device", String(64), primary_key=True),
    Column("table_no", Integer, nullable=False, unique=True),
    Column("key_hex", String(64), nullable=False),
    Column("paired_at", String(32), nullable=False),  # ISO 8601 UTC, the hub's clock
)

# A table re-paired to another number with the proof of its old pairing (migration 0015):
# its new device sends the results it kept under the old number, which count as that
# number's. One row per (new device, old number).
device_links = Table(
    "device_links",
    metadata,
    Column("device", String(64), primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("old_device", String(64), nullable=False),
    Column("linked_at", String(32), nullable=False),  # ISO 8601 UTC, the hub's clock
)

# Every result as the table signed it, never changed but for the judge's conflict flag.
results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("device", String(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("digest", String(64), nullable=False),  # SHA-256 of the body's canonical JSON
    Column("table_no", Integer, nullable=False),
    Column("tournament", String(200), nullable=True),  # as the table named it, if it did
    # The tournament it names, when that is a tournament of this hub's (its id, written
    # in decimal); its round stays a number, as a result may name a round that was undrawn
    # (the slots hold it for the judge) and the hub never refuses a result for that.
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=True),
    Column("round_no", Integer, nullable=True),
    Column("game", Integer, nullable=False),
    Column("body", Text, nullable=False),  # canonical JSON, exactly as signed
    Column("receipt", String(8), nullable=False),
    Column("points_check", String(8), nullable=False),  # "ok" or "mismatch"
    Column("conflict", Boolean, nullable=False),
    Column("received_at", String(32), nullable=False),
    UniqueConstraint("device", "seq", "digest", name="uq_results_send"),
)

# The first result to claim a send ("send:" device and seq) or a game ("game:" tournament,
# round, table and game) holds it; a different result claiming it again is a conflict.
claims = Table(
    "claims",
    metadata,
    Column("claim", String(400), primary_key=True),
    Column("result_id", Integer, ForeignKey("results.id"), nullable=False),
)

# The last heartbeat of each device: best effort, overwritten only by one with a larger seq
# (a replayed heartbeat changes nothing; ``hall.heartbeats.take``).
status = Table(
    "status",
    metadata,
    Column("device", String(64), primary_key=True),
    Column("table_no", Integer, nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("body", Text, nullable=False),
    Column("seen_ms", BigInteger, nullable=False),  # the hub's clock, ms since the epoch
)

# Hub → table commands: pause, resume, round-over, start, players. Carried out once by the
# table (it remembers the ids it did) and acknowledged in its next heartbeat.
commands = Table(
    "commands",
    metadata,
    # random (16 characters): a new hub database never reuses one
    Column("id", String(p.MAX_COMMAND_ID), primary_key=True),
    Column("table_no", Integer, nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("args", Text, nullable=False),  # canonical JSON
    Column("created_ms", BigInteger, nullable=False),
    Column("acked_ms", BigInteger, nullable=True),
    # The order a table carries them out in (migration 0003): strictly increasing, so a
    # round's lineup queued with its start in one millisecond is never taken after it.
    Column("rank", BigInteger, nullable=True),
)

# --- the tournament (migration 0002) -------------------------------------------------------

# A tournament's standings and its missing-results board read its results by round.
Index("ix_results_tournament_id", results.c.tournament_id, results.c.round_no)

# A tournament: its rule set, format (a preset's name) and move time.
tournaments = Table(
    "tournaments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("rules", String(16), nullable=False),
    Column("format", String(32), nullable=False),
    Column("move_time_s", Integer, nullable=False),
    Column("created_at", String(32), nullable=False),
    # Check-in (migration 0007): null before the judge first opens it, "open" or "closed".
    Column("check_in", String(8), nullable=True),
    # The round's time (migration 0009): seconds from a table's start to its round-over;
    # null for no round clock. From the format or the judge at creation.
    Column("round_time_s", Integer, nullable=True),
    # Results released together (migration 0010): the public pages and the projector show a
    # round's results only once every table of the round has reported.
    Column("release_together", Boolean, nullable=False, server_default=false()),
)

# Enrolled players, numbered 1, 2, … within their tournament (their start numbers and ids).
players = Table(
    "players",
    metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("player_no", Integer, primary_key=True),
    Column("name", String(100), nullable=False),
    Column("club", String(100), nullable=False),
    # False once the judge withdraws the player: never drawn again, their games still count
    Column("active", Boolean, nullable=False, server_default=true()),
    # Their page's address (/p/CODE), unique across tournaments: only the judge and the
    # player's own badge show it (office.players.new_code)
    Column("code", String(16), nullable=False),
    # Checked in for the day (migration 0007): by the player's page or the judge's tick.
    Column("checked_in", Boolean, nullable=False, server_default=false()),
    # The judge's label for the player's family (migration 0008), empty for none: a random
    # stage's draw seats players of one family at different tables (tournament.draw.Apart)
    Column("family", String(100), nullable=False, server_default=""),
    # The first round the player may be drawn into (migration 0011): 1, or for a late
    # arrival the round after the last drawn when they were enrolled.
    Column("from_round", Integer, nullable=False, server_default="1"),
    # The person this enrolment is (migration 0017): across tournaments, for the ratings and
    # the seasons. Every enrolment has one: a new person unless the list named one.
    Column("person_id", Integer, nullable=True),
    # A player's needs (migration 0019, ``tournament.needs``): their seat's vibration motor,
    # large screens and quiet (no buzzer), sent with the lineup; and a table they are always
    # drawn to, or null.
    Column("needs_vibration", Boolean, nullable=False, server_default=false()),
    Column("needs_large", Boolean, nullable=False, server_default=false()),
    Column("needs_quiet", Boolean, nullable=False, server_default=false()),
    Column("fixed_table", Integer, nullable=True),
)
Index("ix_players_code", players.c.code, unique=True)
Index("ix_players_person", players.c.person_id)

# People (migration 0017): a player across tournaments. ``federation_id`` is the number a
# federation or ranking gives them (a players' CSV's ``id``), unique; null: the hub's own id.
people = Table(
    "people",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False),
    Column("club", String(100), nullable=False),
    Column("federation_id", String(32), nullable=True),
    Column("created_at", String(32), nullable=False),
)
Index("ix_people_federation", people.c.federation_id, unique=True)

# A drawn round; two draws of one round meet at the primary key, so only one is kept.
rounds = Table(
    "rounds",
    metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("round_no", Integer, primary_key=True),
    Column("stage", String(64), nullable=False),
    Column("games", Integer, nullable=False),  # games a table plays in this round
    Column("seed", BigInteger, nullable=False),
    Column("override", Boolean, nullable=False),  # drawn with earlier results missing
    Column("drawn_at", String(32), nullable=False),
)

# Who sits where in a round: table number (the paired table's) and seat letter.
seatings = Table(
    "seatings",
    metadata,
    Column("tournament_id", Integer, primary_key=True),
    Column("round_no", Integer, primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("seat", String(1), primary_key=True),
    Column("player_no", Integer, nullable=False),
    ForeignKeyConstraint(
        ["tournament_id", "round_no"], ["rounds.tournament_id", "rounds.round_no"]
    ),
    UniqueConstraint("tournament_id", "round_no", "player_no", name="uq_seatings_player"),
)

# The round's clock at each table (migration 0009): when the table was started, the judge's
# extra time for it, and when the hub queued its round-over (null until then).
round_clocks = Table(
    "round_clocks",
    metadata,
    Column("tournament_id", Integer, primary_key=True),
    Column("round_no", Integer, primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("started_ms", BigInteger, nullable=False),  # the hub's clock, ms since the epoch
    Column("extra_s", Integer, nullable=False, server_default="0"),
    Column("over_ms", BigInteger, nullable=True),
    ForeignKeyConstraint(
        ["tournament_id", "round_no"], ["rounds.tournament_id", "rounds.round_no"]
    ),
)
# Every heartbeat reads its table's latest clock (sql.clocks.of_table).
Index("ix_round_clocks_table", round_clocks.c.table_no, round_clocks.c.started_ms)

# A reserve who took a player's seat for the rest of a round (migration 0011): from the
# table's game ``from_game`` on, the seat's games are the reserve's (the format decides whom
# they count for: tournament.formats ``replacements``).
replacements = Table(
    "replacements",
    metadata,
    Column("tournament_id", Integer, primary_key=True),
    Column("round_no", Integer, primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("seat", String(1), primary_key=True),
    Column("player_no", Integer, nullable=False),  # who left
    Column("reserve_no", Integer, nullable=False),  # who took the seat
    Column("from_game", Integer, nullable=False),  # the round's game at the table, 1-based
    ForeignKeyConstraint(
        ["tournament_id", "round_no"], ["rounds.tournament_id", "rounds.round_no"]
    ),
)

# The judge's corrections: events added to a result, never changes to it (the audit log).
corrections = Table(
    "corrections",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False, index=True),
    Column("result_id", Integer, ForeignKey("results.id"), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("seat", String(1), nullable=True),
    Column("value", Integer, nullable=False),  # a rack sum, a player's id, or 1/0
    Column("reason", Text, nullable=False),
    Column("by", String(100), nullable=False),
    Column("at", String(32), nullable=False),
    Column("args", Text, nullable=True),  # assign: its round, table, game and players (JSON)
)

# The judge's other events (migration 0003), the rest of the audit log: a player withdrawn,
# reinstated or renamed, a round undrawn, a sanction. Never changed, only added.
events = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("player_no", Integer, nullable=True),
    Column("args", Text, nullable=False),  # canonical JSON: what changed, from what
    Column("reason", Text, nullable=False),
    Column("by", String(100), nullable=False),
    Column("at", String(32), nullable=False),
)

# The hub's own settings: the judge's password hash ("judge_password").
settings = Table(
    "settings",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

# The judge's console sessions (``POST /api/v1/session``): a cookie's token is kept only as
# its SHA-256, with the digest of the password hash it was opened with, so a new password
# ends every session at once.
sessions = Table(
    "sessions",
    metadata,
    Column("token_sha256", String(64), primary_key=True),
    Column("password_sha256", String(64), nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
)

# The tables asking to join (migration 0012, ``klik_hub.hall.pairing``): each request's
# public values and the hub's nonce, its digits once both nonces are out, and, once the
# judge accepted, the answer sealed for the table. Expired requests are deleted.
pairing_requests = Table(
    "pairing_requests",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("table_key", String(64), nullable=False),
    Column("hub_nonce", String(32), nullable=False),
    Column("table_nonce", String(32), nullable=True),
    Column("digits", String(6), nullable=True),
    Column("link", String(16), nullable=False),  # how it asked: "http" (or "serial")
    # The network address it asked from (migration 0013; None: the hub's radio).
    Column("address", String(64), nullable=True),
    # The paired device the request proved it was (a re-pair's MAC under that device's key,
    # checked when it asked; migration 0015), or None.
    Column("proves", String(64), nullable=True),
    Column("state", String(16), nullable=False),  # "committed", "asking", "accepted", "refused"
    Column("table_no", Integer, nullable=True),
    Column("sealed", Text, nullable=True),
    Column("asked_ms", BigInteger, nullable=False),
    Column("seen_ms", BigInteger, nullable=False),
)

# The judge's requests sent with an ``Idempotency-Key`` (migration 0014, ``door.once``):
# each key's first answer on its route, replayed to a repeat for 24 hours.
once = Table(
    "once",
    metadata,
    Column("key", String(128), primary_key=True),
    Column("route", String(512), primary_key=True),  # "POST /api/v1/…"
    Column("fingerprint", String(64), nullable=False),  # SHA-256 of the body sent
    Column("status", Integer, nullable=False),
    Column("content_type", String(128), nullable=False),
    Column("body", LargeBinary, nullable=False),  # the answer's bytes
    Column("kept_ms", BigInteger, nullable=False, index=True),
)

# The judge's own rule sets (migration 0016, ``klik.rules``): each version of a set as its
# file was sent, so a tournament played under an older one can still be read.
rule_sets = Table(
    "rule_sets",
    metadata,
    Column("name", String(16), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("text", Text, nullable=False),  # the TOML as the judge sent it
    Column("added_at", String(32), nullable=False),
)

# A league's season (migration 0018): its meetings (tournaments) ranked together by person.
seasons = Table(
    "seasons",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("best", Integer, nullable=True),  # a person's best N meetings count; null: all
    Column("points", Text, nullable=False),  # JSON: "big", or the points for place 1, 2, ...
    Column("created_at", String(32), nullable=False),
)
season_meetings = Table(
    "season_meetings",
    metadata,
    Column("season_id", Integer, ForeignKey("seasons.id"), primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
)
