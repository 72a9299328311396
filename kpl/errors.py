"""Errors raised by the front end for bad input.

Every problem with a user's kernel (syntax error, missing include, unsupported C++ construct,
malformed header line) surfaces as one :class:`KplError` carrying the ORIGINAL file/line/column,
so the CLI and the language server can point at the offending text (CONTRIBUTING.md, "Errors").  Internal bugs stay ordinary exceptions.
"""

from __future__ import annotations


class KplError(Exception):
    """Bad input: message + location. The CLI prints ``file:line:col: error: message``, exit 2."""

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        col: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        super().__init__(self.format())

    def format(self) -> str:
        """``file:line:col: error: message``, dropping the parts that are unknown."""
        loc = ""
        if self.file is not None:
            loc = self.file
            if self.line is not None:
                loc += f":{self.line}"
                if self.col is not None:
                    loc += f":{self.col}"
        elif self.line is not None:
            loc = f"{self.line}" + (f":{self.col}" if self.col is not None else "")
        return f"{loc}: error: {self.message}" if loc else f"error: {self.message}"
