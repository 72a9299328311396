"""``python -m autosync`` = the ``autosync`` command."""

from autosync.cli import main

if __name__ == "__main__":
    main()
