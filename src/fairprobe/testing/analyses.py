"""The analysis contract suite: :func:`check_analysis` checks an analysis class on its own example."""

from __future__ import annotations

import copy
import inspect
import pickle
from pathlib import Path
from typing import Any

__all__ = ["check_analysis"]


def check_analysis(cls: type, tmp_path: Any = None, *, seed: int = 0) -> dict[str, Any]:
    """Check an analysis class against the analysis contract, on its own ``example()``.

    Checks, each failing with an ``AssertionError`` that names the analysis and the rule:

    * the class passes the registry's interface check, declares its optional packages
      (``availability()`` returns an :class:`~fairprobe.backends.base.Availability`) and is
      available here (install its extra to check it);
    * parameters are keyword-only and round-trip through ``get_params``/``set_params`` and the
      constructor, nested estimators' parameters included (``estimator__max_depth``);
    * ``fit`` takes the data first and every role by keyword (``fit(data, *, y_true, ...)``);
    * results before ``fit`` raise :class:`~fairprobe.exceptions.NotFittedError`;
    * ``fit`` returns the instance, leaves fitted attributes with a trailing underscore, and
      leaves its inputs (the example's data and roles) and its parameters unmodified;
    * fitting again, on the same instance or on a new one with the same parameters (the same
      ``random_state``), gives the same ``to_frame()``;
    * the fitted analysis survives a pickle round trip (same ``to_frame()`` and summary);
    * ``summary()`` is a :class:`~fairprobe.plugins.base.Summary` with HTML; ``to_frame()`` a
      non-empty DataFrame; every entry of ``figures()`` draws with and without ``ax=``; and
      ``to_report`` writes a page (when ``tmp_path`` is given).

    Parameters
    ----------
    cls : type
        The analysis class (defined at the top level of a module, so that pickle finds it).
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
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> from fairprobe.testing import check_analysis
    >>> out = check_analysis(FairTree)
    >>> out["figures"], out["fitted"].leaves_.shape[0]
    (['tree', 'process education'], 3)
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    from fairprobe.exceptions import NotFittedError
    from fairprobe.plugins.base import Example, Summary

    who = getattr(cls, "name", None) or getattr(cls, "__name__", repr(cls))
    _check_registrable(cls, who)
    _check_available(cls, who)
    init = inspect.signature(cls.__init__).parameters
    positional = [p.name for p in init.values()
                  if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert not positional, f"{who}: parameters {positional} must be keyword-only"
    _check_fit_signature(cls, who)
    example = cls.example(seed=seed)
    assert isinstance(example, Example), f"{who}: example() must return fairprobe.plugins.base.Example"
    analysis = example.analysis
    assert isinstance(analysis, cls), f"{who}: example().analysis must be a {cls.__name__}"
    params = analysis.get_params(deep=False)
    pristine = copy.deepcopy(params)  # for a second, independent fit with the same random_state
    clone = _check_params_round_trip(cls, analysis, params, init, who)
    for method in ("summary", "to_frame", "figures", "check_is_fitted"):
        try:
            getattr(clone, method)()
        except NotFittedError:
            continue
        raise AssertionError(f"{who}: {method}() before fit must raise NotFittedError")
    inputs = copy.deepcopy((example.data, example.roles))
    fitted = example.fit()
    assert fitted is analysis, f"{who}: fit must return self"
    fitted.check_is_fitted()
    assert any(k.endswith("_") and not k.startswith("_") for k in vars(fitted)), (
        f"{who}: fit must store its results in attributes with a trailing underscore")
    _check_unmodified(inputs, (example.data, example.roles), params, fitted, who)
    summary = fitted.summary()
    assert isinstance(summary, Summary) and str(summary).strip(), f"{who}: summary() must return a non-empty Summary"
    assert "<" in summary._repr_html_(), f"{who}: the summary must render as HTML"
    frame = fitted.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame), f"{who}: to_frame() must return a non-empty DataFrame"
    _check_pickle(fitted, frame, summary, who)  # before the refit below: a summary may report timings
    _check_deterministic(cls, pristine, example, frame, who)
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


def _check_params_round_trip(cls: type, analysis: Any, params: dict[str, Any], init: Any, who: str) -> Any:
    """Every constructor parameter through get_params, the constructor and set_params, unchanged; the unfitted clone."""
    assert set(params) == {n for n, p in init.items() if n != "self" and p.kind is not p.VAR_KEYWORD}, (
        f"{who}: get_params() must return every constructor parameter")
    clone = cls(**params)
    assert clone.get_params(deep=False).keys() == params.keys(), f"{who}: the constructor must accept get_params()"
    for key, value in params.items():
        assert clone.get_params(deep=False)[key] is value, f"{who}: parameter {key!r} must be stored unchanged"
    _check_nested_params(analysis, params, who)
    assert analysis.set_params(**params) is analysis, f"{who}: set_params must return self"
    return clone


def _check_registrable(cls: type, who: str) -> None:
    """The registry's own interface check, through the public API (a plugin registering only ``cls``)."""
    import fairprobe
    from fairprobe.core.registry import get_registry
    from fairprobe.exceptions import PluginInterfaceError
    from fairprobe.testing.plugins import fresh_plugin_manager

    class _Only:
        @fairprobe.hookimpl
        def fairprobe_register_analyses(self) -> list[type]:
            return [cls]

    try:
        get_registry(fresh_plugin_manager(_Only(), builtins=False))
    except PluginInterfaceError as exc:
        raise AssertionError(f"{who}: {exc}") from None


