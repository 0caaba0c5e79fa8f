"""The `gin` sub-commands, one module each; :mod:`client.cli` registers them."""
