"""The thresholds a reconciled note states, and the values a page reports for them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recall_operator.domain.thresholds import read_against, reported_values, stated_thresholds


@pytest.mark.parametrize(("text", "above", "bound", "unit"), [
    ("top tenant under about 10% of in-memory series", False, 10.0, "%"),
    ("receiver p99 under 1 s", False, 1.0, "s"),
    ("ETA p99 below ~500 ms", False, 0.5, "s"),
    ("parts per partition well under 150", False, 150.0, ""),
    ("queue depth above 12,000 messages", True, 12000.0, ""),
    ("oldest message more than 10 minutes", True, 600.0, "s"),
    ("migrate_partitions_remaining above 0", True, 0.0, ""),
])
def test_a_stated_threshold_is_read_with_its_direction_bound_and_unit(text, above, bound, unit) -> None:
    [t] = stated_thresholds(text)
    assert (t.above, t.bound, t.unit) == (above, pytest.approx(bound), unit)


def test_a_number_with_no_words_for_its_quantity_states_nothing() -> None:
    assert stated_thresholds("Both hold. Above 80%: add workers.") == []


@pytest.mark.parametrize(("text", "values"), [
    # A tenant id, a zone name, a clock time, a version and a rate's divisor are not values.
    ("top tenant t-2044 at 37% of in-memory series", [37.0]),
    ("zone-a-11 OOM since 07:50 on v1.2, 3,900/5m timeouts", []),
    ("dispatch queue depth 48,210, receiver p99 0.4s", [48210.0, 0.4]),
    # A bound the page states itself is not a reading of its quantity.
    ("more than 2% of requests fail", []),
])
def test_reported_values_are_the_numbers_a_page_gives_for_a_named_quantity(text, values) -> None:
    assert [v.value for v in reported_values(text)] == pytest.approx(values)


@pytest.mark.parametrize(("note", "page", "met"), [
    ("top tenant under about 10% of in-memory series", "max tenant share of in-memory series 7%", True),
    ("top tenant above 25% of in-memory series", "max tenant share of in-memory series 7%", False),
    ("receiver p99 under 1 s", "receiver p99 350ms", True),
    ("receiver p99 under 1 s", "receiver p99 2.5s", False),
])
def test_a_value_for_the_same_quantity_meets_or_misses_the_threshold(note, page, met: bool) -> None:
    [reading] = read_against(stated_thresholds(note), reported_values(page))
    assert reading.met is met


def test_a_reading_says_what_the_page_reported_and_what_the_note_stated() -> None:
    [reading] = read_against(stated_thresholds("a cold cache (origin cache hit ratio under 50%): purge it"),
                             reported_values("resize queue delay 8m; origin cache hit ratio 25%"))
    assert reading.says() == "'origin cache hit ratio 25%' meets 'origin cache hit ratio under 50%'"


@pytest.mark.parametrize("page", [
    "receiver p99 0.4",  # a count, not a time
    "cpu at 7%",  # another quantity: no two words shared
])
def test_another_unit_or_another_quantity_is_no_reading(page: str) -> None:
    assert read_against(stated_thresholds("receiver p99 under 1 s; top tenant under 10% of series"),
                        reported_values(page)) == []


def test_a_long_note_is_read_only_so_far() -> None:
    padding = "words " * 3000
    assert stated_thresholds(padding + "receiver p99 under 1 s") == []


PIECES = ["p99", "under", "over", "above", "at least", "about", "~", "1", "0.4", "48,210", "3,900/5m", "t-2044",
          "07:50", "ms", "s", "%", "of", "tenant", "series", "(", ")", ";", ",", ".", "and", "receiver", "é", "1e9"]


@given(st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join),
       st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join))
def test_any_note_and_page_read_without_error_and_every_bound_and_value_is_a_finite_number(note: str, page: str) -> None:
    thresholds, values = stated_thresholds(note), reported_values(page)
    assert all(math.isfinite(t.bound) and t.quantity for t in thresholds)
    assert all(math.isfinite(v.value) and v.quantity for v in values)
    for reading in read_against(thresholds, values):
        assert reading.threshold.unit == reading.value.unit
        assert reading.says().count("'") >= 4
