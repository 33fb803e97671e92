"""Data sets: a synthetic lending scenario with injected problems, and loaders for local copies
of real audit data and user files.

fairprobe never downloads data. COMPAS, Adult, German credit, binarised COMPAS and the seed
paper's probability tables are bundled (compressed, with their provenance and checksums in
``fairprobe/datasets/data/README.md``), so every loader works with no argument; ``path=`` or
``$FAIRPROBE_DATA`` point the loaders at a folder of your own copies instead.
"""

from fairprobe.datasets.real import (
    BUNDLED,
    Dataset,
    data_home,
    load_adult,
    load_compas,
    load_compas_binary,
    load_german,
    load_paper_table,
    load_table,
)
from fairprobe.datasets.synthetic import Scenario, make_lending_scenario
from fairprobe.datasets.tables import read_table

__all__ = ["BUNDLED", "Dataset", "Scenario", "data_home", "load_adult", "load_compas", "load_compas_binary",
           "load_german", "load_paper_table", "load_table", "make_lending_scenario", "read_table"]
