"""Statements: blocks and one ``stmt_<Node>`` per pycparser statement class.

Every C statement becomes one placeable leaf (or compound statement); the leaves it needs
before it (side effects, hoisted conditions, Fig. 9's ``p := e`` of [AutoSync]) are synthetic
and not placeable, so a barrier never lands between two halves of one C statement."""

from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from kpl import ast as K
from kpl.fe import gotos
from kpl.fe.base import Scope
from kpl.fe.calls import CallsLowering


class StmtsLowering(CallsLowering):
    """Blocks, statement lists and ``stmt_<Node>``: one method per pycparser statement class."""

    def block(self, node: c_ast.Node | None, scope: Scope, *, main: bool = False,
              placeable: bool = True) -> K.Block:
        label = self.label()
        start = self.label()
        inner = Scope(scope)
        stmts: list[K.Stmt] = []
        items: list[c_ast.Node]
        if node is None:
            items = []
        elif isinstance(node, c_ast.Compound):
            items = list(node.block_items or [])
        else:
            items = [node]
        self._statements(items, inner, stmts)
        if not placeable or self.inline_depth:
            for s in stmts:
                s.placeable = False
        blk = K.Block(stmts, label, start, self.spans.block_source(node) if node is not None else K.BlockSource())
        # an unbraced body can take a barrier at its start: the renderer adds the braces
        unbraced_ok = (node is not None and not isinstance(node, c_ast.Compound)
                       and len(stmts) == 1 and stmts[0].span is not None and stmts[0].span.start >= 0)
        blk.placeable_start = placeable and not self.inline_depth and (
            main or blk.source.open_brace >= 0 or unbraced_ok)
        return blk

    def _statements(self, items: list[c_ast.Node], scope: Scope, out: list[K.Stmt]) -> None:
        regions, why = gotos.plan(items)
        if why is not None:
            raise self.error(f"unsupported: goto ({why})", items[0])
        if regions:
            first = regions[0]  # the first and, among those, the widest
            self._statements(items[:first.start], scope, out)
            self._goto_region(items, first, scope, out)
            self._statements(items[first.end:], scope, out)
            return
        items = [item.stmt if isinstance(item, c_ast.Label) else item for item in items]
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, c_ast.Decl):
                # `int a = 1, b;` arrives as several Decl nodes with one statement extent
                group = [item]
                while (i + 1 < len(items) and isinstance(items[i + 1], c_ast.Decl)
                       and items[i + 1].coord.line == item.coord.line
                       and self._same_decl_statement(item, items[i + 1])):
                    i += 1
                    group.append(items[i])
                span = self.spans.span_of(group[0], decl=True)
                lowered: list[K.Stmt] = []
                for decl in group:
                    lowered.extend(self.declaration(decl, scope))
                self._finish(lowered, span, out)
            elif isinstance(item, c_ast.Compound):
                self._statements(list(item.block_items or []), Scope(scope), out)
            elif isinstance(item, c_ast.DeclList):
                lowered = []
                for decl in item.decls:
                    lowered.extend(self.declaration(decl, scope))
                self._finish(lowered, self.spans.span_of(item, decl=True), out)
            else:
                self._finish(self.statement(item, scope), self.spans.span_of(item), out)
            i += 1

    def _goto_region(self, items: list[c_ast.Node], region: gotos.Region, scope: Scope,
                     out: list[K.Stmt]) -> None:
        """The statements a goto spans as one block (:mod:`kpl.fe.gotos`): an exit region is
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
            body[0] = body[0].stmt  # the label itself is not planned again
        span = self.spans.span_of(items[region.start])
        label, start = self.label(), self.label()
        flag = None
        if region.kind == "exit":
            flag = K.Var(self.unique(f"goto.{region.label}.leave"), K.BOOL)
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
        out.append(K.Inline(f"goto {region.label}", blk, None, label=label, span=span,
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

    def _same_decl_statement(self, a: c_ast.Decl, b: c_ast.Decl) -> bool:
        """Two consecutive Decls belong to one C declaration when no ';' separates them."""
        sa = self.source.offset(a.coord.line, a.coord.column or 1)
        sb = self.source.offset(b.coord.line, b.coord.column or 1)
        if sa < 0 or sb < 0 or sb <= sa:
            return False
        semi = self.source.scan_to(sa, ";")
        return semi < 0 or semi > sb

    def _finish(self, stmts: list[K.Stmt], span: K.Span | None, out: list[K.Stmt]) -> None:
        """Attach the C statement's span; only its last KPL statement is placeable."""
        for n, stmt in enumerate(stmts):
            if stmt.span is None:
                stmt.span = span
            if n < len(stmts) - 1:
                stmt.placeable = False
                stmt.synthetic = True
        if stmts and (span is None or span.start < 0):
            stmts[-1].placeable = False
        out.extend(stmts)

    def effects(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        """Lower an expression evaluated for its side effects to leaves."""
        out: list[K.Stmt] = []
        if isinstance(node, c_ast.ExprList):
            for e in node.exprs:
                out.extend(self.effects(e, scope))
            return out
        if isinstance(node, c_ast.Assignment):
            return self.assignment(node, scope)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "++", "p--", "--"):
            target = self.lvalue(node.expr, scope, out)
            self.check_writable(target, node)
            current = self.read_lvalue(target)
            op = "+" if "+" in node.op else "-"
            out.append(K.Assign(target, K.Binary(op, current, K.Const(1), current.type),
                                label=self.label()))
            return out
        if isinstance(node, c_ast.FuncCall):
            name = self._call_name(node)
            if name in self.functions and self._is_device(name):
                return self.inline_call(node, scope, None)
        value = self.expr(node, scope, out)
        if self._has_effect(value):
            out.append(K.ExprStmt(value, label=self.label()))
        elif any(isinstance(e, K.Load) for e in K.walk_expr(value)):
            out.append(K.ExprStmt(value, label=self.label()))
        return out

    def _has_effect(self, e: K.Expr) -> bool:
        return any(isinstance(x, (K.Atomic, K.Call)) for x in K.walk_expr(e))

    def stmt_EmptyStatement(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_Pragma(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_Goto(self, node: c_ast.Goto, scope: Scope) -> list[K.Stmt]:
        for n in range(len(self.goto_targets) - 1, -1, -1):
            name, kind, _ = self.goto_targets[n]
            if name != node.name:
                continue
            if kind == "loop":
                if any(k == "exit" for _, k, _ in self.goto_targets[n + 1:]):
                    break
                return [K.Continue(label=self.label())]
            return self._leave_flags(n + 1) + [K.Return(None, label=self.label())]
        raise self.error(f"unsupported: goto '{node.name}' (its label is not a statement of an "
                         "enclosing block before or after it: irreducible control flow or a "
                         "jump into a block)", node)

    def stmt_Label(self, node: c_ast.Label, scope: Scope) -> list[K.Stmt]:
        # a label no goto of its block targets (gotos from elsewhere are rejected there)
        return self.statement(node.stmt, scope)

    def stmt_Break(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return [K.Break(label=self.label())]

    def stmt_Continue(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return [K.Continue(label=self.label())]

    def stmt_Return(self, node: c_ast.Return, scope: Scope) -> list[K.Stmt]:
        pre: list[K.Stmt] = []
        value = None
        if node.expr is not None:
            value = self.expr(node.expr, scope, pre)
            if self.result_vars and self.result_vars[-1] is not None:
                target = self.result_vars[-1]
                assert target is not None
                pre.append(K.Assign(target, self._convert(value, target.type), label=self.label()))
                value = None
        return pre + self.ensures_checks() + self._leave_flags(0) + [
            K.Return(value, label=self.label())]

    def stmt_Compound(self, node: c_ast.Compound, scope: Scope) -> list[K.Stmt]:
        out: list[K.Stmt] = []
        self._statements(list(node.block_items or []), Scope(scope), out)
        return out

    def stmt_If(self, node: c_ast.If, scope: Scope) -> list[K.Stmt]:
        pre: list[K.Stmt] = []
        cond = self.condition(node.cond, scope, pre)
        label = self.label()
        self.control_depth += 1
        then = self.block(node.iftrue, scope)
        then.label = label
        els = None
        if node.iffalse is not None:
            els = self.block(node.iffalse, scope)
            els.span = self.spans.span_of(node.iffalse)
        self.control_depth -= 1
        return pre + [K.If(cond, then, els, label=label)]

    def stmt_While(self, node: c_ast.While, scope: Scope) -> list[K.Stmt]:
        return self._loop("while", None, node.cond, None, node.stmt, scope, True, node)

    def stmt_DoWhile(self, node: c_ast.DoWhile, scope: Scope) -> list[K.Stmt]:
        return self._loop("do", None, node.cond, None, node.stmt, scope, False, node)

    def stmt_For(self, node: c_ast.For, scope: Scope) -> list[K.Stmt]:
        return self._loop("for", node.init, node.cond, node.next, node.stmt, scope, True, node)

    def stmt_Switch(self, node: c_ast.Switch, scope: Scope) -> list[K.Stmt]:
        """``switch`` as a once-loop over ``if (fall || sw == v) { fall = 1; … }`` arms, so
        ``break`` leaves it and fall-through is exact."""
        pre: list[K.Stmt] = []
        subject = self.expr(node.cond, scope, pre)
        label = self.label()
        start = self.label()
        sw = self.temp(subject.type if subject.type.kind == "int" else K.INT, "sw")
        fall = self.temp(K.INT, "fall")
        stmts: list[K.Stmt] = [K.Decl(sw, subject, label=self.label(), placeable=False, synthetic=True),
                               K.Decl(fall, K.Const(0), label=self.label(), placeable=False,
                                      synthetic=True)]
        items = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        cases = [it for it in items or [] if isinstance(it, (c_ast.Case, c_ast.Default))]
        values = [self.expr_pure(c.expr) for c in cases if isinstance(c, c_ast.Case)]
        inner = Scope(scope)
        self.control_depth += 1
        for n, case in enumerate(cases):
            if isinstance(case, c_ast.Case):
                match: K.Expr = K.Binary("==", sw, self.expr_pure(case.expr), K.INT)
            else:
                if n != len(cases) - 1:
                    raise self.error("unsupported: 'default' must be the last case", case)
                match = K.Const(1)
                for v in values:
                    match = K.Binary("&&", match, K.Binary("!=", sw, v, K.INT), K.INT)
            guard = K.Binary("||", fall, match, K.INT)
            arm_label = self.label()
            arm_start = self.label()
            arm: list[K.Stmt] = [K.Assign(fall, K.Const(1), label=self.label(), placeable=False,
                                          synthetic=True)]
            self._statements(list(case.stmts or []), inner, arm)
            block = K.Block(arm, arm_label, arm_start, placeable_start=False)
            stmts.append(K.If(guard, block, None, label=arm_label, placeable=False, synthetic=True,
                              span=self.spans.span_of(case)))
        self.control_depth -= 1
        for s in stmts[:2]:
            s.span = self.spans.span_of(node)
        body = K.Block(stmts, label, start, self.spans.block_source(node.stmt), placeable_start=False)
        return pre + [K.Switch(body, label=label)]

    def stmt_Assignment(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_UnaryOp(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_ExprList(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_Cast(self, node: c_ast.Cast, scope: Scope) -> list[K.Stmt]:  # (void)x;
        return self.effects(node.expr, scope)

    def stmt_ID(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_Constant(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_TernaryOp(self, node: c_ast.TernaryOp, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_BinaryOp(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_ArrayRef(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_StructRef(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_Decl(self, node: c_ast.Decl, scope: Scope) -> list[K.Stmt]:
        return self.declaration(node, scope)

    def stmt_Typedef(self, node: c_ast.Typedef, scope: Scope) -> list[K.Stmt]:
        self.typedefs[node.name] = node.type
        return []

    def stmt_Case(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        raise self.error("'case' outside a switch", node)

    def _loop(self, kind: str, init: c_ast.Node | None, cond: c_ast.Node | None,
              step: c_ast.Node | None, body: c_ast.Node, scope: Scope, test_first: bool,
              node: c_ast.Node) -> list[K.Stmt]:
        loop_scope = Scope(scope)
        whole = self.spans.span_of(node)
        # synthetic header leaves (init, step, hoisted condition) point at the header line
        header_span = K.Span(whole.file, whole.line, whole.col) if whole is not None else None
        pre: list[K.Stmt] = []
        if init is not None:
            if isinstance(init, c_ast.DeclList):
                for decl in init.decls:
                    pre.extend(self.declaration(decl, loop_scope))
            else:
                pre.extend(self.effects(init, loop_scope))
        invariants: list[K.Stmt] = []
        checks: list[K.Expr] = []  # user invariants: checked at entry and in the latch
        cond_expr: K.Expr = K.Const(1)
        cond_pre: list[K.Stmt] = []
        if cond is not None:
            parts = cond.exprs if isinstance(cond, c_ast.ExprList) else [cond]
            for part in parts[:-1]:
                inv = self.loop_invariant(part, loop_scope)
                if inv is None:
                    cond_pre.extend(self.effects(part, loop_scope))
                else:
                    invariants.append(inv[0])
                    checks.extend(inv[1])
            cond_expr = self.condition(parts[-1], loop_scope, cond_pre)
        label = self.label()
        self.control_depth += 1
        body_block = self.block(body, loop_scope)
        self.control_depth -= 1
        body_block.label = label
        latch: list[K.Stmt] = []
        if step is not None:
            latch.extend(self.effects(step, loop_scope))
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
        return before + [loop]

    def _relabel(self, stmts: list[K.Stmt]) -> list[K.Stmt]:
        out = []
        for s in stmts:
            out.append(replace(s, label=self.label()))
        return out
