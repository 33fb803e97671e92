"""App helpers, pass 6: an unknown table kind, a mapping key given twice, study folder messages
that read right from the CLI and Python, and upload limits below 1 MB."""

from __future__ import annotations

import pandas as pd
import pytest

from fairprobe.app import logic
from fairprobe.exceptions import ConfigError, DataError
from fairprobe.studies.folder import MARKER, check_study_folder, folder_lock

COUNTS = pd.DataFrame({"A": [0, 0, 1, 1], "P": [0, 1, 0, 1], "n": [30, 10, 20, 40]})


@pytest.mark.parametrize("kind", ["Counts", "weird", "", "counts ", "rows", None])
def test_build_table_refuses_an_unknown_kind(kind):
    with pytest.raises(ConfigError, match=r"'units', 'cells' or 'counts'"):
        logic.build_table(COUNTS, kind, {"A": "A", "P": "P"})


@pytest.mark.parametrize("kind", ["units", "cells", "counts"])
def test_build_table_accepts_the_app_kinds(kind):
    frame = COUNTS.assign(prob=COUNTS["n"] / COUNTS["n"].sum())
    assert logic.build_table(frame, kind, {"A": "A", "P": "P"}).nodes == ["A", "P"]


def test_build_table_kinds_match_table_kind():
    for counts in (False, True):
        assert logic.build_table(COUNTS, logic.table_kind(COUNTS, counts=counts), {"A": "A", "P": "P"})


@pytest.mark.parametrize("integer", [True, False])
def test_parse_mapping_refuses_a_key_given_twice(integer):
    with pytest.raises(ConfigError, match=r"gives A twice \(A=3, A=4\); give each name once"):
        logic.parse_mapping("A=3, X=2, A=4", integer=integer)


def test_parse_mapping_still_reads_distinct_keys():
    assert logic.parse_mapping("A=3, X = 4", integer=True) == {"A": 3, "X": 4}


def test_study_folder_messages_name_the_output_folder(tmp_path):
    spec = tmp_path / MARKER
    spec.write_text("{}")
    with pytest.raises(ConfigError) as err:
        check_study_folder(tmp_path, inputs=[spec])
    assert str(err.value).startswith(f"The output folder {tmp_path} (--out)"), str(err.value)
    with folder_lock(tmp_path), pytest.raises(ConfigError) as err, folder_lock(tmp_path):
        pass
    assert str(err.value).startswith(f"The output folder {tmp_path} (--out) is in use"), str(err.value)
    with pytest.raises(ConfigError, match=r"The name given for the output folder \(--out\) is empty"):
        check_study_folder("")


def test_study_folder_messages_keep_a_given_option(tmp_path):
    spec = tmp_path / MARKER
    spec.write_text("{}")
    with pytest.raises(ConfigError, match=r"^--out .*: the study would overwrite"):
        check_study_folder(tmp_path, inputs=[spec], option="--out")


@pytest.mark.parametrize(("limit", "shown"), [(10, "10 bytes"), (2048, "2 KB"), (1536, "1.5 KB"),
                                              (5 * 1024 * 1024, "5 MB")])
def test_read_upload_limit_in_a_sensible_unit(limit, shown):
    with pytest.raises(DataError, match=rf"larger than {shown}; upload a smaller table"):
        logic.read_upload("t.csv", b"A,P\n" + b"0,1\n" * (limit // 4 + 1), max_bytes=limit)
