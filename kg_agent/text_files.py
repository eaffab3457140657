"""Reading the text files users hand kg-agent (KG files, question files, ToG-2's documents): UTF-8 lines and JSON
Lines, where a byte that is not UTF-8 or a line that is not a JSON object is an error naming the file, the line and,
for the encoding, how to convert the file. Each layer gives the exception type its callers catch (the KG loaders'
``KGLoadError``, the document index's ``ValueError``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def utf8_lines(path: Path, error: type[Exception] = ValueError) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 text file; a byte that is not UTF-8 raises :func:`not_utf8_error`."""
    try:
        with path.open(encoding="utf-8") as handle:
            yield from enumerate(handle, start=1)
    except UnicodeDecodeError as exc:
        raise not_utf8_error(path, error) from exc


def jsonl_objects(path: Path, error: type[Exception] = ValueError) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` of a JSON Lines file; blank lines are skipped, anything but a JSON object on a
    line is an ``error`` naming the line."""
    for number, line in utf8_lines(path, error):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{path}:{number}: not valid JSON: {exc.msg}") from exc
        if not isinstance(record, dict):
            raise error(f"{path}:{number}: expected a JSON object")
        yield number, record


def not_utf8_error(path: Path, error: type[Exception] = ValueError) -> Exception:
    """The error for a file that is not UTF-8 (Latin-1, say): its first bad line and column, and the fix."""
    bad = first_non_utf8(path)
    where = f"{path}:{bad[0]}: byte 0x{bad[2]:02X} at column {bad[1]}" if bad else str(path)
    return error(f"{where}: the file is not UTF-8 text (Latin-1 or another encoding?); re-save it as UTF-8, "
                 f"e.g. `iconv -f latin1 -t utf-8 {path} > {path.with_name(path.stem + '.utf8' + path.suffix)}`")


def first_non_utf8(path: Path) -> tuple[int, int, int] | None:
    """``(line, column, byte)`` of the first byte of the file that is not UTF-8; ``None`` if there is none."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return number, exc.start + 1, line[exc.start]
    return None
