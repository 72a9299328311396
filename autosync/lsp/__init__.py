"""The language server (``autosync lsp``, pygls): diagnostics and quick-fixes in an editor.

Owns the server, its adapter from the pipeline's results to LSP problems and edits (UTF-16
positions, the buffer's text), and the runner that keeps the analyses off the event loop.

May import: every other autosync package, ``oracle``, ``kpl``; nothing imports it (the CLI
finds its ``lsp`` command by name, see ``autosync.commands.cli``).
"""
