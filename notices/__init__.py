"""Notices: what the meeting layer (challenges, quick play, rematch offers, table talk)
tells a player's feed or a game's stream, beside the moves.

A notice is a row written by the service that decides it, in that service's
transaction (so it exists exactly when what it tells of committed); the live hub
(``games.live``) sends it to the open feeds and streams it is for, and webhooks
(``notices.tasks``) to the players it names.  This app is the lowest layer of the
meeting apps: it knows players, never games or the apps that write notices.
"""
