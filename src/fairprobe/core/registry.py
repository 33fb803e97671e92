"""The plugin manager and the registry of biases, metrics, backends and analyses.

Built-in plugins are module paths in :data:`DEFAULT_PLUGINS`, registered with the same call as
entry-point plugins of the ``fairprobe`` group. Environment variables:

``FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD=1``
    Skip entry-point plugins (built-ins still load).
``FAIRPROBE_BLOCK_PLUGINS=name1,name2``
    Never register these plugins (entry-point names or built-in module paths).

An external plugin package declares itself in its ``pyproject.toml``::

    [project.entry-points.fairprobe]
    my_plugin = "my_package.fairprobe_plugin"
"""

from __future__ import annotations

import functools
import importlib
import os
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pluggy

from fairprobe import hookspecs
from fairprobe.exceptions import (
    BackendUnavailableError,
    DuplicatePluginError,
    PluginInterfaceError,
    UnknownPluginError,
)

if TYPE_CHECKING:
    import pandas as pd

    from fairprobe.backends.base import Backend

__all__ = [
    "DEFAULT_PLUGINS",
    "KINDS",
    "create_plugin_manager",
    "get_backend",
    "get_plugin_manager",
    "get_registry",
    "list_plugins",
    "registered",
    "reset_plugin_manager",
]

PROJECT = "fairprobe"

#: Built-in plugins, registered exactly like entry-point plugins.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "fairprobe.biases.hooks",
    "fairprobe.metrics.hooks",
    "fairprobe.backends.hooks",
    "fairprobe.plugins.fairtree.hooks",
    "fairprobe.plugins.riskscore.hooks",
    "fairprobe.plugins.rashomon.hooks",
    "fairprobe.cli.hooks",
    "fairprobe.app.hooks",
)

#: Plugin kind -> registration hook name.
KINDS: MappingProxyType[str, str] = MappingProxyType({
    "biases": "fairprobe_register_biases",
    "metrics": "fairprobe_register_metrics",
    "backends": "fairprobe_register_backends",
    "analyses": "fairprobe_register_analyses",
})


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def create_plugin_manager(*, load_entrypoints: bool | None = None, default_plugins: Iterable[str] = DEFAULT_PLUGINS,
                          extra_plugins: Iterable[Any] = ()) -> pluggy.PluginManager:
    """Build a new plugin manager (uncached; tests and embedding code use this).

    Parameters
    ----------
    load_entrypoints : bool, optional
        Load plugins of the ``fairprobe`` entry-point group. Default: True unless
        ``FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD`` is set.
    default_plugins : iterable of str
        Module paths of built-in plugins.
    extra_plugins : iterable
        Plugin objects (modules, classes or instances with hookimpls) registered last.

    Returns
    -------
    pluggy.PluginManager

    Examples
    --------
    >>> "fpr" in get_registry(create_plugin_manager(load_entrypoints=False)).metrics
    True
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    blocked = [b.strip() for b in os.environ.get("FAIRPROBE_BLOCK_PLUGINS", "").split(",") if b.strip()]
    for name in blocked:
        pm.set_blocked(name)
    for module_name in default_plugins:
        if pm.is_blocked(module_name):
            continue
        pm.register(importlib.import_module(module_name), name=module_name)
    if load_entrypoints is None:
        load_entrypoints = not _env_flag("FAIRPROBE_DISABLE_PLUGIN_AUTOLOAD")
    if load_entrypoints:
        pm.load_setuptools_entrypoints(PROJECT)
    for plugin in extra_plugins:
        pm.register(plugin)
    pm.check_pending()
    return pm


@functools.lru_cache(maxsize=1)
def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, built on first use (never at import time).

    Returns
    -------
    pluggy.PluginManager

    Examples
    --------
    >>> get_plugin_manager() is get_plugin_manager()
    True
    """
    return create_plugin_manager()


def reset_plugin_manager() -> None:
    """Forget the cached plugin manager (after installing or removing plugins).

    Examples
    --------
    >>> before = get_plugin_manager()
    >>> reset_plugin_manager()
    >>> get_plugin_manager() is before
    False
    """
    get_plugin_manager.cache_clear()


