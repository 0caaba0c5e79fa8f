"""The terminal table (Textual): the app, its view, screens and card widgets, and
the table's controller of a match (:mod:`client.table.controller`)."""
