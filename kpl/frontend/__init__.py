"""The front end: CUDA C++ read by clang, its AST translated into KPL kernels.

clang parses and instantiates the code (:mod:`kpl.frontend.clang` runs it inside a sandbox of
allowed folders, with our own CUDA declarations in ``include/``); :mod:`kpl.frontend.tree`
indexes its JSON AST; the translation is one mixin per family of constructs, stacked in
dependency order into :class:`kpl.frontend.kernels.Translator`:

* :mod:`~kpl.frontend.state` -- scopes (bound by clang's declaration ids), labels, spans, the
  dispatch ``stmt_<Kind>`` / ``expr_<Kind>`` over clang node kinds;
* :mod:`~kpl.frontend.types` -- clang's type strings and records as KPL types;
* :mod:`~kpl.frontend.access` -- THE place where memory accesses are built: pointers as
  (memory, offset), array elements, lvalues, assignments;
* :mod:`~kpl.frontend.pointers` -- pointers as values (base number, offset) where one array
  does not do: swapped buffers, ``c ? a : b``, null; accesses split over the bases;
* :mod:`~kpl.frontend.held` -- pointers stored into memory (their bytes), arrays of pointers,
  locals whose address a pointer holds (one-cell memories);
* :mod:`~kpl.frontend.exprs`, :mod:`~kpl.frontend.members`, :mod:`~kpl.frontend.decls` --
  expressions, struct members with byte layouts, declarations;
* :mod:`~kpl.frontend.annotations`, :mod:`~kpl.frontend.memops`,
  :mod:`~kpl.frontend.library` -- GPUVerify's annotations, ``memcpy``/``memset``, and the
  models of CUDA's device libraries (cooperative groups, curand, half);
* :mod:`~kpl.frontend.calls` -- built-in models and inlining of functions with a body;
* :mod:`~kpl.frontend.objects` -- constructors: values they build, objects holding references;
* :mod:`~kpl.frontend.consteval` -- ``constexpr`` code evaluated to its value;
* :mod:`~kpl.frontend.diagnostics` -- which of clang's errors stop a kernel;
* :mod:`~kpl.frontend.host` -- the host code's launches of a kernel (``k<<<grid, block>>>``);
* :mod:`~kpl.frontend.asm`, :mod:`~kpl.frontend.gotos`, :mod:`~kpl.frontend.stmts` --
  inline PTX barriers, ``goto`` regions, statements and blocks.

May import: ``kpl`` only (and the clang binary of the ``ziglang`` wheel).
"""

from kpl.frontend.kernels import (
    Dim,
    kernel_names,
    launches_elsewhere,
    load_kernel,
    load_kernels,
    parse_kernel_text,
    select_kernel,
)

__all__ = ["Dim", "kernel_names", "launches_elsewhere", "load_kernel", "load_kernels", "parse_kernel_text", "select_kernel"]
