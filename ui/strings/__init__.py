"""Strings kept outside the catalogues: the chains' names by language (:mod:`ui.strings.chains`),
and an area's strings while it is being written (``window``: see :data:`ui.i18n.PENDING`)."""
