"""``named``: placeholder."""

from oracle.named.checker import NamedBarrierOracle, describe_threads, uses_named_barriers
from oracle.named.emulate import Emulator

__all__ = ["Emulator", "NamedBarrierOracle", "describe_threads", "uses_named_barriers"]
