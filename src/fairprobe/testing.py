"""Helpers for plugin authors and for fairprobe's own tests.

* :func:`fresh_plugin_manager` builds an isolated plugin manager (no entry points unless asked),
  optionally with extra plugins registered.
* :data:`CONTRACT_PROBLEMS` is a library of small programs with known optima; a backend must
  solve every one its :class:`~fairprobe.backends.base.Capabilities` declare it can.
* :func:`check_backend_class` and :func:`check_backend_contract` check a backend against the
  interface and those problems, raising ``AssertionError`` with a readable message.
* :func:`check_analysis` checks an analysis class against the analysis contract
  (:class:`fairprobe.plugins.base.Analysis`) on its own ``example()``: every built-in analysis
  and the example plugin pass it, and a plugin author runs it in their own tests.
* :func:`null_covariate` draws a pure-noise covariate of each type FairTree handles (the null
  benchmark ``benchmarks/fairtree_null.py`` and its reduced test share it).

Examples
--------
>>> from fairprobe.testing import check_backend_contract
>>> from fairprobe.backends.scip import ScipBackend
>>> report = check_backend_contract(ScipBackend())
>>> sorted(report)[:2]
['bilinear_simplex', 'convex_qp']
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pluggy

from fairprobe.backends.base import Availability, Backend, Capabilities, SolveOptions, Termination
from fairprobe.core.program import PolynomialProgram
from fairprobe.core.registry import create_plugin_manager

__all__ = [
    "CONTRACT_PROBLEMS",
    "KnownProblem",
    "RandomSCM",
    "check_analysis",
    "check_backend_class",
    "check_backend_contract",
    "fresh_plugin_manager",
    "null_covariate",
]

#: Covariate types of :func:`null_covariate`.
NULL_COVARIATE_TYPES = ("continuous", "ordinal", "binary", "nominal8", "nominal1000", "nominal1000_sparse", "id",
                        "datetime", "datetime_text")


def null_covariate(kind: str, n: int, rng: Any) -> Any:
    """One pure-noise covariate of type ``kind`` (see :data:`NULL_COVARIATE_TYPES`) for ``n`` rows.

    Continuous, five-level ordinal, binary, 8-level nominal, 1000-level nominal, an identifier
    (one distinct text value per row), datetimes, and the same timestamps as ISO text.

    Parameters
    ----------
    kind : str
        One of :data:`NULL_COVARIATE_TYPES`.
    n : int
        Number of rows.
    rng : numpy.random.Generator
        Source of randomness (e.g. ``numpy.random.default_rng(0)``).

    Returns
    -------
    numpy.ndarray, pandas.Categorical or pandas.Series
        ``n`` values independent of everything else.

    Raises
    ------
    ValueError
        When ``kind`` is not a known covariate type.

    Examples
    --------
    >>> import numpy as np
    >>> from fairprobe.testing import null_covariate
    >>> null_covariate("binary", 4, np.random.default_rng(0))
    array([1, 1, 1, 0])
    >>> list(null_covariate("ordinal", 4, np.random.default_rng(0)))
    ['top', 'high', 'mid', 'low']
    """
    import numpy as np
    import pandas as pd

    if kind == "continuous":
        return rng.normal(size=n)
    if kind == "ordinal":
        levels = ["none", "low", "mid", "high", "top"]
        return pd.Categorical(rng.choice(levels, n), categories=levels, ordered=True)
    if kind == "binary":
        return rng.integers(0, 2, n)
    if kind == "nominal8":
        return rng.choice(list("abcdefgh"), n)
    if kind in ("nominal1000", "nominal1000_sparse"):
        return np.array([f"level{i:04d}" for i in rng.integers(0, 1000, n)])
    if kind == "id":
        return np.array([f"id{i:07d}" for i in rng.permutation(n)])
    stamps = pd.Timestamp("2021-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 3 * 10**7, n)), unit="s")
    if kind == "datetime":
        return pd.Series(stamps)
    if kind == "datetime_text":
        return np.asarray(pd.Series(stamps).dt.strftime("%Y-%m-%d %H:%M:%S"))
    raise ValueError(f"unknown covariate type {kind!r}; use one of {NULL_COVARIATE_TYPES}")


def fresh_plugin_manager(
    *plugins: Any, load_entrypoints: bool = False, builtins: bool = True
) -> pluggy.PluginManager:
    """A new, uncached plugin manager with ``plugins`` registered after the built-ins.

    Parameters
    ----------
    *plugins
        Modules, classes or objects carrying ``@fairprobe.hookimpl`` functions.
    load_entrypoints : bool
        Also load installed entry-point plugins (default False, for isolation).
    builtins : bool
        Register the built-in plugins (default True).

    Returns
    -------
    pluggy.PluginManager
        A manager not shared with :func:`fairprobe.get_plugin_manager`.

    Examples
    --------
    >>> import fairprobe
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> class Extra:
    ...     @fairprobe.hookimpl
    ...     def fairprobe_select_backend(self, program, available):
    ...         return "scip"
    >>> pm = fresh_plugin_manager(Extra())
    >>> pm.hook.fairprobe_select_backend(program=None, available=["scip"])
    'scip'
    """
    from fairprobe.core.registry import DEFAULT_PLUGINS

    return create_plugin_manager(
        load_entrypoints=load_entrypoints,
        default_plugins=DEFAULT_PLUGINS if builtins else (),
        extra_plugins=plugins,
    )


@dataclass(frozen=True)
class KnownProblem:
    """A program with a known answer.

    Parameters
    ----------
    name : str
        Short identifier, used as the key of :func:`check_backend_contract`'s report.
    text : str
        The program in :meth:`PolynomialProgram.to_text` form.
    termination : Termination
        Expected termination.
    optimum : float or None
        Known optimal value (None unless ``termination`` is OPTIMAL).
    convex : bool
        True when the program is convex (solvable by convex-only backends).
    note : str
        Where the answer comes from.

    Examples
    --------
    >>> from fairprobe.testing import CONTRACT_PROBLEMS
    >>> lp = CONTRACT_PROBLEMS[0]
    >>> lp.name, lp.termination.value, lp.optimum
    ('lp', 'optimal', 11.0)
    """

    name: str
    text: str
    termination: Termination
    optimum: float | None
    convex: bool
    note: str = ""

    @property
    def program(self) -> PolynomialProgram:
        """A fresh parsed program.

        Returns
        -------
        PolynomialProgram
            Parsed from :attr:`text`; a new object on every access.

        Examples
        --------
        >>> from fairprobe.testing import CONTRACT_PROBLEMS
        >>> prog = CONTRACT_PROBLEMS[0].program
        >>> prog.sense, prog.max_degree
        ('max', 1)
        """
        return PolynomialProgram.from_text(self.text)


CONTRACT_PROBLEMS: tuple[KnownProblem, ...] = (
    KnownProblem(
        "lp",
        """maximize
  3*x + 2*y
