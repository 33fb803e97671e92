"""Bad-input pass 3, S5: a group mask of labels or codes is refused, not read as 'everyone'."""

from __future__ import annotations

import numpy as np
import pytest

from fairprobe.exceptions import DataError
from fairprobe.plugins.riskscore import expected_underrepresentation


@pytest.fixture()
def scores() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    sex = rng.choice(["f", "m"], 600)
    y = (rng.random(600) < 0.3).astype(float)
    r = rng.random(600) + 0.5 * y - 0.3 * (sex == "f")
    return r, y, sex


def test_labels_and_codes_are_refused(scores: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    r, y, sex = scores
    with pytest.raises(DataError, match="must be boolean"):
        expected_underrepresentation(r, y, sex)
    with pytest.raises(DataError, match="must be boolean"):
        expected_underrepresentation(r, y, np.where(sex == "f", 1, 2))


def test_column_value_pair_equals_the_boolean_mask(scores: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    r, y, sex = scores
    by_mask = expected_underrepresentation(r, y, sex == "f")
    assert expected_underrepresentation(r, y, (sex, "f")) == by_mask
    assert by_mask < 0.95  # the lowered group is under-represented: not the 'everyone' value 1
    assert expected_underrepresentation(r, y, np.ones(600, bool)) == pytest.approx(1.0)
