"""The interface every result shares: :class:`Explained`, its printable :class:`Summary`, and the line on few units."""

from __future__ import annotations

import abc
import html
from collections.abc import Mapping
from typing import Any

import pandas as pd

from fairprobe.core.jsonsafe import jsonable
from fairprobe.core.results.wording import Conclusion

__all__ = ["Explained", "Summary", "few_units_line"]


def few_units_line(few: Mapping[str, int]) -> str:
    """The summary line of :attr:`BoundResult.few_units` (bound, sweep and breakdown summaries).

    Parameters
    ----------
    few : mapping of str to int

    Returns
    -------
    str

    Examples
    --------
    >>> few_units_line({"A = c": 10})[:35]
    'few units: A = c: 10 (units in the '
    """
    shown = ", ".join(f"{e}: {n}" for e, n in few.items())
    return (f"few units: {shown} (units in the data); the bounds take the observed shares as exact, and rates "
            "from so few units carry sampling error that can exceed the bias considered (compare a group with "
            "the rest, or merge small groups)")


class Summary(str):
    """A printable summary (a ``str``) that also renders as HTML, with its title and tables.

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
    >>> s = Summary("2 groups, gap 0.1", title="Rates", tables={"rates": pd.DataFrame({"rate": [0.2, 0.3]})})
    >>> s, "<table" in s.as_html()
    ('2 groups, gap 0.1', True)
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

        Examples
        --------
        >>> print(Summary("a < b", title="Rates").as_html())
        <h4>Rates</h4>
        <pre style="white-space:pre-wrap;overflow-wrap:anywhere">a &lt; b</pre>
        """
        parts = [f"<h4>{html.escape(self.title)}</h4>"] if self.title else []
        # long lines wrap instead of running off the page (the app, notebooks, reports)
        parts.append(f'<pre style="white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(self.as_text())}</pre>')
        for name, frame in self.tables.items():
            parts.append(f"<p><b>{html.escape(name)}</b></p>{frame.to_html(border=0)}")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.as_html()


class Explained(abc.ABC):
    """The interface every result and :class:`~fairprobe.plugins.base.Analysis` has: it explains itself.

    Subclasses implement :meth:`summary`, :meth:`to_frame` and :meth:`conclusion`.

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> isinstance(fp.group_rates(load_paper_table()), Explained)
    True
    """

    @abc.abstractmethod
    def summary(self) -> Summary:
        """A :class:`Summary` (text, HTML, tables).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> fp.group_rates(load_paper_table()).summary().title
        'Observed group rates'
        """

    @abc.abstractmethod
    def to_frame(self) -> pd.DataFrame:
        """The main result table.

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> len(fp.group_rates(load_paper_table()).to_frame())
        3
        """

    @abc.abstractmethod
    def conclusion(self) -> Conclusion:
        """What the result settles (see :class:`Conclusion`).

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> fp.group_rates(load_paper_table()).conclusion().verdict
        'finding'
        """

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form: the summary text, its tables as records and the conclusion.

        Returns
        -------
        dict

        Examples
        --------
        >>> import fairprobe as fp
        >>> from fairprobe.datasets import load_paper_table
        >>> sorted(fp.group_rates(load_paper_table()).to_dict())
        ['conclusion', 'summary', 'tables', 'verdict']
        """
        summary = self.summary()
        conclusion = self.conclusion()
        return jsonable({"summary": summary.as_text(), "conclusion": conclusion.text, "verdict": conclusion.verdict,
                         "tables": {k: v.to_dict(orient="records") for k, v in summary.tables.items()}})

    def _repr_html_(self) -> str:
        return self.summary().as_html()

