"""Isolated plugin managers for tests and for plugin authors."""

from __future__ import annotations

from typing import Any

import pluggy

from fairprobe.core.registry import create_plugin_manager

__all__ = ["fresh_plugin_manager"]


def fresh_plugin_manager(
    *plugins: Any, load_entrypoints: bool = False, builtins: bool = True
) -> pluggy.PluginManager:
    """A new, uncached plugin manager with ``plugins`` registered after the built-ins.

    Parameters
    ----------
    *plugins
        Modules, classes or objects carrying ``@fairprobe.hookimpl`` functions.
    load_entrypoints : bool
        Also load installed entry-point plugins (default False, for isolation).
    builtins : bool
        Register the built-in plugins (default True).

    Returns
    -------
    pluggy.PluginManager
        A manager not shared with :func:`fairprobe.core.registry.get_plugin_manager`.

    Examples
    --------
    >>> import fairprobe
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> class Extra:
    ...     @fairprobe.hookimpl
    ...     def fairprobe_select_backend(self, program, available):
    ...         return "scip"
    >>> pm = fresh_plugin_manager(Extra())
    >>> pm.hook.fairprobe_select_backend(program=None, available=["scip"])
    'scip'
    """
    from fairprobe.core.registry import DEFAULT_PLUGINS

    return create_plugin_manager(
        load_entrypoints=load_entrypoints,
        default_plugins=DEFAULT_PLUGINS if builtins else (),
        extra_plugins=plugins,
    )
