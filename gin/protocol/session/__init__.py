"""The sans-I/O online session (protocol.md §7, §11): the stage table, its handlers and
the state they share."""