@dataclass(frozen=True)
class Registry:
    """Registered classes by kind and name.

    Parameters
    ----------
    biases, metrics, backends, analyses : dict of str to type
        Registered classes of each kind, by name.

    Examples
    --------
    >>> registry = get_registry()
    >>> "proxy_label" in registry.biases, "scip" in registry.backends
    (True, True)
    """

    biases: dict[str, type]
    metrics: dict[str, type]
    backends: dict[str, type]
    analyses: dict[str, type]

    def kind(self, kind: str) -> dict[str, type]:
        """The ``name -> class`` mapping for ``kind`` ("biases", "metrics", ...).

        Parameters
        ----------
        kind : str
            One of the keys of :data:`KINDS`.

        Returns
        -------
        dict of str to type

        Raises
        ------
        UnknownPluginError
            ``kind`` is not a plugin kind.

        Examples
        --------
        >>> get_registry().kind("metrics")["fpr"].__name__
        'FPR'
        """
        if kind not in KINDS:
            raise UnknownPluginError(f"Unknown plugin kind {kind!r}; use one of {sorted(KINDS)}.")
        return getattr(self, kind)


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _collect(pm: pluggy.PluginManager, kind: str) -> dict[str, type]:
    hook = getattr(pm.hook, KINDS[kind])
    found: dict[str, type] = {}
    for batch in hook():
        for cls in batch or ():
            name = getattr(cls, "name", None)
            if not isinstance(name, str) or not name:
                raise DuplicatePluginError(f"{_qualname(cls)} was registered as one of the {kind} but has no "
                                           "non-empty string 'name' class attribute.")
            if name in found and found[name] is not cls:
                raise DuplicatePluginError(f"Two {kind} are registered under the name {name!r}: "
                                           f"{_qualname(found[name])} and {_qualname(cls)}. Rename one of them, or "
                                           "block one plugin with FAIRPROBE_BLOCK_PLUGINS.")
            _check_interface(kind, cls)
            found[name] = cls
    return found


#: Plugin kind -> (interface class path, required attributes beyond the interface's abstract methods).
INTERFACES: MappingProxyType[str, tuple[str, tuple[str, ...]]] = MappingProxyType({
    "biases": ("fairprobe.biases.base.Bias", ("config",)),
    "metrics": ("fairprobe.metrics.base.Metric", ("query", "label", "get_params")),
    "backends": ("fairprobe.backends.base.Backend", ("availability", "solve", "capabilities")),
    "analyses": ("fairprobe.plugins.base.Analysis", ()),
})


def _check_interface(kind: str, cls: Any) -> None:
    """Reject a registered class that does not implement the interface of its kind, naming what is missing."""
    path, extra = INTERFACES[kind]
    module, _, attr = path.rpartition(".")
    interface = getattr(importlib.import_module(module), attr)
    if not isinstance(cls, type):
        raise PluginInterfaceError(f"The {kind} hook returned {cls!r}, which is not a class; return classes "
                                   f"implementing {path}.")
    if kind == "analyses":
        from fairprobe.plugins.base import missing_methods

        missing = missing_methods(cls)
    else:
        abstract = getattr(cls, "__abstractmethods__", frozenset())
        missing = [a for a in extra if not hasattr(cls, a) or a in abstract]
        missing += sorted(a for a in abstract if a not in missing)
    if missing:
        raise PluginInterfaceError(
            f"{_qualname(cls)} was registered as one of the {kind} but does not implement {', '.join(missing)} "
            f"of the {kind} interface ({path}); subclass {path} and implement them, or block the plugin "
            "with FAIRPROBE_BLOCK_PLUGINS.")
    if kind == "analyses":
        _check_keyword_only(cls)
    elif not issubclass(cls, interface):
        raise PluginInterfaceError(f"{_qualname(cls)} was registered as one of the {kind} but is not a "
                                   f"subclass of {path}; derive it from {path}.")