subject to
  c1: x + y <= 4
  c2: x + 3*y <= 6
bounds
  0 <= x <= 3
  0 <= y <= inf""",
        Termination.OPTIMAL, 11.0, True, "vertex x=3, y=1",
    ),
    KnownProblem(
        "lp_degenerate",
        """minimize
  -x
subject to
  a: x + y <= 1
  b: x - y <= 1
  c: x + 2*y <= 1
  d: 2*x + y <= 2
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.OPTIMAL, -1.0, True, "x=1, y=0 with five active constraints (degenerate vertex)",
    ),
    KnownProblem(
        "linear_fractional",
        """maximize
  (2*x + y + 1) / (x + 3*y + 2)
subject to
  c: x + y <= 1
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.OPTIMAL, 1.0, True, "optimum at the vertex (1, 0): 3/3",
    ),
    KnownProblem(
        "linear_fractional_min",
        """minimize
  (2*x + y + 1) / (x + 3*y + 2)
subject to
  c: x + y <= 1
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.OPTIMAL, 0.4, True, "optimum at the vertex (0, 1): 2/5",
    ),
    KnownProblem(
        "bilinear_simplex",
        """maximize
  x*y - 0.3*x + 0.1*y*z
subject to
  simplex: x + y + z == 1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1""",
        Termination.OPTIMAL, 0.1225, False, "z=0, x=0.35, y=0.65: 0.7x - x^2 at x=0.35",
    ),
    KnownProblem(
        "cubic_product",
        """maximize
  x*y*z
subject to
  simplex: x + y + z == 1
bounds
  0 <= x <= 1
  0 <= y <= 1
  0 <= z <= 1""",
        Termination.OPTIMAL, 1 / 27, False, "AM-GM: x=y=z=1/3",
    ),
    KnownProblem(
        "cubic_two_minima",
        """minimize
  x^3 - 2.5*x
bounds
  -2 <= x <= 2""",
        Termination.OPTIMAL, -3.0, False,
        "local minimum at sqrt(2.5/3) with value -1.52; global minimum -3 at x=-2",
    ),
    KnownProblem(
        "convex_qp",
        """minimize
  x^2 - 2*x + y^2 - 4*y + 5
subject to
  c: x + y <= 2
bounds
  -10 <= x <= 10
  -10 <= y <= 10""",
        Termination.OPTIMAL, 0.5, True, "projection of (1, 2) on x + y <= 2 is (0.5, 1.5)",
    ),
    KnownProblem(
        "infeasible",
        """minimize
  x + y
subject to
  c: x + y >= 3
bounds
  0 <= x <= 1
  0 <= y <= 1""",
        Termination.INFEASIBLE, None, True, "x + y <= 2 on the box",
    ),
    KnownProblem(
        "unbounded",
        """maximize
  x + y
subject to
  c: x - y <= 1
bounds
  0 <= x <= inf
  0 <= y <= inf""",
        Termination.UNBOUNDED, None, True, "the ray (1, 1)",
    ),
)


