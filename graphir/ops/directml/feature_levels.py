"""DirectML feature levels (``DML_FEATURE_LEVEL_x_y``) and per-level support tables.

Every level DirectML defines is a member, ordered by its numeric value (``0x5100`` for 5_1). A
support table lists rows "from level L and above"; a level between two rows uses the lower row
(4_1 uses the 3_0 row when the table has rows 2_0, 3_0 and 5_0).
"""
from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from graphir.errors import OpDefinitionError

PREFIX = "DML_FEATURE_LEVEL_"
_NAME = re.compile(r"^(?:DML_FEATURE_LEVEL_)?(\d+)[_.](\d+)$", re.IGNORECASE)


class FeatureLevel(str, enum.Enum):
    """``FeatureLevel.L5_0``; ``str()`` is ``5_0``; ``.dml_name`` is ``DML_FEATURE_LEVEL_5_0``."""

    L1_0 = "1_0"
    L2_0 = "2_0"
    L2_1 = "2_1"
    L3_0 = "3_0"
    L3_1 = "3_1"
    L4_0 = "4_0"
    L4_1 = "4_1"
    L5_0 = "5_0"
    L5_1 = "5_1"
    L5_2 = "5_2"
    L6_0 = "6_0"
    L6_1 = "6_1"
    L6_2 = "6_2"
    L6_3 = "6_3"
    L6_4 = "6_4"

    def __str__(self) -> str:
        return self.value

    @property
    def dml_name(self) -> str:
        return PREFIX + self.value

    @property
    def number(self) -> int:
        """DirectML's enum value: ``0x5100`` for 5_1."""
        major, minor = self.value.split("_")
        return int(major) << 12 | int(minor) << 8

    def __lt__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, FeatureLevel):
            return NotImplemented
        return self.number < other.number

    def __le__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, FeatureLevel):
            return NotImplemented
        return self.number <= other.number

    def __gt__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, FeatureLevel):
            return NotImplemented
        return self.number > other.number

    def __ge__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, FeatureLevel):
            return NotImplemented
        return self.number >= other.number

    @classmethod
    def parse(cls, value: "str | int | FeatureLevel") -> "FeatureLevel":
        """``5_0``, ``5.0``, ``DML_FEATURE_LEVEL_5_0`` or the enum value ``0x5000``."""
        if isinstance(value, FeatureLevel):
            return value
        if isinstance(value, int):
            for level in cls:
                if level.number == value:
                    return level
        else:
            m = _NAME.match(str(value).strip())
            if m:
                key = f"{int(m.group(1))}_{int(m.group(2))}"
                for level in cls:
                    if level.value == key:
                        return level
        names = ", ".join(level.value for level in cls)
        raise OpDefinitionError(f"unknown DirectML feature level {value!r}; known: {names}")


NEWEST = max(FeatureLevel, key=lambda level: level.number)

Row = TypeVar("Row")


class SupportTable(Generic[Row]):
    """Rows keyed by the feature level they start at; ``row(level)`` picks the governing one."""

    def __init__(self, rows: Sequence[tuple[FeatureLevel, Row]]) -> None:
        self.rows = sorted(rows, key=lambda r: r[0].number)

    @property
    def introduced(self) -> FeatureLevel:
        return self.rows[0][0]

    def row(self, level: FeatureLevel) -> Row | None:
        """The row for ``level`` (the last row starting at or below it); None before the first."""
        found = None
        for start, row in self.rows:
            if start.number <= level.number:
                found = row
        return found

    def lowest(self, accepts: Callable[[Row], bool]) -> FeatureLevel | None:
        """The lowest level whose row ``accepts``; None when no row does."""
        for start, row in self.rows:
            if accepts(row):
                return start
        return None
