"""The built-in dimensions as KPL expressions: the linear ids and sizes that CUDA's
cooperative groups (:mod:`kpl.frontend.library`) and OpenCL C's work-item functions
(:mod:`kpl.frontend.opencl_builtins`) are made of."""

from __future__ import annotations

from kpl import ast as K


def builtin_dim(name: str, dim: str) -> K.Expr:
    """``threadIdx.x`` & co. (``name``, ``dim`` in x/y/z)."""
    return K.Builtin(name, dim, K.UINT)


def mul(a: K.Expr, b: K.Expr) -> K.Expr:
    return K.Binary("*", a, b, K.UINT)


def add(a: K.Expr, b: K.Expr) -> K.Expr:
    return K.Binary("+", a, b, K.UINT)


def linear_thread() -> K.Expr:
    """``threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)``."""
    b = builtin_dim
    return add(b("threadIdx", "x"), mul(b("blockDim", "x"),
               add(b("threadIdx", "y"), mul(b("blockDim", "y"), b("threadIdx", "z")))))


def block_threads() -> K.Expr:
    return mul(mul(builtin_dim("blockDim", "x"), builtin_dim("blockDim", "y")), builtin_dim("blockDim", "z"))


def linear_block() -> K.Expr:
    b = builtin_dim
    return add(b("blockIdx", "x"), mul(b("gridDim", "x"),
               add(b("blockIdx", "y"), mul(b("gridDim", "y"), b("blockIdx", "z")))))


def grid_blocks() -> K.Expr:
    return mul(mul(builtin_dim("gridDim", "x"), builtin_dim("gridDim", "y")), builtin_dim("gridDim", "z"))


__all__ = ["add", "block_threads", "builtin_dim", "grid_blocks", "linear_block", "linear_thread", "mul"]
