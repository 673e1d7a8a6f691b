"""Bytes → events: read a source (``source``), split each line's header (``header``), match the
message against SGLang's vocabulary (``catalog`` + ``messages``, with ``banner`` for the server
args), in bulk by line shape where it can (``bulk``, ``_helper``), event by event in ``lines``."""
