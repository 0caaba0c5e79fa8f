"""What is kept and checked (protocol.md §9, §10): hand records, deal evidence and
abandonment records, their strict reading, signatures, identities, a link's history, the
audit and its report."""
