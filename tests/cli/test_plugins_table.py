"""``fairprobe plugins`` fits the terminal: no line wider than it, long descriptions wrapped, columns aligned."""

from __future__ import annotations

import pytest

from tests.bad_input import run_cli


def rows_of(out: str) -> dict[str, list[str]]:
    """Each plugin's lines (its row and the wrapped lines under it) by name."""
    found: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith(("  + ", "  - ")):
            current = line[4:].split()[0]
            found[current] = [line]
        elif line.startswith("    ") and current is not None:
            found[current].append(line)
        else:
            current = None  # a kind's heading
    return found


@pytest.mark.parametrize("columns", [80, 100, 120, 200])
def test_the_table_fits_the_terminal(columns: int, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from fairprobe.core.registry import list_plugins

    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, err = run_cli(["plugins"], capsys)
    assert code == 0, err
    widest = max(out.splitlines(), key=len)
    assert len(widest) <= columns, f"{len(widest)} > {columns}: {widest!r}"
    table = list_plugins()
    rows = rows_of(out)
    assert set(rows) == set(table.name)
    for row in table.itertuples():
        lines = rows[row.name]
        # every word of the status and the description is printed, in order (wrapped, never cut)
        shown = " ".join(" ".join(lines).split())
        assert row.status.split()[0] in lines[0] and " ".join(row.status.split()) in shown, (row.name, lines)
        assert " ".join(row.description.split()) in shown, (row.name, lines)


def test_a_wide_terminal_keeps_one_line_per_plugin(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    code, out, _ = run_cli(["plugins", "--kind", "backends"], capsys)
    assert code == 0
    assert all(len(lines) == 1 for lines in rows_of(out).values())
