"""The codegold command line: wiring only."""

from codegold.cli.main import main

__all__ = ["main"]
