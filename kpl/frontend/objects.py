"""Objects built by constructors: values of classes whose constructor has a body, and
objects of classes with reference or pointer members (a CUB-style ``BlockReduce`` holding
``TempStorage &temp``), which are not values but what their members stand for
(:class:`kpl.frontend.state.ObjectBinding`).  clang names the constructor a
``CXXConstructExpr`` calls only by its type; it is inlined like any function (:mod:`kpl.frontend.calls`)
with ``this`` the new object, its member initialisers first.  A struct member holding
pointers is an object of its own; a pointer member set again in straight-line code is
rebound, as a pointer variable is (:meth:`ObjectsTranslation._pointer_member_assignment`)."""

from __future__ import annotations

from kpl import ast as K
from kpl.ctypes import member, sizeof
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.calls import CallsTranslation
from kpl.frontend.decls import has_array_member
from kpl.frontend.state import ObjectBinding, PointerBinding, Scope
from kpl.frontend.tree import Node


class ObjectsTranslation(CallsTranslation):
    """Constructors: :meth:`construct_value`, :meth:`construct_object` (module docstring)."""

    def object_record(self, node: Node) -> Node | None:
        """The class of ``node``'s type when its objects are :class:`ObjectBinding`\\ s: it has
        a reference or pointer member, so what it designates is not a value."""
        record = self.types.record(tree.qual_type(node))
        if record is None:
            return None
        for f in tree.children(record):
            if tree.kind(f) != "FieldDecl":
                continue
            text = tree.qual_type(f).rstrip()
            if text.endswith(("&", "*")) or ("[" not in text and self.object_record(f) is not None) \
                    or "*" in text.split("[")[0]:
                return record  # a pointer member, an array of them, or a struct member holding one
        return None

    def is_aggregate_init(self, node: Node, record: Node) -> bool:
        """Whether ``node`` builds an object member by member (``{a, b}``) or copies one
        with the copy constructor clang defines (not a user constructor)."""
        inner = peel(node)
        if tree.kind(inner) == "InitListExpr":
            return True
        if tree.kind(inner) == "CXXConstructExpr" and len(tree.children(inner)) == 1:
            ctor = self.constructor_of(inner, record)
            return ctor is None or bool(ctor.get("isImplicit")) or tree.body_of(ctor) is None
        return False

    def aggregate_object(self, node: Node, record: Node, scope: Scope,
                         out: list[K.Stmt]) -> ObjectBinding:
        """An object of a struct with pointer members (``Pair p = {in, s};``, or a copy of
        one: ``Pair q = p;``, a parameter passed by value): its pointer members are bindings
        (what they point to), its value members variables of the copy."""
        inner = peel(node)
        while tree.kind(inner) == "CXXConstructExpr" and len(tree.children(inner)) == 1:
            inner = peel(tree.children(inner)[0])  # the implicit copy constructor
        name = str(record.get("name", ""))
        obj = ObjectBinding(name, depth=self.control_depth)
        fields = [f for f in tree.children(record) if tree.kind(f) == "FieldDecl"]
        if tree.kind(inner) == "InitListExpr":
            items = tree.children(inner)
            for f, item in zip(fields, items, strict=False):
                fname, text = str(f.get("name", "")), tree.qual_type(f)
                if text.rstrip().endswith("*"):
                    if self.is_null(item):
                        raise self.error(f"unsupported: null member '{fname}' of '{name}'", item)
                    binding = self.pointer(item, scope)
                    if binding is None:
                        raise self.error(f"unsupported: member '{fname}' does not point into a "
                                         "known array", item)
                    obj.fields[fname] = binding
                elif "[" not in text and self.object_record(f) is not None:
                    nested = self.object_record(f)
                    assert nested is not None
                    obj.fields[fname] = self.aggregate_object(item, nested, scope, out)
                else:
                    typ = self.ctype(text, f)
                    var = K.Var(self.unique(f"{name}.{fname}"), typ)
                    out.append(K.Decl(var, self.convert(self.expr(item, scope, out), typ),
                                      label=self.label(), placeable=False, synthetic=True))
                    obj.fields[fname] = var
            return obj
        source = self._object_at(inner, scope)
        if source is None:
            raise self.error(f"unsupported: object of '{name}' (a struct with pointer members) "
                             "not built from its members or copied from one", node)
        return self._copy_object(source, obj, out)

    def _copy_object(self, source: ObjectBinding, obj: ObjectBinding, out: list[K.Stmt]) -> ObjectBinding:
        """``obj`` made a copy of ``source``: value members copied into its own variables,
        struct members copied in turn (setting one member of the copy leaves the original
        alone), pointer and reference members naming what the original's name."""
        for fname, held in source.fields.items():
            if isinstance(held, K.Var):  # a copy: its own variable
                var = K.Var(self.unique(f"{obj.record}.{fname}"), held.type)
                out.append(K.Decl(var, held, label=self.label(), placeable=False, synthetic=True))
                obj.fields[fname] = var
            elif isinstance(held, ObjectBinding):
                obj.fields[fname] = self._copy_object(held, ObjectBinding(held.record, depth=obj.depth), out)
            else:
                obj.fields[fname] = held
        return obj

    def parameter_object(self, name: str, record: Node, params: list[K.Param],
                         out: list[K.Stmt]) -> ObjectBinding:
        """A kernel parameter of a struct with pointer members (``struct P { float *x; int n; }``
        passed by value): each pointer member is a global array of its own, ``p.x``, and each
        value member a scalar parameter, ``p.n`` -- as if the host had passed them one by one,
        under the same no-aliasing assumption as pointer parameters.  An array of pointers
        (``float *rows[4]``) is a :class:`PointerArray` whose elements start at global arrays
        of their own, ``p.rows.0`` …, which it may be set to change (its variables: ``out``)."""
        obj = ObjectBinding(str(record.get("name", "")))
        for f in tree.children(record):
            if tree.kind(f) != "FieldDecl":
                continue
            fname, text = f"{name}.{f.get('name', '')}", tree.qual_type(f)
            typ = self.ctype(text, f)
            if typ.kind == "ptr" and typ.elem is not None and typ.elem.kind != "ptr":
                mem = K.Memory(fname, K.Space.GLOBAL, typ.elem, (None,))
                self.memories[fname] = mem
                obj.fields[str(f.get("name", ""))] = PointerBinding(mem, K.Const(0))
                params.append(K.Param(fname, typ, mem=mem))
            elif typ.kind != "ptr" and self.object_record(f) is None:
                var = K.Var(self.unique(fname), typ)
                obj.fields[str(f.get("name", ""))] = var
                params.append(K.Param(fname, typ, var=var))
            elif typ.kind != "ptr" and "[" not in text:  # a struct member holding pointers
                nested = self.object_record(f)
                assert nested is not None
                obj.fields[str(f.get("name", ""))] = self.parameter_object(fname, nested, params, out)
            elif "[" in text and self._pointer_rows(text) is not None:
                elem, extent = self._pointer_rows(text)  # type: ignore[misc]
                rows: list[PointerBinding] = []
                for k in range(extent):
                    mem = K.Memory(f"{fname}.{k}", K.Space.GLOBAL, elem, (None,))
                    self.memories[mem.name] = mem
                    params.append(K.Param(mem.name, K.CType("ptr", 64, False, "pointer", elem), mem=mem))
                    rows.append(PointerBinding(mem, K.Const(0)))
                obj.fields[str(f.get("name", ""))] = self.pointer_array(
                    fname, fname, elem, extent, [], self.unit.globals, out, initial=rows)
            else:
                raise self.error(f"unsupported: member '{fname}' of kernel parameter '{name}' "
                                 f"(type '{text}'): a pointer to pointers or a nested struct "
                                 "holding pointers", f)
        return obj

    def _pointer_rows(self, text: str) -> tuple[K.CType, int] | None:
        """(pointee, extent) of a member ``T *m[n]`` (one dimension, known extent)."""
        elem, dims = self.types.shape(text)
        if elem.kind != "ptr" or elem.elem is None or elem.elem.kind == "ptr" or len(dims) != 1 \
                or dims[0] is None:
            return None
        return elem.elem, dims[0]

    def construct_object(self, node: Node, record: Node, scope: Scope,
                         out: list[K.Stmt]) -> ObjectBinding:
        """Run the constructor a ``CXXConstructExpr`` calls on a new :class:`ObjectBinding`."""
        obj = ObjectBinding(str(record.get("name", "")), depth=self.control_depth)
        ctor = self.constructor_of(node, record)
        if ctor is None or tree.body_of(ctor) is None:
            raise self.error(f"unsupported: constructor of '{obj.record}' without a body", node)
        out.extend(self.inline_call(node, ctor, None, scope, constructing=obj))
        self._complete_object(obj, record, out)
        return obj

    def _complete_object(self, obj: ObjectBinding, record: Node, out: list[K.Stmt]) -> None:
        """The members a constructor left unset: a value member is a variable of the object
        (uninitialised, as in C++), a struct member holding pointers an object of its own; a
        pointer member stays unset until assigned."""
        for f in tree.children(record):
            name, text = str(f.get("name", "")), tree.qual_type(f).rstrip()
            if tree.kind(f) != "FieldDecl" or not name or name in obj.fields \
                    or text.endswith(("&", "*")) or "[" in text:
                continue
            nested = self.object_record(f)
            if nested is not None:
                inner = ObjectBinding(str(nested.get("name", "")), depth=obj.depth)
                self._complete_object(inner, nested, out)
                obj.fields[name] = inner
                continue
            var = K.Var(self.unique(f"{obj.record}.{name}"), self.ctype(text, f))
            out.append(K.Decl(var, None, label=self.label(), placeable=False, synthetic=True))
            obj.fields[name] = var

    def constructor_of(self, node: Node, record: Node) -> Node | None:
        """The constructor a ``CXXConstructExpr`` calls (clang names it by its type only)."""
        want = " ".join(str((node.get("ctorType") or {}).get("qualType", "")).split())
        for c in tree.children(record):
            if tree.kind(c) == "CXXConstructorDecl" and " ".join(tree.qual_type(c).split()) == want:
                return self.index.function(str(c.get("id")))
        return None

    def construct_value(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr | None:
        """A value built by a user constructor with a body (``Packed128<T>{bits}``): a fresh
        object (a variable, or a cell of thread-local memory when it holds arrays) that the
        constructor, inlined, initialises; None when ``node`` calls no such constructor."""
        record = self.types.record(tree.qual_type(node))
        ctor = self.constructor_of(node, record) if record is not None else None
        if ctor is None or tree.body_of(ctor) is None:
            return None
        typ = self.type_of(node)
        if has_array_member(typ):
            mem = K.Memory(self.unique("__obj"), K.Space.LOCAL, typ, (1,))
            self.memories[mem.name] = mem
            pre.append(K.Decl(K.Var(mem.name, K.CType("ptr", 64, False, "pointer", typ)), None,
                              array=mem, label=self.label(), placeable=False, synthetic=True))
            pre.extend(self.inline_call(node, ctor, None, scope,
                                        constructing=PointerBinding(mem, K.Const(0))))
            return self.load(mem, K.Const(0))
        var = self.temp(typ, "obj")
        pre.append(K.Decl(var, None, label=self.label(), placeable=False, synthetic=True))
        pre.extend(self.inline_call(node, ctor, None, scope, constructing=var))
        return var

    def initialise_members(self, ctor: Node, this: ObjectBinding | PointerBinding | K.Var, scope: Scope,
                           out: list[K.Stmt]) -> None:
        """A constructor's member initialisers (``: temp(storage), n(0)``), before its body."""
        if isinstance(this, ObjectBinding):
            self._member_initialisers(ctor, this, scope, out)
        else:
            self._value_initialisers(ctor, this, scope, out)

    def _value_initialisers(self, ctor: Node, this: PointerBinding | K.Var, scope: Scope,
                            out: list[K.Stmt]) -> None:
        """``: x(vx), y(vy)`` of a value object: stores into its members."""
        for init in tree.children(ctor):
            if tree.kind(init) != "CXXCtorInitializer" or not tree.children(init):
                continue
            name = str((init.get("anyInit") or {}).get("name", ""))
            if not name:
                raise self.error("unsupported: a base-class initialiser", init)
            value = self.expr(tree.children(init)[0], scope, out)
            if isinstance(this, K.Var):
                target: K.LValue = K.VarField(this, name)
            else:
                hit = member(this.view or this.mem.elem, name)
                if hit is None:
                    raise self.error(f"unsupported: initialiser of member '{name}'", init)
                target = K.MemElem(this.mem, self._add(self._scaled_offset(this.offset, sizeof(this.mem.elem) or 1)
                                                       if this.view is None else this.offset,
                                                       K.Const(hit[0], K.ULONG)), None, hit[1])
            out.append(K.Assign(target, self.convert(value, self.lvalue_type(target)),
                                label=self.label(), placeable=False, synthetic=True))

    def _member_initialisers(self, ctor: Node, obj: ObjectBinding, scope: Scope,
                             out: list[K.Stmt]) -> None:
        """``: temp(storage), n(0)``: a reference or pointer member stands for what it is bound
        to; a value member is a variable of the object."""
        record = self.index.record_of(ctor)
        fields = {str(f.get("name")): f for f in tree.children(record or {}) if tree.kind(f) == "FieldDecl"}
        for init in tree.children(ctor):
            if tree.kind(init) != "CXXCtorInitializer" or not tree.children(init):
                continue
            name = str((init.get("anyInit") or {}).get("name", ""))
            expr = tree.children(init)[0]
            text = tree.qual_type(fields[name]) if name in fields else ""
            if text.rstrip().endswith("&"):
                obj.fields[name] = self.reference(expr, scope, out)
            elif text.rstrip().endswith("*"):
                binding = self.pointer(expr, scope)
                if binding is None:
                    raise self.error(f"unsupported: member '{name}' does not point into a known array", init)
                obj.fields[name] = binding
            elif name in fields and "[" not in text and self.object_record(fields[name]) is not None:
                nested = self.object_record(fields[name])
                assert nested is not None
                inner = peel(expr)
                if tree.kind(inner) == "CXXConstructExpr" and not tree.children(inner):
                    member_obj = ObjectBinding(str(nested.get("name", "")), depth=obj.depth)
                    self._complete_object(member_obj, nested, out)
                elif self.is_aggregate_init(inner, nested):
                    member_obj = self.aggregate_object(inner, nested, scope, out)
                else:
                    member_obj = self.construct_object(inner, nested, scope, out)
                obj.fields[name] = member_obj
            else:
                typ = self.ctype(text or tree.qual_type(expr), init)
                var = K.Var(self.unique(f"{obj.record}.{name}"), typ)
                out.append(K.Decl(var, self.convert(self.expr(expr, scope, out), typ),
                                  label=self.label(), placeable=False, synthetic=True))
                obj.fields[name] = var

    def _pointer_member_assignment(self, node: Node, scope: Scope) -> list[K.Stmt] | None:
        """``s.p = q`` on a pointer member of an :class:`ObjectBinding` (a struct holding
        pointers): the member now stands for what ``q`` points to, as a pointer variable set
        in straight-line code is rebound.  None when ``node`` is no such assignment."""
        lhs, rhs = tree.children(node)[:2]
        target = peel(lhs)
        text = tree.qual_type(target)
        if node.get("opcode") != "=" or tree.kind(target) != "MemberExpr" or "[" in text \
                or self.types.is_function_pointer(text) or self.type_of(target).kind != "ptr":
            return None
        root = self._object_at(peel(tree.children(target)[0]), scope)
        if root is None:
            return None
        name = str(target.get("name", ""))
        if self.control_depth > root.depth:
            raise self.error(f"unsupported: pointer member '{name}' of '{root.record}' set inside a "
                             "branch or loop (the array it names would depend on the path)", node)
        binding = self.pointer(rhs, scope)
        if binding is None:
            self.hold_in_memory(rhs, scope=scope)
            raise self.error(f"unsupported: pointer member '{name}' of '{root.record}' cannot be "
                             f"bounded to known arrays: {self.unbounded(rhs)}", node)
        stable, stmts = self._stable(binding)
        root.fields[name] = stable
        return stmts

    def _object_at(self, node: Node, scope: Scope) -> ObjectBinding | None:
        """The object ``node`` (``s``, ``s.inner``, ``this``) designates (a struct member of
        an object that holds pointers is an object itself)."""
        k = tree.kind(node)
        root: object = None
        if k == "DeclRefExpr":
            root = scope.lookup(decl_id(node) or "")
        elif k == "CXXThisExpr" and self.this_stack:
            root = self.this_stack[-1]
        elif k == "MemberExpr" and not node.get("isArrow"):
            outer = self._object_at(peel(tree.children(node)[0]), scope)
            name = str(node.get("name", ""))
            root = outer.fields.get(name) if outer is not None else None
        return root if isinstance(root, ObjectBinding) else None
