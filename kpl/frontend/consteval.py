"""Constant evaluation of ``constexpr`` code: ``constexpr int kSteps = ilog2(kBlock);``.

clang folds constant expressions where C++ requires a constant (template arguments, array
extents, ``if constexpr``) but prints no value for a ``constexpr`` variable or call used as
an ordinary value.  Translating such a call by inlining would give the verifier a loop or a
recursion to reason about for what is a number, so it is evaluated here, over clang's AST:
integer and boolean arithmetic, conditionals, calls to functions with a body, local
variables, ``if``, loops (bounded) and ``return``.  Anything else is "not a constant" (None),
and the caller translates the code as usual.
"""

from __future__ import annotations

from kpl.frontend import tree
from kpl.frontend.tree import DeclIndex, Node

#: statements one evaluation may run: a constexpr loop longer than this is not folded
STEP_LIMIT = 100_000
_TRANSPARENT = {"ParenExpr", "ExprWithCleanups", "MaterializeTemporaryExpr", "ImplicitCastExpr",
                "CStyleCastExpr", "CXXStaticCastExpr", "CXXFunctionalCastExpr",
                "SubstNonTypeTemplateParmExpr", "CXXDefaultArgExpr"}
_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b) if b else None, "%": lambda a, b: a - b * int(a / b) if b else None,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b,
    "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b), ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}


class _NotConstant(Exception):
    pass


class _Returned(Exception):
    def __init__(self, value: int) -> None:
        self.value = value


class ConstEval:
    """Evaluates integer ``constexpr`` code of one translation unit."""

    def __init__(self, index: DeclIndex) -> None:
        self.index = index
        self.steps = 0

    def value(self, node: Node) -> int | None:
        """The integer value of expression ``node`` (no free variables), or None."""
        self.steps = 0
        try:
            return self._expr(node, {})
        except (_NotConstant, RecursionError, ZeroDivisionError, TypeError, ValueError):
            return None

    def _expr(self, node: Node, env: dict[str, int]) -> int:
        k = tree.kind(node)
        inner = tree.children(node)
        if k in ("IntegerLiteral", "CharacterLiteral"):
            return int(node["value"])
        if k == "CXXBoolLiteralExpr":
            return int(bool(node.get("value")))
        if k == "ConstantExpr" and "value" in node:
            v = node["value"]
            return int(v) if str(v).lstrip("-").isdigit() else int(str(v) == "true")
        if k in _TRANSPARENT or k == "ConstantExpr":
            if not inner:
                raise _NotConstant
            return self._expr(inner[-1] if k == "SubstNonTypeTemplateParmExpr" else inner[0], env)
        if k == "DeclRefExpr":
            ref = node.get("referencedDecl") or {}
            rid = str(ref.get("id"))
            if rid in env:
                return env[rid]
            decl = self.index.get(rid)
            if decl is not None and tree.kind(decl) == "VarDecl" and decl.get("constexpr"):
                init = [c for c in tree.children(decl) if not tree.kind(c).endswith("Attr")]
                if init:
                    return self._expr(init[0], {})
            raise _NotConstant
        if k == "UnaryOperator":
            op = node.get("opcode")
            if op in ("++", "--"):
                return self._assign(inner[0], (1 if op == "++" else -1), "+", env,
                                    post=bool(node.get("isPostfix")))
            a = self._expr(inner[0], env)
            return {"-": -a, "+": a, "!": int(not a), "~": ~a}[str(op)]
        if k == "BinaryOperator":
            op = str(node.get("opcode"))
            if op == "=":
                return self._assign(inner[0], self._expr(inner[1], env), None, env)
            if op == "&&":
                return int(bool(self._expr(inner[0], env)) and bool(self._expr(inner[1], env)))
            if op == "||":
                return int(bool(self._expr(inner[0], env)) or bool(self._expr(inner[1], env)))
            if op == ",":
                self._expr(inner[0], env)
                return self._expr(inner[1], env)
            result = _BINARY[op](self._expr(inner[0], env), self._expr(inner[1], env))
            if result is None:
                raise _NotConstant
            return int(result)
        if k == "CompoundAssignOperator":
            return self._assign(inner[0], self._expr(inner[1], env), str(node["opcode"])[:-1], env)
        if k == "ConditionalOperator":
            return self._expr(inner[1] if self._expr(inner[0], env) else inner[2], env)
        if k == "CallExpr":
            return self._call(node, env)
        raise _NotConstant

    def _assign(self, target: Node, value: int, op: str | None, env: dict[str, int],
                post: bool = False) -> int:
        while tree.kind(target) in _TRANSPARENT:
            target = tree.children(target)[0]
        rid = str((target.get("referencedDecl") or {}).get("id"))
        if tree.kind(target) != "DeclRefExpr" or rid not in env:
            raise _NotConstant
        old = env[rid]
        env[rid] = int(_BINARY[op](old, value)) if op else value
        return old if post else env[rid]

    def _call(self, node: Node, env: dict[str, int]) -> int:
        callee = tree.children(node)[0]
        while tree.kind(callee) in _TRANSPARENT:
            callee = tree.children(callee)[0]
        func = self.index.function((callee.get("referencedDecl") or {}).get("id"))
        body = tree.body_of(func) if func is not None else None
        if func is None or body is None or not func.get("constexpr"):
            raise _NotConstant
        args = [self._expr(a, env) for a in tree.children(node)[1:]]
        params = tree.params_of(func)
        if len(params) != len(args):
            raise _NotConstant
        frame = {str(p["id"]): v for p, v in zip(params, args, strict=True)}
        try:
            self._stmt(body, frame)
        except _Returned as ret:
            return ret.value
        raise _NotConstant

    def _stmt(self, node: Node, env: dict[str, int]) -> None:
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise _NotConstant
        k = tree.kind(node)
        inner = tree.children(node)
        if k == "CompoundStmt":
            for s in inner:
                self._stmt(s, env)
        elif k == "ReturnStmt":
            raise _Returned(self._expr(inner[0], env) if inner else 0)
        elif k == "DeclStmt":
            for d in inner:
                given = [c for c in tree.children(d) if not tree.kind(c).endswith("Attr")]
                if tree.kind(d) == "VarDecl":
                    env[str(d["id"])] = self._expr(given[0], env) if given else 0
        elif k == "IfStmt":
            if node.get("hasInit") or node.get("hasVar"):
                raise _NotConstant
            if self._expr(inner[0], env):
                self._stmt(inner[1], env)
            elif node.get("hasElse"):
                self._stmt(inner[2], env)
        elif k in ("ForStmt", "WhileStmt"):
            parts: list[Node | None] = [p if p else None for p in inner]
            init: Node | None = None
            step: Node | None = None
            if k == "ForStmt":
                init, _var, cond, step, body = ([None] * (5 - len(parts)) + parts)[:5]  # type: ignore[assignment]
            else:
                cond, body = parts[-2], parts[-1]
            if init is not None:
                self._stmt(init, env)
            while cond is None or self._expr(cond, env):
                self.steps += 1
                if self.steps > STEP_LIMIT or body is None:
                    raise _NotConstant
                self._stmt(body, env)
                if step is not None:
                    self._expr(step, env)
        elif k == "NullStmt":
            pass
        else:
            self._expr(node, env)
