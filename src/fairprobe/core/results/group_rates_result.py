"""Every group's observed rates and sizes (:class:`GroupRates`, made by :func:`fairprobe.group_rates`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from fairprobe.core.results.explained import Explained, Summary
from fairprobe.core.results.wording import FEW_UNITS, Conclusion
from fairprobe.exceptions import ConfigError

__all__ = ["RATES", "GroupRates"]

#: Rate name -> (prediction or label event, conditioning event), over the nodes Y and P.
RATES: Mapping[str, tuple[dict[str, int], dict[str, int]]] = MappingProxyType({
    "base_rate": ({"Y": 1}, {}),
    "selection_rate": ({"P": 1}, {}),
    "tpr": ({"P": 1}, {"Y": 1}),
    "fpr": ({"P": 1}, {"Y": 0}),
    "fnr": ({"P": 0}, {"Y": 1}),
    "tnr": ({"P": 0}, {"Y": 0}),
    "ppv": ({"Y": 1}, {"P": 1}),
    "npv": ({"Y": 0}, {"P": 0}),
})


@dataclass(repr=False)
class GroupRates(Explained):
    """Every group's observed rates and sizes (see :func:`group_rates`).

    Attributes
    ----------
    by_group : pandas.DataFrame
        One row per group (by label): ``units`` (None for a probability table), ``share``,
        ``accuracy`` and every rate of :data:`RATES`.
    overall : pandas.Series
        The same over everyone.
    attribute : str
    few_units : dict of str to int
        ``"group: rate"`` entries whose rate rests on fewer than ``FEW_UNITS`` units (its denominator).

    Examples
    --------
    >>> import fairprobe as fp
    >>> from fairprobe.datasets import load_paper_table
    >>> fp.group_rates(load_paper_table()).by_group.index.tolist()
    [0, 1]
    """

    by_group: pd.DataFrame
    overall: pd.Series
    attribute: str = "A"
    few_units: dict[str, int] = field(default_factory=dict)

    def difference(self, method: str = "between_groups") -> pd.Series:
        """Largest gap of each rate: between any two groups, or of a group against the overall value.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}

        Returns
        -------
        pandas.Series
            One value per rate (NaN when a group's rate is undefined).

        Examples
        --------
        >>> import pandas as pd, fairprobe as fp
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> float(fp.group_rates(rows).difference()["fpr"])
        1.0
        """
        rates = self.by_group[list(RATES)]
        if method == "between_groups":
            return rates.max(skipna=False) - rates.min(skipna=False)
        if method == "to_overall":
            return (rates - self.overall[list(RATES)]).abs().max(skipna=False)
        raise ConfigError(f"method = {method!r} must be 'between_groups' or 'to_overall'.")

    def ratio(self) -> pd.Series:
        """Smallest over largest group value of each rate (1 is parity; NaN when undefined).

        Returns
        -------
        pandas.Series

        Examples
        --------
        >>> import pandas as pd, fairprobe as fp
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> float(fp.group_rates(rows).ratio()["selection_rate"])
        0.5
        """
        rates = self.by_group[list(RATES)]
        with np.errstate(divide="ignore", invalid="ignore"):
            return rates.min(skipna=False) / rates.max(skipna=False)

    def to_frame(self) -> pd.DataFrame:
        """``by_group`` with the overall row last.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd, fairprobe as fp
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> fp.group_rates(rows).to_frame().index.tolist()
        ['a', 'b', 'overall']
        """
        return pd.concat([self.by_group, self.overall.to_frame("overall").T])

    def __repr__(self) -> str:
        """The summary's text: the group table and the largest gaps (``print(fp.group_rates(...))``)."""
        return self.summary().as_text()

    def rests_on_few(self, rate: str) -> list[tuple[str, int]]:
        """The groups at either end of ``rate``'s gap whose rate rests on too few units, with their counts.

        Parameters
        ----------
        rate : str
            A rate of :data:`RATES`.

        Returns
        -------
        list of (str, int)
            Empty when the gap rests on enough units (or the table has no number of units).

        Examples
        --------
        >>> import pandas as pd, fairprobe as fp
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> fp.group_rates(rows).rests_on_few("fpr")
        [('a', 1), ('b', 1)]
        """
        values = self.by_group[rate]
        ends = [g for g, v in values.items() if v == values.max() or v == values.min()]
        keys = [f"{g}: {rate}" for g in ends]
        return [(key.rsplit(": ", 1)[0], self.few_units[key]) for key in keys if key in self.few_units]

    def conclusion(self) -> Conclusion:
        """The largest observed gaps, with no bias model.

        Returns
        -------
        Conclusion
            ``"finding"``, or ``"too_few_units"`` when the largest gap rests on too few units.

        Examples
        --------
        >>> import pandas as pd, fairprobe as fp
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> print(fp.group_rates(rows).conclusion())  # doctest: +ELLIPSIS
        Observed without any bias model: the largest gaps between groups of A are fpr 1.0000, ...
        """
        gaps = self.difference().dropna().sort_values(ascending=False, kind="stable")
        top = list(gaps.head(3).index)
        shown = ", ".join(f"{k} {gaps[k]:.4f}" for k in top) or "none defined"
        text = f"Observed without any bias model: the largest gaps between groups of {self.attribute} are {shown}."
        behind = {rate: self.rests_on_few(rate) for rate in top}
        named = [f"the {rate} gap rests on " + " and ".join(f"{g}: {n} units" for g, n in few)
                 for rate, few in behind.items() if few]
        if named:
            text += f" Too few to say: {', '.join(named)} (fewer than {FEW_UNITS} units behind a rate)."
        covered = {f"{g}: {rate}" for rate, few in behind.items() for g, _ in few}
        others = [k for k in self.few_units if k not in covered]
        if others:
            text += (f" {len(others)} {'other ' if named else ''}rate(s) rest on fewer than {FEW_UNITS} units, so "
                     "their sampling error can exceed the gap itself.")
        if top and behind[top[0]]:
            return Conclusion("too_few_units", text, ("the largest gap rests on too few units",))
        return Conclusion("finding", text)

    def summary(self) -> Summary:
        """The group table as text (and HTML), with the largest gaps.

        Returns
        -------
        Summary

        Examples
        --------
        >>> import pandas as pd, fairprobe as fp
        >>> rows = pd.DataFrame({"A": list("aabb"), "Y": [0, 1, 0, 1], "P": [0, 1, 1, 1]})
        >>> print(fp.group_rates(rows).summary().splitlines()[0])
        observed rates by group of A (no bias model, no solver):
        """
        lines = [f"observed rates by group of {self.attribute} (no bias model, no solver):",
                 self.to_frame().round(4).to_string(), self.conclusion().text]
        return Summary("\n".join(lines), title="Observed group rates", tables={"by group": self.to_frame()})
