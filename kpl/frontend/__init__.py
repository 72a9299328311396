"""The clang front end: CUDA C++ read by clang, its AST translated into KPL (see kernels.py)."""
