"""The fair deal and the online match (protocol.md): the commutative-encryption
deck on ristretto255 (:mod:`~gin.protocol.deal.group`, :mod:`~gin.protocol.deal.fairdeal`),
the non-interactive shuffle proof, the sealed channel (:mod:`~gin.protocol.wire.channel`),
per-match signatures (:mod:`~gin.protocol.records.cosign`), hand records and their audit,
and the sans-I/O session split by phase. Imported on demand: it pulls in
cryptography and rbcl, which the offline game does not need. The twin of
``client/web/src/protocol``."""
