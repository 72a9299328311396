"""Rendering: a placement as minimal edits of the ORIGINAL text (CONTRIBUTING.md, "Rendering").

Owns the text edits (plan, compose by rank, apply) and the barrier spellings, one jinja2
template per ``--target`` in ``templates/``.

May import: ``kpl`` and itself (it is given placements, it does not make them).
"""
