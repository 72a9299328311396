"""Source bytes <-> text, losslessly: how every kernel and header file is read (and written).

Real kernels are not all UTF-8: comments written in Latin-1 by European authors, files saved
by Windows editors with a byte-order mark and CRLF endings.  A verifier must read them all,
and ``autosync fix`` must write back exactly the bytes it did not change.  So:

* bytes are decoded as UTF-8 with ``surrogateescape``: a byte that is not UTF-8 becomes one
  lone surrogate (U+DC80..U+DCFF) and :func:`encode_source` turns it back into the same
  byte, so a Latin-1 ``é`` in a comment survives a ``fix`` unchanged;
* the byte-order mark stays in the text (it is written back); the preprocessor sees it as a
  blank (:func:`blank_bom`) so line 1 keeps its columns;
* CRLF stays in the text; the C lexers treat ``\\r`` as whitespace, so lines and columns
  count exactly as in an editor.
"""

from __future__ import annotations

BOM = "\ufeff"


def decode_source(data: bytes) -> str:
    """Text of a source file's bytes; never fails, and :func:`encode_source` inverts it."""
    return data.decode("utf-8", errors="surrogateescape")


def encode_source(text: str) -> bytes:
    """The bytes of ``text`` as :func:`decode_source` read them (non-UTF-8 bytes restored)."""
    return text.encode("utf-8", errors="surrogateescape")


def read_source(path: str) -> str:
    """Read ``path`` as source text (raises ``OSError`` as ``open`` does)."""
    with open(path, "rb") as fh:
        return decode_source(fh.read())


def blank_bom(text: str) -> str:
    """``text`` with a leading byte-order mark replaced by one space (columns unchanged)."""
    return " " + text[1:] if text.startswith(BOM) else text
