"""FairTree: subgroup performance audit with bias-variance decomposition (analysis plugin)."""

from fairprobe.plugins.fairtree.tests import cusum_process, fluctuation_test, kolmogorov_pvalue, permutation_max_test
from fairprobe.plugins.fairtree.tree import FairTree, Node

__all__ = ["FairTree", "Node", "cusum_process", "fluctuation_test", "kolmogorov_pvalue", "permutation_max_test"]
