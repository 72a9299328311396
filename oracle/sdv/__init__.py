"""``sdv``: the symbolic two-thread verifier (placeholder docstring, rewritten below)."""

from oracle.sdv.verifier import SDVOracle

__all__ = ["SDVOracle"]
