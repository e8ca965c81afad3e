"""The UNO family (:class:`~.family.UnoFamily`) and its rule modules.

One module per option or group of cards: ``turn`` (the turn's decisions;
``penalty_skips_turn``, ``draw_limit``), ``standard`` (the 108 cards' effects;
``two_player_replay``, ``wild_keeps_color``), ``wild_draw_four``, ``calls`` (UNO;
``uno_penalty``), ``stacking``, ``jump_in``, ``seven_zero``, ``scoring``
(``scoring``, ``target_score``, ``rounds``), ``buzzer`` (``buzzer_cards``,
``buzzer_seconds``: the Buzzer cards and the buzz window), ``straights``
(``straights``, ``continuations``: a turn of several cards); ``piles`` and ``rounds``
are the family's shared operations.
"""
