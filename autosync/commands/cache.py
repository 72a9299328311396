"""A result cache for ``autosync check`` (like ruff's): a second run over an unchanged project
answers from disk.

The key is a SHA-256 of everything the output depends on: the file's text, the texts of the
files it includes (``#include "…"``, found next to the file and in ``-I`` folders,
recursively), the project configuration's and the compilation database's texts, the command-line options, the AutoSync
version, and the file's name as typed and the current folder (both are printed: messages name
the file as given, SARIF URIs are relative to the current folder).  The value is the finished
output of the check (exit code, stdout, stderr), so a hit prints exactly what the miss
printed.  Single-file and batch runs share entries (:func:`autosync.commands.batch.cache_slot`).  Only
``check`` is cached: ``fix`` writes files.

The folder is ``$AUTOSYNC_CACHE_DIR``, else ``.autosync_cache/`` next to the project
configuration, else in the current directory.  ``AUTOSYNC_NO_CACHE=1`` turns the cache off
like ``--no-cache`` (the test suite does, so every test sees real runs).  Besides the version,
the key holds a fingerprint (name, size, mtime) of AutoSync's own source files: a developer
who edits the oracle never gets a verdict of the old code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass

_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


@dataclass(frozen=True)
class Entry:
    """One cached check: what the run printed and its exit code."""

    code: int
    stdout: str
    stderr: str


def disabled() -> bool:
    """``AUTOSYNC_NO_CACHE`` set to anything but ``""``/``0``: no reading, no writing."""
    return os.environ.get("AUTOSYNC_NO_CACHE", "") not in ("", "0")


_CODE: list[str] = []


def code_files() -> list[str]:
    """Every file of the three packages a verdict may depend on: sources, templates and the
    front end's headers (``cmath`` has no extension)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out: list[str] = []
    for package in ("kpl", "oracle", "autosync"):
        for folder, dirs, files in os.walk(os.path.join(root, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            out.extend(os.path.join(folder, name) for name in sorted(files) if not name.endswith(".pyc"))
    return out


def code_fingerprint() -> str:
    """Name, size and mtime of every file of :func:`code_files` (computed once)."""
    if not _CODE:
        h = hashlib.sha256()
        for path in code_files():
            st = os.stat(path)
            h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\1".encode())
        _CODE.append(h.hexdigest())
    return _CODE[0]


def cache_dir(config_root: str | None) -> str:
    env = os.environ.get("AUTOSYNC_CACHE_DIR")
    if env:
        return env
    return os.path.join(config_root or os.getcwd(), ".autosync_cache")


def _included(path: str, include_dirs: list[str], seen: set[str]) -> list[str]:
    """Texts of the local includes of ``path``, depth first (missing ones are skipped: the
    front end reports them)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return []
    out = []
    for name in _INCLUDE_RE.findall(text):
        for folder in [os.path.dirname(os.path.abspath(path)), *include_dirs]:
            cand = os.path.abspath(os.path.join(folder, name))
            if os.path.isfile(cand):
                if cand not in seen:
                    seen.add(cand)
                    try:
                        with open(cand, encoding="utf-8", errors="replace") as fh:
                            out.append(cand + "\0" + fh.read())
                    except OSError:
                        pass
                    out += _included(cand, include_dirs, seen)
                break
    return out


def key(file: str, options: list[str], include_dirs: list[str], config_path: str | None, version: str,
        extra_files: list[str] | None = None) -> str | None:
    """The cache key of one check, or None when the file cannot be read (never cached).
    ``extra_files`` (e.g. the compilation database, forced includes) are hashed with their
    texts and the texts of their local includes."""
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    h = hashlib.sha256()
    for part in (version, code_fingerprint(), os.path.abspath(file), file, os.getcwd(), "\0".join(options), config_path or ""):
        h.update(part.encode() + b"\1")
    h.update(data + b"\1")
    for path in ([config_path] if config_path else []) + list(extra_files or []):
        try:
            with open(path, "rb") as fh:
                h.update(path.encode() + b"\0" + fh.read() + b"\1")
        except OSError:
            pass
    seen = {os.path.abspath(file)}
    for root in [file, *(extra_files or [])]:
        for text in _included(root, include_dirs, seen):
            h.update(text.encode() + b"\1")
    return h.hexdigest()


def get(folder: str, digest: str) -> Entry | None:
    try:
        with open(os.path.join(folder, digest[:2], digest + ".json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        return Entry(int(doc["code"]), str(doc["stdout"]), str(doc["stderr"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def put(folder: str, digest: str, entry: Entry) -> None:
    """Store atomically (temp file + rename); a cache that cannot be written is no error."""
    sub = os.path.join(folder, digest[:2])
    try:
        os.makedirs(sub, exist_ok=True)
        gitignore = os.path.join(folder, ".gitignore")
        if not os.path.exists(gitignore):
            with open(gitignore, "w", encoding="utf-8") as fh:
                fh.write("*\n")
        fd, tmp = tempfile.mkstemp(dir=sub, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"code": entry.code, "stdout": entry.stdout, "stderr": entry.stderr}, fh)
        os.replace(tmp, os.path.join(sub, digest + ".json"))
    except OSError:
        pass


__all__ = ["Entry", "disabled", "code_fingerprint", "cache_dir", "key", "get", "put"]
