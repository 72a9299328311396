"""``python -m autosync`` = the ``autosync`` command."""

from autosync.commands.cli import main

if __name__ == "__main__":
    main()
