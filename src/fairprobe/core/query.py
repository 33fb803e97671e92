"""The constraint and query grammar, parsed (never ``eval``-ed) into sympy expressions.

Grammar::

    constraint := expr ("<=" | ">=" | "==") expr
    expr       := term (("+" | "-") term)*
    term       := factor (("*" | "/") factor)*
    factor     := ("+" | "-") factor | NUMBER | PARAMETER | "P(" event ["|" event] ")" | "(" expr ")"
    event      := atom ("&" atom)*
    atom       := NAME ["(" NAME "=" VALUE ("," NAME "=" VALUE)* ")"] ("=" | "!=") VALUE
    VALUE      := CODE | "#" CODE | LABEL | "'" LABEL "'" | '"' LABEL '"'

A value is a code (``0..k-1``) or a label of the data (``A = Caucasian``, ``A = 'African-American'``);
``#1`` is always the code 1 (:func:`query_in_codes` reads values against a table's labels).
``A != 2`` is the union of the other values of ``A``: ``P(P = 1 | Y = 0 & A != 2)`` is the rate of
everyone outside group 2. ``P(...)`` atoms become sympy symbols ``_p0, _p1, ...`` (their meaning in
:attr:`ParsedExpression.atoms`); any other name is a sensitivity parameter (``D``, ``D_selection``).
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from fairprobe.exceptions import ConfigError

__all__ = [
    "Atom",
    "ParsedConstraint",
    "ParsedExpression",
    "ProbabilityAtom",
    "parse_constraint",
    "parse_expression",
    "query_in_codes",
    "show_value",
]


@dataclass(frozen=True)
class Atom:
    """``var = value``, or the counterfactual ``var(do) = value`` when ``intervention`` is set.

    ``negated`` makes it ``var != value``: the variable takes any of its other values.

    Parameters
    ----------
    var : str
    value : int or str
    intervention : tuple of (str, int or str)
        Sorted ``(node, value)`` pairs of the intervention ``do(...)``; empty for a factual atom.
    negated : bool
        ``var != value`` instead of ``var = value``.

    Examples
    --------
    >>> a = Atom("Y", 1, (("T", 1),))
    >>> str(a), a
    ('Y(T=1) = 1', Atom(var='Y', value=1, intervention=(('T', 1),)))
    >>> str(Atom("A", 2, negated=True))
    'A != 2'
    """

    var: str
    value: int | str
    intervention: tuple[tuple[str, int | str], ...] = ()
    negated: bool = False

    @property
    def op(self) -> str:
        """The comparison operator: ``"!="`` for a negated atom, else ``"="``.

        Examples
        --------
        >>> Atom("A", 2).op, Atom("A", 2, negated=True).op
        ('=', '!=')
        """
        return "!=" if self.negated else "="

    def __str__(self) -> str:
        if self.intervention:
            do = ",".join(f"{k}={v}" for k, v in self.intervention)
            return f"{self.var}({do}) {self.op} {self.value}"
        return f"{self.var} {self.op} {self.value}"

    def __repr__(self) -> str:
        extra = f", intervention={self.intervention!r}" if self.intervention else ""
        if self.negated:
            extra += ", negated=True"
        return f"Atom(var={self.var!r}, value={self.value!r}{extra})"


@dataclass(frozen=True)
class ProbabilityAtom:
    """``P(event | given)``; ``given`` empty for a marginal probability.

    Parameters
    ----------
    event : tuple of Atom
        The conjunction whose probability is taken.
    given : tuple of Atom
        The conditioning conjunction (empty for a marginal probability).

    Examples
    --------
    >>> str(ProbabilityAtom((Atom("P", 1),), (Atom("A", 0),)))
    'P(P = 1 | A = 0)'
    """

    event: tuple[Atom, ...]
    given: tuple[Atom, ...] = ()

    def __str__(self) -> str:
        ev = " & ".join(map(str, self.event))
        return f"P({ev} | {' & '.join(map(str, self.given))})" if self.given else f"P({ev})"

    @property
    def variables(self) -> set[str]:
        """Variables named anywhere in the atom (interventions included).

        Examples
        --------
        >>> sorted(ProbabilityAtom((Atom("Y", 0, (("T", 1),)),), (Atom("A", 0),)).variables)
        ['A', 'T', 'Y']
        """
        out = set()
        for a in (*self.event, *self.given):
            out.add(a.var)
            out.update(k for k, _ in a.intervention)
        return out


@dataclass
class ParsedExpression:
    """A sympy expression over probability symbols and parameters.

    Parameters
    ----------
    expr : sympy.Expr
        The expression; probability ``k`` is the symbol ``_pk``.
    atoms : list of ProbabilityAtom
        The meaning of each probability symbol.
    source : str
        The text it was parsed from.

    Examples
    --------
    >>> e = parse_expression("P(P = 1 | A = 0) - P(P = 1 | A = 1)")
    >>> e.expr, str(e.atoms[1])
    (_p0 - _p1, 'P(P = 1 | A = 1)')
    """

    expr: sympy.Expr
    atoms: list[ProbabilityAtom] = field(default_factory=list)
    source: str = ""

    def __deepcopy__(self, memo: dict) -> ParsedExpression:
        # sympy expressions and atoms are immutable: share them, copy the list (a config is deep-copied
        # per bias it hands out, and copying the expressions was most of that)
        out = copy.copy(self)
        out.atoms = list(self.atoms)
        memo[id(self)] = out
        return out

    @property
    def symbols(self) -> list[sympy.Symbol]:
        """The probability symbols ``_p0, _p1, ...``, aligned with :attr:`atoms`.

        Examples
        --------
        >>> parse_expression("P(P = 1 | A = 0) - P(P = 1 | A = 1)").symbols
        [_p0, _p1]
        """
        return [sympy.Symbol(f"_p{k}") for k in range(len(self.atoms))]

    @property
    def parameters(self) -> set[sympy.Symbol]:
        """Sensitivity parameters used (every free symbol that is not a probability).

        Examples
        --------
        >>> parse_constraint("P(S = 1) >= 1 - D").parameters
        {D}
        """
        probs = set(self.symbols)
        return {s for s in self.expr.free_symbols if s not in probs}

    @property
    def variables(self) -> set[str]:
        """DAG variables named in any probability, intervened ones included.

        Examples
        --------
        >>> sorted(parse_expression("P(P = 1 | Y(T=1) = 0 & A = 0)").variables)
        ['A', 'P', 'T', 'Y']
        """
        out: set[str] = set()
        for a in self.atoms:
            out |= a.variables
        return out


@dataclass
class ParsedConstraint(ParsedExpression):
    """``expr sense 0`` (the right-hand side already moved to the left).

    Parameters
    ----------
    expr : sympy.Expr
        ``lhs - rhs``.
    atoms, source :
        As for :class:`ParsedExpression`.
    sense : str

        ``"<="``, ``">="`` or ``"=="``.

    Examples
    --------
    >>> c = parse_constraint("P(S = 1) >= 1 - D")
    >>> c.expr, c.sense
    (D + _p0 - 1, '>=')
    """

    sense: str = "<="


_TOKEN_RE = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<code>#\d+)|(?P<str>'[^']*'|\"[^\"]*\")"
    r"|(?P<op><=|>=|==|!=|[-+*/()|&=,]))"
)


#: Longest expression read (characters); sympy slows down quadratically on very long sums.
MAX_LENGTH = 20_000
#: Deepest nesting of parentheses and signs (the parser is recursive).
MAX_DEPTH = 100
#: Highest total degree in probabilities (a product of this many ``P(...)``); the compiler expands
#: products over response types, which grows exponentially with the degree.
MAX_DEGREE = 8
#: Largest magnitude of a number literal (beyond it a float coefficient overflows).
MAX_NUMBER = sympy.Integer(10) ** 300

_Term = tuple[sympy.Expr, int]  # an expression and its degree in probabilities


class _Parser:
    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise ConfigError(f"Expected an expression string such as 'P(S = 1) >= 1 - D'; got "
                              f"{type(text).__name__} {text!r}.")
        if not text.strip():
            raise ConfigError("Empty expression; write e.g. 'P(S = 1) >= 1 - D'.")
        if len(text) > MAX_LENGTH:
            raise ConfigError(f"The expression is {len(text)} characters long; fairprobe reads at most {MAX_LENGTH}. "
                              "Shorten it (a registered metric, or a metric with groups='all', builds long queries "
                              "for you).")
        self.text = text
        self.depth = 0
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        stripped = text.rstrip()
        while pos < len(stripped):
            m = _TOKEN_RE.match(stripped, pos)
            if not m or m.end() == pos:
                pos += len(stripped[pos:]) - len(stripped[pos:].lstrip())
                self.fail(pos, f"unexpected character {stripped[pos]!r}")
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0
        self.atoms: list[ProbabilityAtom] = []

    def fail(self, pos: int, why: str) -> None:
        # one line (the command line prints errors on one line): the text, and what stands at the column
        shown = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        rest = self.text[pos:].strip()
        where = f"at {rest[:20] + ('...' if len(rest) > 20 else '')!r}" if rest else "at the end"
        raise ConfigError(f"Cannot parse {shown!r} at column {pos + 1}: {why} ({where}).")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def at_end_pos(self) -> int:
        return len(self.text.rstrip())

    def take(self, value: str | None = None, kind: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            self.fail(self.at_end_pos(), f"expected {value or kind} but the text ended")
        if (value is not None and tok[1] != value) or (kind is not None and tok[0] != kind):
            self.fail(tok[2], f"expected {value or kind}, found {tok[1]!r}")
        self.i += 1
        return tok

    # expr := term (("+"|"-") term)*
    def expr(self) -> _Term:
        out, deg = self.term()
        while (tok := self.peek()) and tok[1] in "+-" and tok[0] == "op":
            self.i += 1
            rhs, rdeg = self.term()
            out = out + rhs if tok[1] == "+" else out - rhs
            deg = max(deg, rdeg)
        return out, deg

    def term(self) -> _Term:
        out, deg = self.factor()
        while (tok := self.peek()) and tok[0] == "op" and tok[1] in ("*", "/"):
            self.i += 1
            rhs, rdeg = self.factor()
            if tok[1] == "*":
                out, deg = out * rhs, deg + rdeg
                if deg > MAX_DEGREE:
                    self.fail(tok[2], f"the expression multiplies more than {MAX_DEGREE} probabilities together, "
                                      "more than fairprobe expands; simplify it")
                continue
            if rdeg > 0:
                self.fail(tok[2], "dividing by a probability is not polynomial in probabilities; write a "
                                  "conditional probability such as P(Y = 1 | A = 0) instead of a ratio")
            if rhs.free_symbols:
                names = ", ".join(sorted(map(str, rhs.free_symbols)))
                self.fail(tok[2], f"dividing by {names} is not supported (programs must be polynomial); divide only "
                                  "by numbers, e.g. multiply both sides of a constraint by the parameter instead")
            if rhs == 0:
                self.fail(tok[2], "division by zero")
            out = out / rhs
        return out, deg

    def factor(self) -> _Term:
        tok = self.peek()
        if tok is None:
            self.fail(self.at_end_pos(), "expected a number, a parameter or P(...)")
        kind, val, pos = tok
        if kind == "op" and val in "+-(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self.fail(pos, f"the expression is nested more than {MAX_DEPTH} levels deep; simplify it")
            self.i += 1
            if val == "(":
                inner = self.expr()
                self.take(")")
            else:
                inner = self.factor()
            self.depth -= 1
            return inner if val != "-" else (-inner[0], inner[1])
        if kind == "num":
            self.i += 1
            number = sympy.Rational(val) if re.fullmatch(r"\d+(\.\d*)?|\.\d+", val) else sympy.Float(val)
            if abs(number) > MAX_NUMBER:
                self.fail(pos, f"the number {val[:20]}{'...' if len(val) > 20 else ''} is too large (at most 1e300)")
            return number, 0
        if kind == "name":
            nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
            if val == "P" and nxt is not None and nxt[1] == "(":
                return self.probability(), 1
            if nxt is not None and nxt[1] == "(":
                self.fail(pos, f"{val}(...) is not a function fairprobe knows; write probabilities as P(...), "
                               "with a capital P")
            self.i += 1
            return sympy.Symbol(val), 0
        self.fail(pos, f"unexpected {val!r}")
        raise AssertionError  # pragma: no cover

    def probability(self) -> sympy.Expr:
        self.take("P")
        self.take("(")
        event = self.event()
        given: tuple[Atom, ...] = ()
        if (tok := self.peek()) and tok[1] == "|":
            self.i += 1
            given = self.event()
        self.take(")")
        atom = ProbabilityAtom(event, given)
        if atom in self.atoms:
            k = self.atoms.index(atom)
        else:
            self.atoms.append(atom)
            k = len(self.atoms) - 1
        return sympy.Symbol(f"_p{k}")

    def event(self) -> tuple[Atom, ...]:
        atoms = [self.atom()]
        while (tok := self.peek()) and tok[1] == "&":
            self.i += 1
            atoms.append(self.atom())
        seen: dict[tuple, int | str] = {}
        for a in atoms:
            key = (a.var, a.intervention)
            if a.negated:
                continue
            if key in seen and seen[key] != a.value:
                self.fail(self.tokens[self.i - 1][2], f"the event asks {a.var} to take two values")
            seen[key] = a.value
        for a in atoms:
            if a.negated and seen.get((a.var, a.intervention), object()) == a.value:
                self.fail(self.tokens[self.i - 1][2], f"the event asks {a.var} to be {a.value} and not {a.value}")
        return tuple(dict.fromkeys(atoms))

    def value(self, op: str = "=") -> int | str:
        tok = self.peek()
        if tok is None or tok[0] not in ("num", "name", "code", "str"):
            self.fail(tok[2] if tok else self.at_end_pos(), f"expected a value after '{op}'")
        self.i += 1
        if tok[0] == "code":
            return int(tok[1][1:])
        if tok[0] == "str":  # a label; query_in_codes turns it into its code against a table
            return tok[1][1:-1]
        if tok[0] == "num":
            if not re.fullmatch(r"\d+", tok[1]):
                self.fail(tok[2], f"value {tok[1]} must be a non-negative integer or a category name")
            return int(tok[1])
        return tok[1]

    def atom(self) -> Atom:
        _, var, _pos = self.take(kind="name")
        do: list[tuple[str, int | str]] = []
        if (tok := self.peek()) and tok[1] == "(":
            self.i += 1
            while True:
                _, name, _ = self.take(kind="name")
                self.take("=")
                do.append((name, self.value()))
                if (tok := self.peek()) and tok[1] == ",":
                    self.i += 1
                    continue
                break
            self.take(")")
        tok = self.peek()
        if tok is None:
            self.fail(self.at_end_pos(), "expected = or != but the text ended")
        if tok[1] not in ("=", "!="):
            self.fail(tok[2], f"expected = or !=, found {tok[1]!r}")
        self.i += 1
        return Atom(var, self.value(tok[1]), tuple(sorted(do)), negated=tok[1] == "!=")

    def done(self) -> None:
        if (tok := self.peek()) is not None:
            self.fail(tok[2], f"unexpected {tok[1]!r} after a complete expression")


def _finite(p: _Parser, expr: sympy.Expr) -> None:
    if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ConfigError(f"{p.text!r} divides by zero (it simplifies to {expr}); remove the division or "
                          "divide by a nonzero number.")


def parse_expression(text: str) -> ParsedExpression:
    """Parse a query such as ``"P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A = 1)"``.

    A query is a polynomial (degree at most :data:`MAX_DEGREE`) in probabilities with numeric
    coefficients: it may not divide by a probability or by zero, nor use sensitivity parameters
    (a metric is a property of the model, not of the bias).

    Parameters
    ----------
    text : str

    Returns
    -------
    ParsedExpression
        Its expression and probability atoms.

    Raises
    ------
    ConfigError
        For any text that is not such a query; never another exception type.

    Examples
    --------
    >>> e = parse_expression("P(P = 1 | Z = 0 & A = 0) - P(P = 1 | Z = 0 & A = 1)")
    >>> e.expr, [str(a) for a in e.atoms]
    (_p0 - _p1, ['P(P = 1 | Z = 0 & A = 0)', 'P(P = 1 | Z = 0 & A = 1)'])
    >>> parse_expression("P(P = 1) - D")
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: The query 'P(P = 1) - D' uses ['D'], which are not probabilities: ...
    """
    if not isinstance(text, str):
        _Parser(text)  # its message for what is not text (the cache below needs a string)
    parsed = _parsed_expression(text)
    return ParsedExpression(parsed.expr, list(parsed.atoms), parsed.source)  # the caller's own atom list


@functools.lru_cache(maxsize=1024)
def _parsed_expression(text: str) -> ParsedExpression:
    # queries are parsed again by every compilation of a sweep, a bootstrap or a metric's pairs: once is enough
    # (sympy expressions and atoms are immutable; errors are raised, never cached)
    p = _Parser(text)
    expr, _ = p.expr()
    if (tok := p.peek()) and tok[1] in ("<=", ">=", "=="):
        p.fail(tok[2], "a query is an expression without a comparison")
    p.done()
    _finite(p, expr)
    parsed = ParsedExpression(expr, p.atoms, text)
    names = sorted(map(str, parsed.parameters))
    if names:
        raise ConfigError(
            f"The query {text!r} uses {names}, which are not probabilities: a metric may only combine P(...) "
            "terms and numbers. Put sensitivity parameters such as D in the bias's constraints, and write "
            "events inside P(...), e.g. P(P = 1 | A = 0).")
    return parsed


def parse_constraint(text: str) -> ParsedConstraint:
    """Parse ``lhs op rhs`` (op one of ``<=``, ``>=``, ``==``) into ``lhs - rhs op 0``.

    Parameters
    ----------
    text : str

    Returns
    -------
    ParsedConstraint
        ``lhs - rhs``, its atoms and the comparison.

    Raises
    ------
    ConfigError
        For text that is not a polynomial constraint in probabilities (see :func:`parse_expression`;
        parameters are allowed here); never another exception type.

    Examples
    --------
    >>> c = parse_constraint("P(S = 1) >= 1 - D")
    >>> c.expr, c.sense, sorted(c.variables)
    (D + _p0 - 1, '>=', ['S'])
    """
    p = _Parser(text)
    lhs, _ = p.expr()
    tok = p.peek()
    if tok is None or tok[1] not in ("<=", ">=", "=="):
        p.fail(tok[2] if tok else p.at_end_pos(), "expected one of '<=', '>=', '=='")
    p.i += 1
    rhs, _ = p.expr()
    p.done()
    _finite(p, lhs - rhs)
    return ParsedConstraint(lhs - rhs, p.atoms, text, sense=tok[1])


def _atom_variable(tokens: list[tuple[str, str, int]], j: int) -> str | None:
    """The variable an ``=``/``!=`` at ``tokens[j + 1]`` compares: ``A`` in ``A = 1``, ``Y`` in
    ``Y(A=1) = 1`` (``tokens[j]`` is then the closing parenthesis); None elsewhere."""
    if j < 0:
        return None
    if tokens[j][0] == "name":
        return tokens[j][1]
    if tokens[j][1] != ")":
        return None
    depth = 0
    for k in range(j, -1, -1):
        depth += {")": 1, "(": -1}.get(tokens[k][1], 0)
        if depth == 0:
            return tokens[k - 1][1] if k > 0 and tokens[k - 1][0] == "name" else None
    return None


def _equals(label: Any, kind: str, raw: str) -> bool:
    """Whether the token ``raw`` (a number or a label) spells ``label``."""
    if kind == "num" and isinstance(label, (int, float)) and not isinstance(label, bool):
        return float(raw) == float(label)
    plain = label.item() if hasattr(label, "item") else label
    return str(plain) == raw


def show_value(code: int, labels: Sequence[Any] | None) -> str:
    """How a value of a node prints in a query: its label, quoted when it looks like a code.

    Parameters
    ----------
    code : int
        The value's code.
    labels : sequence or None
        The node's labels in code order (None: codes only).

    Returns
    -------
    str

    Examples
    --------
    >>> show_value(0, ["f", "m"]), show_value(0, [1, 2]), show_value(1, [0, 1]), show_value(1, None)
    ('f', "'1'", '1', '1')
    >>> show_value(0, ["African-American", "Caucasian"])
    "'African-American'"
    """
    if not labels or not 0 <= code < len(labels):
        return str(code)
    label = labels[code]
    label = label.item() if hasattr(label, "item") else label
    if str(label) == str(code):
        return str(code)
    text = str(label)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        return text
    return f"'{text}'" if "'" not in text else f'"{text}"'


def _resolve_value(var: str, op: str, kind: str, raw: str, labels: Sequence[Any] | None,
                   text: str) -> int | None:
    """The code a value token of ``var`` stands for; None to leave it to the compiler (no labels)."""
    plain = [label.item() if hasattr(label, "item") else label for label in labels or []]
    if kind == "num" and plain == list(range(len(plain))):
        return None  # labels are the codes: nothing to read, and the compiler names a code out of range
    if kind == "code":
        code = int(raw[1:])
        if labels and code >= len(labels):
            raise ConfigError(f"In {text!r}, {var} {op} {raw} asks for code {code}, but {var} takes the codes "
                              f"0..{len(labels) - 1} (labels in code order: {list(labels)}).")
        return code
    if not labels:
        return None
    word = raw[1:-1] if kind == "str" else raw
    matches = [c for c, label in enumerate(labels) if _equals(label, "num" if kind == "num" else "str", word)]
    shown = list(labels) if len(labels) <= 20 else [*labels[:20], "..."]
    if kind != "num":
        if matches:
            return matches[0]
        raise ConfigError(f"In {text!r}, {var} {op} {raw} is not a value of {var}; its labels are {shown} "
                          f"(codes 0..{len(labels) - 1}, written #0, #1, ...).")
    if not re.fullmatch(r"\d+", raw):
        return None  # the parser names the problem (not a whole number)
    number = int(raw)
    if matches and (matches[0] == number or number >= len(labels)):
        return matches[0]
    if matches:
        raise ConfigError(
            f"In {text!r}, {var} {op} {raw} is ambiguous: {var} is recorded with the labels {shown} (in code "
            f"order), so {raw} is the label {raw} (code {matches[0]}) and also the code {number} (label "
            f"{show_value(number, labels)}). Write {var} {op} '{raw}' for the label or {var} {op} #{raw} for the code.")
    if number < len(labels):
        return number  # not a label: a code, as fp.metric(group=...) reads it
    raise ConfigError(f"In {text!r}, {var} {op} {raw} is neither a label nor a code of {var}: its labels are "
                      f"{shown}, its codes 0..{len(labels) - 1}.")


def query_in_codes(text: str, labels: Mapping[str, Sequence[Any] | None]) -> tuple[str, str]:
    """A query written with labels, as the compiler reads it (codes) and as results show it.

    Parameters
    ----------
    text : str
        The query, with values given as labels (``A = Caucasian``, ``A = 'African-American'``),
        explicit codes (``A = #1``) or numbers (the label they equal, else the code).
    labels : mapping of str to sequence
        Each labelled node's labels in code order (``ObservedTable.categories``).

    Returns
    -------
    (str, str)
        The query in codes, and the query with every labelled value written as its label.

    Raises
    ------
    ConfigError
        A value that is no label or code of its node, or a number that is a label of one group and
        the code of another (the message gives both readings and how to write each).

    Examples
    --------
    >>> query_in_codes("P(P = 1 | A = f)", {"A": ["f", "m"]})
    ('P(P = 1 | A = 0)', 'P(P = 1 | A = f)')
    >>> query_in_codes("P(P = 1 | A = 2)", {"A": [1, 2]})
    ('P(P = 1 | A = 1)', "P(P = 1 | A = '2')")
    >>> query_in_codes("P(P = 1 | A = #0)", {"A": [1, 2]})
    ('P(P = 1 | A = 0)', "P(P = 1 | A = '1')")
    >>> query_in_codes("P(P = 1 | A = 1)", {"A": [1, 2]})
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: In 'P(P = 1 | A = 1)', A = 1 is ambiguous: ...
    """
    tokens = _Parser(text).tokens
    codes, shown, last = [], [], 0
    for i, (kind, raw, pos) in enumerate(tokens):
        if kind not in ("num", "name", "code", "str") or i < 2 or tokens[i - 1][1] not in ("=", "!="):
            continue
        var = _atom_variable(tokens, i - 2)
        if var is None:
            continue
        code = _resolve_value(var, tokens[i - 1][1], kind, raw, labels.get(var), text)
        if code is None:
            continue
        codes += [text[last:pos], str(code)]
        shown += [text[last:pos], show_value(code, labels.get(var))]
        last = pos + len(raw)
    return "".join(codes) + text[last:], "".join(shown) + text[last:]
