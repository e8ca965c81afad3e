"""Table talk: a game's chat (players' and spectators' rooms), reports and moderation."""
