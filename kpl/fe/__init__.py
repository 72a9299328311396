"""The second half of the front end: pycparser's C AST -> KPL (:mod:`kpl.ast`).

One mixin per family of constructs, stacked in dependency order into
:class:`kpl.frontend.Lowerer`:

* :mod:`kpl.fe.base` -- state, scopes, the two dispatch tables (``stmt_<Node>``,
  ``expr_<Node>``: one method per pycparser node class, like ``c_ast.NodeVisitor``);
* :mod:`kpl.fe.types` -- C types, file-scope declarations, constant folding, conversions;
* :mod:`kpl.fe.access` -- THE place where memory accesses are built: pointers as
  (memory, offset), array elements, lvalues, loads, stores, assignments;
* :mod:`kpl.fe.decls` -- local declarations (scalars, arrays, ``__shared__``, pointers);
* :mod:`kpl.fe.exprs` -- ``expr_<Node>`` for operators, literals, names, casts, fields;
* :mod:`kpl.fe.calls` -- calls: barriers, atomics, textures, builtins, device-function
  inlining;
* :mod:`kpl.fe.stmts` -- blocks and ``stmt_<Node>`` for control flow and expression
  statements.

A new construct is one ``stmt_<Node>``/``expr_<Node>`` method in the module of its family;
source locations come from :class:`kpl.spans.NodeSpans`.
"""
