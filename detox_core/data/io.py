"""Reading files: bytes and text with precise errors, atomic writes, strict CSV/TSV.

Every reader names the file, the 1-based line and, where it applies, the column of
the first problem (:class:`~detox_core.errors.DetoxInputError`), and refuses files
larger than :data:`MAX_FILE_BYTES`.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Union

from detox_core.errors import DetoxInputError
from detox_core.limits import MAX_OUTPUT_CHARS

Source = Union[str, os.PathLike, bytes, IO[bytes]]

#: Largest file a loader accepts. A full test submission is ~100 KB; the biggest
#: shipped file (the lexicon) is ~4 MB.
MAX_FILE_BYTES = 50 * 1024 * 1024
#: Most lines a table may have. Parsing costs ~350 bytes of memory a row whatever the
#: row's length, so the byte limit alone let a 50 MB file of 7 million short rows (a 70 KB
#: zip) take 2.5 GB and 30 s; the biggest shipped table has ~12,000 rows.
MAX_TABLE_ROWS = 200_000

# --------------------------------------------------------------------------- reading


def read_bytes(source: Source, name: str | None, max_bytes: int) -> tuple[bytes, str]:
    """Return the raw bytes of ``source`` and the name to use in messages."""
    if isinstance(source, (bytes, bytearray)):
        data, label = bytes(source), name or "<upload>"
    elif hasattr(source, "read"):
        data = source.read()  # type: ignore[union-attr]
        label = name or getattr(source, "name", None) or "<upload>"
    else:
        path = Path(source)
        label = name or str(path)
        if path.is_dir():
            raise DetoxInputError("is a folder, not a file: name a file in it", path=label)
        if not path.is_file():
            if path.exists():  # /dev/zero, /dev/stdin, a pipe: no size to check, maybe no end
                raise DetoxInputError("is not a regular file (a device or a pipe): save the text to a file and "
                                      "name that", path=label)
            raise DetoxInputError("file not found", path=label)
        size = path.stat().st_size
        if size > max_bytes:
            raise DetoxInputError(
                f"file is {size / 2**20:.1f} MiB, larger than the {max_bytes / 2**20:.0f} MiB "
                "limit for this kind of file",
                path=label,
            )
        data = path.read_bytes()
    if len(data) > max_bytes:
        raise DetoxInputError(
            f"file is {len(data) / 2**20:.1f} MiB, larger than the "
            f"{max_bytes / 2**20:.0f} MiB limit for this kind of file",
            path=label,
        )
    return data, str(label)


def decode_utf8(data: bytes, name: str) -> str:
    """Decode UTF-8 (a leading BOM is dropped), locating the first bad byte.

    Raises:
        DetoxInputError: on an empty file, bytes that are not UTF-8 or a NUL byte (no
            text contains one, and databases refuse it), with the line and column of
            the first bad byte.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise DetoxInputError("file is empty", path=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        line_start = data.rfind(b"\n", 0, err.start) + 1
        column = len(data[line_start : err.start].decode("utf-8", errors="replace")) + 1
        guess = ""
        head = data[:2000]
        if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head.count(0) > len(head) // 4:  # NUL in every other byte
            guess = " (it is UTF-16, as Windows' Notepad saves \"Unicode\": re-save the file as UTF-8)"
        else:
            try:
                data.decode("cp1251")
                guess = " (it decodes as Windows-1251: re-save the file as UTF-8)"
            except UnicodeDecodeError:
                pass
        raise DetoxInputError(
            f"expected UTF-8 text, found byte 0x{data[err.start]:02x} that is not UTF-8{guess}",
            path=name,
            line=line,
            column=column,
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        raise DetoxInputError("a NUL character (byte 0x00): text files have none; the file is binary or damaged",
                              path=name, line=line, column=column)
    return text


#: Most entries a submission zip may hold (CodaLab's holds one file).
MAX_ZIP_MEMBERS = 100


def unzip_if_zip(data: bytes, label: str, max_bytes: int = MAX_FILE_BYTES) -> tuple[bytes, str]:
    """``data`` itself, or when it is a zip archive (CodaLab's upload format: named .zip
    or starting as one) the one ``.tsv``/``.txt``/``.csv`` it holds, named
    ``archive.zip/member``.

    The sizes a zip declares are the archive's word, not a fact: the member is read in
    chunks and refused as soon as more than ``max_bytes`` come out (a 2 MB archive can
    unpack to gigabytes), and an archive of more than :data:`MAX_ZIP_MEMBERS` entries is
    refused before any is read.
    """
    if not (label.lower().endswith(".zip") or data[:4] == b"PK\x03\x04"):
        return data, label
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise DetoxInputError("the file is named .zip but is not a zip archive", label) from None
    if len(infos) > MAX_ZIP_MEMBERS:
        raise DetoxInputError(f"the zip holds {len(infos):,} entries; a submission zip holds one .tsv file "
                              f"(at most {MAX_ZIP_MEMBERS} entries are looked at)", label)
    members = [m for m in infos if not m.is_dir() and not Path(m.filename).name.startswith(".")
               and "__MACOSX" not in m.filename]
    tsvs = [m for m in members if m.filename.lower().endswith((".tsv", ".txt", ".csv"))]
    if len(tsvs) != 1:
        found = ", ".join(m.filename for m in members[:10]) or "nothing"
        raise DetoxInputError(f"expected a zip holding one .tsv file, found {found}", label)
    member = tsvs[0]
    too_big = DetoxInputError(f"{member.filename} unpacks to more than the {max_bytes / 2**20:.0f} MiB limit", label)
    if member.file_size > max_bytes:
        raise too_big
    out = bytearray()
    try:
        with archive.open(member) as stream:
            while chunk := stream.read(1 << 20):
                out += chunk
                if len(out) > max_bytes:
                    raise too_big
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, ValueError) as err:
        # A checksum or size that does not match, an unsupported compression or encryption.
        raise DetoxInputError(f"{member.filename} in the zip cannot be read: {err}", label) from None
    return bytes(out), f"{label}/{member.filename}"


def read_text(source: Source, name: str | None = None, max_bytes: int = MAX_FILE_BYTES) -> tuple[str, str]:
    """Read a UTF-8 text file or upload (or the one text file of a zip of it); returns
    ``(text, display_name)``."""
    data, label = read_bytes(source, name, max_bytes)
    data, label = unzip_if_zip(data, label, max_bytes)
    return decode_utf8(data, label), label


def _read_umask() -> int:
    """The process's umask (Linux tells it in /proc without changing it; elsewhere it is set
    and put back, once, when this module is imported)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def give_user_mode(path: str | os.PathLike) -> None:
    """Give a file made through :func:`tempfile.mkstemp` (mode 0600) the mode a plain ``open``
    would have given it (0666 less the user's umask): data files, score files and exports are
    readable by whoever the user's umask lets read them (a server's group, a shared folder)."""
    try:
        os.chmod(path, 0o666 & ~_UMASK)
    except OSError:
        pass  # a file system without modes


def write_text_atomic(path: Path, content: str) -> None:
    """Write ``content`` to ``path`` through a temporary file beside it, so a reader never
    sees half a file and a failure leaves the old file (or none). The file gets the user's
    umask, as a plain ``open`` gives it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        give_user_mode(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@dataclass(frozen=True)
class Table:
    """A parsed delimited file: header, records and the line each record starts on."""

    name: str
    header: list[str]
    rows: list[list[str]]
    lines: list[int]

    def column(self, col: str) -> list[str]:
        i = self.header.index(col)
        return [r[i] for r in self.rows]


def _sniff_delimiter(text: str, name: str) -> str:
    first = text.split("\n", 1)[0]
    if name.lower().endswith(".tsv") or "\t" in first:
        return "\t"
    return ","


def too_long_outputs(lines: Sequence[int], outputs: Sequence[str], name: str,
                     column: str | None = None) -> DetoxInputError | None:
    """The error for outputs over :data:`detox_core.limits.MAX_OUTPUT_CHARS` characters,
    naming the first one's line (and how many there are), or None."""
    long = [(ln, len(out)) for ln, out in zip(lines, outputs) if len(out) > MAX_OUTPUT_CHARS]
    if not long:
        return None
    more = f" ({len(long) - 1} more line(s) too)" if len(long) > 1 else ""
    return DetoxInputError(f"an output of {long[0][1]:,} characters; at most {MAX_OUTPUT_CHARS:,} are scored per "
                           f"output{more}", name, long[0][0], column)


def check_line_count(text: str, name: str, max_lines: int) -> None:
    """Refuse a text of more than ``max_lines`` lines before anything splits it.

    Raises:
        DetoxInputError: too many lines, naming the file.
    """
    n_lines = text.count("\n", 0, max(len(text) - 1, 0)) + 1
    if n_lines > max_lines:
        raise DetoxInputError(f"the file has {n_lines:,} lines; at most {max_lines:,} are read "
                              "(split it, or check that it is the file you meant)", name)


def parse_table(text: str, name: str, delimiter: str | None = None, max_rows: int = MAX_TABLE_ROWS) -> Table:
    """Parse CSV/TSV text strictly, keeping the line number of every record.

    Quoting follows RFC 4180 (a quoted field may span lines; ``""`` is a quote).
    A text of more than ``max_rows`` lines (after the header) is refused before parsing.

    Raises:
        DetoxInputError: broken quoting (an unclosed quote, text after a closing
            quote), a record with the wrong number of fields, an empty or duplicate
            header name.
    """
    check_line_count(text, name, max_rows + 1)
    delimiter = delimiter or _sniff_delimiter(text, name)
    sep_name = "tab" if delimiter == "\t" else repr(delimiter)
    # A field may be as long as a whole file the app accepts (csv's default limit of
    # 131,072 characters was reported as broken quoting).
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FILE_BYTES))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    prev_line = 0
    source_lines = text.split("\n")
    try:
        for record in reader:
            start = prev_line + 1
            prev_line = reader.line_num
            if not record or (len(record) == 1 and record[0].strip() == ""):
                continue  # blank line
            if header is None:
                header = [h.strip() for h in record]
                header[0] = header[0].lstrip("\ufeff")
                seen: dict[str, int] = {}
                for i, h in enumerate(header, 1):
                    if not h:
                        raise DetoxInputError("header has an empty column name", name, start, i)
                    if h in seen:
                        raise DetoxInputError(
                            f"column name '{h}' appears twice in the header (columns {seen[h]} and {i})",
                            name, start, i,
                        )
                    seen[h] = i
                continue
            if len(record) != len(header):
                spans = reader.line_num - start
                hint = ""
                if spans > 0 and any(delimiter in f or "\n" in f for f in record):
                    hint = (
                        f"; a quoted field runs from line {start} to line {reader.line_num}: "
                        "a quote is probably not closed"
                    )
                raise DetoxInputError(
                    f"expected {len(header)} {sep_name}-separated fields as in the header, "
                    f"found {len(record)}{hint}",
                    name, start,
                )
            for i, field in enumerate(record):
                if delimiter in field and "\n" in field:
                    raise DetoxInputError(
                        f"the quoted field in column '{header[i]}' runs from line {start} to line "
                        f"{reader.line_num} and swallows {sep_name} separators: a quote is not closed",
                        name, start, header[i],
                    )
            rows.append(record)
            lines.append(start)
    except csv.Error as err:
        line_no = max(reader.line_num, 1)
        msg = str(err)
        if "unexpected end of data" in msg or "EOF" in msg:
            raise DetoxInputError(
                f"a quote opened on line {prev_line + 1} is never closed (the file ends inside it)",
                name, prev_line + 1,
            ) from None
        column = None
        text_line = source_lines[line_no - 1] if line_no - 1 < len(source_lines) else ""
        m = re.search(r'[^' + re.escape(delimiter) + r'\n]"[^"' + re.escape(delimiter) + r'\r\n]', text_line)
        if m:
            column = m.start() + 2
        raise DetoxInputError(
            f"broken quoting ({msg}): a field that starts with a quote must end with one; "
            'write a literal quote inside a quoted field as ""',
            name, line_no, column,
        ) from None
    if header is None:
        raise DetoxInputError("file has no header line", name)
    return Table(name=name, header=header, rows=rows, lines=lines)


