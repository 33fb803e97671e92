"""Data sets: loaders for local copies of real audit data and user files.

fairprobe never downloads data. The real-data loaders read a local folder in the layout of the
project's shared data (``adult.data``, ``adult.test``, ``compas-scores-two-years.csv``,
``german-credit.csv``): pass ``path=`` or set ``$FAIRPROBE_DATA``.
"""

from fairprobe.datasets.real import Dataset, data_home, load_adult, load_compas, load_german, load_table

__all__ = ["Dataset", "data_home", "load_adult", "load_compas", "load_german", "load_table"]
