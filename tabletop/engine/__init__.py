"""The rules: rule files read into data, the state machine that banks and brokers, table scripts.

Pure Python, standard library only: nothing here knows of cameras, screens,
files other than rule files, or the journal. ``tabletop`` re-exports the public
API (``Game``, the actions, ``replay``, ``state_json``).

Modules, one job each: ``ruleset`` (a TOML rule file into frozen data),
``board`` (cells and chains: what a placement would do), ``payout`` (the bonus
algorithm), ``actions`` and ``pending``, ``game`` (the state machine),
``merger`` and ``ending`` (its merger and end steps), ``trade_in``
(trade-to-buy's change), ``state`` (the state JSON and disclosure views),
``table_script`` (table scripts), ``random_play`` (random legal games),
``info_card`` (the information card).
``choices`` declares the values each rule choice may take (checked at load).
"""
