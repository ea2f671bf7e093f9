"""Subcommands of the graphir CLI; each module registers itself with graphir.cli.command."""
