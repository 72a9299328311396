"""``dynamic``: placeholder."""

from oracle.dynamic.checker import DynamicOracle

__all__ = ["DynamicOracle"]
