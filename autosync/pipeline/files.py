"""Reading and writing the user's file: every byte kept, line endings included; written
atomically, through symlinks, with its mode; read-only files refused.

Kept apart from :mod:`autosync.pipeline` because it is the only code that touches the
user's folder, so what it may leave there (see :func:`write_file`) is decided in one place.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from autosync.pipeline.errors import BadInput

if TYPE_CHECKING:
    from autosync.render.patch import Edit


def read_source(path: str) -> str:
    """The file's text with its line endings as they are (read as bytes): ``fix`` keeps every
    byte it does not edit, so a CRLF file stays CRLF.

    The bytes are decoded losslessly (:func:`kpl.textio.read_source`: bytes that are not
    UTF-8, such as Latin-1 in a comment, come back unchanged when written)."""
    from kpl import textio
    from kpl.errors import KplError

    try:
        return textio.read_source(path)
    except OSError as exc:
        raise KplError(f"cannot read file: {exc.strerror}", path) from None


def to_lf(text: str) -> str:
    """``text`` with CRLF line endings as LF: what the front end sees (as when it opens a file
    with universal newlines); offsets map back with :func:`keep_line_endings`."""
    return text.replace("\r\n", "\n") if "\r" in text else text


def _raw_offset(raw: str, offset: int) -> int:
    """The offset in ``raw`` of offset ``offset`` of ``to_lf(raw)``: every CRLF before it adds
    one (an offset AT a line's end lands before its ``\r``)."""
    if "\r\n" not in raw:
        return offset
    pos = lf = 0
    while True:
        nl = raw.find("\r\n", pos)
        if nl < 0 or lf + (nl - pos) >= offset:
            return pos + (offset - lf)
        lf += nl - pos + 1  # the chars up to the CR, then the LF
        pos = nl + 2


def line_ending_at(raw: str, offset: int) -> str:
    """The ending of the line holding the character before ``offset`` (the line an insertion
    at ``offset`` follows); the file's first ending when there is none before."""
    nl = raw.find("\n", max(offset - 1, 0))
    if nl < 0:
        nl = raw.rfind("\n")
    return "\r\n" if nl > 0 and raw[nl - 1] == "\r" else "\n"


def keep_line_endings(raw: str, edit: Edit) -> Edit:
    """``edit`` (planned on ``to_lf(raw)``) as an edit of ``raw``: offsets mapped, and every
    new line it writes ended like the line it follows."""
    import dataclasses

    if "\r\n" not in raw:
        return edit
    start, end = _raw_offset(raw, edit.start), _raw_offset(raw, edit.end)
    eol = line_ending_at(raw, start)
    replacement = edit.replacement.replace("\n", eol)
    barrier_at = edit.barrier_at
    if barrier_at >= 0:
        barrier_at = len(edit.replacement[:barrier_at].replace("\n", eol))
    return dataclasses.replace(edit, start=start, end=end, replacement=replacement, barrier_at=barrier_at)


def temp_name(path: str) -> str:
    """The one temporary file :func:`write_file` may leave next to ``path`` (``.NAME.autosync-tmp``)."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.autosync-tmp")


def check_writable(path: str) -> int | None:
    """The mode bits of ``path`` (None: it does not exist yet); :class:`BadInput` when it is
    read-only -- no write bit at all counts, even for root, who may write anything."""
    try:
        mode = stat.S_IMODE(os.stat(os.path.realpath(path)).st_mode)
    except OSError:
        return None
    if not mode & 0o222 or not os.access(os.path.realpath(path), os.W_OK):
        raise BadInput("cannot write: file is read-only", path)
    return mode


def write_file(path: str, text: str) -> None:
    """Write ``text`` (exact characters, line endings included) to ``path`` atomically.

    * A symlink is written THROUGH: its target is replaced, the link stays a link.
    * The file's mode bits are kept; a new file gets ``0o666 & ~umask``.
    * A read-only file is refused (:class:`BadInput` ``cannot write: file is read-only``),
      untouched.
    * The new text goes to ``.NAME.autosync-tmp`` in the target's folder (``os.replace`` is
      atomic only within one file system), then replaces the file.  That temp file exists
      only for the few milliseconds of this function: an exception removes it, and a stale
      one -- left by a ``kill -9`` inside that window -- is removed by the next run.
    * A target that is no regular file (``/dev/null``, a named pipe) is written into, not
      replaced: there is no file to keep whole.
    """
    target = os.path.realpath(path)
    mode = check_writable(path)
    if os.path.exists(target) and not os.path.isfile(target):  # a device or a pipe: written into,
        with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
            out.write(text)  # never replaced (``-o /dev/null`` must leave the device a device)
        return
    tmp = temp_name(target)
    try:
        os.unlink(tmp)  # a stale one from a killed run
    except OSError:
        pass
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise BadInput(f"cannot write: {exc.strerror}", path) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


__all__ = ["read_source", "to_lf", "line_ending_at", "keep_line_endings", "temp_name", "check_writable",
           "write_file"]
