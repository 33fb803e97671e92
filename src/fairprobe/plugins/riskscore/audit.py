"""Per-group risk-score audit with bootstrap intervals (analysis plugin ``riskscore``).

Groups: ``all`` plus, for k = 1..``max_intersections``, every combination of k sensitive
attributes and every combination of their values present in the data. Groups with fewer than
``min_group_size`` rows are dropped and listed in ``dropped_groups_``. Continuous attributes
(numeric with more than ``max_levels`` distinct values) are binned into quartiles first.

Per group and metric: the point estimate on the group's rows, and ``n_bootstrap`` resamples of
size ``N_g`` drawn with replacement within the group, summarised by the median and the
percentile interval (a resample in which a metric is undefined counts as NaN and is reported in
``n_undefined``). Expected under-representation concerns the whole flagged population, so its
bootstrap resamples the whole data set (the group's target ``p(G | Y = 1)`` stays fixed), and the
audit evaluates it on the 100 equal-mass thresholds of the scores, vectorised over all groups.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.riskscore.bootstrap import bootstrap_group
from fairprobe.plugins.riskscore.calibration import as_outcomes, check_scores, drmsce
from fairprobe.plugins.riskscore.discrimination import auprg, auroc, calibration_intercept_slope

__all__ = ["RiskScoreAudit"]

_GROUP_METRICS = {
    "drmsce": drmsce, "auroc": auroc, "auprg": auprg,
    "calibration_intercept": lambda y, r: calibration_intercept_slope(y, r)[0],
    "calibration_slope": lambda y, r: calibration_intercept_slope(y, r)[1],
}
_VECTORISED = ("drmsce", "auroc", "auprg")
KNOWN_METRICS = ("drmsce", "auroc", "auprg", "eur")
OPTIONAL_METRICS = ("calibration_intercept", "calibration_slope")


def _quiet(fn: Any, y: np.ndarray, r: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return float(fn(y, r))
        except (ValueError, DataError):
            return float("nan")


def _group_task(name: str, yg: np.ndarray, rg: np.ndarray, metrics: list[str], n_boot: int,
                seed: np.random.SeedSequence) -> dict[str, Any]:
    # receives only the group's rows: workers are not sent the whole data set per group
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"point": {m: _quiet(_GROUP_METRICS[m], yg, rg) for m in metrics}}
    fast = [m for m in metrics if m in _VECTORISED]
    out["boot"] = bootstrap_group(yg, rg, fast, n_boot, rng) if fast else {}
    slow = [m for m in metrics if m not in _VECTORISED]
    if slow:  # calibration intercept/slope: refit per resample
        draws = rng.integers(0, yg.size, size=(n_boot, yg.size))
        for m in slow:
            out["boot"][m] = np.array([_quiet(_GROUP_METRICS[m], yg[d], rg[d]) for d in draws])
    return {"group": name, **out}


class RiskScoreAudit:
    """Calibration, discrimination and representation of a risk score for every group.

    Parameters
    ----------
    sensitive_features : list of str
        Columns of the frame passed to :meth:`fit`.
    max_intersections : int
        Largest number of attributes combined in one group.
    min_group_size : int
        Groups with fewer rows are dropped (and listed).
    n_bootstrap : int
        Bootstrap resamples per group.
    metrics : tuple of str
        Any of "drmsce", "auroc", "auprg", "eur" (default: all four), and optionally
        "calibration_intercept" (calibration in the large, 0 = ideal) and "calibration_slope"
        (1 = ideal), which refit a logistic model per resample.
    ci : float
        Coverage of the percentile intervals.
    auprg_below : float
        Base rate below which AUPRG is the recommended discrimination metric (reported as
        ``discrimination_metric_``).
    max_levels : int
        Numeric attributes with more distinct values are binned into quartiles.
    random_state : int, optional
    n_jobs : int, optional
        Processes for the per-group bootstraps.
    progress : bool
        Show a progress bar (only ever drawn on a terminal; see :mod:`fairprobe.progress`).
    positive_label : optional
        The value of the outcome that means 1 (e.g. ``"yes"``); every other value means 0. Without
        it the outcomes must already be 0/1 (or booleans): text labels are an error rather than a
        guessed mapping.

    Raises
    ------
    ConfigError
        An option out of range (``n_bootstrap`` < 1, ``min_group_size`` < 1, ``ci`` outside
        (0, 1), an unknown metric, ...), here or in :meth:`fit`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> frame = pd.DataFrame({"sex": rng.choice(["f", "m"], 2000)})
    >>> r = rng.random(2000); y = (rng.random(2000) < r).astype(int)
    >>> audit = RiskScoreAudit(sensitive_features=["sex"], n_bootstrap=20, random_state=0, progress=False)
    >>> sorted(audit.fit(y, r, frame).results_.group.unique())
    ['all', 'sex=f', 'sex=m']
    """

    name: ClassVar[str] = "riskscore"
    description: ClassVar[str] = "per-group calibration (DRMSCE), AUROC/AUPRG, under-representation, bootstrap CIs"

    def __init__(self, *, sensitive_features: list[str], max_intersections: int = 3, min_group_size: int = 100,
                 n_bootstrap: int = 200, metrics: tuple[str, ...] = KNOWN_METRICS, ci: float = 0.95,
                 auprg_below: float = 0.2, max_levels: int = 10, random_state: int | None = None,
                 n_jobs: int | None = None, progress: bool = True, positive_label: Any = None) -> None:
        self.sensitive_features = sensitive_features
        self.max_intersections = max_intersections
        self.min_group_size = min_group_size
        self.n_bootstrap = n_bootstrap
        self.metrics = metrics
        self.ci = ci
        self.auprg_below = auprg_below
        self.max_levels = max_levels
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.positive_label = positive_label
        self._check_options()

    def _check_options(self) -> None:
        """Raise a ``ConfigError`` naming the first option out of range (the fix is in the message)."""
        def whole(name: str, value: Any, low: int, hint: str = "") -> None:
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
                raise ConfigError(f"{name} must be at least {low} (a whole number); got {value!r}.{hint}")

        feats = self.sensitive_features
        if isinstance(feats, str) or not isinstance(feats, list | tuple) or not feats:
            raise ConfigError(f"sensitive_features must be a non-empty list of column names, e.g. ['sex']; got "
                              f"{feats!r}.")
        if len(set(map(str, feats))) < len(feats):
            raise ConfigError(f"sensitive_features lists a column twice: {list(feats)}; list each once.")
        whole("max_intersections", self.max_intersections, 1, " Use 1 for single attributes.")
        whole("min_group_size", self.min_group_size, 1)
        whole("n_bootstrap", self.n_bootstrap, 1, " Use at least 200 resamples for 95% intervals.")
        whole("max_levels", self.max_levels, 2)
        metrics = self.metrics
        if isinstance(metrics, str) or not isinstance(metrics, list | tuple) or not metrics:
            raise ConfigError(f"metrics must be a non-empty tuple of metric names, e.g. ('drmsce',); got {metrics!r}.")
        unknown = [m for m in metrics if m not in KNOWN_METRICS + OPTIONAL_METRICS]
        if unknown:
            raise ConfigError(f"Unknown metric(s) {unknown}; choose from {KNOWN_METRICS + OPTIONAL_METRICS}.")
        if len(set(metrics)) < len(metrics):
            raise ConfigError(f"metrics lists a metric twice: {list(metrics)}; list each once.")
        for name in ("ci", "auprg_below"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float | np.number) or not np.isfinite(value):
                raise ConfigError(f"{name} must be a number; got {value!r}.")
        if not 0 < self.ci < 1:
            raise ConfigError(f"ci must be in (0, 1), e.g. 0.95; got {self.ci}.")
        if not 0 <= self.auprg_below <= 1:
            raise ConfigError(f"auprg_below is a base rate in [0, 1]; got {self.auprg_below}.")
        if self.random_state is not None:
            whole("random_state", self.random_state, 0, " Pass None or a seed >= 0.")
        if self.n_jobs is not None and (isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, int | np.integer)
                                        or self.n_jobs == 0):
            raise ConfigError(f"n_jobs must be None, a positive number of processes or -1 (all cores); got "
                              f"{self.n_jobs!r}.")

    # -- groups ---------------------------------------------------------------------------------
    def _attributes(self, frame: pd.DataFrame) -> pd.DataFrame:
        missing = [c for c in self.sensitive_features if c not in frame.columns]
        if missing:
            raise DataError(f"Sensitive feature(s) {missing} are not columns of the frame: {list(frame.columns)}; "
                            "fix sensitive_features or the frame.")
        dupes = sorted({str(c) for c in frame.columns[frame.columns.duplicated()] if c in self.sensitive_features})
        if dupes:
            raise DataError(f"The frame has several columns named {dupes}; give every column a distinct name.")
        out = {}
        self.binned_ = {}
        for col in self.sensitive_features:
            s = frame[col]
            if s.isna().any():
                raise DataError(f"Sensitive feature {col!r} has missing values; fill them (e.g. 'unknown') first.")
            if s.nunique() < 2:
                raise DataError(f"Sensitive feature {col!r} has a single value ({s.iloc[0]!r}); it defines no groups. "
                                "Drop it from sensitive_features, or audit data in which it varies.")
            if pd.api.types.is_numeric_dtype(s) and s.nunique() > self.max_levels:
                # documented rule: quartile bins, labelled by their intervals
                s = pd.qcut(s, 4, duplicates="drop").astype(str)
                self.binned_[col] = "quartiles"
            out[col] = s.astype(str).to_numpy()
        return pd.DataFrame(out)

    def _groups(self, attrs: pd.DataFrame) -> tuple[dict[str, np.ndarray], pd.DataFrame]:
        n = len(attrs)
        groups = {"all": np.arange(n)}
        dropped = []
        cols = list(attrs.columns)
        for k in range(1, min(self.max_intersections, len(cols)) + 1):
            for combo in itertools.combinations(cols, k):
                for values, idx in attrs.groupby(list(combo), sort=True).indices.items():
                    values = values if isinstance(values, tuple) else (values,)
                    label = " & ".join(f"{c}={v}" for c, v in zip(combo, values, strict=True))
                    if len(idx) >= self.min_group_size:
                        groups[label] = np.asarray(idx)
                    else:
                        dropped.append({"group": label, "n": len(idx)})
        return groups, pd.DataFrame(dropped, columns=["group", "n"])

    # -- fitting ------------------------------------------------------------------------------------
    def fit(self, y: Any, r: Any, frame: pd.DataFrame) -> RiskScoreAudit:
        """Audit scores ``r`` against outcomes ``y`` for the groups of ``frame``'s sensitive features.

        Raises
        ------
        DataError
            No rows; outcomes that are not 0/1 (text labels need ``positive_label``); scores outside
            [0, 1] or NaN; a sensitive feature that is missing, repeated, incomplete or constant;
            no group reaching ``min_group_size``; a single outcome class when a discrimination or
            representation metric is requested.
        ConfigError
            An option out of range (see the class).
        """
        self._check_options()
        # as_outcomes names the outcome column in its messages; check_scores then sees clean 0/1 values
        y, r = check_scores(as_outcomes(y, self.positive_label), r, what="The risk-score audit")
        if not isinstance(frame, pd.DataFrame) or len(frame) != y.size:
            raise DataError(f"frame must be a DataFrame with one row per score ({y.size}); got "
                            f"{type(frame).__name__} with {len(frame) if hasattr(frame, '__len__') else '?'} rows.")
        attrs = self._attributes(frame.reset_index(drop=True))
        groups, self.dropped_groups_ = self._groups(attrs)
        if len(groups) == 1:
            # only 'all' would be audited: an answer about no group at all
            largest = self.dropped_groups_.sort_values("n", ascending=False).head(3)
            sizes = ", ".join(f"{g} ({n})" for g, n in zip(largest.group, largest.n, strict=True))
            raise DataError(f"No group reaches min_group_size={self.min_group_size} rows (largest: {sizes}); lower "
                            "min_group_size (--min-group-size), use fewer intersections, or audit more rows.")
        needs_both = [m for m in self.metrics if m != "drmsce"]
        if needs_both and y.min() == y.max():
            raise DataError(f"Every outcome is {int(y[0])}: {', '.join(needs_both)} need both outcomes. Check the "
                            "target column (and positive_label), or audit calibration only with metrics=('drmsce',).")
        self.groups_ = groups
        self.base_rate_ = float(y.mean())
        self.discrimination_metric_ = "auprg" if self.base_rate_ < self.auprg_below else "auroc"
        self.y_, self.r_ = y, r
        group_metrics = [m for m in self.metrics if m in _GROUP_METRICS]
        seeds = np.random.SeedSequence(self.random_state).spawn(len(groups) + 1)
        tasks = list(zip(groups.items(), seeds[:-1], strict=True))
        from fairprobe.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

        if self.n_jobs in (None, 1):
            results = [_group_task(g, y[idx], r[idx], group_metrics, self.n_bootstrap, s)
                       for (g, idx), s in tqdm(tasks, desc="risk-score audit", disable=not self.progress)]
        else:
            from joblib import Parallel, delayed

            gen = Parallel(n_jobs=self.n_jobs, return_as="generator")(
                delayed(_group_task)(g, y[idx], r[idx], group_metrics, self.n_bootstrap, s) for (g, idx), s in tasks)
            results = list(tqdm(gen, total=len(tasks), desc="risk-score audit", disable=not self.progress))
        if "eur" in self.metrics:
            eur = self._eur(groups, seeds[-1])
            for res in results:
                res["point"]["eur"], res["boot"]["eur"] = eur[res["group"]]
        self._results = results
        self.results_ = self._tidy(results)
        return self

    def _eur(self, groups: dict[str, np.ndarray], seed: np.random.SeedSequence) -> dict[str, tuple[float, np.ndarray]]:
        """EUR (paper formula) on 100 equal-mass thresholds, all groups at once, whole-set bootstrap."""
        from scipy import sparse

        y, r = self.y_, self.r_
        n = y.size
        names = list(groups)
        rows = np.concatenate([np.full(idx.size, i) for i, idx in enumerate(groups.values())])
        cols = np.concatenate(list(groups.values()))
        member = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(len(names), n))
        pos = y == 1
        target = np.asarray(member[:, pos].sum(axis=1)).ravel() / max(pos.sum(), 1)

        def values(weights: np.ndarray, scores: np.ndarray) -> np.ndarray:
            taus = np.unique(np.quantile(scores, np.linspace(0, 1, 101)[:-1]))
            b = np.searchsorted(taus, r, side="right") - 1  # highest threshold each score reaches
            B = sparse.csr_matrix((weights, (np.arange(n), np.clip(b, 0, taus.size - 1))), shape=(n, taus.size))
            counts = np.asarray((member @ B).todense())  # groups x thresholds: members at each level
            above = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]
            total = np.cumsum(np.bincount(np.clip(b, 0, taus.size - 1), weights=weights,
                                          minlength=taus.size)[::-1])[::-1]
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = (above / np.maximum(total, 1e-12)) / target[:, None]
            return np.where(target > 0, np.minimum(ratio, 1.0).mean(axis=1), np.nan)

        point = values(np.ones(n), r)
        rng = np.random.default_rng(seed)
        boot = np.empty((self.n_bootstrap, len(names)))
        for b in range(self.n_bootstrap):
            w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
            boot[b] = values(w, np.repeat(r, w.astype(int)))
        return {g: (float(point[i]), boot[:, i]) for i, g in enumerate(names)}

    def _tidy(self, results: list[dict[str, Any]]) -> pd.DataFrame:
        lo_q, hi_q = (1 - self.ci) / 2, 1 - (1 - self.ci) / 2
        rows = []
        for res in results:
            n = int(self.groups_[res["group"]].size)
            for m, point in res["point"].items():
                boot = res["boot"][m]
                ok = boot[np.isfinite(boot)]
                rows.append({"group": res["group"], "metric": m, "n": n, "point": point,
                             "median": float(np.median(ok)) if ok.size else np.nan,
                             "lower": float(np.quantile(ok, lo_q)) if ok.size else np.nan,
                             "upper": float(np.quantile(ok, hi_q)) if ok.size else np.nan,
                             "n_undefined": int(boot.size - ok.size)})
        return pd.DataFrame(rows)

    # -- views ----------------------------------------------------------------------------------------
    def _fitted(self) -> None:
        if not hasattr(self, "results_"):
            raise ConfigError("This RiskScoreAudit is not fitted yet; call fit(y, r, frame) first.")

    @property
    def by_group(self) -> pd.DataFrame:
        """MetricFrame-like view: one row per group, one column per metric (bootstrap medians)."""
        self._fitted()
        return self.results_.pivot(index="group", columns="metric", values="median")

    def summary(self) -> str:
        """Readable summary: best and worst group per metric, dropped groups."""
        self._fitted()
        res = self.results_
        lines = [f"risk-score audit: {len(self.groups_)} groups (min size {self.min_group_size}), base rate "
                 f"{self.base_rate_:.3f}; recommended discrimination metric: {self.discrimination_metric_}"]
        # distance from the ideal value, per metric (smaller is better)
        badness = {"drmsce": lambda v: v, "auroc": lambda v: -v, "auprg": lambda v: -v, "eur": lambda v: -v,
                   "calibration_intercept": abs, "calibration_slope": lambda v: abs(v - 1)}
        for m in res.metric.unique():
            sub = res[(res.metric == m) & (res.group != "all")].dropna(subset=["median"])
            overall = res[(res.metric == m) & (res.group == "all")].iloc[0]
            line = f"  {m:7s} all {overall['median']:.4f} [{overall['lower']:.4f}, {overall['upper']:.4f}]"
            if not sub.empty:
                order = sub.assign(_bad=sub["median"].map(badness[m])).sort_values("_bad")
                best, worst = order.iloc[0], order.iloc[-1]
                line += (f"; best {best.group} {best['median']:.4f}, worst {worst.group} {worst['median']:.4f} "
                         f"[{worst['lower']:.4f}, {worst['upper']:.4f}]")
            lines.append(line)
        if len(self.dropped_groups_):
            lines.append(f"  {len(self.dropped_groups_)} group(s) below {self.min_group_size} rows dropped "
                         "(see dropped_groups_)")
        return "\n".join(lines)

    def plot_metrics(self, metric: str | None = None, ax: Any = None, top: int = 15) -> Any:
        """Median and interval per group for one metric, with group sizes (the paper's Figure 3)."""
        from fairprobe.plugins.riskscore.plots import plot_metric_panel

        self._fitted()
        return plot_metric_panel(self, metric or self.metrics[0], ax=ax, top=top)

    def plot_reliability(self, groups: list[str] | None = None, ax: Any = None) -> Any:
        """LOWESS reliability diagrams with bootstrap bands (best, worst and all by default)."""
        from fairprobe.plugins.riskscore.plots import plot_reliability

        self._fitted()
        return plot_reliability(self, groups, ax=ax)

    def plot_roc(self, groups: list[str] | None = None, ax: Any = None) -> Any:
        """ROC curves with bootstrap bands."""
        from fairprobe.plugins.riskscore.plots import plot_curves

        self._fitted()
        return plot_curves(self, "roc", groups, ax=ax)

    def plot_prg(self, groups: list[str] | None = None, ax: Any = None) -> Any:
        """Precision-recall-gain curves with bootstrap bands and the F1 baseline."""
        from fairprobe.plugins.riskscore.plots import plot_curves

        self._fitted()
        return plot_curves(self, "prg", groups, ax=ax)

    def plot_representation(self, groups: list[str] | None = None, ax: Any = None) -> Any:
        """Normalised representation p(G | flagged) / p(G | Y = 1) against the threshold quantile."""
        from fairprobe.plugins.riskscore.plots import plot_representation

        self._fitted()
        return plot_representation(self, groups, ax=ax)

    def plot_distributions(self, groups: list[str] | None = None, ax: Any = None) -> Any:
        """Risk-score distributions per group."""
        from fairprobe.plugins.riskscore.plots import plot_distributions

        self._fitted()
        return plot_distributions(self, groups, ax=ax)

    def report(self, path: str, *, force: bool = False) -> str:
        """Write every plot, the tables and an HTML page into folder ``path``; returns the HTML path.

        The folder follows the rules of :mod:`fairprobe.report`: a folder holding files fairprobe did
        not write is refused unless ``force``; an earlier fairprobe report in it is replaced as a whole.
        """
        from fairprobe.plugins.riskscore.plots import write_report

        self._fitted()
        return write_report(self, path, force=force)
