"""Data sets: a synthetic lending scenario with injected problems, and loaders for local copies
of real audit data and user files.

fairprobe never downloads data. The real-data loaders read a local folder in the layout of the
project's shared data (``adult.data``, ``adult.test``, ``compas-scores-two-years.csv``,
``german-credit.csv``): pass ``path=`` or set ``$FAIRPROBE_DATA``.
"""

from fairprobe.datasets.real import Dataset, data_home, load_adult, load_compas, load_german, load_table
from fairprobe.datasets.synthetic import Scenario, make_lending_scenario

__all__ = ["Dataset", "Scenario", "data_home", "load_adult", "load_compas", "load_german", "load_table",
           "make_lending_scenario"]