def declares_capable(capabilities: Capabilities, problem: KnownProblem) -> bool:
    """True when ``capabilities`` say the backend can solve ``problem``.

    Parameters
    ----------
    capabilities : Capabilities
        What a backend declares it can solve.
    problem : KnownProblem
        The problem to check.

    Returns
    -------
    bool
        False when the problem's degree, non-convexity or fractional objective exceeds them.

    Examples
    --------
    >>> from fairprobe.backends.base import Capabilities
    >>> from fairprobe.testing import CONTRACT_PROBLEMS, declares_capable
    >>> linear_only = Capabilities(max_degree=1, fractional_objective=False)
    >>> [p.name for p in CONTRACT_PROBLEMS if declares_capable(linear_only, p)]
    ['lp', 'lp_degenerate', 'infeasible', 'unbounded']
    """
    prog = problem.program
    if capabilities.max_degree is not None and prog.max_degree > capabilities.max_degree:
        return False
    if capabilities.convex_only and not problem.convex:
        return False
    return not (prog.is_fractional and not capabilities.fractional_objective)


def check_backend_class(cls: type[Backend]) -> None:
    """Check the static interface of a backend class (name, capabilities, availability).

    Parameters
    ----------
    cls : type of Backend
        The backend class (not an instance).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        Naming the attribute that is missing or of the wrong type.

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import check_backend_class
    >>> check_backend_class(ScipBackend)
    """
    assert isinstance(cls.name, str) and cls.name, f"{cls!r} needs a non-empty 'name'"
    assert isinstance(cls.capabilities, Capabilities), f"{cls.name}: capabilities must be Capabilities"
    assert cls.install_hint, f"{cls.name}: set install_hint (shown when it is unavailable)"
    state = cls.availability()
    assert isinstance(state, Availability), f"{cls.name}: availability() must return Availability"


