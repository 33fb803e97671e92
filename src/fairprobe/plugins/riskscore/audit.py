"""Per-group risk-score audit with bootstrap intervals (analysis plugin ``riskscore``).

Groups: ``all`` plus, for k = 1..``max_intersections``, every combination of k sensitive
attributes and every combination of their values present in the data. Groups with fewer than
``min_group_size`` rows are dropped and listed in ``dropped_groups_``. Continuous attributes
(numeric with more than ``max_levels`` distinct values) are binned into quartiles first.

Bootstrap: ``n_bootstrap`` resamples of the whole data set (rows drawn with replacement). Every
group's metrics, and the whole population's, are read off the same resamples, so a group's
difference to the population, ``metric(group) - metric(all)``, has a paired bootstrap
distribution (``differences_``). Per group and metric ``results_`` holds the point estimate on the
group's rows (the headline value: ``by_group_``, the summary) and the median and percentile
interval of the resamples. Expected under-representation (EUR) is evaluated on the 100 equal-mass
thresholds of the scores, vectorised over all groups; a group's target ``p(G | Y = 1)`` stays fixed
across resamples.

Undefined values: AUROC, AUPRG and the calibration intercept and slope need both outcome classes,
EUR a positive outcome in the group, DRMSCE at least 10 rows. A group (or a resample) without them
gets NaN, with the reason in the ``note`` column. Undefined resamples are counted in ``n_undefined``
and placed beyond both ends of the percentile interval (below the lower, above the upper end): the
interval widens with them and is undefined (NaN) once they reach into a tail, i.e. when more than
about ``(1 - ci) / 2`` of the resamples are undefined, rather than an interval of the few defined
ones. Undefined values and intervals are never ranked (best, worst, largest gap) nor flagged
(``excludes_zero``); the summary lists them with the reason.

Scores: the ranking measures (AUROC, AUPRG, EUR) accept any real-valued score (a decision
function, a 1-10 decile), as scikit-learn's do; the calibration measures (DRMSCE, calibration
intercept and slope) need probabilities in [0, 1] and are reported as NaN, with a note in the
summary, when the scores leave [0, 1].
"""

from __future__ import annotations

import functools
import textwrap
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from fairprobe.exceptions import ConfigError, DataError
from fairprobe.plugins.base import Analysis, Example, Summary
from fairprobe.plugins.riskscore.calibration import ECE_BINS, as_outcomes, check_scores
from fairprobe.plugins.riskscore.common import BADNESS, add_text, rankable, ranking_text
from fairprobe.plugins.riskscore.groups import (
    attribute_values,
    check_features,
    code_attributes,
    intersection_groups,
    named_attributes,
    role_values,
)
from fairprobe.plugins.riskscore.resampling import (
    CALIBRATION_METRICS,
    CHUNK,
    GROUP_METRICS,
    KNOWN_METRICS,
    OPTIONAL_METRICS,
    PERMUTED,
    bootstrap_chunk,
    eur_setup,
    eur_values,
    percentile_interval,
    permutation_chunk,
    point_reason,
    quiet_metric,
    resample_note,
    westfall_young,
)

if TYPE_CHECKING:
    from fairprobe.reporting.report import Report, Section

__all__ = ["CALIBRATION_METRICS", "EUR_SENTENCE", "KNOWN_METRICS", "OPTIONAL_METRICS", "RiskScoreAudit"]

#: Most groups a summary line names (the tables hold all).
_LIST_AT_MOST = 5
#: The report's and the summary's explanation of EUR.
EUR_SENTENCE = ("EUR (expected under-representation) averages, over thresholds at every unit's score, "
                "min(1, p(G | R >= threshold) / p(G | Y = 1)): the group's share among those flagged divided by "
                "its share among the actual positives; 1 means the group is never under-represented among the "
                "flagged, 0.8 that it is flagged on average 20% less often than its share of positives warrants. "
                "EUR of everyone is 1 by definition and noise alone pulls a group's EUR below 1 (more so in "
                "small groups), so a group is compared with random groups of the same size drawn from the same "
                "rows: 'EUR - chance' is its EUR minus theirs (below 0: more under-represented than chance), and "
                "it is flagged when a two-sided permutation test, adjusted for the number of groups tested, "
                "finds it differs from them.")


def _legacy_sensitive_features(init: Callable[..., None]) -> Callable[..., None]:
    """``RiskScoreAudit(sensitive_features=[...])``, the earlier spelling: still accepted, with a warning.

    The groups are a role of :meth:`RiskScoreAudit.fit` (one place for each parameter); the
    constructor's value is kept out of the parameters and used by ``fit`` when it gets none.
    """
    @functools.wraps(init)
    def wrapper(self: RiskScoreAudit, **params: Any) -> None:
        legacy = params.pop("sensitive_features", None)
        init(self, **params)
        if legacy is not None:
            warnings.warn("RiskScoreAudit(sensitive_features=...) is deprecated; pass the groups to fit: "
                          "audit.fit(data, y_true=..., y_score=..., sensitive_features=[...]).",
                          DeprecationWarning, stacklevel=2)
            self._sensitive_features = legacy

    return wrapper


