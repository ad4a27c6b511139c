"""``python -m pgflow.cli``: the ``pgflow`` command."""

from pgflow.cli.main import main

main()
