"""Covariate handling for FairTree: continuous, ordinal, binary and unordered categorical.

* numeric and boolean columns are ordered by value (continuous/ordinal);
* an ordered ``pandas.Categorical`` keeps its category order (ordinal);
* other columns (strings, unordered categoricals) are nominal; with more than two levels their
  order is learnt per node (see the split tests).

Missing values are an error: FairTree splits on observed covariate values only; drop or impute
the rows, or encode "missing" as its own category.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairprobe.exceptions import DataError

__all__ = ["Covariate", "prepare_covariates"]


@dataclass
class Covariate:
    """One covariate: its kind and a numeric key per row (value, or category code)."""

    name: str
    kind: str  # "continuous", "ordinal" or "nominal"
    key: np.ndarray
    categories: list[Any] = field(default_factory=list)

    def describe_left(self, threshold: float | None, left_codes: list[int] | None) -> tuple[str, str]:
        """Readable conditions of the left and right child."""
        if left_codes is not None:
            left = [self.categories[c] for c in left_codes]
            right = [c for c in self.categories if c not in left]
            return (f"{self.name} in {{{', '.join(map(str, left))}}}",
                    f"{self.name} in {{{', '.join(map(str, right))}}}")
        if self.kind == "ordinal" and self.categories:
            cut = self.categories[int(threshold)]
            return f"{self.name} <= {cut}", f"{self.name} > {cut}"
        return f"{self.name} <= {threshold:g}", f"{self.name} > {threshold:g}"


def prepare_covariates(X: pd.DataFrame | np.ndarray) -> list[Covariate]:
    """Covariates from a data frame (or a 2-D array, all continuous)."""
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise DataError(f"Covariates must be 2-D (rows x covariates); got shape {X.shape}.")
        X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    if not isinstance(X, pd.DataFrame):
        raise DataError(f"Covariates must be a pandas DataFrame or a 2-D array; got {type(X).__name__}.")
    if X.shape[1] == 0:
        raise DataError("No covariates given: FairTree needs at least one column to split on.")
    out = []
    for name in X.columns:
        col = X[name]
        missing = int(col.isna().sum())
        if missing:
            raise DataError(
                f"Covariate {name!r} has {missing} missing value(s); drop or impute those rows, or encode "
                "'missing' as its own category (FairTree splits only on observed values)."
            )
        if isinstance(col.dtype, pd.CategoricalDtype):
            cats = list(col.cat.categories)
            kind = "ordinal" if col.cat.ordered else "nominal"
            out.append(Covariate(str(name), kind, col.cat.codes.to_numpy().astype(float), cats))
        elif pd.api.types.is_bool_dtype(col) or pd.api.types.is_numeric_dtype(col):
            out.append(Covariate(str(name), "continuous", col.to_numpy(dtype=float)))
        else:
            codes, uniques = pd.factorize(col, sort=False)
            order = sorted(range(len(uniques)), key=lambda i: str(uniques[i]))  # categories by name
            rank = np.empty(len(order), dtype=float)
            rank[order] = np.arange(len(order))
            out.append(Covariate(str(name), "nominal", rank[codes], [uniques[i] for i in order]))
    return out
