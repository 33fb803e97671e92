"""Every fairprobe hook, in one module.

Plugins implement these with ``@fairprobe.hookimpl`` and are found through the ``fairprobe``
entry-point group, or registered by hand on a plugin manager. Built-in biases, metrics,
backends and analyses are ordinary plugins listed in
:data:`fairprobe.core.registry.DEFAULT_PLUGINS`.

Registration hooks return *classes* that implement a declared interface and carry a unique
``name`` class attribute; a name registered twice is an error that names both classes.

An external plugin package declares itself in its ``pyproject.toml``::

    [project.entry-points.fairprobe]
    my_plugin = "my_package.fairprobe_plugin"
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence

    import click

    from fairprobe.program.model import PolynomialProgram

hookspec = pluggy.HookspecMarker("fairprobe")
hookimpl = pluggy.HookimplMarker("fairprobe")

__all__ = ["hookimpl", "hookspec"]


# -- registration -----------------------------------------------------------------------------
@hookspec
def fairprobe_register_biases() -> Sequence[type]:
    """Return bias classes to register.

    Returns
    -------
    sequence of type
        Classes implementing :class:`fairprobe.biases.base.Bias`, each with a unique ``name``.

    Examples
    --------
    The built-in plugins answer this hook; a fresh plugin manager collects their classes:

    >>> from fairprobe.testing import fresh_plugin_manager
    >>> pm = fresh_plugin_manager()
    >>> names = {cls.name for found in pm.hook.fairprobe_register_biases() for cls in found}
    >>> "selection" in names
    True
    """


@hookspec
def fairprobe_register_metrics() -> Sequence[type]:
    """Return metric classes to register.

    Returns
    -------
    sequence of type
        Classes implementing :class:`fairprobe.metrics.base.Metric`, each with a unique ``name``.

    Examples
    --------
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> pm = fresh_plugin_manager()
    >>> names = {cls.name for found in pm.hook.fairprobe_register_metrics() for cls in found}
    >>> "demographic_parity" in names
    True
    """


@hookspec
def fairprobe_register_backends() -> Sequence[type]:
    """Return optimisation backend classes to register.

    Returns
    -------
    sequence of type
        Subclasses of :class:`fairprobe.backends.base.Backend`, each with a unique ``name``.

    Examples
    --------
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> pm = fresh_plugin_manager()
    >>> names = {cls.name for found in pm.hook.fairprobe_register_backends() for cls in found}
    >>> {"scip", "ortools"} <= names
    True
    """


@hookspec
def fairprobe_register_analyses() -> Sequence[type]:
    """Return analysis classes to register (multiplicity, subgroup audits, ...).

    Returns
    -------
    sequence of type
        Analysis classes, each with a unique ``name`` class attribute.

    Examples
    --------
    A plugin registers an analysis class by returning it from its implementation:

    >>> import fairprobe
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> class Counter:
    ...     name = "counter"
    >>> class MyPlugin:
    ...     @fairprobe.hookimpl
    ...     def fairprobe_register_analyses(self):
    ...         return [Counter]
    >>> pm = fresh_plugin_manager(MyPlugin(), builtins=False)
    >>> pm.hook.fairprobe_register_analyses()
    [[<class 'fairprobe.hookspecs.Counter'>]]
    """


# -- choices ----------------------------------------------------------------------------------
@hookspec(firstresult=True)
def fairprobe_select_backend(
    program: PolynomialProgram, available: Sequence[str], requested: str | None = None
) -> str | None:
    """Choose the backend that takes ``program``: the one router of fairprobe's programs.

    Called for every program a ``backend="auto"`` solve meets, and for every program of a bound
    (``fp.bound`` and the analyses built on it: single-ratio ranges, Charnes-Cooper LPs,
    definedness checks, polynomial programs), so the choice can follow the program's structure
    and size. Stops at the first non-None result; the built-in implementation runs last
    (:func:`fairprobe.backends.auto.choose_backend`). When the chosen backend implements the
    exact routes (:class:`fairprobe.backends.base.ExactBackend`), the engine offers it the
    program's exact routes; a program such a backend declines is asked about again with that
    backend left out of ``available``.

    :func:`fairprobe.get_backend` first calls the hook once with ``program=None``, leaving out the
    built-in implementation: a plugin that answers then fixes that backend for every program.
    Return None for ``program=None`` to choose program by program.

    Parameters
    ----------
    program : PolynomialProgram or None
        The program to solve, or None (see above).
    available : sequence of str
        Names of the registered backends that are usable here.
    requested : str or None, optional
        The backend the caller of a bound named (``"scip"``, ``"auto"``, a plugin's), which is
        always in ``available`` and takes what no other backend is chosen for; None for
        ``backend="auto"``'s own choices. A plugin that only means to choose for ``"auto"`` returns
        None when ``requested`` is another name.

    Returns
    -------
    str or None
        A backend name from ``available``, or None to let the next plugin decide.

    Examples
    --------
    A plugin that sends every program to SCIP when SCIP is usable:

    >>> import fairprobe
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> class PreferScip:
    ...     @fairprobe.hookimpl
    ...     def fairprobe_select_backend(self, program, available):
    ...         return "scip" if "scip" in available else None
    >>> pm = fresh_plugin_manager(PreferScip(), builtins=False)
    >>> pm.hook.fairprobe_select_backend(program=None, available=["ortools", "scip"])
    'scip'
    """


# -- command line -----------------------------------------------------------------------------
@hookspec
def fairprobe_add_cli_commands(cli: click.Group) -> Any:
    """Add commands to the ``fairprobe`` command line.

    Parameters
    ----------
    cli : click.Group
        The root command group; call ``cli.add_command(...)``.

    Returns
    -------
    None

    Examples
    --------
    >>> import click
    >>> import fairprobe
    >>> from fairprobe.testing import fresh_plugin_manager
    >>> @click.command()
    ... def hello():
    ...     click.echo("hello")
    >>> class MyPlugin:
    ...     @fairprobe.hookimpl
    ...     def fairprobe_add_cli_commands(self, cli):
    ...         cli.add_command(hello)
    >>> group = click.Group("fairprobe")
    >>> _ = fresh_plugin_manager(MyPlugin(), builtins=False).hook.fairprobe_add_cli_commands(cli=group)
    >>> sorted(group.commands)
    ['hello']
    """
