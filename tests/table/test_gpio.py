"""The table's GPIO on gpiozero's MockFactory: callbacks only queue stamped edges."""

from __future__ import annotations

import queue
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from klik.core.tabletop import Edge
from klik.table import config as c
from klik.table.hardware.gpio import HardwareError, JudgeEdge, TableGPIO, make_factory
from klik.table.hardware.signals import Outputs


@pytest.fixture
def parts() -> Any:
    clock = iter(float(i) for i in range(100))
    events: queue.Queue[Any] = queue.Queue()
    config = c.load(None)
    gpio = TableGPIO(config, MockFactory(), events, lambda: next(clock))
    yield config, gpio, events
    gpio.close()


def drain(events: queue.Queue[Any]) -> list[Any]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def test_a_press_and_release_become_two_stamped_edges(parts: Any) -> None:
    config, gpio, events = parts
    pin = gpio.factory.pin(config.pins.seat_B_button)
    pin.drive_low()
    pin.drive_high()
    assert drain(events) == [Edge("B", True, 0.0), Edge("B", False, 1.0)]


def test_chatter_is_passed_on_edge_by_edge_for_the_engine_to_settle(parts: Any) -> None:
    config, gpio, events = parts
    pin = gpio.factory.pin(config.pins.seat_A_button)
    for _ in range(5):
        pin.drive_low()
        pin.drive_high()
    assert [e.pressed for e in drain(events)] == [True, False] * 5


def test_all_four_seats_at_once_arrive_in_the_order_they_came(parts: Any) -> None:
    config, gpio, events = parts
    for seat in "DCBA":
        gpio.factory.pin(config.pins.button(seat)).drive_low()
    assert [(e.seat, e.at) for e in drain(events)] == [
        ("D", 0.0),
        ("C", 1.0),
        ("B", 2.0),
        ("A", 3.0),
    ]


def test_the_judge_key_is_its_own_queue_item(parts: Any) -> None:
    config, gpio, events = parts
    gpio.factory.pin(config.pins.judge_key).drive_low()
    assert drain(events) == [JudgeEdge(True, 0.0)]


def test_outputs_reach_the_pins(parts: Any) -> None:
    config, gpio, _ = parts
    gpio.set(Outputs((True, False, False, True), True))
    factory = gpio.factory
    states = [factory.pin(config.pins.led(seat)).state for seat in "ABCD"]
    assert states == [1, 0, 0, 1]
    assert factory.pin(config.pins.buzzer).state == 1
    gpio.set(Outputs((False, False, False, True), False))
    assert factory.pin(config.pins.led("A")).state == 0
    assert factory.pin(config.pins.buzzer).state == 0


def test_a_game_of_three_at_four_seats_turns_the_fourth_led_off(parts: Any) -> None:
    config, gpio, _ = parts
    gpio.set(Outputs((False, False, False, True), False))  # D lit in the table's own game
    gpio.set(Outputs((True, False, False), False))  # a round's table of 3: A, B, C
    states = [gpio.factory.pin(config.pins.led(seat)).state for seat in "ABCD"]
    assert states == [1, 0, 0, 0]
    gpio.set(Outputs((False, True, False, False), False))  # and four seats again
    assert [gpio.factory.pin(config.pins.led(seat)).state for seat in "ABCD"] == [0, 1, 0, 0]


def test_a_factory_that_cannot_start_is_one_clear_error() -> None:
    with pytest.raises(HardwareError) as caught:
        make_factory("lgpio")  # lgpio is not installed off a Pi
    assert 'pin factory "lgpio" cannot start here' in str(caught.value)
    assert 'pin_factory = "mock"' in str(caught.value)


def test_only_the_fitted_seats_motors_are_opened_and_driven() -> None:
    config = c.from_text('[hardware]\nvibration = ["B", "D"]\n')
    factory = MockFactory()
    gpio = TableGPIO(config, factory, queue.Queue(), lambda: 0.0)
    try:
        assert sorted(gpio.motors) == ["B", "D"]
        gpio.set(Outputs((False,) * 4, False, (True, True, False, True)))
        pins = {s: factory.pin(config.pins.vibration(s)).state for s in "ABCD"}
        assert pins == {"A": 0, "B": 1, "C": 0, "D": 1}  # A has no motor: its pin is not driven
        assert gpio.vibrating() == {"A": False, "B": True, "C": False, "D": True}
        gpio.set(Outputs((False,) * 4, False, (False,) * 4))
        assert gpio.vibrating() == dict.fromkeys("ABCD", False)
    finally:
        gpio.close()


def test_a_table_without_motors_leaves_their_pins_free(parts: Any) -> None:
    config, gpio, _ = parts
    assert gpio.motors == {}
    gpio.set(Outputs((True,) * 4, False, (True,) * 4))  # nothing to drive, nothing fails
    assert gpio.factory.pin(config.pins.vibration("A")).function == "input"