def _check_available(cls: type, who: str) -> None:
    """``availability()`` declares the optional packages; an unavailable analysis cannot be checked here."""
    from fairprobe.backends.base import Availability

    state = cls.availability()
    assert isinstance(state, Availability), f"{who}: availability() must return fairprobe.backends.base.Availability"
    if getattr(cls, "requires", ()):
        assert cls.install_hint, f"{who}: an analysis with optional requirements needs an install hint (extra)"
    assert state, f"{who} is unavailable here ({cls.availability_reason()}); install it to check its contract"


def _check_fit_signature(cls: type, who: str) -> None:
    """``fit(self, data, *, <roles>)``: the data first, every role keyword-only."""
    params = list(inspect.signature(cls.fit).parameters.values())
    assert len(params) >= 2 and params[1].kind in (params[1].POSITIONAL_ONLY, params[1].POSITIONAL_OR_KEYWORD), (
        f"{who}: fit must take the data first: fit(self, data, *, <roles>)")
    loose = [p.name for p in params[2:] if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    assert not loose, f"{who}: fit's roles {loose} must be keyword-only: fit(self, data, *, {', '.join(loose)}, ...)"


def _check_nested_params(analysis: Any, params: dict[str, Any], who: str) -> None:
    """Nested estimators: ``get_params(deep=True)`` lists ``<param>__<name>`` and ``set_params`` sets it."""
    deep = analysis.get_params(deep=True)
    assert set(params) <= set(deep), f"{who}: get_params(deep=True) must include every parameter"
    for key, value in params.items():
        if not hasattr(value, "get_params") or isinstance(value, type):
            continue
        inner = value.get_params(deep=True)
        for name, inner_value in inner.items():
            assert deep.get(f"{key}__{name}", _MISSING) is inner_value, (
                f"{who}: get_params(deep=True) must list {key}__{name} (the nested estimator's parameter)")
        if inner:
            name, inner_value = next(iter(inner.items()))
            assert analysis.set_params(**{f"{key}__{name}": inner_value}) is analysis, (
                f"{who}: set_params({key}__{name}=...) must set the nested parameter and return self")
            assert value.get_params(deep=True)[name] is inner_value, f"{who}: set_params({key}__{name}=...) lost it"


def _check_unmodified(before: Any, after: Any, params: dict[str, Any], fitted: Any, who: str) -> None:
    """``fit`` changed neither the data and roles it was given nor its parameters."""
    (data0, roles0), (data1, roles1) = before, after
    assert _same(data0, data1), f"{who}: fit must not modify the data it is given"
    assert roles0.keys() == roles1.keys(), f"{who}: fit must not modify its roles"
    for role in roles0:
        assert _same(roles0[role], roles1[role]), f"{who}: fit must not modify the values of role {role!r}"
    now = fitted.get_params(deep=False)
    for key, value in params.items():
        assert now[key] is value, f"{who}: fit must not replace parameter {key!r} (store results in {key}_)"


def _check_deterministic(cls: type, pristine: dict[str, Any], example: Any, frame: Any, who: str) -> None:
    """A refit of the same instance and a fit of a new one with the same parameters give the same table."""
    import numpy as np
    import pandas as pd

    fresh = cls(**copy.deepcopy(pristine)).fit(example.data, **example.roles)
    try:
        pd.testing.assert_frame_equal(fresh.to_frame(), frame, check_exact=True)
    except AssertionError as exc:
        raise AssertionError(f"{who}: two fits with the same parameters (random_state) must give the same "
                             f"to_frame(): {exc}") from None
    if isinstance(pristine.get("random_state"), np.random.Generator):
        return  # a Generator is drawn from: refitting the same instance makes a new draw, by design
    example.analysis.fit(example.data, **example.roles)
    try:
        pd.testing.assert_frame_equal(example.analysis.to_frame(), frame, check_exact=True)
    except AssertionError as exc:
        raise AssertionError(f"{who}: refitting must give the same to_frame() (same random_state): {exc}") from None


def _check_pickle(fitted: Any, frame: Any, summary: Any, who: str) -> None:
    """The fitted analysis pickles and comes back with the same results."""
    import pandas as pd

    try:
        back = pickle.loads(pickle.dumps(fitted))
    except Exception as exc:  # any failure to pickle is the contract's failure
        raise AssertionError(f"{who}: the fitted analysis must pickle (for joblib, caches and saving results): "
                             f"{type(exc).__name__}: {exc}") from None
    assert type(back) is type(fitted), f"{who}: unpickling must give a {type(fitted).__name__}"
    try:
        pd.testing.assert_frame_equal(back.to_frame(), frame, check_exact=True)
    except AssertionError as exc:
        raise AssertionError(f"{who}: to_frame() after a pickle round trip must be the same: {exc}") from None
    assert str(back.summary()) == str(summary), f"{who}: summary() after a pickle round trip must be the same"


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    """Deep equality of fit inputs: frames, series and arrays exactly (values, dtypes, index), the rest by ==."""
    import numpy as np
    import pandas as pd

    if type(a) is not type(b):
        return False
    if isinstance(a, pd.DataFrame | pd.Series):
        try:
            (pd.testing.assert_frame_equal if isinstance(a, pd.DataFrame) else pd.testing.assert_series_equal)(
                a, b, check_exact=True)
        except AssertionError:
            return False
        return True
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if type(a).__eq__ is not object.__eq__:
        try:
            return bool(a == b)
        except (TypeError, ValueError):  # an == that does not give one truth value
            pass
    try:  # objects compared by identity (a deep copy is never identical): compare what pickle sees
        return pickle.dumps(a) == pickle.dumps(b)
    except Exception:  # not picklable either: nothing to compare it by
        return True