def require_columns(table: Table, required: Sequence[str], alternatives: dict[str, Sequence[str]] | None = None) -> dict[str, str]:
    """Map each required column to the name present in the table, or raise."""
    found: dict[str, str] = {}
    missing = []
    for col in required:
        names = [col, *((alternatives or {}).get(col, ()))]
        present = [n for n in names if n in table.header]
        if present:
            found[col] = present[0]
        else:
            missing.append(" or ".join(f"'{n}'" for n in names))
    if missing:
        raise DetoxInputError(
            f"missing column(s) {', '.join(missing)}; the header has "
            f"{', '.join(repr(h) for h in table.header)}",
            table.name, 1,
        )
    return found


def optional_numbers(table: Table, column: str, check: Callable[[float], str | None] | None = None) -> list[float]:
    """A column of numbers where an empty cell is a value not given (NaN, never zero).

    ``check(x)`` returns what was expected when ``x`` is not acceptable (such as
    ``"expected one of 0, 1"``), else None.

    Raises:
        DetoxInputError: a cell that is not a number, or that ``check`` refuses, with its
            line and column.
    """
    out = []
    for value, line in zip(table.column(column), table.lines):
        if not value.strip():
            out.append(math.nan)
            continue
        try:
            x = float(value)
        except ValueError:
            raise DetoxInputError(f"expected a number, found {value.strip()[:30]!r}", table.name, line, column) from None
        problem = check(x) if check else None
        if problem:
            raise DetoxInputError(f"{problem}, found {value.strip()!r}", table.name, line, column)
        out.append(x)
    return out
