"""The assistant at the table, pure Python: what the players are asked and how they answer.

``assistant`` (tiles seen and buttons pressed, turned into engine actions),
``prompts`` (the choices offered at each decision), ``seating`` (the turn-order
draw), ``games`` (a finished draw made a journaled game with its assistant, or a game
resumed), ``loop`` (one tick of the table: a frame, the buttons, the light and the
buzzer), ``bot`` (a player that answers through the buttons, for the demo and tests).
"""
