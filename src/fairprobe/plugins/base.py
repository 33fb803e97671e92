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
import html
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from fairprobe.exceptions import ConfigError, NotFittedError

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report, Section

__all__ = ["REQUIRED", "Analysis", "Example", "Summary", "missing_methods"]

#: Methods and class attributes every registered analysis class must have.
REQUIRED: tuple[str, ...] = ("name", "description", "fit", "get_params", "set_params", "check_is_fitted",
                             "summary", "to_frame", "figures", "to_report", "example")


class Summary(str):
    """A printable summary that also renders as HTML (statsmodels' ``Summary`` is the model).

    It *is* the text (a ``str``), so ``print(s)`` and ``"bias" in s`` work; :meth:`as_html` and
    ``_repr_html_`` (notebooks) render the title, the text and the tables.

    Parameters
    ----------
    text : str
        The plain-text summary.
    title : str
        Heading of the HTML rendering.
    tables : dict of str to DataFrame, optional
        Tables shown below the text in HTML (and in reports).

    Examples
    --------
    >>> import pandas as pd
    >>> s = Summary("2 groups, gap 0.1", title="Rates", tables={"rates": pd.DataFrame({"rate": [0.2, 0.3]})})
    >>> print(s)
    2 groups, gap 0.1
    >>> "<table" in s.as_html()
    True
    """

    title: str
    tables: dict[str, pd.DataFrame]

    def __new__(cls, text: str, title: str = "", tables: Mapping[str, pd.DataFrame] | None = None) -> Summary:
        obj = super().__new__(cls, text)
        obj.title = title
        obj.tables = dict(tables or {})
        return obj

    def as_text(self) -> str:
        """The summary as plain text.

        Returns
        -------
        str
            The text without the title and tables.

        Examples
        --------
        >>> Summary("gap 0.1", title="Rates").as_text()
        'gap 0.1'
        """
        return str.__str__(self)

    def as_html(self) -> str:
        """The summary as an HTML fragment (title, pre-formatted text, tables).

        Returns
        -------
        str
            HTML with the escaped title (``<h4>``), the text (``<pre>``) and each table.

        Examples
        --------
        >>> print(Summary("a < b", title="Rates").as_html())
        <h4>Rates</h4>
        <pre>a &lt; b</pre>
        """
        parts = [f"<h4>{html.escape(self.title)}</h4>"] if self.title else []
        parts.append(f"<pre>{html.escape(self.as_text())}</pre>")
        for name, frame in self.tables.items():
            parts.append(f"<p><b>{html.escape(name)}</b></p>{frame.to_html(border=0)}")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.as_html()


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


class Analysis(abc.ABC):
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
        """The constructor's parameters and their current values.

        Parameters
        ----------
        deep : bool
            Accepted for scikit-learn compatibility (nested estimators are returned as objects).

        Returns
        -------
        dict
            Parameter name to value, in the constructor's order.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> params = FairTree(max_depth=2).get_params()
        >>> params["max_depth"]
        2
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Analysis:
        """Set parameters by name (as scikit-learn's ``set_params``); returns ``self``.

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
            A name that is not a parameter of this analysis.

        Examples
        --------
        >>> from fairprobe.plugins.fairtree.tree import FairTree
        >>> FairTree().set_params(max_depth=1).max_depth
        1
        >>> FairTree().set_params(depth=1)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        fairprobe.exceptions.ConfigError: FairTree has no parameter 'depth'; its parameters are ['test', ...].
        """
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise ConfigError(f"{type(self).__name__} has no parameter {key!r}; its parameters are {valid}.")
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        shown = []
        for name, value in self.get_params().items():
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
        return {}, fitted.to_frame(), [f"- {cls.name} (its built-in example): {_first_finding(sec.notes)}"]

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
        sec.add_parameters({k: _shown(v) for k, v in self.get_params().items()})
        sec.add_note(summary.as_text() if isinstance(summary, Summary) else str(summary))
        for fig_name, plot in self.figures().items():
            sec.add_figure(fig_name, plot())
        sec.add_table("results", self.to_frame())
        for table_name, frame in getattr(summary, "tables", {}).items():
            sec.add_table(table_name, frame)
        return sec

    def to_report(self, out: str | Path, *, force: bool = False, title: str | None = None) -> Path:
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


def _first_finding(notes: list[str]) -> str:
    """The summary's first line for the demo; a heading ending in ":" keeps the lines under it (joined by "; ")."""
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
