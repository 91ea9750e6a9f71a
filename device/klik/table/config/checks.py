"""Whole-config rules, once every key is in its range (``schema.build``): pure, no I/O.

How the game's and the buttons' settings fit together (the engine's own check, in the
config's words: ``[game] warn_s``), that every part has a pin of its own and none sits on a
bus, and that a link which is on has what pairing gives. Each refusal is one ConfigError
line naming the file and the key.
"""

from __future__ import annotations

from klik.core.limits import GESTURES
from klik.errors import InputError
from klik.table.config.schema import Config, HubSection
from klik.table.config.types import ConfigError, as_toml

#: Pins no seat part may take: the ID EEPROM (0, 1), I2C1 (2, 3) and the shutdown button the
#: firmware's gpio-shutdown overlay owns (4, hardware/pinmap.toml) always; the UART (14, 15)
#: for the serial radio; SPI0 (7–11) only when a panel is on SPI.
RESERVED_PINS = {
    0: "ID EEPROM",
    1: "ID EEPROM",
    2: "I2C SDA",
    3: "I2C SCL",
    4: "shutdown button (gpio-shutdown in config.txt)",
}
UART_PINS = {14: "UART TXD", 15: "UART RXD"}
SPI_PINS = {7: "SPI CE1", 8: "SPI CE0", 9: "SPI MISO", 10: "SPI MOSI", 11: "SPI SCLK"}


def check(config: Config, source: str) -> None:
    """Raise ConfigError, one line naming ``source``, for the first rule ``config`` breaks:
    the engine's settings, then the pins, then the link to the hub."""
    try:
        config.settings().check(name=_setting)
    except InputError as error:
        raise ConfigError(f"{source}: {error}") from None
    _check_seats(config, source)
    spi = any(config.panels.seat(seat).interface == "spi" for seat in config.seat_letters)
    _check_pins(config, source, spi=spi)
    _check_hub(config.hub, source)


def _setting(key: str) -> str:
    """An engine setting's name as the config file has it: ``warn_s`` is ``[game] warn_s``."""
    if key in GESTURES:
        return f"[buttons] {key}"
    return "[table] seats" if key == "seats" else f"[game] {key}"


def _check_seats(config: Config, source: str) -> None:
    """A seat listed for large type or a motor is a seat of this table."""
    seats = config.seat_letters
    for key, listed in (("[table] large", config.table.large),
                        ("[hardware] vibration", config.hardware.vibration)):  # fmt: skip
        for seat in listed:
            if seat not in seats:
                raise ConfigError(
                    f"{source}: {key} = {as_toml(list(listed))}: seat {seat} is not at this "
                    f"table ([table] seats = {len(seats)}: {', '.join(seats)})"
                )


def _check_pins(config: Config, source: str, spi: bool) -> None:
    used: dict[int, str] = {}
    names = [f"seat_{s}_{part}" for s in config.seat_letters for part in ("button", "led")]
    names += [f"seat_{s}_vibration" for s in config.hardware.vibration]
    names += ["buzzer"] + (["judge_key"] if config.hardware.judge_key else [])
    parts = [(f"[pins] {name}", int(getattr(config.pins, name))) for name in names]
    if config.hardware.power_fail_pin:
        parts.append(("[hardware] power_fail_pin", config.hardware.power_fail_pin))
    taken = {**RESERVED_PINS, **UART_PINS, **(SPI_PINS if spi else {})}
    for name, pin in parts:
        if pin in taken:
            raise ConfigError(f"{source}: {name} = {pin}: GPIO {pin} is the {taken[pin]} pin")
        if pin in used:
            raise ConfigError(
                f"{source}: {name} = {pin}: GPIO {pin} is already {used[pin]}; "
                "every part needs a pin of its own"
            )
        used[pin] = name


def _check_hub(hub: HubSection, source: str) -> None:
    """A link that is on needs what pairing gives (and, over http, the hub's address); an
    http link with nothing from pairing asks to join: the hub at its address, or one found
    on the network (DNS-SD) when it has none."""
    if hub.link == "off":
        return
    needs = f'[hub] link = "{hub.link}" needs'
    if not hub.asks_to_join:  # else it asks the hub to join: the judge's accept gives the rest
        _check_paired(hub, source, needs)
    if hub.link != "http":
        return
    if not hub.url and not hub.finds_hub:
        raise ConfigError(
            f'{source}: [hub] url is missing: {needs} the hub\'s address, e.g. "http://10.0.0.5:8000"'
        )
    if hub.tls_pin_sha256 and not hub.url.startswith("https://"):
        # Over plain http a pin checks nothing: say so rather than let the organiser believe
        # the link is pinned.
        raise ConfigError(
            f"{source}: [hub] tls_pin_sha256 is set but [hub] url = {as_toml(hub.url)} is not "
            "https://; a pinned certificate needs an https:// address"
        )


def _check_paired(hub: HubSection, source: str, needs: str) -> None:
    if hub.table == 0:
        raise ConfigError(
            f"{source}: [hub] table is missing: {needs} the table's number at the tournament, "
            "1 to 999 (run klik pair)"
        )
    if not hub.device_id:
        raise ConfigError(
            f"{source}: [hub] device_id is missing: {needs} the device id from pairing "
            "(run klik pair)"
        )
    if not hub.key:
        raise ConfigError(
            f"{source}: [hub] key is missing: {needs} the key from pairing (run klik pair)"
        )
