"""Bad-input pass 3, T6: a list-valued covariate is a clear error, not a raw TypeError."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairprobe.exceptions import DataError
from fairprobe.plugins.fairtree import FairTree


def test_list_valued_covariate_is_a_clear_error() -> None:
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"tags": [[1, 2]] * 100, "b": rng.normal(size=100)})
    with pytest.raises(DataError, match="Covariate 'tags' holds list values such as \\[1, 2\\]"):
        FairTree().fit(X, residuals=rng.normal(size=100))
