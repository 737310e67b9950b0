"""Numbers at the edge of a float: a clear error for an int too large, IEEE for inf exponents."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from autograd_viz import Value


@pytest.mark.parametrize(
    ("make", "digits"),
    [
        (lambda: Value(10**400), 401),
        (lambda: Value(-(10**5000)), 5001),  # past str()'s 4300-digit limit: still counted
        (lambda: Value(2.0) * 10**400, 401),  # an operand, wrapped by the engine
        (lambda: Value(2.0) ** 10**400, 401),  # an exponent
    ],
)
def test_an_int_too_large_for_a_float_says_how_large_and_what_to_write(make, digits):
    with pytest.raises(OverflowError) as info:
        make()
    message = str(info.value)
    assert message.startswith(f"int too large for a float (an int of about {digits} digits)")
    assert "1.8e308" in message and "float('inf') if you mean infinity" in message
    assert "int too large to convert to float" not in message


def test_a_fraction_too_large_for_a_float_is_explained_too():
    with pytest.raises(OverflowError, match=r"^Fraction too large for a float: the largest"):
        Value(Fraction(10**400, 3))


@pytest.mark.parametrize(
    ("base", "exponent", "expected"),
    [(-2.0, math.inf, math.inf), (-2.0, -math.inf, 0.0), (-0.5, math.inf, 0.0)],
)
def test_a_negative_base_to_an_infinite_power_follows_ieee_not_a_fractional_exponent_error(
    base, exponent, expected
):
    # Value(-2) ** inf was refused as "a negative base with a fractional exponent"; inf is no
    # fraction, and Python's floats (IEEE pow) give inf or 0
    assert (Value(base) ** exponent).data == expected == base**exponent


def test_a_nan_exponent_gives_nan_and_a_real_fraction_is_still_refused():
    assert math.isnan((Value(-2.0) ** math.nan).data)
    with pytest.raises(ValueError, match="negative base with a fractional exponent"):
        Value(-8.0) ** (1 / 3)
