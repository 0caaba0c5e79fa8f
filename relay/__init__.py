"""The gin relay: a thin WebSocket forwarder that pairs two players per room.

It knows nothing about the game and never imports it. Embed it with::

    from relay.server import RelayConfig, serve
    relay = await serve(RelayConfig(port=0))
    ...
    await relay.close()
"""
