# The C scans of parse/fastscan.py (_rowscan.c).

from collections.abc import Mapping

def rows_summary(
    data: bytes, batch: tuple[tuple[bytes, int], ...], access_alt: int, /
) -> tuple[int, bytes, bytes, bool, int, int] | None: ...
def block_marks(data: bytes, skip: int, /) -> tuple[int, list[int], list[int]]: ...
def series_columns(
    data: bytes, batch: tuple[tuple[bytes, int], ...], access_alt: int, alternatives: int, /
) -> tuple[list[bytes], list[bytes], tuple[list[bytes | None], ...], list[bytes]] | None: ...
def shape_values(
    texts: list[bytes], literals: tuple[bytes, ...], picks: tuple[int, ...], /
) -> tuple[bytes, bytes]: ...
def decode_values(
    data: bytes,
    batch: tuple[tuple[bytes, int], ...],
    access_alt: int,
    alt: int,
    literals: tuple[bytes, ...],
    picks: tuple[int, ...],
    /,
) -> tuple[bytes, list[bytes], bytes, bytes, bytes, list[bytes]] | None: ...
def json_lines(
    data: bytes,
    batch: tuple[tuple[bytes, int], ...],
    access_alt: int,
    first_line: int,
    sep: bytes,
    plans: tuple[tuple[tuple[tuple[bytes, ...], bytes, tuple[bytes | int, ...]], ...] | None, ...],
    ranks: Mapping[bytes, bytes],
    /,
) -> tuple[str, int, list[tuple[int, int]]] | None: ...
