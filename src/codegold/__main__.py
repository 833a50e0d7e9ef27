"""`python -m codegold` runs the command line."""

from codegold.cli import main

main()
