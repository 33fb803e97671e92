"""The contract every analysis implements, as :class:`~fairprobe.biases.base.Bias`,
:class:`~fairprobe.metrics.base.Metric` and :class:`~fairprobe.backends.base.Backend` are for theirs.

An analysis follows scikit-learn's estimator API so one can be guessed from another:

* **parameters** are keyword-only arguments of ``__init__``, stored unchanged under their own
  names (validated in :meth:`Analysis.fit`, not in ``__init__``); :meth:`~Analysis.get_params`
  and :meth:`~Analysis.set_params` read and write them;
* ``fit(data, **roles) -> self``: the data first, then the columns or arrays by role, named as
  scikit-learn and fairlearn name them (``y_true``, ``y_pred``, ``y_score``,
  ``sensitive_features``); what it learns is stored in attributes with a trailing underscore;
* :meth:`~Analysis.check_is_fitted` raises :class:`~fairprobe.exceptions.NotFittedError` before
  ``fit``;
* :meth:`~Analysis.summary` returns a :class:`Summary` (text, HTML, ``_repr_html_``, tables);
  :meth:`~Analysis.to_frame` the main result table; :meth:`~Analysis.figures` the named plots,
  each a callable taking a keyword-only ``ax=``; :meth:`~Analysis.to_report` writes the report
  folder (implemented once, here);
* :meth:`~Analysis.example` gives a small fitted-ready example (the contract test suite,
  :func:`fairprobe.testing.check_analysis`, and the docs use it).

The registry rejects an analysis class that lacks any of :data:`REQUIRED` (see
:func:`missing_methods`).
"""

from __future__ import annotations

import abc
import functools
import importlib.util
import inspect
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from fairprobe.core.results import Conclusion, Explained, Summary
from fairprobe.exceptions import ConfigError, DataError, NotFittedError

if TYPE_CHECKING:
    from fairprobe.backends.base import Availability
    from fairprobe.reporting.report import Report, Section

__all__ = ["REQUIRED", "Analysis", "Example", "Summary", "columns_by_role", "first_finding", "missing_methods",
           "positional_roles"]

#: Methods and class attributes every registered analysis class must have.
REQUIRED: tuple[str, ...] = ("name", "description", "fit", "get_params", "set_params", "check_is_fitted",
                             "summary", "to_frame", "figures", "to_report", "example")


@dataclass
class Example:
    """A small example of an analysis: an unfitted instance, its data and its roles.

    ``example.analysis.fit(example.data, **example.roles)`` runs it.

    Parameters
    ----------
    analysis : Analysis
        The unfitted analysis.
    data : object
        What ``fit`` takes first (usually a DataFrame).
    roles : dict of str to object
        Keyword arguments of ``fit``: columns or arrays by role (``y_true``, ``y_pred``, ...).

    Examples
    --------
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> ex = FairTree.example()
    >>> sorted(ex.roles)
    ['y_pred', 'y_true']
    >>> ex.analysis
    FairTree(max_depth=2, random_state=0)
    """

    analysis: Analysis
    data: Any
    roles: dict[str, Any] = field(default_factory=dict)

    def fit(self) -> Analysis:
        """Fit the example's analysis on its data.

        Returns
        -------
        Analysis
            The fitted analysis (``self.analysis``, fitted in place).

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> ex = FairTree.example()
        >>> ex.fit() is ex.analysis
        True
        """
        return self.analysis.fit(self.data, **self.roles)


