"""The deck mathematics (protocol.md §8): ristretto255, the three deck messages and
the shuffle proof."""
