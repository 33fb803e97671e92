"""The Bias interface: a named causal story that yields a :class:`BiasConfig`.

A bias plugin is a class with a unique ``name``, a one-line ``description`` and a
:meth:`Bias.config` method. The simplest way to write one is a JSON file in the published format
and a subclass of :class:`JsonBias` pointing at it.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from importlib import resources
from pathlib import Path
from typing import ClassVar

from fairprobe.core.config import BiasConfig

__all__ = ["Bias", "JsonBias"]


class Bias(ABC):
    """Base class of bias plugins."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""

    @abstractmethod
    def config(self) -> BiasConfig:
        """The bias as a :class:`BiasConfig`."""


class JsonBias(Bias):
    """A bias defined by a JSON config file (``path``) or a packaged one (``resource``)."""

    resource: ClassVar[str] = ""
    path: ClassVar[str | Path | None] = None

    def config(self) -> BiasConfig:
        """Load the JSON config."""
        if self.path is not None:
            return BiasConfig.from_json(self.path)
        return BiasConfig.from_json(_packaged_config(self.resource))


@functools.cache
def _packaged_config(resource: str) -> str:
    """Text of a packaged JSON config, read once per process (sweeps resolve biases repeatedly)."""
    return resources.files("fairprobe.biases").joinpath("configs", resource).read_text()
