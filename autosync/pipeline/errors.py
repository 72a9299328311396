"""The pipeline's failures, as exceptions: each front end (command line, language server)
turns them into its own kind of message; nothing in the pipeline prints or exits."""

from __future__ import annotations


class BadInput(Exception):
    """A usage problem found by us (bad ``--blockDim``, unknown oracle): exit 2, one line."""

    def __init__(self, message: str, file: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file

    def format(self) -> str:
        return f"{self.file}: error: {self.message}" if self.file else f"autosync: error: {self.message}"


class Timeout(BaseException):
    """``--timeout`` reached.  A BaseException so no ``except Exception`` inside the oracle or
    the synthesizer can swallow it."""


class InternalError(Exception):
    """A failure of AutoSync itself (e.g. the patched text does not verify): exit 3."""


class Interrupted(BaseException):
    """Ctrl-C: the command stops with exit 130 and writes nothing.  A BaseException, like
    :class:`Timeout`, so no ``except Exception`` on the way can swallow it."""


class Unsupported(Exception):
    """A well-formed input beyond what we analyse (e.g. nesting too deep): exit 2, one line."""

    def __init__(self, message: str, file: str, line: int = 0, col: int = 0) -> None:
        super().__init__(message)
        self.message, self.file, self.line, self.col = message, file, line, col

    def format(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        return f"{where}: error: unsupported: {self.message}"


__all__ = ["BadInput", "Timeout", "InternalError", "Interrupted", "Unsupported"]
