"""Online play over a relay: the relay connection (:mod:`client.net.transport`), the
online match driver (:mod:`client.net.peer`), starting a match, keeping it in the
data folder, and invite links."""