class RiskScoreAudit(Analysis):
    """Calibration, discrimination and representation of a risk score for every group.

    The groups come from :meth:`fit`'s ``sensitive_features`` (the constructor's
    ``sensitive_features=`` of earlier versions still works, with a ``DeprecationWarning``).

    Parameters
    ----------
    max_intersections : int
        Largest number of attributes combined in one group.
    min_group_size : int
        Groups with fewer rows are dropped (and listed).
    n_bootstrap : int
        Bootstrap resamples of the whole data set.
    n_permutations : int
        Random relabellings of the groups for the comparison of ECE and EUR with random groups of
        the same size (``permutation_tests_``).
    metrics : tuple of str
        Any of "drmsce", "ece" (10 equal-width bins, as netcal), "auroc", "auprg", "eur" (default:
        all five), and optionally
        "calibration_intercept" (calibration in the large, 0 = ideal) and "calibration_slope"
        (1 = ideal), which refit a logistic model per resample.
    ci : float
        Coverage of the percentile intervals.
    auprg_below : float
        Base rate below which AUPRG is the recommended discrimination metric (reported as
        ``discrimination_metric_``).
    max_levels : int
        Numeric attributes with more distinct values are binned into quartiles.
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap resamples (a Generator seeds them from one draw, as the other
        analyses take it).
    n_jobs : int, optional
        Processes for the bootstrap (the results do not depend on it).
    progress : bool
        Show a progress bar (only ever drawn on a terminal; see :mod:`fairprobe.core.progress`).
    positive_label : optional
        The value of the outcome that means 1 (e.g. ``"yes"``); every other value means 0. Without
        it the outcomes must already be 0/1 (or booleans): text labels are an error rather than a
        guessed mapping.

    Attributes
    ----------
    results_ : DataFrame
        One row per group and metric: ``point`` (the estimate on the group's rows, NaN where
        undefined), bootstrap ``median``, percentile interval ``lower``, ``upper`` (NaN when too
        many resamples are undefined), ``n_undefined`` resamples and ``note`` (why a value or
        interval is undefined; "" when all is defined).
    by_group_ : DataFrame
        One row per group, one column per metric (point estimates); :meth:`to_frame`.
    differences_ : DataFrame
        ``metric(group) - metric(all)`` per group and metric from the same resamples: ``difference``
        (point), ``median``, ``lower``, ``upper``, ``n_undefined``, ``excludes_zero`` (only ever
        True when the difference and its interval are defined), ``p_value``, ``flagged`` and
        ``note``. The rows of ECE and EUR (:data:`PERMUTED`) differ, since their values depend on
        the group's size even when no group differs (EUR(all) is 1 by definition and EUR is capped
        at 1, so a difference to all is below 0 for nearly every group; the plug-in ECE grows as a
        group shrinks, so nearly every group is above all): ``difference`` is the group's value
        minus that of random groups of the same size, ``p_value`` the two-sided permutation
        p-value adjusted for all groups tested (``permutation_tests_.p_adjusted``) and ``flagged``
        whether it is at most ``1 - ci``; no interval. For the other metrics ``flagged`` is
        ``excludes_zero``.
    permutation_tests_ : DataFrame
        Per metric of :data:`PERMUTED` and group: ``value``, ``chance`` (mean value of random groups
        of its size), ``p_value`` (two-sided permutation p-value, see :func:`eur_permutation_test`),
        ``p_adjusted`` (Westfall-Young min-p over the same joint permutations: the chance that any
        group is flagged under unrelated labels is at most ``1 - ci``), ``n_permutations`` and
        ``flagged`` (``p_adjusted <= 1 - ci``). ``eur_tests_`` holds EUR's rows.
    dropped_groups_ : DataFrame
        Groups below ``min_group_size`` (``group``, ``n``); the summary names them.
    calibration_note_ : str
        Why the calibration measures are NaN ("" when the scores are probabilities).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> r = rng.random(2000)
    >>> data = pd.DataFrame({"sex": rng.choice(["f", "m"], 2000), "r": r, "y": (rng.random(2000) < r).astype(int)})
    >>> audit = RiskScoreAudit(n_bootstrap=20, random_state=0, progress=False)
    >>> audit = audit.fit(data, y_true="y", y_score="r", sensitive_features=["sex"])
    >>> sorted(audit.results_.group.unique())
    ['all', 'sex=f', 'sex=m']
    >>> list(audit.differences_.columns[:4])
    ['group', 'metric', 'n', 'difference']
    """

    name: ClassVar[str] = "riskscore"
    description: ClassVar[str] = "per-group calibration (DRMSCE), AUROC/AUPRG, under-representation, bootstrap CIs"
    demo_title: ClassVar[str] = "risk-score audit"
    demo_order: ClassVar[int] = 40

    @_legacy_sensitive_features
    def __init__(self, *, max_intersections: int = 3, min_group_size: int = 100, n_bootstrap: int = 200,
                 n_permutations: int = 1000, metrics: tuple[str, ...] = KNOWN_METRICS, ci: float = 0.95,
                 auprg_below: float = 0.2, max_levels: int = 10,
                 random_state: int | np.random.Generator | None = None, n_jobs: int | None = None,
                 progress: bool = True, positive_label: Any = None) -> None:
        self.max_intersections = max_intersections
        self.min_group_size = min_group_size
        self.n_bootstrap = n_bootstrap
        self.n_permutations = n_permutations
        self.metrics = metrics
        self.ci = ci
        self.auprg_below = auprg_below
        self.max_levels = max_levels
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.progress = progress
        self.positive_label = positive_label

    # -- parameters -----------------------------------------------------------------------------
    def _check_params(self) -> None:
        """Raise a ``ConfigError`` naming the first option out of range (the fix is in the message)."""
        def whole(name: str, value: Any, low: int, hint: str = "") -> None:
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
                raise ConfigError(f"{name} must be at least {low} (a whole number); got {value!r}.{hint}")

        legacy = vars(self).get("_sensitive_features")
        if legacy is not None:
            check_features(legacy)
        whole("max_intersections", self.max_intersections, 1, " Use 1 for single attributes.")
        whole("min_group_size", self.min_group_size, 1)
        whole("n_bootstrap", self.n_bootstrap, 1, " Use at least 200 resamples for 95% intervals.")
        whole("n_permutations", self.n_permutations, 1, " Use at least 1000 permutations for p-values near 0.05.")
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
        if self.random_state is not None and not isinstance(self.random_state, np.random.Generator):
            whole("random_state", self.random_state, 0, " Pass None, a seed >= 0 or a numpy Generator.")
        if self.n_jobs is not None and (isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, int | np.integer)
                                        or self.n_jobs == 0):
            raise ConfigError(f"n_jobs must be None, a positive number of processes or -1 (all cores); got "
                              f"{self.n_jobs!r}.")

    # -- fitting ------------------------------------------------------------------------------------
    def fit(self, data: pd.DataFrame | None, *, y_true: Any, y_score: Any,
            sensitive_features: Any = None) -> RiskScoreAudit:
        """Audit the scores ``y_score`` against the outcomes ``y_true`` for the groups of ``data``.

        Parameters
        ----------
        data : DataFrame or None
            One row per unit; holds the sensitive features (and possibly the outcome and score).
            ``None`` when every role is given as values.
        y_true : str or array-like
            Binary outcomes: a column name of ``data`` or one value per row.
        y_score : str or array-like
            Risk scores: a column name of ``data`` or one value per row. Any real-valued score
            ranks (AUROC, AUPRG, EUR); the calibration measures need probabilities in [0, 1] and
            are NaN otherwise (see ``calibration_note_``).
        sensitive_features : str, list of str, Series, DataFrame or array
            The attributes defining the groups: column names of ``data`` (one name or a list), or
            the values themselves (a Series or 1-D array for one attribute, a DataFrame with one
            column per attribute), one row per unit.

        Returns
        -------
        RiskScoreAudit
            ``self``, fitted.

        Raises
        ------
        DataError
            No rows; outcomes that are not 0/1 (text labels need ``positive_label``); NaN or
            non-numeric scores; a sensitive feature that is missing, repeated, incomplete or
            constant; no group reaching ``min_group_size``; a single outcome class when a
            discrimination or representation metric is requested.
        ConfigError
            An option out of range, or no sensitive features given.

        Examples
        --------
        >>> ex = RiskScoreAudit.example()
        >>> bool(ex.analysis.fit(ex.data, **ex.roles).by_group_.loc["all", "auroc"] > 0.6)
        True
        """
        for attr in self._fitted_attributes():  # a failed refit must not look fitted
            delattr(self, attr)
        self._check_params()
        y, r, attrs, binned = self._read_roles(data, y_true, y_score, sensitive_features)
        groups, k_of, dropped = intersection_groups(attrs, self.max_intersections, self.min_group_size)
        self._check_groups_and_outcomes(groups, dropped, y)
        lo, hi = float(r.min()), float(r.max())
        bounded = lo >= 0 and hi <= 1
        skipped = [] if bounded else [m for m in self.metrics if m in CALIBRATION_METRICS]
        point, boot, failures, null = self._bootstrap(y, r, groups, [m for m in self.metrics if m not in skipped])
        for g in groups:  # calibration without probabilities: NaN, not an error
            for m in skipped:
                point[g][m], boot[g][m] = np.nan, np.full(self.n_bootstrap, np.nan)
        base_rate = float(y.mean())
        # fitted state, set only once everything has succeeded
        self.sensitive_features_ = list(attrs.columns)
        self.binned_ = binned
        self.groups_ = groups
        self.n_attributes_ = k_of
        self.dropped_groups_ = dropped
        self.y_, self.r_ = y, r
        self.score_range_ = (lo, hi)
        self.bounded_ = bounded
        self.calibration_note_ = self._calibration_note(lo, hi, skipped)
        self.base_rate_ = base_rate
        self.discrimination_metric_ = "auprg" if base_rate < self.auprg_below else "auroc"
        self.bootstrap_ = boot
        self._set_results(point, boot, failures, null)
        return self

    def _read_roles(self, data: pd.DataFrame | None, y_true: Any, y_score: Any,
                    sensitive_features: Any) -> tuple[np.ndarray, np.ndarray, pd.DataFrame, dict[str, str]]:
        """Outcomes, scores and the coded attributes (with the attributes binned into quartiles), checked."""
        if sensitive_features is None:  # the constructor's (deprecated) spelling
            sensitive_features = vars(self).get("_sensitive_features")
        if sensitive_features is None:
            raise ConfigError("RiskScoreAudit needs sensitive features: pass fit(data, y_true=..., y_score=..., "
                              "sensitive_features=['sex', ...]).")
        named = [v for v in (y_true, y_score) if isinstance(v, str)]
        by_name = isinstance(sensitive_features, str | list | tuple)
        if not isinstance(data, pd.DataFrame) and (data is not None or named or by_name):
            raise DataError(f"data must be a DataFrame with the sensitive features as columns; got "
                            f"{type(data).__name__}.")
        y_raw, r_raw = role_values(data, y_true, "y_true"), role_values(data, y_score, "y_score")
        # as_outcomes names the outcome column in its messages; check_scores then sees clean 0/1 values
        y, r = check_scores(as_outcomes(y_raw, self.positive_label), r_raw, what="The risk-score audit",
                            bounded=False)
        if data is not None and len(data) != y.size:
            raise DataError(f"data must be a DataFrame with one row per score ({y.size}); got "
                            f"{type(data).__name__} with {len(data)} rows.")
        if by_name:
            features = check_features([sensitive_features] if isinstance(sensitive_features, str)
                                      else sensitive_features)
            attrs, binned = named_attributes(data.reset_index(drop=True), features, self.max_levels)
        else:
            attrs, binned = code_attributes(attribute_values(sensitive_features, y.size), self.max_levels)
        return y, r, attrs, binned

    def _check_groups_and_outcomes(self, groups: dict[str, np.ndarray], dropped: pd.DataFrame, y: np.ndarray) -> None:
        """A group besides ``all`` reaches ``min_group_size``; both outcomes occur when a metric needs them."""
        if len(groups) == 1:
            # only 'all' would be audited: an answer about no group at all
            largest = dropped.sort_values("n", ascending=False).head(3)
            sizes = ", ".join(f"{g} ({n})" for g, n in zip(largest.group, largest.n, strict=True))
            raise DataError(f"No group reaches min_group_size={self.min_group_size} rows (largest: {sizes}); lower "
                            "min_group_size (--min-group-size), use fewer intersections, or audit more rows.")
        needs_both = [m for m in self.metrics if m != "drmsce"]
        if needs_both and y.min() == y.max():
            raise DataError(f"Every outcome is {int(y[0])}: {', '.join(needs_both)} need both outcomes. Check the "
                            "target column (and positive_label), or audit calibration only with metrics=('drmsce',).")

    def _calibration_note(self, lo: float, hi: float, skipped: list[str]) -> str:
        """Why the calibration measures are NaN (scores outside [0, 1]); "" when none is skipped."""
        if not skipped:
            return ""
        return (f"the scores lie in [{lo:.4g}, {hi:.4g}], outside [0, 1]: they rank the units but are not "
                f"probabilities, so the calibration measure(s) {', '.join(skipped)} are reported as NaN; the ranking "
                f"measures ({', '.join(m for m in self.metrics if m not in skipped) or 'none requested'}) are "
                "computed.")

    def _set_results(self, point: dict[str, dict[str, float]], boot: dict[str, dict[str, np.ndarray]],
                     failures: dict[tuple[str, str], str], null: dict[str, np.ndarray]) -> None:
        """``results_``, ``permutation_tests_``, ``by_group_`` and ``differences_`` from the resamples."""
        self.results_ = self._tidy(point, boot, failures)
        self.permutation_tests_ = pd.concat([self._permutation_tests(m, point, null[m]) for m in null],
                                            ignore_index=True) if null else self._permutation_tests("", point, None)
        self.by_group_ = (self.results_.pivot(index="group", columns="metric", values="point")
                          .reindex(index=list(self.groups_), columns=list(self.metrics)))
        self.by_group_.columns.name = None
        self.differences_ = self._differences(point, boot)

    def _bootstrap(self, y: np.ndarray, r: np.ndarray, groups: dict[str, np.ndarray],
                   metrics: list[str]) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, np.ndarray]],
                                                dict[tuple[str, str], str], dict[str, np.ndarray]]:
        """Point estimates, the whole-data bootstrap of ``metrics`` for every group, why any point
        estimate failed, and the :data:`PERMUTED` metrics of every group under permuted labels."""
        sorted_groups = {g: idx[np.argsort(r[idx], kind="stable")] for g, idx in groups.items()}
        why: dict[tuple[str, str], str] = {}
        point = {g: {m: quiet_metric(GROUP_METRICS[m], y[idx], r[idx], why, (g, m)) for m in metrics
                     if m in GROUP_METRICS} for g, idx in groups.items()}
        if "eur" in metrics:
            member, level, n_levels = eur_setup(r, groups)
            values = eur_values(member, y, level, n_levels, np.ones(y.size))
            for j, g in enumerate(groups):
                point[g]["eur"] = float(values[j])
        sizes = [min(CHUNK, self.n_bootstrap - s) for s in range(0, self.n_bootstrap, CHUNK)]
        permuted = [m for m in metrics if m in PERMUTED]
        perm_sizes = ([min(CHUNK, self.n_permutations - s) for s in range(0, self.n_permutations, CHUNK)]
                      if permuted else [])
        # one seed per chunk: the resamples do not depend on n_jobs (the bootstrap's seeds come
        # first, so adding the permutations left its resamples unchanged)
        entropy = (int(self.random_state.integers(0, 2**63 - 1)) if isinstance(self.random_state, np.random.Generator)
                   else self.random_state)
        seeds = np.random.SeedSequence(entropy).spawn(len(sizes) + len(perm_sizes))
        tasks = [(bootstrap_chunk, (y, r, sorted_groups, metrics, b, sd)) for b, sd in zip(sizes, seeds, strict=False)]
        tasks += [(permutation_chunk, (y, r, groups, permuted, b, sd))
                  for b, sd in zip(perm_sizes, seeds[len(sizes):], strict=True)]
        from fairprobe.core.progress import progress_bar as tqdm  # only on a terminal; off under --quiet

        if self.n_jobs in (None, 1) or len(tasks) == 1:
            parts = [fn(*args) for fn, args in tqdm(tasks, desc="risk-score audit", disable=not self.progress)]
        else:
            from joblib import Parallel, delayed

            gen = Parallel(n_jobs=self.n_jobs, return_as="generator")(delayed(fn)(*args) for fn, args in tasks)
            parts = list(tqdm(gen, total=len(tasks), desc="risk-score audit", disable=not self.progress))
        boot_parts = parts[:len(sizes)]
        boot = {g: {m: np.concatenate([p[g][m] for p in boot_parts]) for m in metrics} for g in groups}
        null = {m: np.concatenate([p[m] for p in parts[len(sizes):]]) for m in permuted}
        return point, boot, why, null

    @property
    def eur_tests_(self) -> pd.DataFrame:
        """The EUR rows of ``permutation_tests_`` (without the ``metric`` column)."""
        self.check_is_fitted()
        tests = self.permutation_tests_
        return (tests[tests.metric == "eur"].drop(columns="metric").rename(columns={"value": "eur"})
                .reset_index(drop=True))

    def _permutation_tests(self, metric: str, point: dict[str, dict[str, float]],
                           null: np.ndarray | None) -> pd.DataFrame:
        """Each group's ``metric`` against random groups of its size (permutation test).

        The flag is adjusted for testing every group at once (Westfall-Young single-step min-p
        over the same permutations, which permute all groups jointly): with labels unrelated to
        scores and outcomes, the chance that *any* group is flagged is at most ``1 - ci``. The
        groups overlap (intersections, complements), which this accounts for and Bonferroni does not.
        """
        columns = ["metric", "group", "n", "value", "chance", "p_value", "p_adjusted", "n_permutations", "flagged"]
        if null is None:
            return pd.DataFrame(columns=columns)
        names = [g for g in self.groups_ if g != "all"]  # every row: no random group to compare with
        cols = [j for j, g in enumerate(self.groups_) if g != "all"]
        draws = null[:, cols]
        observed = np.array([point[g][metric] for g in names])
        finite = np.isfinite(draws)  # a random group without positives has no EUR
        counts = finite.sum(axis=0)
        p_value, p_adjusted = westfall_young(draws, observed)
        alpha = 1 - self.ci
        rows = []
        for k, g in enumerate(names):
            defined = bool(np.isfinite(p_value[k]))
            rows.append({"metric": metric, "group": g, "n": int(self.groups_[g].size), "value": float(observed[k]),
                         "chance": float(draws[finite[:, k], k].mean()) if counts[k] else np.nan,
                         "p_value": float(p_value[k]), "p_adjusted": float(p_adjusted[k]),
                         "n_permutations": int(counts[k]), "flagged": bool(defined and p_adjusted[k] <= alpha)})
        return pd.DataFrame(rows, columns=columns)

    def _tidy(self, point: dict[str, dict[str, float]], boot: dict[str, dict[str, np.ndarray]],
              failures: dict[tuple[str, str], str]) -> pd.DataFrame:
        """``results_``: point estimate, bootstrap median and interval, and why anything is undefined."""
        rows = []
        for g, idx in self.groups_.items():
            n_pos = int(self.y_[idx].sum())
            for m in self.metrics:
                value = point[g][m]
                med, lower, upper, undefined = percentile_interval(boot[g][m], self.ci)
                if not np.isfinite(value):  # no interval around an undefined value
                    med = lower = upper = np.nan
                    note = point_reason(m, int(idx.size), n_pos, self.bounded_, failures.get((g, m), ""))
                else:
                    note = resample_note(m, undefined, boot[g][m].size, self.ci, bool(np.isfinite(lower)))
                rows.append({"group": g, "metric": m, "n": int(idx.size), "point": value, "median": med,
                             "lower": lower, "upper": upper, "n_undefined": undefined, "note": note})
        return pd.DataFrame(rows, columns=["group", "metric", "n", "point", "median", "lower", "upper",
                                           "n_undefined", "note"])

    def _differences(self, point: dict[str, dict[str, float]],
                     boot: dict[str, dict[str, np.ndarray]]) -> pd.DataFrame:
        """metric(group) - metric(all), paired over the same resamples; flagged only when all of it is defined.

        EUR is the exception: EUR(all) is 1 by definition and a group's EUR is capped at 1, so its
        row compares the group with random groups of its size instead (``permutation_tests_``), as
        does ECE's, whose plug-in bias grows as groups shrink.
        """
        notes = self.results_.set_index(["group", "metric"])["note"]
        tests = self.permutation_tests_.set_index(["metric", "group"])
        rows = []
        for g, idx in self.groups_.items():
            if g == "all":
                continue
            for m in self.metrics:
                if m in PERMUTED:
                    rows.append(self._permutation_difference(m, g, int(idx.size), tests, notes))
                    continue
                paired = boot[g][m] - boot["all"][m]
                difference = point[g][m] - point["all"][m]
                med, lower, upper, undefined = percentile_interval(paired, self.ci)
                if not np.isfinite(difference):
                    med = lower = upper = np.nan
                    note = notes[(g, m)] if not np.isfinite(point[g][m]) else f"undefined for all: {notes[('all', m)]}"
                else:
                    note = resample_note(m, undefined, paired.size, self.ci, bool(np.isfinite(lower)))
                excludes = bool(np.isfinite(difference) and (lower > 0 or upper < 0))
                rows.append({"group": g, "metric": m, "n": int(idx.size), "difference": difference,
                             "median": med, "lower": lower, "upper": upper, "n_undefined": undefined,
                             "excludes_zero": excludes, "p_value": np.nan, "flagged": excludes, "note": note})
        return pd.DataFrame(rows, columns=["group", "metric", "n", "difference", "median", "lower", "upper",
                                           "n_undefined", "excludes_zero", "p_value", "flagged", "note"])

    def _permutation_difference(self, m: str, g: str, n: int, tests: pd.DataFrame,
                                notes: pd.Series) -> dict[str, Any]:
        """A :data:`PERMUTED` metric's row of ``differences_``: value minus chance, with the permutation p-value."""
        row = {"group": g, "metric": m, "n": n, "difference": np.nan, "median": np.nan, "lower": np.nan,
               "upper": np.nan, "n_undefined": 0, "excludes_zero": False, "p_value": np.nan, "flagged": False}
        test = tests.loc[(m, g)] if (m, g) in tests.index else None
        if test is None or not np.isfinite(test["p_value"]):
            why = notes[(g, m)] or ("no random group of this size has a positive outcome" if m == "eur"
                                    else "the metric is undefined for random groups of this size")
            return {**row, "note": why}
        tested = int((tests.index.get_level_values("metric") == m).sum())
        note = (f"{m} minus that of random groups of the same size ({test['chance']:.4f}, "
                f"{int(test['n_permutations'])} permutations); two-sided permutation p = {test['p_value']:.4g}, "
                f"{test['p_adjusted']:.4g} adjusted for the {tested} groups tested")
        return {**row, "difference": float(test["value"] - test["chance"]), "p_value": float(test["p_adjusted"]),
                "flagged": bool(test["flagged"]), "note": note}

    # -- results ----------------------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One row per group, one column per metric (point estimates on the full data): ``by_group_``.

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> audit = RiskScoreAudit.example().fit()
        >>> audit.to_frame().index[0], list(audit.to_frame().columns)
        ('all', ['drmsce', 'ece', 'auroc', 'auprg', 'eur'])
        """
        self.check_is_fitted()
        return self.by_group_

    def summary(self) -> Summary:
        """Readable summary: overall, best and worst group and the differences to all, per metric.

        Every value is the point estimate on the full data with its bootstrap interval beside it.
        A group is called best or worst only when core's rule tells it apart
        (:func:`fairprobe.core.small_groups.stands_apart`: its interval overlaps no other ranked
        group's and it has at least ``FEW_UNITS`` rows); otherwise the line shows the two ends by
        point estimate and says that the groups cannot be told apart.
        Only groups whose value and interval are defined are ranked; the others are named, per
        metric, with the reason, and the dropped groups with their sizes.

        Returns
        -------
        Summary
            The text, with the tables "differences to all" and (if any) "dropped groups".

        Examples
        --------
        >>> print(RiskScoreAudit.example().fit().summary().splitlines()[0])  # doctest: +ELLIPSIS
        risk-score audit: ... groups (min size 100), base rate ...
        """
        self.check_is_fitted()
        res, diff = self.results_, self.differences_
        pct = f"{self.ci * 100:g}%"
        lines = [f"risk-score audit: {len(self.groups_)} groups (min size {self.min_group_size}), base rate "
                 f"{self.base_rate_:.3f}; recommended discrimination metric: {self.discrimination_metric_}",
                 f"  values: point estimate on the full data [{pct} bootstrap percentile interval, "
                 f"{self.n_bootstrap} resamples of the whole data set]"]

        def shown(row: pd.Series, value: str = "point", sign: str = "") -> str:
            return (f"{row.group} {row[value]:{sign}.4f} [{row['lower']:{sign}.4f}, {row['upper']:{sign}.4f}]")

        for m in self.metrics:
            if m in CALIBRATION_METRICS and not self.bounded_:
                lines.append(f"  {m:7s} NaN: the scores are not probabilities (see the note below)")
                continue
            rows = res[res.metric == m]
            overall = rows[rows.group == "all"].iloc[0]
            if rankable(overall):
                line = f"  {m:7s} {shown(overall)}"
            elif np.isfinite(overall["point"]):
                line = f"  {m:7s} all {overall['point']:.4f} ({overall.note})"
            else:
                line = f"  {m:7s} all NaN ({overall.note})"
            groups = rows[rows.group != "all"]
            ranked = groups[groups.apply(rankable, axis=1)] if len(groups) else groups
            if len(ranked):
                order = ranked.assign(_bad=ranked["point"].map(BADNESS[m])).sort_values("_bad", kind="stable")
                line += ranking_text(order, shown)
            lines.append(line)
            d = diff[(diff.metric == m) & diff.flagged]
            if m in PERMUTED:
                lines.append(self._permutation_line(m, d))
            elif len(d):
                top = d.loc[d["difference"].abs().idxmax()]
                lines.append(f"          group - all: {len(d)} group(s) with a {pct} interval excluding 0; largest "
                             f"{shown(top, 'difference', '+')}")
            else:
                lines.append(f"          group - all: no group with a {pct} interval excluding 0")
            unranked = groups[~groups.group.isin(ranked.group)]
            if len(unranked):
                lines.append(f"          not ranked ({len(unranked)} group{'s' if len(unranked) > 1 else ''}, "
                             "value or interval undefined):")
                lines += [f"            {g}: {note}" for g, note in
                          zip(unranked.group[:_LIST_AT_MOST], unranked.note[:_LIST_AT_MOST], strict=True)]
                if len(unranked) > _LIST_AT_MOST:
                    lines.append(f"            and {len(unranked) - _LIST_AT_MOST} more (the 'note' column of the "
                                 "results; --json)")
        dropped = self.dropped_groups_
        if len(dropped):
            largest = dropped.sort_values("n", ascending=False, kind="stable")
            named = ", ".join(f"{g} ({n})" for g, n in zip(largest.group[:2 * _LIST_AT_MOST],
                                                           largest.n[:2 * _LIST_AT_MOST], strict=True))
            more = (f" and {len(dropped) - 2 * _LIST_AT_MOST} more (the 'dropped groups' table)"
                    if len(dropped) > 2 * _LIST_AT_MOST else "")
            lines.append(f"  {named}{more} {'has' if len(dropped) == 1 else 'have'} fewer than "
                         f"min_group_size={self.min_group_size} rows (--min-group-size) and "
                         f"{'is' if len(dropped) == 1 else 'are'} not ranked")
        if self.calibration_note_:
            lines.append(f"  note: {self.calibration_note_}")
        if "eur" in self.metrics:
            lines.append(textwrap.fill(EUR_SENTENCE, 110, initial_indent="  ", subsequent_indent="  "))
        tables = {"differences to all": self.differences_.round(4)}
        if len(self.dropped_groups_):
            tables["dropped groups"] = self.dropped_groups_
        return Summary("\n".join(lines), title="Risk-score audit", tables=tables)

    def _permutation_line(self, m: str, flagged: pd.DataFrame) -> str:
        """The summary's line on a :data:`PERMUTED` metric's permutation tests."""
        tested = int((self.permutation_tests_.metric == m).sum())
        test = (f"vs random groups of the same size (two-sided permutation test, {self.n_permutations} "
                f"permutations, p <= {1 - self.ci:.2g} adjusted for {tested} groups)")
        if not len(flagged):
            return f"          {test}: no group differs from chance"
        top = flagged.loc[flagged["difference"].abs().idxmax()]
        worse = int((flagged["difference"] < 0).sum()) if m == "eur" else int((flagged["difference"] > 0).sum())
        what = "more under-represented" if m == "eur" else "worse calibrated"
        return (f"          {test}: {len(flagged)} group(s) differ from chance ({worse} {what}); largest "
                f"{top.group} {top.difference:+.4f} (adjusted p = {top.p_value:.3g})")

    def report_section(self, report: Report, title: str | None = None) -> Section:
        """Add the audit's section: parameters, summary, figures, the tables and what the metrics mean.

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The report to add the section to.
        title : str, optional
            Section heading (default: the analysis's description).

        Returns
        -------
        fairprobe.reporting.report.Section

        Examples
        --------
        >>> from fairprobe.reporting.report import Report
        >>> sec = RiskScoreAudit.example().fit().report_section(Report("demo"))
        >>> "EUR (expected under-representation)" in sec.text
        True
        """
        sec = super().report_section(report, title)
        add_text(sec,
            "DRMSCE (debiased root-mean-square calibration error, 0 = calibrated; needs scores in [0, 1]), ECE "
            f"(plug-in expected calibration error on {ECE_BINS} equal-width bins), AUROC "
            "and AUPRG (discrimination; any real-valued score) and expected under-representation per group and "
            f"intersection of at least {self.min_group_size} rows. Every group is in the tables; figures that show "
            "only some groups say so in their titles. Values are point estimates on the full data; intervals are "
            f"bootstrap percentile intervals ({self.ci * 100:g}%) over {self.n_bootstrap} resamples of the whole "
            "data set; the table 'differences to all' gives metric(group) - metric(all) computed on the same "
            "resamples, except for ECE and EUR, which are compared with random groups of the same size (see "
            "below). A metric undefined for a group (AUROC, AUPRG and the calibration intercept and slope "
            "need both outcomes, EUR a positive outcome, DRMSCE 10 rows) is NaN with the reason in the 'note' "
            "column; undefined resamples count as beyond both ends of an interval, which is undefined once "
            "they reach into a tail. Undefined values and intervals are never ranked nor flagged.")
        if "eur" in self.metrics:
            add_text(sec, EUR_SENTENCE)
        if self.calibration_note_:
            add_text(sec, f"Note: {self.calibration_note_}")
        sec.add_table("all results (long form)", self.results_.round(4))
        return sec

    # -- figures ------------------------------------------------------------------------------------
    def _has_values(self, metric: str) -> bool:
        """Whether some group (other than all) has a defined value and interval for ``metric``."""
        res = self.results_
        sub = res[(res.metric == metric) & (res.group != "all")]
        return bool(sub[["point", "lower", "upper"]].notna().all(axis=1).any())

    def figures(self) -> dict[str, Callable[..., Any]]:
        """The named plots: metric and difference panels per metric, reliability, ROC, PRG, representation, scores.

        Returns
        -------
        dict of str to callable
            Each ``plot(*, ax=None) -> Axes``. Calibration plots are left out when the scores
            are not probabilities.

        Examples
        --------
        >>> sorted(RiskScoreAudit.example().fit().figures())[:3]
        ['differences_auprg', 'differences_auroc', 'differences_drmsce']
        """
        self.check_is_fitted()
        figs: dict[str, Callable[..., Any]] = {}
        for m in self.metrics:
            if self._has_values(m):
                figs[f"metric_{m}"] = functools.partial(self.plot_metrics, m)
                figs[f"differences_{m}"] = functools.partial(self.plot_differences, m)
        if self.bounded_:
            figs["reliability"] = self.plot_reliability
        figs["roc"] = self.plot_roc
        figs["prg"] = self.plot_prg
        if "eur" in self.metrics:
            figs["representation"] = self.plot_representation
        figs["distributions"] = self.plot_distributions
        return figs

    def plot_metrics(self, metric: str | None = None, *, ax: Any = None, top: int = 15) -> Any:
        """Median and interval per group for one metric, with group sizes (the paper's Figure 3).

        Every single-attribute group is shown; of the intersections, the ``top`` most extreme
        (the title says how many of how many).

        Parameters
        ----------
        metric : str, optional
            Default: the first computed metric.
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        top : int
            Most intersection groups shown.

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> ax = RiskScoreAudit.example().fit().plot_metrics("auroc")
        >>> ax.get_title().startswith("auroc")
        True
        """
        from fairprobe.plugins.riskscore.plots import plot_metric_panel

        self.check_is_fitted()
        return plot_metric_panel(self, metric or self._first_metric(), ax=ax, top=top)

    def plot_differences(self, metric: str | None = None, *, ax: Any = None, top: int = 15) -> Any:
        """metric(group) - metric(all) per group with paired bootstrap intervals (0 = as the population).

        Parameters
        ----------
        metric : str, optional
            Default: the first computed metric.
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        top : int
            Most intersection groups shown (every single-attribute group is).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> ax = RiskScoreAudit.example().fit().plot_differences("eur")
        >>> ax.get_xlabel().startswith("eur(group) - eur(random groups of the same size)")
        True
        """
        from fairprobe.plugins.riskscore.plots import plot_metric_panel

        self.check_is_fitted()
        return plot_metric_panel(self, metric or self._first_metric(), ax=ax, top=top, differences=True)

    def _first_metric(self) -> str:
        return next((m for m in self.metrics if self._has_values(m)), self.metrics[0])

    def plot_reliability(self, groups: list[str] | None = None, *, ax: Any = None) -> Any:
        """LOWESS reliability diagrams with bootstrap bands (best, worst and all by default).

        Parameters
        ----------
        groups : list of str, optional
            Groups to draw (names as in ``groups_``).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Raises
        ------
        ConfigError
            The scores are not probabilities.

        Examples
        --------
        >>> ax = RiskScoreAudit.example().fit().plot_reliability(["all"])
        >>> ax.get_ylabel()
        'P(Y = 1 | R, G)'
        """
        from fairprobe.plugins.riskscore.plots import plot_reliability

        self.check_is_fitted()
        return plot_reliability(self, groups, ax=ax)

    def plot_roc(self, groups: list[str] | None = None, *, ax: Any = None) -> Any:
        """ROC curves with bootstrap bands (best, worst and all by default).

        Parameters
        ----------
        groups : list of str, optional
            Groups to draw, as in ``groups_`` (default: the best and the worst, and ``"all"``).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> RiskScoreAudit.example().fit().plot_roc().get_xlabel()
        'false-positive rate'
        """
        from fairprobe.plugins.riskscore.plots import plot_curves

        self.check_is_fitted()
        return plot_curves(self, "roc", groups, ax=ax)

    def plot_prg(self, groups: list[str] | None = None, *, ax: Any = None) -> Any:
        """Precision-recall-gain curves with bootstrap bands and the F1 baseline.

        Parameters
        ----------
        groups : list of str, optional
            Groups to draw, as in ``groups_`` (default: the best and the worst, and ``"all"``).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> RiskScoreAudit.example().fit().plot_prg().get_xlabel()
        'recall gain'
        """
        from fairprobe.plugins.riskscore.plots import plot_curves

        self.check_is_fitted()
        return plot_curves(self, "prg", groups, ax=ax)

    def plot_representation(self, groups: list[str] | None = None, *, ax: Any = None) -> Any:
        """Normalised representation p(G | flagged) / p(G | Y = 1) against the threshold quantile.

        Parameters
        ----------
        groups : list of str, optional
            Groups to draw, as in ``groups_`` (default: the best and the worst, and ``"all"``).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> RiskScoreAudit.example().fit().plot_representation().get_ylabel()
        'p(G | flagged) / p(G | Y = 1)'
        """
        from fairprobe.plugins.riskscore.plots import plot_representation

        self.check_is_fitted()
        return plot_representation(self, groups, ax=ax)

    def plot_distributions(self, groups: list[str] | None = None, *, ax: Any = None) -> Any:
        """Risk-score distributions per group.

        Parameters
        ----------
        groups : list of str, optional
            Groups to draw, as in ``groups_`` (default: the best and the worst, and ``"all"``).
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib Axes

        Examples
        --------
        >>> RiskScoreAudit.example().fit().plot_distributions().get_xlabel()
        'risk score'
        """
        from fairprobe.plugins.riskscore.plots import plot_distributions

        self.check_is_fitted()
        return plot_distributions(self, groups, ax=ax)

    # -- examples and the demo ------------------------------------------------------------------------
    @classmethod
    def example(cls, *, seed: int = 0) -> Example:
        """Loan applicants whose risk score is miscalibrated in one region (a quick audit).

        Parameters
        ----------
        seed : int
            Seed of the generated data and of the analysis.

        Returns
        -------
        Example
            ``example.fit()`` audits :func:`fairprobe.datasets.make_lending_scenario`'s recorded
            outcomes by group, region and education (20 resamples).

        Examples
        --------
        >>> ex = RiskScoreAudit.example(seed=1)
        >>> ex.roles
        {'y_true': 'default', 'y_score': 'score', 'sensitive_features': ['group', 'region', 'education']}
        """
        from fairprobe.datasets import make_lending_scenario

        data = make_lending_scenario(3000, seed=seed).audit_frame
        audit = cls(max_intersections=1, n_bootstrap=20, random_state=seed, progress=False)
        return Example(audit, data, {"y_true": "default", "y_score": "score",
                                     "sensitive_features": ["group", "region", "education"]})

    @classmethod
    def demo(cls, report: Report, scenario: Any, facts: dict[str, Any], *, quick: bool, seed: int, n_jobs: int,
             progress: bool) -> tuple[dict[str, bool], pd.DataFrame, list[str]]:
        """The risk-score step of ``fairprobe demo`` (see :func:`~fairprobe.plugins.riskscore.demo.demo_step`).

        Parameters
        ----------
        report : fairprobe.reporting.report.Report
            The demo's report; the step adds its section.
        scenario : fairprobe.datasets.Scenario
            The demo's lending scenario.
        facts : dict
            Findings for ``summary.json`` (``facts["riskscore"]`` is set).
        quick : bool
            Fewer bootstrap resamples.
        seed : int
            Random seed.
        n_jobs : int
            Parallel workers.
        progress : bool
            Show progress bars.

        Returns
        -------
        found : dict of str to bool
            Injected problems of the scenario this step detected (``miscalibrated_group``).
        table : DataFrame
            The step's main table.
        lines : list of str
            One finding line.

        Examples
        --------
        The step takes seconds (it bootstraps every group and draws its figures); ``fairprobe demo``
        runs it under this heading:

        >>> RiskScoreAudit.demo_title, RiskScoreAudit.demo_order
        ('risk-score audit', 40)
        """
        from fairprobe.plugins.riskscore.demo import demo_step  # the step module does not import this one

        return demo_step(cls, report, scenario, facts, quick=quick, seed=seed, n_jobs=n_jobs, progress=progress)
