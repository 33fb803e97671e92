"""The ``fairprobe`` command line.

Every command arrives through the ``fairprobe_add_cli_commands`` hook, the built-in ones
included (:mod:`fairprobe.cli.hooks`): blocking a plugin removes its commands. The root group
loads them on first use, so the importable :data:`cli` object has every command.

* :mod:`fairprobe.cli.main`: the root group, :func:`main` and the exit-code rules;
* :mod:`fairprobe.cli.commands`: ``plugins``, ``solve``, ``demo``, ``report``;
* :mod:`fairprobe.cli.causal`: ``bound``, ``sweep``, ``breakdown``;
* :mod:`fairprobe.cli.options`: the shared options (``--out``, ``--force``, output files) and
  the table reader for CSV and Parquet;
* :mod:`fairprobe.cli.demo`: the tour behind ``fairprobe demo``.
"""

from fairprobe.cli.main import cli, main

__all__ = ["cli", "main"]