def check_backend_contract(
    backend: Backend,
    problems: Iterable[KnownProblem] = CONTRACT_PROBLEMS,
    *,
    tol: float = 1e-6,
    bound_tol: float = 1e-4,
    options: SolveOptions | None = None,
) -> dict[str, str]:
    """Run ``problems`` against ``backend`` and check every declared-solvable one.

    For each problem the backend declares it can solve: the termination must match; for
    optimal ones the incumbent must be feasible (violation <= 1e-5), its value within ``tol`` of
    the optimum, and ``objective_bound`` on the valid side of the optimum (within ``tol``) and
    within ``bound_tol`` of it. Problems outside the backend's capabilities must be refused with
    :class:`~fairprobe.exceptions.BackendCapabilityError`.

    Parameters
    ----------
    backend : Backend
        An instance of the backend to check.
    problems : iterable of KnownProblem
        The problems to run (default :data:`CONTRACT_PROBLEMS`).
    tol : float
        Tolerance on the incumbent's objective value.
    bound_tol : float
        Largest allowed distance between ``objective_bound`` and the optimum.
    options : SolveOptions, optional
        Passed to every ``solve`` call.

    Returns
    -------
    dict
        ``problem name -> "ok" | "refused"``.

    Raises
    ------
    AssertionError
        On the first problem the backend gets wrong, naming the backend, problem and rule.

    Examples
    --------
    >>> from fairprobe.backends.scip import ScipBackend
    >>> from fairprobe.testing import CONTRACT_PROBLEMS, check_backend_contract
    >>> check_backend_contract(ScipBackend(), CONTRACT_PROBLEMS[:2])
    {'lp': 'ok', 'lp_degenerate': 'ok'}
    """
    from fairprobe.exceptions import BackendCapabilityError

    check_backend_class(type(backend))
    report: dict[str, str] = {}
    for problem in problems:
        prog = problem.program
        if not declares_capable(backend.capabilities, problem):
            try:
                backend.solve(prog, options)
            except BackendCapabilityError:
                report[problem.name] = "refused"
                continue
            raise AssertionError(
                f"{backend.name}: {problem.name} is beyond its declared capabilities but was not "
                "refused with BackendCapabilityError"
            )
        res = backend.solve(prog, options)
        where = f"{backend.name} on {problem.name}"
        assert res.termination is problem.termination, (
            f"{where}: expected {problem.termination.value}, got {res.termination.value} "
            f"({res.message})"
        )
        if problem.optimum is not None:
            opt = problem.optimum
            assert res.incumbent is not None and res.incumbent_objective is not None, f"{where}: no incumbent"
            viol = prog.max_violation(res.incumbent)
            assert viol <= 1e-5, f"{where}: incumbent violates the program by {viol:.2e}"
            assert abs(res.incumbent_objective - opt) <= tol, (
                f"{where}: incumbent {res.incumbent_objective!r} is not within {tol} of {opt!r}"
            )
            b = res.objective_bound
            valid = b <= opt + tol if prog.sense == "min" else b >= opt - tol
            assert valid, f"{where}: bound {b!r} is on the wrong side of the optimum {opt!r}"
            assert abs(b - opt) <= bound_tol, f"{where}: bound {b!r} is not within {bound_tol} of {opt!r}"
        elif problem.termination is Termination.INFEASIBLE:
            assert math.isinf(res.objective_bound), f"{where}: infeasible but finite bound"
        report[problem.name] = "ok"
    return report


