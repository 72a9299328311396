"""The commands: the ``autosync`` CLI (typer) and what only the command line does.

Owns ``check``/``fix``/``compare``/``bench`` and their options, exit codes and output
formats, batch runs over many files (worker processes, shards) and their result cache.

May import: every other autosync package except ``autosync.lsp``, and ``oracle``, ``kpl``.
"""
