"""The table's GPIO: seat buttons, the judge key, seat LEDs, the buzzer and the seats'
vibration motors (where fitted), through gpiozero.

Button callbacks do one thing: put the raw edge, stamped with the clock, on the engine's
queue. lgpio delivers every pin's edges on one thread, so a slow callback would delay every
seat; gestures (debounce, taps, holds) are decided by the engine, not by gpiozero. So the
buttons are plain ``DigitalInputDevice``s: gpiozero's ``Button`` adds a hold thread per
button that wakes ten times a second, which cost more CPU than the whole idle table.

The pin factory comes from the config: ``lgpio`` (every Pi; the only one on a Pi 5),
``rpigpio`` (RPi.GPIO, Pi 4 and older) or ``mock`` (gpiozero's MockFactory: the virtual
table and the tests). There is no silent fallback: a factory that cannot start is an error.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from gpiozero import LED, Buzzer, DigitalInputDevice, DigitalOutputDevice

from klik.core.tabletop import Edge
from klik.errors import KlikError
from klik.table.config import Config
from klik.table.hardware.signals import Outputs

log = logging.getLogger("klik.table.hardware.gpio")


class HardwareError(KlikError, OSError):
    """The GPIO cannot be used; one line saying which factory or pin and why."""


@dataclass(frozen=True, slots=True)
class PowerFail:
    """The HAT's power-fail line went low at ``at``: the supply is failing."""

    at: float


@dataclass(frozen=True, slots=True)
class JudgeEdge:
    """A raw edge of the judge key; the engine decides tap or hold."""

    pressed: bool
    at: float


def make_factory(name: str) -> Any:
    """The gpiozero pin factory ``name``; raises HardwareError if it cannot start here."""
    try:
        if name == "mock":
            from gpiozero.pins.mock import MockFactory

            return MockFactory()
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        if name == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory

            return RPiGPIOFactory()
    except Exception as error:
        raise HardwareError(
            f'pin factory "{name}" cannot start here ({type(error).__name__}: {error}); '
            'on a laptop use [hardware] pin_factory = "mock" (klik sim does)'
        ) from None
    raise HardwareError(f'pin factory "{name}": allowed are "lgpio", "rpigpio", "mock"')


class TableGPIO:
    """Every GPIO part of the table, opened from the config's pin map."""

    def __init__(
        self,
        config: Config,
        factory: Any,
        events: queue.Queue[Any],
        clock: Callable[[], float],
    ) -> None:
        self.factory = factory
        self.seats = config.seat_letters
        self._clock = clock
        self._dated: float | None = None  # the virtual table's date for the edge it drives
        self._last: Outputs | None = None
        self._devices: list[Any] = []
        pins = config.pins
        try:
            self.buttons = {
                seat: DigitalInputDevice(pins.button(seat), pull_up=True, pin_factory=factory)
                for seat in self.seats
            }
            self._devices += self.buttons.values()
            for seat, button in self.buttons.items():
                button.when_activated = _putter(events, self._stamp, seat, True)
                button.when_deactivated = _putter(events, self._stamp, seat, False)
            self.judge = None
            if config.hardware.judge_key:
                self.judge = DigitalInputDevice(pins.judge_key, pull_up=True, pin_factory=factory)
                self._devices.append(self.judge)
                self.judge.when_activated = lambda: events.put(JudgeEdge(True, self._stamp()))
                self.judge.when_deactivated = lambda: events.put(JudgeEdge(False, self._stamp()))
            self.power_fail = None
            if config.hardware.power_fail_pin:
                # Low when the supply fails (the HAT's open-drain line, our pull-up): only the
                # edge stops the table, so one that starts while the line is low runs on.
                self.power_fail = DigitalInputDevice(
                    config.hardware.power_fail_pin, pull_up=True, pin_factory=factory
                )
                self._devices.append(self.power_fail)
                self.power_fail.when_activated = lambda: events.put(PowerFail(self._stamp()))
            self.leds = [LED(pins.led(seat), pin_factory=factory) for seat in self.seats]
            self._devices += self.leds
            self.buzzer = Buzzer(pins.buzzer, pin_factory=factory)
            self._devices.append(self.buzzer)
            # A coin motor behind an NPN, as an LED is: on or off, the patterns timed by the
            # engine (``klik.table.hardware.signals``). Only the seats fitted with one.
            self.motors = {
                seat: DigitalOutputDevice(pins.vibration(seat), pin_factory=factory)
                for seat in config.hardware.vibration
                if seat in self.seats
            }
            self._devices += self.motors.values()
        except Exception as error:
            self.close()
            raise HardwareError(f"GPIO: cannot open the table's pins ({error})") from None

    def _stamp(self) -> float:
        dated = self._dated
        return self._clock() if dated is None else dated

    @contextmanager
    def dated(self, at: float) -> Iterator[None]:
        """Edges driven inside are dated ``at`` (table clock), not now: the virtual table's
        presses, dated by the sender's clock (``klik.table.sim.hands``). Only a mock pin
        calls back in the thread that drives it, so only it sees the date; the caller drives
        one pin at a time."""
        self._dated = at
        try:
            yield
        finally:
            self._dated = None

    def button_pin(self, seat: str) -> Any:
        """The seat button's pin object (a MockPin in the virtual table: ``drive_low()``)."""
        return self.buttons[seat].pin

    def judge_pin(self) -> Any:
        return None if self.judge is None else self.judge.pin

    def set(self, outputs: Outputs) -> None:
        """Set the LEDs, the buzzer and the motors; only what changed is written."""
        # A round's table of 3 at four seats: the fourth seat's LED is off.
        leds = outputs.leds + (False,) * (len(self.leds) - len(outputs.leds))
        outputs = replace(outputs, leds=leds)
        last = self._last
        for i, on in enumerate(leds):
            if last is None or last.leds[i] != on:
                self.leds[i].value = on
        if last is None or last.buzzer != outputs.buzzer:
            self.buzzer.value = outputs.buzzer
        felt = dict(zip(self.seats, outputs.vibration, strict=False))
        for seat, motor in self.motors.items():
            on = felt.get(seat, False)
            if bool(motor.value) != on:
                motor.value = on
        self._last = outputs

    def vibrating(self) -> dict[str, bool]:
        """Each seat's motor as it is now (a seat without one: always False)."""
        return {seat: bool(m.value) if (m := self.motors.get(seat)) else False
                for seat in self.seats}  # fmt: skip

    def close(self) -> None:
        for device in self._devices:
            try:
                device.close()
            except Exception as error:
                log.warning("GPIO: cannot close %s (%s)", device, error)
        self._devices = []


def _putter(
    events: queue.Queue[Any], clock: Callable[[], float], seat: str, pressed: bool
) -> Callable[[], None]:
    def put() -> None:
        events.put(Edge(seat, pressed, clock()))

    return put