def check_analysis(cls: type, tmp_path: Any = None, *, seed: int = 0) -> dict[str, Any]:
    """Check an analysis class against the analysis contract, on its own ``example()``.

    Checks, each failing with an ``AssertionError`` that names the analysis and the rule:
    the class passes the registry's interface check; parameters are keyword-only and round-trip
    through ``get_params``/``set_params`` and the constructor; results before ``fit`` raise
    :class:`~fairprobe.exceptions.NotFittedError`; ``fit`` returns the instance and leaves
    fitted attributes with a trailing underscore; ``summary()`` is a
    :class:`~fairprobe.plugins.base.Summary` with HTML; ``to_frame()`` a non-empty DataFrame;
    every entry of ``figures()`` draws with and without ``ax=``; and ``to_report`` writes a page
    (when ``tmp_path`` is given).

    Parameters
    ----------
    cls : type
        The analysis class.
    tmp_path : path, optional
        A writable folder for the report check (skipped when None).
    seed : int
        Seed of the example.

    Returns
    -------
    dict
        ``{"fitted": the fitted analysis, "figures": names, "report": page path or None}``.

    Examples
    --------
    >>> from fairprobe.testing import check_analysis
    >>> from fairprobe.plugins.base import Analysis, Example, Summary
    >>> import pandas as pd
    >>> class Mean(Analysis):
    ...     name, description = "mean", "mean of a column"
    ...     def __init__(self, *, column="x"):
    ...         self.column = column
    ...     def fit(self, data, **roles):
    ...         self.mean_ = float(data[self.column].mean())
    ...         return self
    ...     def summary(self):
    ...         self.check_is_fitted()
    ...         return Summary(f"mean {self.mean_:.2f}", title="Mean")
    ...     def to_frame(self):
    ...         self.check_is_fitted()
    ...         return pd.DataFrame({"mean": [self.mean_]})
    ...     @classmethod
    ...     def example(cls, *, seed=0):
    ...         return Example(cls(), pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
    >>> check_analysis(Mean)["fitted"].mean_
    2.0
    """
    import inspect
    from pathlib import Path

    import matplotlib.pyplot as plt
    import pandas as pd

    from fairprobe.core.registry import _check_interface
    from fairprobe.exceptions import NotFittedError
    from fairprobe.plugins.base import Example, Summary

    who = getattr(cls, "name", None) or getattr(cls, "__name__", repr(cls))
    _check_interface("analyses", cls)
    positional = [p.name for p in inspect.signature(cls.__init__).parameters.values()
                  if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert not positional, f"{who}: parameters {positional} must be keyword-only"
    example = cls.example(seed=seed)
    assert isinstance(example, Example), f"{who}: example() must return fairprobe.plugins.base.Example"
    analysis = example.analysis
    assert isinstance(analysis, cls), f"{who}: example().analysis must be a {cls.__name__}"
    params = analysis.get_params()
    assert set(params) == set(inspect.signature(cls.__init__).parameters) - {"self"}, (
        f"{who}: get_params() must return every constructor parameter")
    clone = cls(**params)
    assert clone.get_params().keys() == params.keys(), f"{who}: the constructor must accept get_params()"
    for key, value in params.items():
        assert clone.get_params()[key] is value, f"{who}: parameter {key!r} must be stored unchanged"
    assert analysis.set_params(**params) is analysis, f"{who}: set_params must return self"
    for method in ("summary", "to_frame", "figures", "check_is_fitted"):
        try:
            getattr(clone, method)()
        except NotFittedError:
            continue
        raise AssertionError(f"{who}: {method}() before fit must raise NotFittedError")
    fitted = example.fit()
    assert fitted is analysis, f"{who}: fit must return self"
    fitted.check_is_fitted()
    assert any(k.endswith("_") and not k.startswith("_") for k in vars(fitted)), (
        f"{who}: fit must store its results in attributes with a trailing underscore")
    summary = fitted.summary()
    assert isinstance(summary, Summary) and str(summary).strip(), f"{who}: summary() must return a non-empty Summary"
    assert "<" in summary._repr_html_(), f"{who}: the summary must render as HTML"
    frame = fitted.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame), f"{who}: to_frame() must return a non-empty DataFrame"
    figures = fitted.figures()
    assert isinstance(figures, dict), f"{who}: figures() must return a dict name -> plot"
    for fig_name, plot in figures.items():
        assert "ax" in inspect.signature(plot).parameters, f"{who}: figure {fig_name!r} must take ax="
        ax = plot()
        assert hasattr(ax, "figure"), f"{who}: figure {fig_name!r} must return a matplotlib Axes"
        _fig, mine = plt.subplots()
        assert plot(ax=mine) is mine, f"{who}: figure {fig_name!r} must draw on the ax it is given"
        plt.close("all")
    page = None
    if tmp_path is not None:
        page = fitted.to_report(Path(tmp_path) / f"report-{who}")
        assert Path(page).is_file(), f"{who}: to_report must write the HTML page"
    return {"fitted": fitted, "figures": list(figures), "report": page}


