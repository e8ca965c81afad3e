"""Meeting other players: challenges (by name or by link) and rematch offers."""