class Analysis(Explained):
    """Base class of analysis plugins (see the module docstring for the contract).

    Subclasses set the class attributes ``name`` and ``description`` and implement :meth:`fit`,
    :meth:`summary`, :meth:`to_frame` and :meth:`example`; :meth:`figures` defaults to none.

    Examples
    --------
    A minimal analysis (the mean of a column by group):

    >>> import pandas as pd
    >>> class GroupMean(Analysis):
    ...     name = "group_mean"
    ...     description = "mean outcome by group"
    ...     def __init__(self, *, digits=2):
    ...         self.digits = digits
    ...     def fit(self, data, *, y_true, sensitive_features):
    ...         self.means_ = data.groupby(sensitive_features)[y_true].mean().round(self.digits)
    ...         return self
    ...     def summary(self):
    ...         self.check_is_fitted()
    ...         return Summary(f"gap {self.means_.max() - self.means_.min():.2f}", title=self.description)
    ...     def to_frame(self):
    ...         return self.means_.to_frame("mean")
    ...     @classmethod
    ...     def example(cls, *, seed=0):
    ...         data = pd.DataFrame({"y": [1, 0, 1, 1], "g": ["a", "a", "b", "b"]})
    ...         return Example(cls(), data, {"y_true": "y", "sensitive_features": "g"})
    >>> missing_methods(GroupMean)
    []
    >>> print(GroupMean.example().fit().summary())
    gap 0.50
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: Order in ``fairprobe demo`` (lower first).
    demo_order: ClassVar[int] = 100

    # -- parameters (scikit-learn's convention) --------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters and their current values (scikit-learn's ``get_params``).

        Parameters
        ----------
        deep : bool
            Also return the parameters of nested estimators (any parameter value with a
            ``get_params`` method, e.g. a scikit-learn model) as ``<parameter>__<name>``.

        Returns
        -------
        dict
            Parameter name to value, in the constructor's order (each nested estimator's
            parameters right after it when ``deep``).

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
        >>> rs = RashomonSet(estimator=DecisionTreeClassifier(max_depth=3))
        >>> rs.get_params()["estimator__max_depth"], "estimator__max_depth" in rs.get_params(deep=False)
        (3, False)
        """
        out: dict[str, Any] = {}
        for name in self._param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", inner) for key, inner in value.get_params(deep=True).items())
        return out

    def set_params(self, **params: Any) -> Analysis:
        """Set parameters by name (as scikit-learn's ``set_params``); returns ``self``.

        ``<parameter>__<name>`` sets ``name`` of the nested estimator held by ``parameter``
        (``set_params(estimator__max_depth=5)``).

        Parameters
        ----------
        **params : object
            New values, by parameter name.

        Returns
        -------
        Analysis
            ``self``.

        Raises
        ------
        ConfigError
            A name that is not a parameter of this analysis, or a nested name whose parameter holds
            no estimator.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree().set_params(max_depth=1).max_depth
        1
        >>> FairTree().set_params(depth=1)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.ConfigError: FairTree has no parameter 'depth'; its parameters are ['test', ...].
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
        >>> RashomonSet(estimator=DecisionTreeClassifier()).set_params(estimator__max_depth=5).estimator.max_depth
        5
        """
        valid = self._param_names()
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            outer, sep, inner = key.partition("__")
            if outer not in valid:
                raise ConfigError(f"{type(self).__name__} has no parameter {outer!r}; its parameters are {valid}.")
            if sep:
                nested.setdefault(outer, {})[inner] = value
            else:
                setattr(self, key, value)
        # nested values last, so set_params(estimator=new, estimator__max_depth=5) sets the new estimator's
        for outer, values in nested.items():
            holder = getattr(self, outer)
            if not hasattr(holder, "set_params") or isinstance(holder, type):
                raise ConfigError(f"{type(self).__name__}.{outer} is {holder!r}, which has no parameters to set; "
                                  f"{', '.join(f'{outer}__{k}' for k in values)} need an estimator there.")
            holder.set_params(**values)
        return self

    # -- optional dependencies ---------------------------------------------------------------------
    #: Import names of the optional packages this analysis needs; :meth:`availability` looks them
    #: up without importing them.
    requires: ClassVar[tuple[str, ...]] = ()
    #: The extra of fairprobe that installs :attr:`requires` (``pip install "fairprobe[<extra>]"``).
    extra: ClassVar[str] = ""
    #: How to install what the analysis needs, as backends have it; set from :attr:`extra` (or
    #: :attr:`requires`) unless a subclass sets it, "" when it needs nothing optional.
    install_hint: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "install_hint" not in vars(cls):  # derived from this class's own (or inherited) extra
            cls.install_hint = (f'pip install "fairprobe[{cls.extra}]"' if cls.extra
                                else f"pip install {' '.join(cls.requires)}" if cls.requires else "")

    @classmethod
    def missing_requirements(cls) -> list[str]:
        """The packages of :attr:`requires` that are not installed (never imports them).

        Returns
        -------
        list of str
            Import names, in the order of :attr:`requires`.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree.missing_requirements()
        []
        """
        return [module for module in cls.requires if not _installed(module)]

    @classmethod
    def availability(cls) -> Availability:
        """Whether the analysis can run here: its optional packages are installed. Never raises.

        Returns
        -------
        fairprobe.backends.base.Availability
            ``AVAILABLE``, or ``NOT_INSTALLED`` (falsy) when a package of :attr:`requires` is missing.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree.availability()
        <Availability.AVAILABLE: 2>
        """
        from fairprobe.backends.base import Availability

        return Availability.NOT_INSTALLED if cls.missing_requirements() else Availability.AVAILABLE

    @classmethod
    def availability_reason(cls) -> str:
        """Why the analysis is (un)available, for listings and skip messages.

        Returns
        -------
        str
            ``"available"``, or what is missing and the extra that installs it.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet
        >>> FairTree.availability_reason(), TreeRashomonSet.install_hint
        ('available', 'pip install "fairprobe[trees]"')
        """
        missing = cls.missing_requirements()
        if not missing:
            return "available"
        # the backends' wording (Backend.availability_reason), so listings read alike
        return f"not installed (needs {', '.join(missing)}); install with: {cls.install_hint}"

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        shown = []
        for name, value in self.get_params(deep=False).items():
            default = sig.parameters[name].default
            try:
                same = default is not inspect.Parameter.empty and bool(default == value)
            except (TypeError, ValueError):  # arrays and frames compare element-wise
                same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    # -- fitting -----------------------------------------------------------------------------------
    @abc.abstractmethod
    def fit(self, data: Any, **roles: Any) -> Analysis:
        """Fit on ``data`` with columns or arrays given by role; return ``self``.

        Parameters
        ----------
        data : object
            The data (usually a DataFrame whose columns the roles name).
        **roles : object
            Columns or arrays by role (``y_true``, ``y_pred``, ``y_score``, ``sensitive_features``).

        Returns
        -------
        Analysis
            ``self``, with fitted attributes ending in ``_``.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> ex = FairTree.example()
        >>> ex.analysis.fit(ex.data, **ex.roles) is ex.analysis
        True
        """

    def _fitted_attributes(self) -> list[str]:
        return [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]

    def check_is_fitted(self) -> None:
        """Raise :class:`~fairprobe.exceptions.NotFittedError` unless :meth:`fit` has run.

        Raises
        ------
        NotFittedError
            Naming the analysis and the call to make first.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree().check_is_fitted()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.NotFittedError: This FairTree is not fitted yet; call FairTree(...).fit(data, ...) ...
        >>> FairTree.example().fit().check_is_fitted()
        """
        if not self._fitted_attributes():
            raise NotFittedError(f"This {type(self).__name__} is not fitted yet; call "
                                 f"{type(self).__name__}(...).fit(data, ...) before using its results.")

    # -- results -----------------------------------------------------------------------------------
    @abc.abstractmethod
    def summary(self) -> Summary:
        """A readable summary of the fitted analysis.

        Returns
        -------
        Summary
            Text that also renders as HTML.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> isinstance(FairTree.example().fit().summary(), Summary)
        True
        """

    def conclusion(self) -> Conclusion:
        """The analysis' headline finding: a :class:`Conclusion` with verdict ``"finding"`` and the
        first line of the summary as its text.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree.example().fit().conclusion().verdict
        'finding'
        """
        return Conclusion("finding", first_finding([self.summary().as_text()]))  # summary() checks fitted

    @abc.abstractmethod
    def to_frame(self) -> pd.DataFrame:
        """The main result table of the fitted analysis.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> type(FairTree.example().fit().to_frame()).__name__
        'DataFrame'
        """

    def figures(self) -> dict[str, Callable[..., Any]]:
        """Named plots of the fitted analysis: ``{name: plot}``, each ``plot(*, ax=None) -> Axes``.

        Returns
        -------
        dict of str to callable
            Empty unless a subclass adds plots.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> figs = FairTree.example().fit().figures()
        >>> axes = [plot() for plot in figs.values()]
        >>> plt.close("all")
        """
        self.check_is_fitted()
        return {}

    @classmethod
    @abc.abstractmethod
    def example(cls, *, seed: int = 0) -> Example:
        """A small, quick example of this analysis (for the contract tests, the docs and the demo).

        Parameters
        ----------
        seed : int
            Seed of the generated data (and of the analysis's randomness).

        Returns
        -------
        Example
            An unfitted analysis with its data and roles.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree.example(seed=1).fit().name
        'fairtree'
        """

    # -- the demo ----------------------------------------------------------------------------------
    #: Heading of this analysis's step in ``fairprobe demo`` (default: the description).
    demo_title: ClassVar[str] = ""

    @classmethod
    def demo(cls, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
             progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
        """This analysis's step of ``fairprobe demo``: add a section to ``report``.

        ``scenario`` is :func:`fairprobe.datasets.make_lending_scenario`'s data. Built-in analyses
        audit it and say which injected problems they found; the default fits :meth:`example`.

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The demo's report; the step adds its section.
        scenario : object
            The demo's lending scenario (unused by the default).
        facts : dict of str to object
            Facts of the scenario (the injected problems and their sizes).
        quick : bool
            Use fewer models, resamples or permutations.
        seed : int
            Random seed.
        n_jobs : int
            Parallel workers.
        progress : bool
            Show progress bars.

        Returns
        -------
        found : dict of str to bool
            Injected problems of the scenario this step detected (keys of the demo's list).
        table : DataFrame
            The step's main table.
        lines : list of str
            Findings for the demo's summary, one ``"- name: ..."`` line each.

        Examples
        --------
        The default step of an analysis that does not override it:

        >>> import pandas as pd
        >>> from fairprobe.reporting.report import Report
        >>> class Rate(Analysis):
        ...     name, description = "rate", "positive rate"
        ...     def fit(self, data, *, y_true):
        ...         self.rate_ = float(data[y_true].mean())
        ...         return self
        ...     def summary(self):
        ...         return Summary(f"rate {self.rate_:.2f}")
        ...     def to_frame(self):
        ...         return pd.DataFrame({"rate": [self.rate_]})
        ...     @classmethod
        ...     def example(cls, *, seed=0):
        ...         return Example(cls(), pd.DataFrame({"y": [0, 1, 1, 1]}), {"y_true": "y"})
        >>> found, table, lines = Rate.demo(Report("demo"), None, {}, quick=True, seed=0, n_jobs=1, progress=False)
        >>> found, lines
        ({}, ['- rate (its built-in example): rate 0.75'])
        """
        fitted = cls.example(seed=seed).fit()
        sec = fitted.report_section(report)
        return {}, fitted.to_frame(), [f"- {cls.name} (its built-in example): {first_finding(sec.notes)}"]

    # -- reports -----------------------------------------------------------------------------------
    def report_section(self, report: Report, title: str | None = None) -> Section:
        """Add this analysis's section (parameters, summary, figures, tables) to ``report``.

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The report to add the section to.
        title : str, optional
            Section heading (default: the analysis's description).

        Returns
        -------
        fairprobe.reporting.report.Section
            The new section.

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> from fairprobe.reporting.report import Report
        >>> sec = FairTree.example().fit().report_section(Report("t"), title="Subgroups")
        >>> sec.title
        'Subgroups'
        >>> plt.close("all")
        """
        self.check_is_fitted()
        summary = self.summary()
        sec = report.section(title or f"{self.name}: {self.description}")
        sec.add_parameters({k: _shown(v) for k, v in self.get_params(deep=False).items()})
        sec.add_note(summary.as_text() if isinstance(summary, Summary) else str(summary))
        for fig_name, plot in self.figures().items():
            sec.add_figure(fig_name, plot())
        sec.add_table("results", self.to_frame())
        for table_name, frame in getattr(summary, "tables", {}).items():
            sec.add_table(table_name, frame)
        return sec

    def to_report(self, out: str | Path, *, force: bool | None = None, title: str | None = None) -> Path:
        """Write this analysis's report folder (HTML page, PNG figures, CSV tables, ``report.json``).

        Parameters
        ----------
        out : path
            The report folder (created; a folder fairprobe wrote is replaced).
        force : bool
            Also write into a folder holding files fairprobe did not write.
        title : str, optional
            Title of the page.

        Returns
        -------
        pathlib.Path
            The HTML page.

        Examples
        --------
        >>> import tempfile
        >>> import matplotlib.pyplot as plt
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     page = FairTree.example().fit().to_report(f"{tmp}/report")
        ...     print(page.name)
        index.html
        >>> plt.close("all")
        """
        from fairprobe.reporting.report import Report

        report = Report(title or f"fairprobe {self.name}")
        report.summary = self.report_section(report).notes[0]
        return report.write(out, force=force)


def first_finding(notes: list[str]) -> str:
    """The summary's first line for the demo; a heading ending in ":" keeps the lines under it (joined by "; ").

    Parameters
    ----------
    notes : list of str
        A report section's notes (the summary first).

    Returns
    -------
    str

    Examples
    --------
    >>> first_finding(["rate 0.75"]), first_finding([])
    ('rate 0.75', 'done')
    """
    lines = [line.strip() for line in (notes[0] if notes else "").strip().splitlines()]
    if not lines or not lines[0]:
        return "done"
    if not lines[0].endswith(":"):
        return lines[0]
    body = []
    for line in lines[1:]:
        if not line:
            break
        body.append(line)
    return f"{lines[0]} {'; '.join(body)}" if body else lines[0].rstrip(":")


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported, without importing it (an optional package's probe)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a broken ``__spec__``
        return False


def _shown(value: Any) -> Any:
    """A parameter as shown in a report's key-value table."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def missing_methods(cls: type) -> list[str]:
    """The required attributes (:data:`REQUIRED`) an analysis class lacks or leaves abstract.

    Parameters
    ----------
    cls : type
        The analysis class to check.

    Returns
    -------
    list of str
        The missing names, in the order of :data:`REQUIRED` (empty for a complete analysis).

    Examples
    --------
    >>> class Half:
    ...     name = "half"
    ...     def fit(self, data): return self
    >>> missing_methods(Half)[:3]
    ['description', 'get_params', 'set_params']
    """
    abstract = getattr(cls, "__abstractmethods__", frozenset())
    return [attr for attr in REQUIRED if not hasattr(cls, attr) or attr in abstract]


def positional_roles(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Let an older ``fit(data, a, b)`` call keep working as ``fit(data, a=..., b=...)``, with a warning.

    Decorates a ``fit(self, data, *, <roles>)`` whose roles were once positional: extra positional
    arguments are mapped to ``names`` in order and a :class:`DeprecationWarning` names the keyword
    spelling. The signature seen by :func:`inspect.signature` stays keyword-only.

    Parameters
    ----------
    *names : str
        The roles the old positional arguments stood for, in order.

    Returns
    -------
    callable
        The decorator.

    Examples
    --------
    >>> import warnings
    >>> class Rate:
    ...     @positional_roles("y_true")
    ...     def fit(self, data, *, y_true=None):
    ...         return y_true
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     Rate().fit(None, [1, 0])
    [1, 0]
    >>> print(caught[0].message)
    Rate.fit(data, y_true) with positional roles is deprecated; pass them by keyword: fit(data, y_true=...).
    >>> import inspect
    >>> str(inspect.signature(Rate.fit))
    '(self, data, *, y_true=None)'
    """
    def decorate(fit: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fit)
        def wrapper(self: Any, data: Any = None, *args: Any, **roles: Any) -> Any:
            if args:
                if len(args) > len(names):
                    raise TypeError(f"{type(self).__name__}.fit takes the data and at most {len(names)} positional "
                                    f"role(s) ({', '.join(names)}); got {1 + len(args)} positional arguments.")
                given = names[:len(args)]
                twice = [n for n in given if n in roles]
                if twice:
                    raise TypeError(f"{type(self).__name__}.fit got {twice[0]!r} both by position and by keyword.")
                warnings.warn(f"{type(self).__name__}.fit(data, {', '.join(given)}) with positional roles is "
                              f"deprecated; pass them by keyword: fit(data, {'=..., '.join(given)}=...).",
                              DeprecationWarning, stacklevel=2)
                roles.update(zip(given, args, strict=False))
            return fit(self, data, **roles)

        return wrapper

    return decorate


def columns_by_role(data: Any, roles: Mapping[str, Any], *, keep: tuple[str, ...] = ()) -> tuple[Any, dict[str, Any]]:
    """Resolve roles given as column names of ``data``: the columns' values, taken out of the features.

    The one rule every analysis applies to its roles: a string names a column of ``data`` (a
    DataFrame), anything else is one value per row and is returned unchanged. A column named by a
    role leaves the features (the returned data), except for the roles in ``keep``.

    Parameters
    ----------
    data : object
        The data ``fit`` takes first (a DataFrame when any role is a column name).
    roles : mapping of str to object
        Role -> column name, values, or None (not given).
    keep : tuple of str
        Roles whose named columns stay among the features (e.g. a sensitive feature a model may use).

    Returns
    -------
    features : object
        ``data`` without the named columns (``data`` itself when no role names a column).
    values : dict of str to object
        Role -> the named column (a Series) or the value given.

    Raises
    ------
    DataError
        A role names a column but ``data`` is not a DataFrame, or the column is missing or repeated.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1, 2], "y": [0, 1], "g": ["a", "b"]})
    >>> X, values = columns_by_role(df, {"y_true": "y", "sensitive_features": "g"}, keep=("sensitive_features",))
    >>> list(X.columns), values["y_true"].tolist(), values["sensitive_features"].tolist()
    (['x', 'g'], [0, 1], ['a', 'b'])
    """
    named = {role: v for role, v in roles.items() if isinstance(v, str)}
    if not named:
        return data, dict(roles)
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"{', '.join(f'{k}={v!r}' for k, v in named.items())} name columns, but the data is a "
                        f"{type(data).__name__}, not a DataFrame; pass the values as arrays instead.")
    missing = [v for v in named.values() if v not in data.columns]
    if missing:
        raise DataError(f"Column(s) {missing} are not in the data (columns: {list(data.columns)[:20]}); pass an "
                        "existing column name or an array.")
    repeated = sorted({v for v in named.values() if isinstance(data[v], pd.DataFrame)})
    if repeated:
        raise DataError(f"The data has several columns named {repeated}; give every column a distinct name.")
    values = {role: (data[v] if role in named else v) for role, v in roles.items()}
    drop = list(dict.fromkeys(v for role, v in named.items() if role not in keep))
    return (data.drop(columns=drop) if drop else data), values
