"""The study spec: what to train, evaluate and bound, read from YAML, JSON or a dict.

Every field is checked when the spec is read, before anything is trained, and a bad field is a
:class:`~fairprobe.exceptions.ConfigError` that names the field, what it got and what it takes.
The schema (every key but ``datasets`` optional):

``name`` (str)
    A title for the report.
``datasets`` (list)
    Built-in names (``compas``, ``adult``, ``german``, ``compas_binary``); ``bank_marketing`` and
    ``student_performance`` with the ``path`` of your downloaded copy (roles fixed, see
    :data:`RECIPES`); or mappings with ``name``
    and, for a file of your own, ``path`` (CSV or Parquet, relative to the spec file), ``label``
    (column), ``positive`` (its favourable value, default 1), ``attribute`` (column), ``groups``
    (two values of the attribute: the metric is group 1's rate minus group 2's; other rows are
    dropped) and ``features`` (default: every other column). ``subsample`` (rows) applies to any.
``classifiers`` (list)
    ``logistic_regression``, ``naive_bayes``, ``decision_tree`` (the default: all three), or an
    estimator class by import path (``sklearn.ensemble.RandomForestClassifier``), or a mapping with
    ``name``, ``estimator`` (import path) and ``params``.
``constraints`` (list)
    ``none``, ``demographic_parity``, ``equalized_odds``, ``fpr_parity``, ``fnr_parity`` (fairlearn's
    exponentiated-gradient reductions) and ``ppv_parity``, ``npv_parity`` (the paper's search over
    reweighted predictors); default: the paper's six constrained ones.
``metrics`` (list)
    Parity metrics bounded on each model (default: FNR, FPR, PPV, NPV, demographic parity and
    equalised odds).
``biases`` (list)
    Registered bias names, or a combination ``{"combine": [...], ...}`` (every sensitivity
    parameter then takes the level ``D``). Default: proxy labels, selection, ECP.
``D`` (list of float)
    Sensitivity levels (0 is always added: it is the observed value).
``test_size`` (float), ``seed`` (int)
    The held-out share (default 0.5) and the seed of every random step (default 0; at most
    ``2**32 - 1``).
``reduction`` (mapping)
    ``eps`` of the reductions (default 0.01).
``search`` (mapping)
    ``candidates`` (default 100) and ``accuracy_slack`` (default 0.02) of the reweighting search.
``ci`` (mapping, optional)
    ``level`` (in (0.5, 1), default 0.95), ``method`` (``bootstrap``, ``projection``, ``bayes``),
    ``resamples``: a sampling interval for every bound.
``backend`` (str), ``time_limit`` (float)
    Solver options of every bound (defaults ``"scip"`` and 60 s).

A key given twice in a YAML or JSON file is an error naming it and its lines (YAML alone would
keep the last one).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fairprobe.core.jsonsafe import dumps
from fairprobe.exceptions import ConfigError, FairprobeError

__all__ = ["BUILTIN_CLASSIFIERS", "BUILTIN_DATASETS", "CONSTRAINTS", "RECIPES", "ClassifierSpec", "DatasetSpec",
           "StudySpec", "bias_name", "load_spec"]

BUILTIN_DATASETS = ("compas", "adult", "german", "compas_binary")
#: Data sets of the paper's list that fairprobe cannot bundle (no registry package or repository
#: carries them with a licence to redistribute): name -> (the file the study needs, where to get it).
#: Their roles are fixed by :mod:`fairprobe.studies.data`; the spec gives the downloaded file's path.
RECIPES = {
    "bank_marketing": ("bank-full.csv", "the UCI Machine Learning Repository, 'Bank Marketing' (id 222), "
                                        "bank.zip -> bank-full.csv"),
    "student_performance": ("student-mat.csv (or student-por.csv)", "the UCI Machine Learning Repository, "
                                                                    "'Student Performance' (id 320), student.zip"),
}
BUILTIN_CLASSIFIERS = ("logistic_regression", "naive_bayes", "decision_tree")
REDUCTIONS = ("demographic_parity", "equalized_odds", "fpr_parity", "fnr_parity")
SEARCHED = ("ppv_parity", "npv_parity")
CONSTRAINTS = ("none", *REDUCTIONS, *SEARCHED)
DEFAULT_METRICS = ("fnr_parity", "fpr_parity", "ppv_parity", "npv_parity", "demographic_parity", "equalized_odds")
DEFAULT_BIASES = ("proxy_label", "selection", "ecp")
CI_METHODS = ("bootstrap", "projection", "bayes")
MAX_SEED = 2**32 - 1  # numpy's and scikit-learn's random_state take no larger seed
_KEYS = {"name", "datasets", "classifiers", "constraints", "metrics", "biases", "D", "test_size", "seed",
         "reduction", "search", "ci", "backend", "time_limit"}
_DATASET_KEYS = {"name", "path", "label", "positive", "attribute", "groups", "features", "subsample"}


@dataclass(frozen=True)
class DatasetSpec:
    """One data set of a study: a built-in name, or a user's file with its roles.

    Parameters
    ----------
    name : str
        Its name in every output (a built-in name when ``path`` is None).
    path : str, optional
        A CSV or Parquet file (absolute, or resolved against the spec's folder).
    label, attribute : str, optional
        Columns of the outcome and the protected attribute (required with ``path``).
    positive : Any
        The label's favourable value (coded 1).
    groups : tuple, optional
        Two attribute values compared (group 1 minus group 2).
    features : tuple of str, optional
        Model inputs (default: every other column).
    subsample : int, optional
        Rows drawn at random (with the study's seed) before the split.

    Examples
    --------
    >>> DatasetSpec("compas").builtin
    True
    """

    name: str
    path: str | None = None
    label: str | None = None
    attribute: str | None = None
    positive: Any = 1
    groups: tuple[Any, ...] | None = None
    features: tuple[str, ...] | None = None
    subsample: int | None = None

    @property
    def builtin(self) -> bool:
        """Whether this is a bundled data set (no file)."""
        return self.path is None


@dataclass(frozen=True)
class ClassifierSpec:
    """A classifier: a built-in name, or a scikit-learn estimator class by import path.

    Examples
    --------
    >>> ClassifierSpec("rf", "sklearn.ensemble.RandomForestClassifier", {"n_estimators": 10}).name
    'rf'
    """

    name: str
    estimator: str | None = None  # import path; None for a built-in name
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StudySpec:
    """A validated study spec (see the module notes for the schema).

    Examples
    --------
    >>> spec = StudySpec.from_dict({"datasets": ["german"], "classifiers": ["naive_bayes"],
    ...                             "constraints": ["none"], "D": [0.02]})
    >>> spec.D, spec.metrics[:2], spec.biases
    ((0.0, 0.02), ('fnr_parity', 'fpr_parity'), ('proxy_label', 'selection', 'ecp'))
    >>> StudySpec.from_dict({"datasets": ["german"], "D": [-1]})
    Traceback (most recent call last):
    ...
    fairprobe.exceptions.ConfigError: study spec, 'D': every level must be a number in [0, 1]; got -1.
    """

    datasets: tuple[DatasetSpec, ...]
    classifiers: tuple[ClassifierSpec, ...] = tuple(ClassifierSpec(n) for n in BUILTIN_CLASSIFIERS)
    constraints: tuple[str, ...] = tuple(c for c in CONSTRAINTS if c != "none")
    metrics: tuple[str, ...] = DEFAULT_METRICS
    biases: tuple[Any, ...] = DEFAULT_BIASES
    D: tuple[float, ...] = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05)
    name: str = "fairness fragility study"
    test_size: float = 0.5
    seed: int = 0
    reduction_eps: float = 0.01
    search_candidates: int = 100
    search_accuracy_slack: float = 0.02
    ci: dict[str, Any] | None = None
    backend: str = "scip"
    time_limit: float | None = 60.0

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any], base: str | os.PathLike | None = None) -> StudySpec:
        """Validate a spec mapping.

        Parameters
        ----------
        raw : mapping
            The spec (see the module notes).
        base : path, optional
            Folder that relative data paths are resolved against (the spec file's).

        Returns
        -------
        StudySpec

        Raises
        ------
        ConfigError
            A bad field, named with what it got and what it takes.
        """
        if not isinstance(raw, Mapping):
            raise ConfigError(f"study spec: expected a mapping of keys {sorted(_KEYS)}; got {type(raw).__name__}.")
        unknown = sorted(set(raw) - _KEYS)
        if unknown:
            raise ConfigError(f"study spec: unknown key(s) {unknown}; the keys are {sorted(_KEYS)}.")
        if "datasets" not in raw:
            raise ConfigError("study spec: 'datasets' is required, e.g. datasets: [compas, adult, german].")
        out: dict[str, Any] = {"datasets": _datasets(raw["datasets"], base)}
        if "classifiers" in raw:
            out["classifiers"] = _classifiers(raw["classifiers"])
        if "constraints" in raw:
            out["constraints"] = _names(raw["constraints"], "constraints", CONSTRAINTS)
        if "metrics" in raw:
            out["metrics"] = _metrics(raw["metrics"])
        if "biases" in raw:
            out["biases"] = _biases(raw["biases"])
        if "D" in raw:
            out["D"] = _levels(raw["D"])
        else:
            out["D"] = cls.D
        if "name" in raw:
            out["name"] = _string(raw["name"], "name")
        if "test_size" in raw:
            out["test_size"] = _fraction(raw["test_size"], "test_size")
        if "seed" in raw:
            seed = raw["seed"]
            if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
                raise ConfigError(f"study spec, 'seed': must be a non-negative integer up to 2**32 - 1 "
                                  f"({MAX_SEED}, the largest seed numpy and scikit-learn take), e.g. 0; got {seed!r}.")
            out["seed"] = seed
        reduction = _mapping(raw.get("reduction"), "reduction", {"eps"})
        if "eps" in reduction:
            out["reduction_eps"] = _positive(reduction["eps"], "reduction.eps")
        search = _mapping(raw.get("search"), "search", {"candidates", "accuracy_slack"})
        if "candidates" in search:
            value = search["candidates"]
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"study spec, 'search.candidates': must be a positive integer; got {value!r}.")
            out["search_candidates"] = value
        if "accuracy_slack" in search:
            out["search_accuracy_slack"] = _fraction(search["accuracy_slack"], "search.accuracy_slack", closed=True)
        if raw.get("ci") is not None:
            out["ci"] = _ci(raw["ci"])
        if "backend" in raw:
            out["backend"] = _backend(raw["backend"])
        if "time_limit" in raw:
            out["time_limit"] = None if raw["time_limit"] is None else _positive(raw["time_limit"], "time_limit")
        return cls(**out)

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain data (what ``spec.json`` in the output folder holds).

        Examples
        --------
        >>> StudySpec.from_dict({"datasets": ["german"]}).to_dict()["datasets"][0]["name"]
        'german'
        """
        data = asdict(self)
        data["biases"] = [b if isinstance(b, str) else dict(b) for b in self.biases]
        return json.loads(dumps(data))

    def fingerprint(self) -> str:
        """A hash of everything that decides the results: the spec but its title, and the contents
        of the data files it reads.

        Examples
        --------
        >>> a = StudySpec.from_dict({"datasets": ["german"]})
        >>> a.fingerprint() == StudySpec.from_dict({"datasets": ["german"], "name": "other title"}).fingerprint()
        True
        """
        data = self.to_dict()
        data.pop("name")
        data["files"] = [file_digest(d.path) for d in self.datasets if d.path is not None]
        return hashlib.sha256(dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a data file's bytes (a resumed study notices a file that changed).

    Examples
    --------
    >>> import hashlib, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp) / "d.csv"
    ...     _ = p.write_bytes(b"a,b")
    ...     file_digest(p) == hashlib.sha256(b"a,b").hexdigest()
    True
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bias_name(bias: Any) -> str:
    """A bias's label in the results: its name, or ``a+b`` for a combination.

    Examples
    --------
    >>> bias_name("selection"), bias_name({"combine": ["proxy_label", "selection"]})
    ('selection', 'proxy_label+selection')
    """
    if isinstance(bias, str):
        return bias
    if "combine" in bias:
        return "+".join(b if isinstance(b, str) else str(b.get("name", "bias")) for b in bias["combine"])
    return str(bias.get("name", "custom_bias"))


def load_spec(spec: str | os.PathLike | Mapping[str, Any] | StudySpec) -> StudySpec:
    """Read and validate a study spec from a YAML or JSON file, a mapping or a :class:`StudySpec`.

    Parameters
    ----------
    spec : path, mapping or StudySpec
        The spec; relative data paths in a file are resolved against the file's folder.

    Returns
    -------
    StudySpec

    Raises
    ------
    ConfigError
        A missing or unparsable file, or a bad field.

    Examples
    --------
    >>> load_spec({"datasets": ["compas"], "classifiers": ["decision_tree"]}).classifiers[0].name
    'decision_tree'
    """
    if isinstance(spec, StudySpec):
        return spec
    if isinstance(spec, Mapping):
        return StudySpec.from_dict(spec)
    path = Path(spec)
    if not path.is_file():
        raise ConfigError(f"study spec: no file {str(path)!r}; give the path of a YAML or JSON spec.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"study spec {str(path)!r} is not UTF-8 text; save it as UTF-8 (YAML or JSON).") from None
    try:
        if path.suffix.lower() == ".json":
            raw = json.loads(text, object_pairs_hook=_unique_pairs)
        else:
            raw = yaml.load(text, Loader=SpecLoader)  # a SafeLoader refusing keys given twice
    except ConfigError as exc:  # a key given twice in a JSON file
        raise ConfigError(f"study spec {str(path)!r}: {exc}") from None
    except Exception as exc:  # the parsers' own errors: their first line and where
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        first = (getattr(exc, "problem", None) or str(exc)).splitlines()[0]
        raise ConfigError(f"study spec {str(path)!r} could not be parsed{where}: {first}") from None
    return StudySpec.from_dict(raw or {}, base=path.parent)


class SpecLoader(yaml.SafeLoader):
    """YAML's safe loader that refuses a key given twice in a mapping (``yaml.safe_load`` keeps the last).

    Merge keys (``<<: *anchor``) still override the merged mapping's keys, as YAML defines.

    Examples
    --------
    >>> yaml.load("{D: [0.01], seed: 1}", Loader=SpecLoader)
    {'D': [0.01], 'seed': 1}
    >>> try:
    ...     yaml.load("{D: [0.01], D: [0.05]}", Loader=SpecLoader)
    ... except yaml.YAMLError as err:
    ...     print(err.problem)
    found the key 'D' a second time (first on line 1); give each key once
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            first_line: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    twice = key in first_line
                except TypeError:  # an unhashable key: the base class names it
                    continue
                if twice:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found the key {key!r} a second time (first on line {first_line[key]}); give each key once",
                        key_node.start_mark)
                first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s object hook: a key given twice is an error (JSON would keep the last one)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ConfigError(f"the key {key!r} is given twice in one object; give each key once.")
        out[key] = value
    return out


# -- field checks ---------------------------------------------------------------------------------
def _string(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"study spec, '{key}': must be a non-empty string; got {value!r}.")
    return value


def _list(value: Any, key: str) -> list[Any]:
    if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence) or not value:
        raise ConfigError(f"study spec, '{key}': must be a non-empty list; got {value!r}.")
    return list(value)


def _mapping(value: Any, key: str, allowed: set[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"study spec, '{key}': must be a mapping with keys {sorted(allowed)}; got {value!r}.")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ConfigError(f"study spec, '{key}': unknown key(s) {unknown}; the keys are {sorted(allowed)}.")
    return dict(value)


def _as_number(value: Any) -> Any:
    """YAML 1.1 reads ``1e-2`` as a string: take a string that is a plain number as that number."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _number(value: Any, key: str) -> float:
    value = _as_number(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"study spec, '{key}': must be a number; got {value!r}.")
    return float(value)


def _positive(value: Any, key: str) -> float:
    number = _number(value, key)
    if number <= 0:
        raise ConfigError(f"study spec, '{key}': must be positive; got {value!r}.")
    return number


def _fraction(value: Any, key: str, closed: bool = False) -> float:
    number = _number(value, key)
    if not (0 <= number <= 1 if closed else 0 < number < 1):
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ConfigError(f"study spec, '{key}': must be in {interval}; got {value!r}.")
    return number


def _names(value: Any, key: str, allowed: Sequence[str]) -> tuple[str, ...]:
    items = _list(value, key)
    bad = [v for v in items if v not in allowed]
    if bad:
        raise ConfigError(f"study spec, '{key}': unknown {bad}; choose from {list(allowed)}.")
    if len(set(items)) != len(items):
        raise ConfigError(f"study spec, '{key}': {items} lists a value twice.")
    return tuple(items)


def _levels(value: Any) -> tuple[float, ...]:
    items = _list(value, "D")
    levels = []
    for v in map(_as_number, items):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise ConfigError(f"study spec, 'D': every level must be a number in [0, 1]; got {v!r}.")
        levels.append(float(v))
    return tuple(sorted({0.0, *levels}))


def _metrics(value: Any) -> tuple[str, ...]:
    from fairprobe.core.registry import registered

    items = _list(value, "metrics")
    known = {n: cls for n, cls in registered("metrics").items() if _compares_groups(cls)}
    bad = [m for m in items if not isinstance(m, str) or m not in known]
    if bad:
        raise ConfigError(f"study spec, 'metrics': unknown {bad}; the study bounds comparisons of the two groups, "
                          f"registered: {sorted(known)}.")
    if len(set(items)) != len(items):
        raise ConfigError(f"study spec, 'metrics': {items} lists a value twice.")
    return tuple(items)


def _compares_groups(cls: Any) -> bool:
    """Whether a metric class compares two groups (takes ``groups=``), not the rate of one group."""
    if getattr(cls, "compares_one_group", False):
        return False
    try:
        cls(groups=("first", "second"))
    except Exception:  # a metric of another shape (causal effects, plugins' own options)
        return False
    return True


def _biases(value: Any) -> tuple[Any, ...]:
    from fairprobe.core.bound import resolve_bias

    out: list[Any] = []
    for item in _list(value, "biases"):
        if not isinstance(item, (str, Mapping)):
            raise ConfigError(f"study spec, 'biases': each bias is a registered name or a mapping such as "
                              f"{{combine: [proxy_label, selection]}}; got {item!r}.")
        try:
            resolve_bias(dict(item) if isinstance(item, Mapping) else item)
        except FairprobeError as exc:  # an unknown name, a bad combination
            raise ConfigError(f"study spec, 'biases': {item!r}: {exc}") from None
        out.append(item if isinstance(item, str) else dict(item))
    labels = [bias_name(b) for b in out]
    twice = sorted({n for n in labels if labels.count(n) > 1})
    if twice:
        raise ConfigError(f"study spec, 'biases': {twice} named twice; each bias is one set of rows in the results, "
                          "so give a custom bias its own 'name' (and list a bias once).")
    return tuple(out)


def _backend(value: Any) -> str:
    from fairprobe.core.registry import registered

    name = _string(value, "backend")
    backends = registered("backends")
    if name != "auto" and name not in backends:
        raise ConfigError(f"study spec, 'backend': unknown {name!r}; registered: {sorted(backends)} (or auto).")
    if name != "auto" and not backends[name].availability():
        raise ConfigError(f"study spec, 'backend': {name} is unavailable here: {backends[name].availability_reason()}.")
    return name


def _ci(value: Any) -> dict[str, Any]:
    ci = _mapping(value, "ci", {"level", "method", "resamples"})
    level = _number(ci.get("level", 0.95), "ci.level")
    if not 0.5 < level < 1:  # below one half the interval's critical value has no solution
        raise ConfigError(f"study spec, 'ci.level': a coverage level must be in (0.5, 1), e.g. 0.95 or 0.9; got "
                          f"{ci.get('level')!r}.")
    method = ci.get("method", "bootstrap")
    if method not in CI_METHODS:
        raise ConfigError(f"study spec, 'ci.method': {method!r} is not one of {list(CI_METHODS)}.")
    resamples = ci.get("resamples", 200)
    if not isinstance(resamples, int) or isinstance(resamples, bool) or resamples < 20:
        raise ConfigError(f"study spec, 'ci.resamples': must be an integer of at least 20; got {resamples!r}.")
    return {"level": level, "method": method, "resamples": resamples}


def _classifiers(value: Any) -> tuple[ClassifierSpec, ...]:
    out = []
    for item in _list(value, "classifiers"):
        if isinstance(item, str) and item in BUILTIN_CLASSIFIERS:
            out.append(ClassifierSpec(item))
        elif isinstance(item, str) and "." in item:
            out.append(ClassifierSpec(item.rsplit(".", 1)[1], item))
        elif isinstance(item, Mapping):
            spec = _mapping(item, "classifiers[]", {"name", "estimator", "params"})
            if "estimator" not in spec:
                raise ConfigError("study spec, 'classifiers': a mapping needs 'estimator', the import path of a "
                                  f"scikit-learn classifier (e.g. sklearn.svm.SVC); got {dict(item)!r}.")
            params = _mapping(spec.get("params"), "classifiers[].params", set(spec.get("params") or {}))
            estimator = _string(spec["estimator"], "classifiers[].estimator")
            out.append(ClassifierSpec(_string(spec.get("name", estimator.rsplit(".", 1)[-1]), "classifiers[].name"),
                                      estimator, params))
        else:
            raise ConfigError(f"study spec, 'classifiers': {item!r} is neither a built-in name "
                              f"{list(BUILTIN_CLASSIFIERS)} nor an import path such as "
                              "sklearn.ensemble.RandomForestClassifier.")
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"study spec, 'classifiers': two classifiers share a name in {names}; give each a 'name'.")
    for c in out:
        if c.estimator is not None:
            _importable(c.estimator, c.params)
    return tuple(out)


def _importable(path: str, params: Mapping[str, Any]) -> None:
    import importlib

    from sklearn.base import is_classifier

    module, _, attr = path.rpartition(".")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        raise ConfigError(f"study spec, 'classifiers': cannot import {path!r}; give the full import path of a "
                          "classifier class, e.g. sklearn.ensemble.RandomForestClassifier.") from None
    if not (isinstance(obj, type) and hasattr(obj, "fit") and hasattr(obj, "predict")):
        raise ConfigError(f"study spec, 'classifiers': {path!r} is not a classifier class with fit and predict.")
    try:
        estimator = obj(**params)
    except Exception as exc:  # a missing required argument, an unknown parameter
        raise ConfigError(f"study spec, 'classifiers': {path}({dict(params)}) cannot be built: {exc}") from None
    if not is_classifier(estimator):
        raise ConfigError(f"study spec, 'classifiers': {path!r} is not a classifier (a regressor or a clusterer "
                          "predicts no 0/1 labels); give a scikit-learn classifier.")
    validate = getattr(estimator, "_validate_params", None)
    if callable(validate):  # scikit-learn's own parameter check, otherwise only run at fit time
        try:
            validate()
        except Exception as exc:
            raise ConfigError(f"study spec, 'classifiers': {path}: {exc}") from None


def _datasets(value: Any, base: str | os.PathLike | None) -> tuple[DatasetSpec, ...]:
    out = [_dataset(item, base) for item in _list(value, "datasets")]
    names = [d.name for d in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"study spec, 'datasets': two data sets share a name in {names}.")
    return tuple(out)


def _dataset(item: Any, base: str | os.PathLike | None) -> DatasetSpec:
    """One entry of 'datasets': a recipe's download, a bundled data set or a file of your own."""
    if isinstance(item, str):
        item = {"name": item}
    if not isinstance(item, Mapping):
        raise ConfigError(f"study spec, 'datasets': each data set is a built-in name {list(BUILTIN_DATASETS)} or "
                          f"a mapping with name, path, label, attribute, groups; got {item!r}.")
    spec = _mapping(item, "datasets[]", _DATASET_KEYS)
    name = _string(spec.get("name"), "datasets[].name")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise ConfigError(f"study spec, 'datasets': the name {name!r} names files of the study; use letters, "
                          "digits, '_', '-' and '.' (starting with a letter or digit).")
    subsample = spec.get("subsample")
    if subsample is not None and (not isinstance(subsample, int) or isinstance(subsample, bool) or subsample < 50):
        raise ConfigError(f"study spec, 'datasets' ({name}): subsample must be an integer of at least 50 rows; "
                          f"got {subsample!r}.")
    if name in RECIPES:
        return _recipe_dataset(spec, name, subsample, base)
    if "path" not in spec:
        return _bundled_dataset(spec, name, subsample)
    return _own_dataset(spec, name, subsample, base)


def _recipe_dataset(spec: Mapping[str, Any], name: str, subsample: int | None,
                    base: str | os.PathLike | None) -> DatasetSpec:
    """A data set of :data:`RECIPES`: not bundled, so its path is required and its roles are fixed."""
    needed, source = RECIPES[name]
    if "path" not in spec:
        raise ConfigError(f"study spec, 'datasets': {name!r} is not bundled (its licence does not allow it); "
                          f"download {needed} from {source} and give its path: "
                          f"{{name: {name}, path: <your copy of {needed.split(' ')[0]}>}}.")
    extra = sorted(set(spec) - {"name", "path", "subsample"})
    if extra:
        raise ConfigError(f"study spec, 'datasets' ({name}): {extra} are fixed for this data set (see "
                          "docs/study.md); give only name, path and subsample.")
    path = _data_path(spec["path"], name, base)
    if not path.is_file():
        raise ConfigError(f"study spec, 'datasets' ({name}): no file {str(path)!r}; it needs {needed} "
                          f"from {source}.")
    return DatasetSpec(name, str(path), subsample=subsample)


def _bundled_dataset(spec: Mapping[str, Any], name: str, subsample: int | None) -> DatasetSpec:
    """A bundled data set by name (its roles are fixed)."""
    if name not in BUILTIN_DATASETS:
        raise ConfigError(f"study spec, 'datasets': {name!r} is not a bundled data set "
                          f"{list(BUILTIN_DATASETS)}; for your own file give path, label, attribute "
                          "and groups.")
    extra = sorted(set(spec) - {"name", "subsample"})
    if extra:
        raise ConfigError(f"study spec, 'datasets' ({name}): {extra} only apply to a file of your own "
                          "(with 'path'); a bundled data set has its roles fixed.")
    return DatasetSpec(name, subsample=subsample)


def _own_dataset(spec: Mapping[str, Any], name: str, subsample: int | None,
                 base: str | os.PathLike | None) -> DatasetSpec:
    """A CSV or Parquet file of your own, with its label, attribute and the two groups compared."""
    path = _data_path(spec["path"], name, base)
    if not path.is_file():
        raise ConfigError(f"study spec, 'datasets' ({name}): no file {str(path)!r}. Download the data set and "
                          "give its path (relative paths are read from the spec's folder).")
    if path.suffix.lower() not in (".csv", ".parquet", ".pq"):
        raise ConfigError(f"study spec, 'datasets' ({name}): {path.name} is neither .csv nor .parquet.")
    missing = [k for k in ("label", "attribute", "groups") if k not in spec]
    if missing:
        raise ConfigError(f"study spec, 'datasets' ({name}): a file of your own needs {missing} (the label "
                          "column, the attribute column and the two attribute values compared).")
    groups = spec["groups"]
    if isinstance(groups, (str, Mapping)) or not isinstance(groups, Sequence) or len(groups) != 2 \
            or not all(isinstance(g, (str, int, float)) for g in groups) or groups[0] == groups[1]:
        raise ConfigError(f"study spec, 'datasets' ({name}): groups must list two different values of the "
                          f"attribute; got {groups!r}.")
    features = spec.get("features")
    if features is not None:
        features = tuple(_string(f, f"datasets ({name}).features") for f in _list(features,
                                                                                 f"datasets ({name}).features"))
    return DatasetSpec(name, str(path), _string(spec["label"], f"datasets ({name}).label"),
                       _string(spec["attribute"], f"datasets ({name}).attribute"), spec.get("positive", 1),
                       tuple(groups), features, subsample)


def _data_path(value: Any, name: str, base: str | os.PathLike | None) -> Path:
    """The data file as an absolute path (relative ones from the spec's folder, else the current one)."""
    path = Path(_string(value, f"datasets ({name}).path")).expanduser()
    if not path.is_absolute():
        path = Path(base if base is not None else ".") / path
    return Path(os.path.abspath(path))
