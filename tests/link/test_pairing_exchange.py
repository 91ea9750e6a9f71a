"""Pairing at the table, the exchange both sides compute (``klik.link.protocol.pairing``)."""

from __future__ import annotations

import pytest

from klik.link.protocol import pairing as x


def both_sides() -> tuple[x.Exchange, x.X25519PrivateKey, x.X25519PrivateKey, str]:
    """An honest exchange: the table's key, the hub's, and the hub's commitment."""
    table, hub = x.new_private(), x.new_private()
    table_key, hub_key = x.public_hex(table), x.public_hex(hub)
    table_nonce, hub_nonce = x.new_nonce(), x.new_nonce()
    commit = x.commitment(hub_key, table_key, hub_nonce)
    return (
        x.Exchange("0123456789abcdef", table_key, hub_key, table_nonce, hub_nonce),
        table,
        hub,
        commit,
    )


def test_both_sides_show_the_same_six_digits_and_the_sealed_answer_opens() -> None:
    exchange, table, hub, commit = both_sides()
    x.check_commitment(commit, exchange.hub_key, exchange.table_key, exchange.hub_nonce)
    assert x.DIGITS_RE.fullmatch(exchange.digits)
    given = {"device_id": "t7-abcd", "key": "ab" * 32, "table": 7, "tls_pin_sha256": None}
    assert exchange.open(table, exchange.seal(hub, given)) == given


def test_the_digits_and_the_commitment_are_fixed_functions_of_their_inputs() -> None:
    # pinned: both sides, and the example in docs/protocol.md, compute exactly these
    assert x.digits("11" * 32, "22" * 32, "33" * 16, "44" * 16) == "026990"
    assert x.digits("11" * 32, "22" * 32, "33" * 16, "45" * 16) != "026990"
    assert x.commitment("22" * 32, "11" * 32, "44" * 16) == (
        "1b1f36590a4474e275e97fb8e6306ce5820e448f18bf4a28bd56c5df2d0051de"
    )


def test_a_man_in_the_middle_who_swaps_keys_shows_other_digits_and_cannot_open_the_answer() -> None:
    honest, table, hub, _ = both_sides()
    mallory = x.new_private()
    # The table talks to Mallory as if he were the hub; the hub to Mallory as if the table.
    table_side = x.Exchange(
        honest.request_id,
        honest.table_key,
        x.public_hex(mallory),
        honest.table_nonce,
        x.new_nonce(),
    )
    hub_side = x.Exchange(
        honest.request_id,
        x.public_hex(mallory),
        honest.hub_key,
        honest.table_nonce,
        honest.hub_nonce,
    )
    assert table_side.digits != hub_side.digits
    sealed = hub_side.seal(hub, {"device_id": "t7", "key": "00" * 32, "table": 7})
    with pytest.raises(x.PairingError, match="sealed: does not open"):
        honest.open(table, sealed)


def test_a_nonce_that_is_not_the_committed_one_is_refused() -> None:
    exchange, _, _, commit = both_sides()
    with pytest.raises(x.PairingError, match="nonce: the hub's nonce does not match"):
        x.check_commitment(commit, exchange.hub_key, exchange.table_key, x.new_nonce())


@pytest.mark.parametrize(
    "sealed",
    [
        None,  # not text
        "zz",  # not hex
        "00" * 40,  # hex, but not sealed with the agreed key
        "00" * 2000,  # over the limit
    ],
)
def test_a_sealed_answer_that_does_not_open_is_one_pairing_error(sealed: object) -> None:
    exchange, table, _, _ = both_sides()
    with pytest.raises(x.PairingError, match=r"^sealed: "):
        exchange.open(table, sealed)


@pytest.mark.parametrize(
    "value",
    [None, 7, "AB" * 32, "ab" * 31, "ab" * 32 + "\n"],  # not text; upper case; short; a newline
)
def test_a_key_must_be_64_lower_case_hex_digits(value: object) -> None:
    with pytest.raises(x.PairingError, match=r"^table_key: must be 64 lower-case hex digits"):
        x.key_of(value)
