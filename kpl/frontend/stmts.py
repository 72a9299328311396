"""Statements: blocks and one ``stmt_<Kind>`` per clang statement kind.

Every C++ statement becomes one placeable leaf (or compound statement); the leaves it needs
before it (side effects, hoisted conditions, Fig. 9's ``p := e`` of [AutoSync]) are synthetic
and not placeable, so a barrier never lands between two halves of one statement.

Why one piece of this size: it is the table of clang's statement kinds, one method each,
with the block structure (labels, spans, placeability) they share.
"""

from __future__ import annotations

from dataclasses import replace

from kpl import ast as K
from kpl.frontend import gotos, tree
from kpl.frontend.access import peel
from kpl.frontend.asm import AsmTranslation
from kpl.frontend.calls import ReferenceResult
from kpl.frontend.state import Scope
from kpl.frontend.tree import Node

_CALLS = {"CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr"}


class StmtsTranslation(AsmTranslation):
    """Blocks, statement lists and ``stmt_<Kind>``."""

    def block(self, node: Node | None, scope: Scope, *, main: bool = False,
              placeable: bool = True) -> K.Block:
        label = self.label()
        start = self.label()
        inner = Scope(scope)
        stmts: list[K.Stmt] = []
        if node is None:
            items: list[Node] = []
        elif tree.kind(node) == "CompoundStmt":
            items = tree.children(node)
        else:
            items = [node]
        self._statements(items, inner, stmts)
        if not placeable or self.inline_depth:
            for s in stmts:
                s.placeable = False
        blk = K.Block(stmts, label, start, self.block_source(node))
        # an unbraced body can take a barrier at its start: the renderer adds the braces
        unbraced_ok = (node is not None and tree.kind(node) != "CompoundStmt"
                       and len(stmts) == 1 and stmts[0].span is not None and stmts[0].span.start >= 0)
        blk.placeable_start = placeable and not self.inline_depth and (
            main or blk.source.open_brace >= 0 or unbraced_ok)
        return blk

    def _statements(self, items: list[Node], scope: Scope, out: list[K.Stmt]) -> None:
        regions, why = gotos.plan(items)
        if why is not None:
            raise self.error(f"unsupported: goto ({why})", items[0])
        if regions:
            first = regions[0]  # the first and, among those, the widest
            self._statements(items[:first.start], scope, out)
            self._goto_region(items, first, scope, out)
            self._statements(items[first.end:], scope, out)
            return
        while any(tree.kind(item) == "LabelStmt" for item in items):
            items = [tree.children(item)[0] if tree.kind(item) == "LabelStmt" else item for item in items]
        for item in items:
            k = tree.kind(item)
            if k == "DeclStmt":
                lowered: list[K.Stmt] = []
                for decl in tree.children(item):
                    lowered.extend(self.declaration(decl, scope))
                self._finish(lowered, self.span_of(item, decl=True), out)
            elif k == "CompoundStmt":
                self._statements(tree.children(item), Scope(scope), out)
            elif k == "AttributedStmt":
                self._statements(tree.children(item)[-1:], scope, out)
            else:
                self._finish(self.statement(item, scope), self.span_of(item), out)

    def _goto_region(self, items: list[Node], region: gotos.Region, scope: Scope,
                     out: list[K.Stmt]) -> None:
        """The statements a goto spans as one block (:mod:`kpl.frontend.gotos`): an exit region is
        an :class:`K.Inline` block that ``goto`` leaves by ``Return``, followed by ``if
        (flag) return`` for a ``return`` (or a goto further out) that leaves past it; a loop
        region is ``while (1) { ...; break; }`` that ``goto`` continues."""
        why = gotos.escapes(items, region)
        if why is None and region.kind == "loop" and any(k == "exit" for _, k, _ in self.goto_targets):
            why = "a backward goto inside the statements a forward goto spans"
        if why is not None:
            raise self.error(f"unsupported: goto ({why})", items[region.start])
        body = list(items[region.start:region.end])
        if region.kind == "loop":
            body[0] = tree.children(body[0])[0]  # the label itself is not planned again
        span = self.span_of(items[region.start])
        label, start = self.label(), self.label()
        flag = None
        if region.kind == "exit":
            flag = K.Var(self.unique(f"goto.{region.name}.leave"), K.BOOL)
            out.append(K.Decl(flag, K.Const(0, K.BOOL), label=self.label(), span=span,
                              placeable=False, synthetic=True))
        stmts: list[K.Stmt] = []
        self.goto_targets.append((region.label, region.kind, flag))
        self.control_depth += 1
        try:
            self._statements(body, scope, stmts)
        finally:
            self.control_depth -= 1
            self.goto_targets.pop()
        blk = K.Block(stmts, label, start, K.BlockSource(), placeable_start=False)
        if flag is None:
            stmts.append(K.Break(label=self.label(), span=span, placeable=False, synthetic=True))
            out.append(K.Loop(K.Const(1), blk, [], kind="while", label=label, span=span,
                              placeable=False, synthetic=True))
            return
        out.append(K.Inline(f"goto {region.name}", blk, None, label=label, span=span,
                            placeable=False, synthetic=True))
        leave = self.label()
        again = K.Block([K.Return(None, label=self.label(), span=span, placeable=False,
                                  synthetic=True)], leave, self.label(), K.BlockSource(),
                        placeable_start=False)
        out.append(K.If(flag, again, None, label=leave, span=span, placeable=False, synthetic=True))

    def _leave_flags(self, upto: int) -> list[K.Stmt]:
        """Set the flags of the exit regions from ``goto_targets[upto:]``: control leaves past
        them (a ``return``, or a goto to a region further out)."""
        return [K.Assign(flag, K.Const(1, K.BOOL), label=self.label(), placeable=False,
                         synthetic=True)
                for _, _, flag in self.goto_targets[upto:] if flag is not None]

    def _finish(self, stmts: list[K.Stmt], span: K.Span | None, out: list[K.Stmt]) -> None:
        """Attach the statement's span; only its last KPL statement is placeable."""
        for n, stmt in enumerate(stmts):
            if stmt.span is None:
                stmt.span = span
            if n < len(stmts) - 1:
                stmt.placeable = False
                stmt.synthetic = True
        if stmts and (span is None or span.start < 0):
            stmts[-1].placeable = False
        out.extend(stmts)

    def effects(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """An expression evaluated for its side effects, as leaves."""
        out: list[K.Stmt] = []
        node = peel(node)
        k = tree.kind(node)
        if k == "BinaryOperator" and node.get("opcode") == ",":
            for part in tree.children(node):
                out.extend(self.effects(part, scope))
            return out
        if (k == "BinaryOperator" and node.get("opcode") == "=") or k == "CompoundAssignOperator":
            return self.assignment(node, scope)
        if k == "UnaryOperator" and node.get("opcode") in ("++", "--"):
            target_node = tree.children(node)[0]
            from kpl.frontend.access import decl_id

            ident = decl_id(target_node)
            found = scope.lookup(ident) if ident else None
            from kpl.frontend.state import DynPointer, PointerBinding

            if isinstance(found, DynPointer):
                return self.dyn_step(found, node.get("opcode") == "--", node)
            if isinstance(found, PointerBinding):
                self.reassigned(ident or "", found, None, scope)
                moved = self._advance(found, K.Const(1), node.get("opcode") == "--",
                                      tree.qual_type(peel(target_node)))
                stable, stmts = self._stable(moved)
                scope.rebind(ident or "", stable)
                return stmts
            target = self.lvalue(target_node, scope, out)
            self.check_writable(target, node)
            current = self.read_lvalue(target)
            op = "+" if node.get("opcode") == "++" else "-"
            out.append(K.Assign(target, K.Binary(op, current, K.Const(1), current.type),
                                label=self.label()))
            return out
        if k in _CALLS:
            own = self.call_statement(node, scope)
            if own is not None:
                return own
            func, obj = self.callee(node)
            if func is not None and self.is_trivial_assignment(func):
                return self.assignment(self.as_assignment(node), scope)
            if func is not None and tree.body_of(func) is not None:
                return self.inline_call(node, func, obj, scope)
        if k in ("CStyleCastExpr", "CXXStaticCastExpr", "CXXFunctionalCastExpr") and \
                tree.qual_type(node) == "void":
            return self.effects(tree.children(node)[0], scope)
        if k == "ImplicitCastExpr" and node.get("castKind") == "ToVoid":
            return self.effects(tree.children(node)[0], scope)
        value = self.expr(node, scope, out)
        if any(isinstance(x, (K.Atomic, K.Call, K.Load)) for x in K.walk_expr(value)):
            out.append(K.ExprStmt(value, label=self.label()))
        return out

    def stmt_NullStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_BreakStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        return [K.Break(label=self.label())]

    def stmt_ContinueStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        return [K.Continue(label=self.label())]

    def stmt_ReturnStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        pre: list[K.Stmt] = []
        value = None
        inner = tree.children(node)
        if inner and self.pointer_results and self.result_vars and self.result_vars[-1] is None:
            slot = self.pointer_results[-1]
            if isinstance(slot, ReferenceResult):
                slot.binding = self.reference(inner[0], scope, pre)
                slot.returns += 1
                return pre + [K.Return(None, label=self.label())]
            if self._is_pointerish(inner[0]):
                slot.binding = self.pointer(inner[0], scope)
                return [K.Return(None, label=self.label())]
        if inner:
            if self.result_vars and self.result_vars[-1] is not None:
                target = self.result_vars[-1]
                assert target is not None
                if target.type.kind == "ptr" and self._is_pointerish(inner[0]):
                    # a pointer returned as a value (the call is no pointer use): its address;
                    # one with no known array leaves the result arbitrary
                    value = self.address_value(inner[0], scope, pre, K.ULONG)
                else:
                    value = self.expr(inner[0], scope, pre)
                if value is not None:
                    pre.append(K.Assign(target, self.convert(value, target.type), label=self.label()))
                value = None
            else:
                pre.extend(self.effects(inner[0], scope))
        return pre + self.ensures_checks() + self._leave_flags(0) + [K.Return(value, label=self.label())]

    def stmt_CompoundStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        out: list[K.Stmt] = []
        self._statements(tree.children(node), Scope(scope), out)
        return out

    def stmt_DeclStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        out: list[K.Stmt] = []
        for decl in tree.children(node):
            out.extend(self.declaration(decl, scope))
        return out

    def stmt_IfStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        parts = tree.children(node)
        if node.get("isConstexpr"):
            # `if constexpr`: clang has decided; only the taken branch is in the program
            pass
        has_else = bool(node.get("hasElse"))
        has_var = bool(node.get("hasVar"))
        has_init = bool(node.get("hasInit"))
        pos = 0
        pre: list[K.Stmt] = []
        inner_scope = Scope(scope)
        if has_init:
            pre.extend(self._finish_list(self.statement(parts[pos], inner_scope)))
            pos += 1
        if has_var:
            pre.extend(self.stmt_DeclStmt(parts[pos], inner_scope))
            pos += 1
        cond_node = parts[pos]
        then_node = parts[pos + 1] if len(parts) > pos + 1 else None
        else_node = parts[pos + 2] if has_else and len(parts) > pos + 2 else None
        cond = self.condition(cond_node, inner_scope, pre)
        label = self.label()
        self.control_depth += 1
        then = self.block(then_node, inner_scope)
        then.label = label
        els = None
        if else_node is not None:
            els = self.block(else_node, inner_scope)
            els.span = self.span_of(else_node)
        self.control_depth -= 1
        return pre + [K.If(cond, then, els, label=label)]

    def _finish_list(self, stmts: list[K.Stmt]) -> list[K.Stmt]:
        for s in stmts:
            s.placeable = False
            s.synthetic = True
        return stmts

    def stmt_WhileStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        parts = tree.children(node)
        return self._loop("while", None, parts[-2], None, parts[-1], scope, True, node)

    def stmt_DoStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        body, cond = tree.children(node)[:2]
        return self._loop("do", None, cond, None, body, scope, False, node)

    def stmt_ForStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        # clang prints a ForStmt's five slots (init, condition variable, cond, inc, body);
        # empty slots are printed as `{}`
        parts = tree.children(node)
        slots = [p if p else None for p in parts]
        while len(slots) < 5:
            slots.insert(0, None)
        init, _var, cond, step, body = slots[:5]
        return self._loop("for", init, cond, step, body, scope, True, node)

    def stmt_CXXForRangeStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """``for (T x : a)`` over an array of N elements, as the index loop it is: ``for (i = 0;
        i < N; ++i) { T x = a[i]; body }`` (clang's own expansion steps a pointer
        ``__begin`` to ``__end = a + N``; the element variable, a value or a reference, is
        bound to ``a[i]`` instead of ``*__begin``).  A range with ``begin()``/``end()``
        methods is refused."""
        parts = [p if p else None for p in tree.children(node)]
        if len(parts) != 8 or any(parts[i] is None for i in (1, 2, 3, 6)):
            raise self.error("unsupported: range-based for loop of this form", node)
        init, range_decl, begin_decl, end_decl, _cond, _step, var_decl, body = parts
        assert range_decl is not None and begin_decl is not None and end_decl is not None
        begin, end = (tree.children(d)[0] if tree.children(d) else {} for d in (begin_decl, end_decl))
        end_init = peel(tree.children(end)[0]) if tree.children(end) else {}
        count = [c for c in tree.children(end_init) if tree.kind(peel(c)) == "IntegerLiteral"]
        if tree.kind(end_init) != "BinaryOperator" or end_init.get("opcode") != "+" or not count \
                or not tree.children(begin):
            raise self.error("unsupported: range-based for loop over something other than an "
                             "array (a range with begin() and end())", node)
        at = {"range": node.get("range", {}), "valueCategory": "prvalue"}
        index_type = {"qualType": "long"}
        index = {"kind": "VarDecl", "id": f"{node.get('id')}.index", "name": "__index", "init": "c",
                 "type": index_type, "inner": [{"kind": "IntegerLiteral", "type": index_type,
                                                 "value": "0", **at}], **at}
        ref = {"kind": "DeclRefExpr", "type": index_type, "valueCategory": "lvalue",
               "range": node.get("range", {}),
               "referencedDecl": {"id": index["id"], "kind": "VarDecl", "name": "__index"}}
        read = {"kind": "ImplicitCastExpr", "castKind": "LValueToRValue", "type": index_type,
                "inner": [ref], **at}
        cond = {"kind": "BinaryOperator", "opcode": "<", "type": {"qualType": "bool"},
                "inner": [read, peel(count[0])], **at}
        step = {"kind": "UnaryOperator", "opcode": "++", "isPostfix": False, "type": index_type,
                "inner": [ref], **at}
        element = self._range_element(var_decl, tree.children(begin)[0], read)
        outer = Scope(scope)
        pre: list[K.Stmt] = []
        for decl in (init, range_decl):
            if decl is not None:
                pre.extend(self.stmt_DeclStmt(decl, outer) if tree.kind(decl) == "DeclStmt"
                           else self.effects(decl, outer))
        for stmt in pre:
            stmt.placeable, stmt.synthetic = False, True
        init_stmt = {"kind": "DeclStmt", "inner": [index], **at}
        return pre + self._loop("for", init_stmt, cond, step, body, outer, True, node, prologue=element)

    @staticmethod
    def _range_element(var_decl: Node | None, base: Node, index: Node) -> Node:
        """The element variable's declaration with ``*__begin`` replaced by ``base[index]``."""
        def swap(n: Node) -> Node:
            if tree.kind(n) == "UnaryOperator" and n.get("opcode") == "*":
                return {"kind": "ArraySubscriptExpr", "type": n.get("type"), "valueCategory": "lvalue",
                        "range": n.get("range", {}), "inner": [base, index]}
            return {**n, "inner": [swap(c) for c in tree.children(n)]} if tree.children(n) else n
        assert var_decl is not None
        return swap(var_decl)

    def stmt_SwitchStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """``switch`` as a once-loop over ``if (fall || sw == v) { fall = 1; … }`` arms, so
        ``break`` leaves it and fall-through is exact."""
        parts = tree.children(node)
        pre: list[K.Stmt] = []
        inner = Scope(scope)
        pos = 0
        if node.get("hasInit"):
            pre.extend(self._finish_list(self.statement(parts[pos], inner)))
            pos += 1
        if node.get("hasVar"):
            pre.extend(self.stmt_DeclStmt(parts[pos], inner))
            pos += 1
        subject = self.expr(parts[pos], inner, pre)
        body_node = parts[pos + 1]
        label = self.label()
        start = self.label()
        sw = self.temp(subject.type if subject.type.kind == "int" else K.INT, "sw")
        fall = self.temp(K.INT, "fall")
        stmts: list[K.Stmt] = [K.Decl(sw, subject, label=self.label(), placeable=False, synthetic=True),
                               K.Decl(fall, K.Const(0), label=self.label(), placeable=False,
                                      synthetic=True)]
        arms = self._switch_arms(body_node)
        values = [self.expr_pure(v, inner) for v, _, _ in arms if v is not None]
        self.control_depth += 1
        for n, (value, items, case) in enumerate(arms):
            if value is not None:
                match: K.Expr = K.Binary("==", sw, self.expr_pure(value, inner), K.INT)
            else:
                if n != len(arms) - 1:
                    raise self.error("unsupported: 'default' must be the last case", case)
                match = K.Const(1)
                for v in values:
                    match = K.Binary("&&", match, K.Binary("!=", sw, v, K.INT), K.INT)
            guard = K.Binary("||", fall, match, K.INT)
            arm_label = self.label()
            arm_start = self.label()
            arm: list[K.Stmt] = [K.Assign(fall, K.Const(1), label=self.label(), placeable=False,
                                          synthetic=True)]
            self._statements(items, inner, arm)
            block = K.Block(arm, arm_label, arm_start, placeable_start=False)
            stmts.append(K.If(guard, block, None, label=arm_label, placeable=False, synthetic=True,
                              span=self.span_of(case)))
        self.control_depth -= 1
        for st in stmts[:2]:
            st.span = self.span_of(node)
        body = K.Block(stmts, label, start, self.block_source(body_node), placeable_start=False)
        return pre + [K.Switch(body, label=label)]

    def _switch_arms(self, body: Node) -> list[tuple[Node | None, list[Node], Node]]:
        """(case value or None for ``default``, its statements, the case node) in order.  A
        ``case`` holds one statement (another ``case`` for ``case 1: case 2:``); the
        statements after it up to the next label are its too."""
        items = tree.children(body) if tree.kind(body) == "CompoundStmt" else [body]
        arms: list[tuple[Node | None, list[Node], Node]] = []
        for item in items:
            if tree.kind(item) in ("CaseStmt", "DefaultStmt"):
                node = item
                while tree.kind(node) in ("CaseStmt", "DefaultStmt"):
                    inner = tree.children(node)
                    if tree.kind(node) == "CaseStmt":
                        arms.append((inner[0], [], node))
                        node = inner[-1] if len(inner) > 1 else {}
                    else:
                        arms.append((None, [], node))
                        node = inner[-1] if inner else {}
                if node:
                    arms[-1][1].append(node)
            elif arms:
                arms[-1][1].append(item)
            else:
                raise self.error("unsupported: statements before the first 'case' of a switch", item)
        return arms

    def stmt_GotoStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        target = node.get("targetLabelDeclId")
        for n in range(len(self.goto_targets) - 1, -1, -1):
            label, kind, _ = self.goto_targets[n]
            if label != target:
                continue
            if kind == "loop":
                if any(k == "exit" for _, k, _ in self.goto_targets[n + 1:]):
                    break
                return [K.Continue(label=self.label())]
            return self._leave_flags(n + 1) + [K.Return(None, label=self.label())]
        name = next((str(n.get("name")) for n in tree.walk(self.index.tu)
                     if tree.kind(n) == "LabelStmt" and n.get("declId") == target), "?")
        raise self.error(f"unsupported: goto '{name}' (its label is not a statement of an "
                         "enclosing block before or after it: irreducible control flow or a "
                         "jump into a block)", node)

    def stmt_LabelStmt(self, node: Node, scope: Scope) -> list[K.Stmt]:
        # a label no goto of its block targets (gotos from elsewhere are rejected there)
        return self.statement(tree.children(node)[0], scope)

    def _loop(self, kind: str, init: Node | None, cond: Node | None, step: Node | None,
              body: Node | None, scope: Scope, test_first: bool, node: Node,
              prologue: Node | None = None) -> list[K.Stmt]:
        loop_scope = Scope(scope)
        whole = self.span_of(node)
        header_span = K.Span(whole.file, whole.line, whole.col) if whole is not None else None
        pre: list[K.Stmt] = []
        if init is not None:
            if tree.kind(init) == "DeclStmt":
                pre.extend(self.stmt_DeclStmt(init, loop_scope))
            else:
                pre.extend(self.effects(init, loop_scope))
        invariants: list[K.Stmt] = []
        checks: list[K.Expr] = []  # user invariants: checked at entry and in the latch
        cond_expr: K.Expr = K.Const(1)
        cond_pre: list[K.Stmt] = []
        if cond is not None:
            parts = self._comma_parts(cond)
            for part in parts[:-1]:
                inv = self.loop_invariant(part, loop_scope)
                if inv is None:
                    cond_pre.extend(self.effects(part, loop_scope))
                else:
                    invariants.append(inv[0])
                    checks.extend(inv[1])
            cond_expr = self.condition(parts[-1], loop_scope, cond_pre)
        wide_cands, wide_checks = self.function_wide(loop_scope)
        invariants.extend(wide_cands)
        checks.extend(wide_checks)
        label = self.label()
        self.control_depth += 1
        first = self.stmt_DeclStmt(prologue, loop_scope) if prologue is not None else []
        for stmt in first:  # a range-for's element variable, bound at each iteration's start
            stmt.placeable, stmt.synthetic = False, True
        body_block = self.block(body, loop_scope)
        body_block.stmts[:0] = first
        latch: list[K.Stmt] = []
        if step is not None:
            latch.extend(self.effects(step, loop_scope))
        self.control_depth -= 1
        body_block.label = label
        self.check_invariants(checks, pre, latch)
        if cond_pre:
            # the condition reads memory: evaluate it before the loop and again each latch
            latch.extend(self._relabel(cond_pre))
        for stmt in latch:
            stmt.placeable = False
            stmt.synthetic = True
            stmt.span = stmt.span or header_span
        for stmt in invariants:
            stmt.placeable = False
            stmt.synthetic = True
            stmt.span = header_span
        body_block.stmts[:0] = invariants
        before = pre + (cond_pre if test_first else [])
        for stmt in before:
            stmt.placeable = False
            stmt.synthetic = True
            stmt.span = stmt.span or header_span
        loop = K.Loop(cond_expr, body_block, latch, kind=kind, test_first=test_first, label=label)
        self.pointer_loop_facts(loop)
        return before + [loop]

    def _comma_parts(self, node: Node) -> list[Node]:
        """``a, b, c`` as ``[a, b, c]`` (GPUVerify writes loop invariants this way)."""
        inner = peel(node)
        if tree.kind(inner) == "BinaryOperator" and inner.get("opcode") == ",":
            left, right = tree.children(inner)[:2]
            return self._comma_parts(left) + [right]
        return [node]

    def _relabel(self, stmts: list[K.Stmt]) -> list[K.Stmt]:
        return [replace(s, label=self.label()) for s in stmts]