class RandomSCM:
    """A random discrete structural causal model on a bias config's DAG: ground truth for tests.

    Every latent variable gets ``latent_card`` values with a random law; every endogenous
    variable ``V`` gets an independent noise ``E_V`` with ``noise_card`` values and a random
    deterministic structural function of (parents, latent parents, ``E_V``). Probabilities of
    factual and counterfactual events are computed exactly by enumerating the exogenous
    configurations, independently of fairprobe's compiler.

    Parameters
    ----------
    config : BiasConfig
        The bias configuration whose DAG the model follows.
    seed : int
        Seed of the random laws and structural functions.
    latent_card, noise_card : int
        Number of values of each latent variable and of each noise variable.
    concentration : float
        Dirichlet concentration of the random laws (small values give extreme models).

    Examples
    --------
    >>> from fairprobe.biases.builtin import SelectionBias
    >>> from fairprobe.testing import RandomSCM
    >>> scm = RandomSCM(SelectionBias().config(), seed=3)
    >>> scm.endogenous
    ['A', 'Y', 'P', 'S']
    >>> round(scm.evaluate("P(Y = 1)"), 4)
    0.5419
    """

    def __init__(self, config: Any, seed: int = 0, latent_card: int = 2, noise_card: int = 3,
                 concentration: float = 1.0) -> None:
        import numpy as np

        rng = np.random.default_rng(seed)
        self.config = config
        dag = config.dag
        self.order = dag.order
        self.latents = list(dag.unobserved)
        self.endogenous = [v for v in dag.order if v not in self.latents]
        self.cards = {v: config.cardinality(v) for v in self.endogenous}
        self.cards.update({u: latent_card for u in self.latents})
        exo = [(u, latent_card) for u in self.latents] + [(f"_E_{v}", noise_card) for v in self.endogenous]
        grids = np.meshgrid(*[np.arange(c) for _, c in exo], indexing="ij")
        self.exo = {name: g.ravel() for (name, _), g in zip(exo, grids, strict=True)}
        prob = np.ones(grids[0].size)
        for name, card in exo:
            law = rng.dirichlet(np.full(card, concentration))
            prob = prob * law[self.exo[name]]
        self.prob = prob
        self.functions: dict[str, tuple[list[str], np.ndarray]] = {}
        for v in self.endogenous:
            pa = [*dag.parents(v), f"_E_{v}"]
            shape = [self.cards.get(p, noise_card) for p in pa]
            self.functions[v] = (pa, rng.integers(0, self.cards[v], size=shape))

    def values(self, do: dict[str, int] | None = None) -> dict[str, Any]:
        """Value of every variable in every exogenous configuration under ``do`` (memoised).

        Parameters
        ----------
        do : dict of str to int, optional
            Intervention ``{variable: value}``; None for the factual world.

        Returns
        -------
        dict of str to numpy.ndarray
            Variable name (exogenous ones included) -> its value in each exogenous configuration.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> worlds = scm.values(do={"A": 1})
        >>> bool((worlds["A"] == 1).all()), len(worlds["Y"]) == len(scm.prob)
        (True, True)
        """
        import numpy as np

        do = do or {}
        key = tuple(sorted(do.items()))
        cache = self.__dict__.setdefault("_worlds", {})
        if key in cache:
            return cache[key]
        val: dict[str, Any] = dict(self.exo)
        for v in self.order:
            if v in self.latents:
                continue
            if v in do:
                val[v] = np.full(self.prob.size, do[v])
                continue
            pa, table = self.functions[v]
            val[v] = table[tuple(val[p] for p in pa)]
        cache[key] = val
        return val

    def event_prob(self, atoms: Iterable[Any]) -> float:
        """Exact probability of a conjunction of (counterfactual) atoms.

        Parameters
        ----------
        atoms : iterable of Atom
            Each with ``var``, ``value`` and ``intervention`` (as in a parsed query's ``event``).

        Returns
        -------
        float
            The probability that every atom holds.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.core.query import parse_expression
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> atom = parse_expression("P(Y = 1)").atoms[0]
        >>> round(scm.event_prob(atom.event), 4)
        0.5419
        """
        import numpy as np

        mask = np.ones(self.prob.size, dtype=bool)
        for a in atoms:
            mask &= self.values(dict(a.intervention))[a.var] == a.value
        return float(self.prob[mask].sum())

    def atom_value(self, atom: Any) -> float:
        """Exact value of ``P(event | given)``; raises ZeroDivisionError when ``P(given) = 0``.

        Parameters
        ----------
        atom : ProbabilityAtom
            A parsed probability term (from :func:`fairprobe.core.query.parse_expression`).

        Returns
        -------
        float
            The conditional (or, without ``given``, marginal) probability.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.core.query import parse_expression
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> round(scm.atom_value(parse_expression("P(Y = 1 | A = 1)").atoms[0]), 4)
        0.4447
        """
        num = self.event_prob(atom.event + atom.given)
        return num / self.event_prob(atom.given) if atom.given else num

    def evaluate(self, text: str) -> float:
        """Exact value of a query string in the constraint grammar.

        Parameters
        ----------
        text : str
            An expression such as ``"P(Y = 1 | A = 1) - P(Y = 1 | A = 0)"``.

        Returns
        -------
        float
            Its value in this model.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> round(scm.evaluate("P(Y = 1 | A = 1) - P(Y = 1 | A = 0)"), 4)
        -0.274
        """
        import sympy

        from fairprobe.core.query import parse_expression

        parsed = parse_expression(text)
        subs = {s: sympy.Float(self.atom_value(a)) for s, a in zip(parsed.symbols, parsed.atoms, strict=True)}
        return float(parsed.expr.subs(subs))

    def table(self, nodes: Iterable[str], given: dict[str, int] | None = None) -> Any:
        """The observed table of ``nodes`` (conditioned on ``given`` if set).

        Parameters
        ----------
        nodes : iterable of str
            The observed variables (columns of the table).
        given : dict of str to int, optional
            Condition, e.g. ``{"S": 1}`` for a selection bias.

        Returns
        -------
        ObservedTable
            The exact joint law of ``nodes``.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> table = scm.table(["A", "Y", "P"], given={"S": 1})
        >>> len(table.cells), round(float(table.cells["prob"].sum()), 6), table.given
        (8, 1.0, {'S': 1})
        """
        import numpy as np
        import pandas as pd

        from fairprobe.core.table import ObservedTable

        nodes = list(nodes)
        val = self.values()
        mask = np.ones(self.prob.size, dtype=bool)
        for k, v in (given or {}).items():
            mask &= val[k] == v
        frame = pd.DataFrame({v: val[v][mask] for v in nodes})
        frame["prob"] = self.prob[mask] / self.prob[mask].sum()
        frame = frame.groupby(nodes, as_index=False)["prob"].sum()
        return ObservedTable.from_probabilities(frame, given=given)

    def realised_parameters(self) -> dict[str, float]:
        """Smallest value of each sensitivity parameter at which every constraint holds.

        Returns
        -------
        dict of str to float
            Parameter name -> value in [0, 1]; the model satisfies the config at these values.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> {k: round(v, 4) for k, v in scm.realised_parameters().items()}
        {'D': 0.5389}
        """
        import sympy

        out = {p: 0.0 for p in self.config.parameters}
        for parsed in self.config.parsed_constraints:
            subs = {}
            for s, atom in zip(parsed.symbols, parsed.atoms, strict=True):
                try:
                    subs[s] = sympy.Float(self.atom_value(atom))
                except ZeroDivisionError:  # undefined conditional: the constraint holds vacuously
                    subs[s] = sympy.Float(0)
            expr = sympy.expand(parsed.expr.subs(subs))
            for p in parsed.parameters:
                slope = float(expr.coeff(p))
                rest = float(expr.subs(p, 0))
                if slope == 0:
                    continue
                # expr = rest + slope * p must satisfy the sense
                need = -rest / slope
                lower = (parsed.sense == ">=" and slope > 0) or (parsed.sense == "<=" and slope < 0)
                if lower or parsed.sense == "==":
                    out[str(p)] = max(out[str(p)], need)
        return {k: min(max(v, 0.0), 1.0) for k, v in out.items()}
