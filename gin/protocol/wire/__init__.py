"""What travels (protocol.md §5, §6): the strict msgpack codec, the message vocabulary,
messages and the sealed channel."""
