"""Oracles found by name (``--oracle sdv|named|dynamic``).

Plug-ins are imported lazily so that ``autosync check`` pays only for the oracle it uses.
A third-party oracle can register itself with :func:`register`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from oracle.base import Oracle

_FACTORIES: dict[str, str | Callable[..., Oracle]] = {
    "sdv": "oracle.sdv:SDVOracle",
    "dynamic": "oracle.dynamic:DynamicOracle",
    "named": "oracle.named:NamedBarrierOracle",
}


def register(name: str, factory: Callable[..., Oracle]) -> None:
    """Make ``factory(**options)`` available as ``--oracle name``."""
    _FACTORIES[name] = factory


def available() -> list[str]:
    return sorted(_FACTORIES)


def get_oracle(name: str, **options: Any) -> Oracle:
    """Build the oracle called ``name``; raises ``KeyError`` with the known names."""
    try:
        target = _FACTORIES[name]
    except KeyError:
        raise KeyError(f"unknown oracle '{name}' (known: {', '.join(available())})") from None
    if isinstance(target, str):
        module_name, _, attr = target.partition(":")
        factory = getattr(importlib.import_module(module_name), attr)
    else:
        factory = target
    return factory(**options)
