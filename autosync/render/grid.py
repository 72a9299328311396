"""What a grid barrier needs in the user's file besides the barrier itself (issue 37).

``fix`` writes a grid barrier as ``<alias>::this_grid().sync();``: cooperative groups' grid
barrier, through a namespace alias of our own (``autosync_cg``, or ``autosync_cg_2``, … when
the file already uses that name anywhere, so it cannot collide with the user's names).  The
file needs ``#include <cooperative_groups.h>`` (added once, when it does not include it yet)
and the alias ``namespace <alias> = cooperative_groups;`` at file scope before the first
kernel that uses it.  Both go on new lines: after the last ``#include`` before that kernel,
or, in a file with none, after the leading comment lines (a GPUVerify flags line
``//--blockDim=…`` must stay first).
"""

from __future__ import annotations

import re

from autosync.render.patch import Edit

#: the alias ``fix`` gives ``cooperative_groups`` (a suffix is added if the file names it)
ALIAS = "autosync_cg"
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]", re.M)


def grid_alias(text: str) -> str:
    """A namespace alias for ``cooperative_groups`` that no identifier of ``text`` spells."""
    names = set(re.findall(r"[A-Za-z_]\w*", text))
    alias, n = ALIAS, 1
    while alias in names:
        n += 1
        alias = f"{ALIAS}_{n}"
    return alias


def _line_after(text: str, offset: int) -> int:
    """The offset just past the newline of the line holding ``offset`` (end of text if none)."""
    end = text.find("\n", offset)
    return len(text) if end < 0 else end + 1


def grid_prelude(text: str, alias: str, before: int) -> Edit:
    """The insertion of the include (when missing) and the alias, before offset ``before``
    (the start of the first kernel that gets a grid barrier)."""
    includes = [m for m in _INCLUDE.finditer(text) if m.start() < before]
    has = any(m.group(1).strip() == "cooperative_groups.h" for m in includes)
    lines = ([] if has else ["#include <cooperative_groups.h>"]) + \
        [f"namespace {alias} = cooperative_groups;"]
    if includes:
        at = _line_after(text, includes[-1].start())
    else:
        at = 0
        while at < before:
            line_end = _line_after(text, at)
            stripped = text[at:line_end].strip()
            if stripped and not stripped.startswith("//"):
                break
            at = line_end
    nl = "\r\n" if "\r\n" in text else "\n"
    block = nl.join(lines) + nl
    if at == len(text) and text and not text.endswith("\n"):
        block = nl + block
    return Edit(at, at, block, rank=(-1,))