def _check_keyword_only(cls: type) -> None:
    import inspect

    positional = [p.name for p in inspect.signature(cls.__init__).parameters.values()
                  if p.name != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if positional:
        raise PluginInterfaceError(f"{_qualname(cls)}: analysis parameters are keyword-only; make {positional} "
                                   "keyword-only (def __init__(self, *, ...)).")


def get_registry(pm: pluggy.PluginManager | None = None) -> Registry:
    """Collect every registered class.

    Parameters
    ----------
    pm : pluggy.PluginManager, optional
        Plugin manager to ask (default: the process-wide one).

    Returns
    -------
    Registry

    Raises
    ------
    DuplicatePluginError
        Two classes of one kind share a name, or a class has no name.
    PluginInterfaceError
        A registered class does not implement the interface of its kind.

    Examples
    --------
    >>> sorted(get_registry().biases)[:2]
    ['ecp', 'ecp_monotone']
    """
    return Registry(**{kind: registered(kind, pm) for kind in KINDS})


def registered(kind: str, pm: pluggy.PluginManager | None = None) -> dict[str, type]:
    """The registered classes of one ``kind``, by name (only that kind's hooks run; kept per plugin manager).

    Parameters
    ----------
    kind : str
        One of the keys of :data:`KINDS`.
    pm : pluggy.PluginManager, optional
        Plugin manager to ask (default: the process-wide one).

    Returns
    -------
    dict of str to type
        A copy: changing it changes nothing registered.

    Raises
    ------
    DuplicatePluginError, PluginInterfaceError
        As :func:`get_registry`, for this kind.

    Examples
    --------
    >>> sorted(registered("backends"))[:2]
    ['cvxpy', 'gurobi']
    """
    if kind not in KINDS:
        raise UnknownPluginError(f"Unknown plugin kind {kind!r}; use one of {sorted(KINDS)}.")
    pm = pm or get_plugin_manager()
    key = frozenset((name, id(plugin)) for name, plugin in pm.list_name_plugin())  # plugins may be unhashable
    cached = _REGISTRY_CACHE.get(pm)
    if cached is None or cached[0] != key:
        cached = (key, {})
        _REGISTRY_CACHE[pm] = cached
    if kind not in cached[1]:
        cached[1][kind] = _collect(pm, kind)
    return dict(cached[1][kind])


#: Plugin manager -> (its plugins when collected, kind -> classes).
_REGISTRY_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def get_backend(name: str = "scip", pm: pluggy.PluginManager | None = None) -> Backend:
    """Return a ready backend instance.

    Parameters
    ----------
    name : str
        Registered backend name ("scip", "gurobi", ...), or "auto" for an
        :class:`~fairprobe.backends.auto.AutoBackend`, which asks the ``fairprobe_select_backend``
        hook per program (unless a plugin answers it for ``program=None``: its backend is returned).
    pm : pluggy.PluginManager, optional
        Plugin manager to use (default: the process-wide one).

    Returns
    -------
    Backend

    Raises
    ------
    BackendUnavailableError
        Unknown name, or the backend is not installed/licensed; the message names the reason,
        the install hint and the backends that are available.

    Examples
    --------
    >>> import fairprobe as fp
    >>> fp.get_backend("scip").name
    'scip'
    """
    pm = pm or get_plugin_manager()
    backends = registered("backends", pm)
    usable = sorted(n for n, cls in backends.items() if cls.availability())
    from fairprobe.backends.auto import AutoBackend

    if name == AutoBackend.name:  # the registry's own backend: the hook chooses per program
        if not usable:
            raise BackendUnavailableError("No usable backend is installed; pip install pyscipopt.")
        # plugins other than the built-in selector may fix one backend by answering without a program
        builtin = pm.get_plugin("fairprobe.backends.hooks")
        hook = (pm.subset_hook_caller("fairprobe_select_backend", remove_plugins=[builtin]) if builtin is not None
                else pm.hook.fairprobe_select_backend)
        fixed = hook(program=None, available=usable)
        if fixed is None:
            return AutoBackend(pm=pm, backends={n: backends[n] for n in usable})
        name = fixed
    if name not in backends:
        raise BackendUnavailableError(f"Unknown backend {name!r}. Registered backends: {sorted(backends)}; usable "
                                      f"here: {usable}.")
    cls = backends[name]
    status = cls.availability()
    if not status:
        raise BackendUnavailableError(f"Backend {name!r} is unavailable: {status.label}. Install it with: "
                                      f"{cls.install_hint}. Usable backends here: {usable}.")
    return cls()


def list_plugins(pm: pluggy.PluginManager | None = None) -> pd.DataFrame:
    """Every registered bias, metric, backend and analysis with its availability.

    Parameters
    ----------
    pm : pluggy.PluginManager, optional
        Plugin manager to ask (default: the process-wide one).

    Returns
    -------
    pandas.DataFrame
        Columns ``kind``, ``name``, ``available``, ``status``, ``description``, ``class``.

    Examples
    --------
    >>> import fairprobe as fp
    >>> table = fp.list_plugins()
    >>> "scip" in set(table.loc[table.kind == "backends", "name"])
    True
    """
    import pandas as pd

    registry = get_registry(pm)
    rows = []
    for kind in KINDS:
        for name, cls in sorted(registry.kind(kind).items()):
            available, status = True, "available"
            if hasattr(cls, "availability"):
                try:
                    state = cls.availability()
                    available = bool(state)
                    status = cls.availability_reason() if hasattr(cls, "availability_reason") else str(state)
                except Exception as exc:  # availability() must never raise; report if it does
                    available, status = False, f"error while probing: {exc}"
            doc = (getattr(cls, "description", "") or (cls.__doc__ or "").strip().split("\n")[0])
            caps = getattr(cls, "capabilities", None)
            if caps is not None and hasattr(caps, "describe"):
                doc = f"{doc} ({caps.describe()})"
            rows.append({"kind": kind, "name": name, "available": available, "status": status,
                         "description": doc, "class": _qualname(cls)})
    return pd.DataFrame(rows, columns=["kind", "name", "available", "status", "description", "class"])


def metric(name: str, **options: Any) -> Any:
    """A configured instance of a registered metric, e.g. ``metric("fpr", group=1)``.

    Parameters
    ----------
    name : str
        Registered metric name ("fpr", "fpr_parity", ...).
    **options : Any
        Keyword arguments of the metric class (e.g. ``group=1`` or ``groups=(0, 1)``).

    Returns
    -------
    Metric

    Raises
    ------
    UnknownPluginError
        No metric is registered under ``name``.

    Examples
    --------
    >>> from fairprobe.core.bound import resolve_bias
    >>> metric("fpr", group=1).label(resolve_bias("proxy_label"))
    'fpr (A = 1)'
    """
    metrics = registered("metrics")
    if name not in metrics:
        raise UnknownPluginError(f"Unknown metric {name!r}; registered metrics: {sorted(metrics)}.")
    return metrics[name](**options)
