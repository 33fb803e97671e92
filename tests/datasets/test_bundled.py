"""The bundled data files: present in the package, byte-identical to the sources named in their README."""

from __future__ import annotations

import gzip
import hashlib
import re

import pytest

from fairprobe.datasets import BUNDLED

README = (BUNDLED / "README.md").read_text()
# | `file` | bytes | md5 | sha256 |
CHECKSUMS = re.findall(r"\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{32})` \| `([0-9a-f]{64})` \|", README)


def test_readme_lists_every_bundled_file() -> None:
    listed = {name for name, *_ in CHECKSUMS}
    bundled = {p.name.removesuffix(".gz") for p in BUNDLED.glob("*.gz")}
    assert len(listed) == 10 and listed == bundled


@pytest.mark.parametrize(("name", "size", "md5", "sha256"), CHECKSUMS, ids=[c[0] for c in CHECKSUMS])
def test_checksums_match_the_readme(name: str, size: str, md5: str, sha256: str) -> None:
    raw = gzip.decompress((BUNDLED / f"{name}.gz").read_bytes())
    assert len(raw) == int(size.replace(",", ""))
    assert hashlib.md5(raw).hexdigest() == md5 and hashlib.sha256(raw).hexdigest() == sha256
