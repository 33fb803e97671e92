"""Sparse polynomials as dicts: arithmetic identities, evaluation and canonical order."""

from __future__ import annotations

import pytest

from fairprobe.program.polynomial import (
    canonical_items,
    constant,
    degree,
    evaluate,
    monomial_mul,
    poly_add,
    poly_mul,
    poly_scale,
    variable,
    variables_of,
)

X, Y, Z = variable(0), variable(1), variable(2)


def test_constant_and_variable() -> None:
    assert constant(2) == {(): 2.0}
    assert isinstance(constant(3)[()], float)
    assert constant(0) == {}
    assert variable(4, -1.5) == {(4,): -1.5}


def test_monomial_mul_merges_sorted_and_keeps_the_constant_neutral() -> None:
    assert monomial_mul((0, 3), (1, 3)) == (0, 1, 3, 3)
    assert monomial_mul((), (2,)) == (2,)
    assert monomial_mul((2,), ()) == (2,)
    assert monomial_mul((), ()) == ()


def test_add_drops_cancelled_terms_and_does_not_mutate() -> None:
    a = {(0,): 1.0, (): 2.0}
    b = {(0,): 1.0, (1,): 3.0}
    out = poly_add(a, b, scale=-1.0)
    assert out == {(): 2.0, (1,): -3.0}
    assert a == {(0,): 1.0, (): 2.0} and b == {(0,): 1.0, (1,): 3.0}
    assert poly_add(a, a, scale=-1.0) == {}


def test_add_is_commutative_and_zero_is_neutral() -> None:
    p = {(0, 1): 2.0, (): -1.0}
    q = {(1,): 0.5, (0, 1): 1.0}
    assert poly_add(p, q) == poly_add(q, p) == {(0, 1): 3.0, (): -1.0, (1,): 0.5}
    assert poly_add(p, {}) == p


def test_scale() -> None:
    assert poly_scale({(0,): 1.5, (): 1.0}, -2) == {(0,): -3.0, (): -2.0}
    assert poly_scale({(0,): 1.5}, 0) == {}


def test_square_of_a_sum() -> None:
    s = poly_add(X, Y)
    assert poly_mul(s, s) == {(0, 0): 1.0, (0, 1): 2.0, (1, 1): 1.0}


def test_difference_of_squares_cancels_the_cross_terms() -> None:
    assert poly_mul(poly_add(X, Y), poly_add(X, Y, scale=-1)) == {(0, 0): 1.0, (1, 1): -1.0}


def test_multiplication_is_commutative_associative_and_distributive() -> None:
    p = {(0,): 2.0, (): 1.0}
    q = {(1,): -1.0, (0, 2): 0.5}
    r = {(2,): 3.0, (): -2.0}
    assert poly_mul(p, q) == poly_mul(q, p)
    assert poly_mul(poly_mul(p, q), r) == pytest.approx(poly_mul(p, poly_mul(q, r)))
    left = poly_mul(p, poly_add(q, r))
    right = poly_add(poly_mul(p, q), poly_mul(p, r))
    assert left.keys() == right.keys()
    assert all(left[m] == pytest.approx(right[m]) for m in left)


def test_one_and_zero_under_multiplication() -> None:
    p = {(0, 1): 2.0, (): -1.0}
    assert poly_mul(p, constant(1)) == p
    assert poly_mul(p, {}) == {}


def test_degree_and_variables() -> None:
    p = {(0, 0, 3): 1.0, (1,): 2.0, (): 5.0}
    assert degree(p) == 3
    assert degree(constant(4)) == 0
    assert degree({}) == 0
    assert variables_of(p) == {0, 1, 3}
    assert variables_of(constant(4)) == set()


def test_evaluate_known_value() -> None:
    p = {(0, 0): 1.0, (1,): -2.0, (): 0.5}  # x0**2 - 2 x1 + 0.5
    assert evaluate(p, [3.0, 1.0]) == 7.5
    assert evaluate({}, [1.0]) == 0.0
    assert evaluate(constant(2.5), []) == 2.5


def test_evaluate_is_a_ring_homomorphism() -> None:
    p = {(0,): 2.0, (0, 1): -1.0, (): 1.0}
    q = {(1, 1): 0.5, (2,): 3.0}
    point = [0.3, -1.2, 2.0]
    assert evaluate(poly_mul(p, q), point) == pytest.approx(evaluate(p, point) * evaluate(q, point))
    assert evaluate(poly_add(p, q, scale=2.0), point) == pytest.approx(evaluate(p, point) + 2 * evaluate(q, point))
    assert evaluate(poly_scale(p, -3.0), point) == pytest.approx(-3 * evaluate(p, point))


def test_evaluate_accepts_a_mapping_by_index() -> None:
    assert evaluate({(5,): 2.0}, {5: 4.0}) == 8.0


def test_canonical_items_order_by_degree_then_lexicographic() -> None:
    p = {(1, 1): 1.0, (2,): 3.0, (): 4.0, (0,): 2.0, (0, 2): 5.0}
    assert [m for m, _ in canonical_items(p)] == [(), (0,), (2,), (0, 2), (1, 1)]
    assert dict(canonical_items(p)) == p
