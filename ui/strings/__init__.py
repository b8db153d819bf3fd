"""Strings by area: the chains' names by language (``chains``), and an area's strings while it is
being written (see :data:`ui.i18n.PENDING`)."""
