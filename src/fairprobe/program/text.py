"""The LP-like text form of a :class:`~fairprobe.program.model.PolynomialProgram`: writing and reading.

Writing uses :func:`format_poly` and :func:`format_number`; reading splits the text into sections
(:func:`split_sections`) and reads each line with :func:`read_bound`, :func:`parse_objective` and
:func:`parse_constraint`, every error naming its line and the fix. Building the program is the model's.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from fairprobe.exceptions import ProgramError
from fairprobe.program.polynomial import Monomial, Poly, canonical_items, poly_add

__all__ = ["CONSTRAINT_SENSES", "format_number", "format_poly", "parse_constraint", "parse_objective", "parse_poly",
           "read_bound", "read_number", "split_sections"]

#: The senses a constraint may have.
CONSTRAINT_SENSES = ("<=", ">=", "==")

#: Section headers (lower case) -> the section they open.
_HEADERS = MappingProxyType({"minimize": "objective", "maximize": "objective", "subject to": "constraints",
                             "bounds": "bounds"})

#: Numbered lines of a section: (line number, text without its comment).
Lines = list[tuple[int, str]]


def format_number(x: float) -> str:
    """A number as the text form writes it: whole numbers (below 1e15) without a point, ``inf``, ``-inf``.

    Parameters
    ----------
    x : float

    Returns
    -------
    str

    Examples
    --------
    >>> format_number(2.0), format_number(0.25), format_number(-math.inf)
    ('2', '0.25', '-inf')
    """
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def _mono_str(mono: Monomial, names: Sequence[str]) -> str:
    """A monomial as text, e.g. ``x*y^2``."""
    parts = []
    for i, run in itertools.groupby(mono):
        power = len(list(run))
        parts.append(names[i] if power == 1 else f"{names[i]}^{power}")
    return "*".join(parts)


def format_poly(poly: Mapping[Monomial, float], names: Sequence[str]) -> str:
    """A polynomial as text, its terms in canonical order; ``"0"`` for the zero polynomial.

    Parameters
    ----------
    poly : dict of Monomial to float
    names : sequence of str
        Variable names by index.

    Returns
    -------
    str

    Examples
    --------
    >>> format_poly({(0, 1, 1): 2.0, (): -1.0}, ["x", "y"])
    '-1 + 2*x*y^2'
    """
    if not poly:
        return "0"
    out: list[str] = []
    for k, (mono, coef) in enumerate(canonical_items(poly)):
        sign = "-" if coef < 0 else "+"
        mag = abs(coef)
        if mono:
            body = _mono_str(mono, names) if mag == 1 else f"{format_number(mag)}*{_mono_str(mono, names)}"
        else:
            body = format_number(mag)
        if k == 0:
            out.append(body if sign == "+" else f"-{body}")
        else:
            out.append(f"{sign} {body}")
    return " ".join(out)


# -- parsing helpers ------------------------------------------------------------------------
_TOKEN_RE = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?\b)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\[\]]*)|(?P<op>[-+*^()/]))"
)


def _tokenize(expr: str, lineno: int) -> list[tuple[str, str]]:
    """The ``(kind, text)`` tokens of ``expr``: numbers, names and operators."""
    tokens = []
    pos = 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = _TOKEN_RE.match(expr, pos)
        if not m or m.end() == pos:
            raise ProgramError(
                f"Line {lineno}: cannot read {expr[pos:pos + 20]!r} (at column {pos + 1}); "
                "terms look like '0.5*x*y^2'."
            )
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    return tokens


def _parse_poly_tokens(
    tokens: list[tuple[str, str]], index: Mapping[str, int], lineno: int, what: str
) -> Poly:
    """Parse ``[+-] term ([+-] term)*`` where a term is a product of numbers and powers."""
    poly: Poly = {}
    pos = 0
    if not tokens:
        raise ProgramError(f"Line {lineno}: empty expression in {what}.")
    while pos < len(tokens):
        sign = 1.0
        while pos < len(tokens) and tokens[pos] in (("op", "+"), ("op", "-")):
            if tokens[pos][1] == "-":
                sign = -sign
            pos += 1
        coef = sign
        mono: list[int] = []
        expect_factor = True
        while pos < len(tokens):
            kind, val = tokens[pos]
            if expect_factor:
                if kind == "num":
                    coef *= float(val)
                elif kind == "name":
                    if val not in index:
                        raise ProgramError(
                            f"Line {lineno}: variable {val!r} in {what} is not declared; add a "
                            f"line such as '0 <= {val} <= 1' to the 'bounds' section."
                        )
                    power = 1
                    if pos + 1 < len(tokens) and tokens[pos + 1] == ("op", "^"):
                        if pos + 2 >= len(tokens) or tokens[pos + 2][0] != "num":
                            raise ProgramError(f"Line {lineno}: '^' must be followed by an integer.")
                        p = float(tokens[pos + 2][1])
                        if p != int(p) or p < 1:
                            raise ProgramError(
                                f"Line {lineno}: exponent {tokens[pos + 2][1]} must be a positive integer."
                            )
                        power = int(p)
                        pos += 2
                    mono.extend([index[val]] * power)
                else:
                    raise ProgramError(
                        f"Line {lineno}: unexpected {val!r} in {what}; expected a number or a variable."
                    )
                expect_factor = False
                pos += 1
            elif (kind, val) == ("op", "*"):
                expect_factor = True
                pos += 1
            elif (kind, val) in (("op", "+"), ("op", "-")):
                break
            else:
                raise ProgramError(f"Line {lineno}: unexpected {val!r} in {what}.")
        if expect_factor:
            raise ProgramError(f"Line {lineno}: expression in {what} ends with an operator.")
        if not math.isfinite(coef):
            raise ProgramError(f"Line {lineno}: non-finite coefficient in {what}.")
        key = tuple(sorted(mono))
        value = poly.get(key, 0.0) + coef
        if value == 0.0:
            poly.pop(key, None)
        else:
            poly[key] = value
    return poly


def parse_poly(expr: str, index: Mapping[str, int], lineno: int, what: str) -> Poly:
    """Read a polynomial written as ``[+-] term ([+-] term)*``, a term a product of numbers and powers.

    Parameters
    ----------
    expr : str
    index : mapping of str to int
        Declared variable names -> index.
    lineno : int
        Its line, for the messages.
    what : str
        What the expression is (``"the objective"``, ``"constraint 'c'"``), for the messages.

    Returns
    -------
    Poly
        The polynomial (like terms added, zero terms dropped).

    Raises
    ------
    ProgramError
        For an undeclared variable, a bad exponent or token, or a dangling operator.

    Examples
    --------
    >>> parse_poly("2*x*y - x + 0.5*y^2", {"x": 0, "y": 1}, 1, "the objective")
    {(0, 1): 2.0, (0,): -1.0, (1, 1): 0.5}
    """
    tokens = _tokenize(expr, lineno)
    if len(tokens) == 1 and tokens[0] == ("num", "0"):
        return {}
    return _parse_poly_tokens(tokens, index, lineno, what)


def _split_fraction(expr: str) -> tuple[str, str] | None:
    """``(num) / (den)`` -> (num, den); None when the objective is not fractional."""
    s = expr.strip()
    if not s.startswith("("):
        return None
    depth = 0
    for k, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            rest = s[k + 1 :].strip()
            if not rest.startswith("/"):
                return None
            den = rest[1:].strip()
            if not (den.startswith("(") and den.endswith(")")):
                return None
            return s[1:k], den[1:-1]
    return None


_CONSTRAINT_RE = re.compile(r"^(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*:\s*)?(?P<body>.*)$")
_BOUND_RE = re.compile(
    r"^(?P<lo>\S+)\s*<=\s*(?P<name>[A-Za-z_][A-Za-z0-9_.\[\]]*)\s*<=\s*(?P<hi>\S+)"
    r"(?:\s+(?P<integer>integer))?$"
)


def read_number(s: str, lineno: int) -> float:
    """A bound's number (``inf`` and ``-inf`` allowed, NaN refused).

    Parameters
    ----------
    s : str
    lineno : int
        Its line, for the messages.

    Returns
    -------
    float

    Raises
    ------
    ProgramError
        When ``s`` is not a number, or is NaN.

    Examples
    --------
    >>> read_number("-inf", 3)
    -inf
    """
    try:
        value = float(s)
    except ValueError:
        raise ProgramError(f"Line {lineno}: {s!r} is not a number.") from None
    if math.isnan(value):
        raise ProgramError(f"Line {lineno}: NaN is not a valid bound.")
    return value


def split_sections(text: str) -> dict[str, Lines]:
    r"""The program's lines by section, comments and blank lines dropped, the section order checked.

    Parameters
    ----------
    text : str

    Returns
    -------
    dict of str to list of (int, str)
        ``"objective"``, ``"constraints"`` and ``"bounds"`` (those present) -> their numbered lines,
        and ``"sense"`` -> ``[(line, "max" | "min")]``.

    Raises
    ------
    ProgramError
        For a repeated section, text before the first, no objective, or sections out of order.

    Examples
    --------
    >>> split_sections("maximize\n  x  # the gain\nbounds\n  0 <= x <= 1")
    {'objective': [(2, 'x')], 'sense': [(1, 'max')], 'bounds': [(4, '0 <= x <= 1')]}
    """
    sections: dict[str, Lines] = {}
    order: list[str] = []
    current: str | None = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        low = line.lower()
        header = _HEADERS.get(low)
        if header:
            if header in sections:
                raise ProgramError(f"Line {lineno}: section {line!r} appears twice.")
            sections[header] = []
            order.append(header)
            current = header
            if header == "objective":
                sections["sense"] = [(lineno, "max" if low == "maximize" else "min")]
            continue
        if current is None:
            raise ProgramError(
                f"Line {lineno}: text before the first section; a program starts with "
                "'minimize' or 'maximize'."
            )
        sections[current].append((lineno, line))
    if "objective" not in sections:
        raise ProgramError("The program has no 'minimize' or 'maximize' section.")
    expected = [s for s in ("objective", "constraints", "bounds") if s in sections]
    if order != expected:
        raise ProgramError(
            "Sections must appear in the order 'minimize/maximize', 'subject to', 'bounds'."
        )
    return sections


def read_bound(lineno: int, line: str) -> tuple[str, str, str, bool]:
    """The parts of a bounds line ``lo <= name <= hi [integer]``, the numbers still as text.

    The caller reads the numbers (:func:`read_number`) where it declares the variable, so that their errors
    carry the declaration's prefix.

    Parameters
    ----------
    lineno : int
        The line's number, for the message.
    line : str

    Returns
    -------
    name : str
    lo, hi : str
        The bounds as written.
    integer : bool
        Whether the line ends in ``integer``.

    Raises
    ------
    ProgramError
        When the line does not read ``lo <= name <= hi``.

    Examples
    --------
    >>> read_bound(5, "0 <= z <= 1 integer")
    ('z', '0', '1', True)
    """
    m = _BOUND_RE.match(line)
    if not m:
        raise ProgramError(
            f"Line {lineno}: a bound reads 'lo <= name <= hi' (optionally followed by 'integer'); "
            f"got {line!r}."
        )
    return m["name"], m["lo"], m["hi"], m["integer"] is not None


def parse_objective(lines: Lines, index: Mapping[str, int]) -> tuple[Poly, Poly | None]:
    """The objective, a polynomial or ``(numerator) / (denominator)``; its lines are joined first.

    Parameters
    ----------
    lines : list of (int, str)
        The objective section's numbered lines.
    index : mapping of str to int
        Declared variable names -> index.

    Returns
    -------
    objective : Poly
        The objective (its numerator when fractional).
    denominator : Poly or None
        None when the objective is not fractional.

    Raises
    ------
    ProgramError
        For an empty section, a zero denominator or an expression that does not parse.

    Examples
    --------
    >>> parse_objective([(2, "(x + 1) /"), (3, "(y + 1)")], {"x": 0, "y": 1})
    ({(0,): 1.0, (): 1.0}, {(1,): 1.0, (): 1.0})
    """
    if not lines:
        raise ProgramError("The objective section is empty.")
    lineno = lines[0][0]
    text = " ".join(line for _, line in lines)
    frac = _split_fraction(text)
    if not frac:
        return parse_poly(text, index, lineno, "the objective"), None
    num = parse_poly(frac[0], index, lineno, "the objective numerator")
    den = parse_poly(frac[1], index, lineno, "the objective denominator")
    if not den:
        raise ProgramError(f"Line {lineno}: the objective denominator is zero.")
    return num, den


def parse_constraint(lineno: int, line: str, index: Mapping[str, int]) -> tuple[Poly, str, float, str | None]:
    """A constraint line ``[name:] lhs <sense> rhs``, with every variable on the left and the constant on the right.

    Parameters
    ----------
    lineno : int
        The line's number, for the messages.
    line : str
    index : mapping of str to int
        Declared variable names -> index.

    Returns
    -------
    poly : Poly
        ``lhs - rhs`` without its constant.
    sense : {"<=", ">=", "=="}
    rhs : float
        The constant moved to the right-hand side.
    name : str or None

    Raises
    ------
    ProgramError
        For a line without exactly one sense, or a side that does not parse.

    Examples
    --------
    >>> parse_constraint(4, "budget: x + y + 1 <= 2*y", {"x": 0, "y": 1})
    ({(0,): 1.0, (1,): -1.0}, '<=', -1.0, 'budget')
    """
    m = _CONSTRAINT_RE.match(line)
    name, body = (m["name"], m["body"]) if m else (None, line)
    found = [op for op in CONSTRAINT_SENSES if op in body]
    if len(found) != 1 or body.count(found[0]) != 1:
        raise ProgramError(
            f"Line {lineno}: a constraint needs exactly one of '<=', '>=', '=='; got {line!r}."
        )
    lhs_text, rhs_text = body.split(found[0])
    what = f"constraint {name!r}" if name else "a constraint"
    lhs = parse_poly(lhs_text, index, lineno, what)
    rhs = parse_poly(rhs_text, index, lineno, what)
    lhs = poly_add(lhs, rhs, -1.0)
    rhs_const = -lhs.pop((), 0.0)  # constants live on the right-hand side
    return lhs, found[0], rhs_const, name
