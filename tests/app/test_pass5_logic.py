"""Bad-input pass 5 (app logic, D10): make_metric and read_upload refuse bad arguments with a fix."""

from __future__ import annotations

import pytest

from fairprobe.app import logic
from fairprobe.exceptions import ConfigError, DataError


def test_make_metric_unknown_name_lists_the_metrics() -> None:
    with pytest.raises(ConfigError) as info:
        logic.make_metric("nope")
    message = str(info.value)
    assert "'nope'" in message and "fpr_parity" in message and "demographic_parity" in message, message


@pytest.mark.parametrize("name", [None, 3])
def test_make_metric_name_not_text(name: object) -> None:
    with pytest.raises(ConfigError, match="fpr_parity"):
        logic.make_metric(name)


@pytest.mark.parametrize("data", [None, "A,Y\n0,1\n", 3])
def test_read_upload_needs_bytes(data: object) -> None:
    with pytest.raises(DataError) as info:
        logic.read_upload("x.csv", data)
    message = str(info.value)
    assert "'x.csv'" in message and "bytes" in message and "getvalue()" in message, message


def test_read_upload_bytearray_and_memoryview_still_read() -> None:
    assert logic.read_upload("x.csv", bytearray(b"A,Y\n0,1\n")).shape == (1, 2)
    assert logic.read_upload("x.csv", memoryview(b"A,Y\n0,1\n")).shape == (1, 2)
