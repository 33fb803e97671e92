"""The Bias interface: a named causal story that yields a :class:`BiasConfig`.

A bias plugin is a class with a unique ``name``, a one-line ``description`` and a
:meth:`Bias.config` method. The simplest way to write one is a JSON file in the published format
and a subclass of :class:`JsonBias` pointing at it.
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from importlib import resources
from pathlib import Path
from typing import ClassVar

from fairprobe.core.config import BiasConfig

__all__ = ["Bias", "JsonBias"]


class Bias(ABC):
    """Base class of bias plugins.

    Examples
    --------
    A bias written in code: subclass, set ``name`` and ``description``, return a config:

    >>> from fairprobe.biases.base import Bias
    >>> from fairprobe.core.config import BiasConfig
    >>> class Mislabel(Bias):
    ...     name = "mislabel"
    ...     description = "recorded Y differs from the true Z for at most a share D of units"
    ...     def config(self):
    ...         return BiasConfig(dag_str="A->Z, A->P, U->P, U->Z, Z->Y", unob=["U"],
    ...                           constraints=["P(Z = Y) >= 1 - D"], outcome_node="Z", name=self.name)
    >>> Mislabel().config().constraints
    ['P(Z = Y) >= 1 - D']
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    @abstractmethod
    def config(self) -> BiasConfig:
        """The bias as a :class:`BiasConfig`.

        Returns
        -------
        BiasConfig
            DAG, constraints and parameters of the bias.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> cfg = SelectionBias().config()
        >>> cfg.constraints, cfg.parameters
        (['P(S = 1) >= 1 - D'], ['D'])
        """


class JsonBias(Bias):
    """A bias defined by a JSON config file (``path``) or a packaged one (``resource``).

    Examples
    --------
    A bias from your own JSON file (here written to a temporary folder):

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from fairprobe.biases.base import JsonBias
    >>> spec = {"dag_str": "A->Y, A->P, U->P, U->Y, A->S, Y->S", "unob": ["U"], "cond_nodes": ["S"],
    ...         "constraints": ["P(S = 1) >= 1 - D"], "name": "my_selection"}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "my_selection.json"
    ...     _ = path.write_text(json.dumps(spec))
    ...     class MySelection(JsonBias):
    ...         name = "my_selection"
    ...         description = "selection on A and Y only"
    ...         path = str(path)
    ...     cfg = MySelection().config()
    >>> cfg.name, cfg.cond_nodes
    ('my_selection', ['S'])
    """

    resource: ClassVar[str] = ""
    path: ClassVar[str | Path | None] = None

    def config(self) -> BiasConfig:
        """Load the JSON config.

        Returns
        -------
        BiasConfig
            Read from :attr:`path` when set, else from the packaged file :attr:`resource`.

        Examples
        --------
        >>> from fairprobe.biases.builtin import ProxyLabelBias
        >>> ProxyLabelBias.resource
        'proxy_label.json'
        >>> ProxyLabelBias().config().constraints
        ['P(Z = Y) >= 1 - D']
        """
        if self.path is not None:
            return BiasConfig.from_json(self.path)  # a user's file: read as it is now
        return packaged_bias(self.resource)


def packaged_bias(resource: str) -> BiasConfig:
    """A packaged bias config, parsed and validated once per process; the caller's own copy.

    Parameters
    ----------
    resource : str
        File name under ``fairprobe/biases/configs``.

    Returns
    -------
    BiasConfig
        A deep copy of the validated config (changing it changes nothing else).

    Examples
    --------
    >>> first, second = packaged_bias("proxy_label.json"), packaged_bias("proxy_label.json")
    >>> first == second, first is second
    (True, False)
    """
    return copy.deepcopy(_packaged_bias(resource))


@functools.cache
def _packaged_bias(resource: str) -> BiasConfig:
    # parsed and validated once per process; fp.bound, a sweep or a bootstrap resolves the same bias often
    return BiasConfig.from_json(packaged_config(resource))


@functools.cache
def packaged_config(resource: str) -> str:
    """Text of a packaged JSON config, read once per process (sweeps resolve biases repeatedly).

    Parameters
    ----------
    resource : str
        File name under ``fairprobe/biases/configs``.

    Returns
    -------
    str

    Examples
    --------
    >>> '"dag_str"' in packaged_config("proxy_label.json")
    True
    """
    return resources.files("fairprobe.biases").joinpath("configs", resource).read_text()
