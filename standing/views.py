"""Standing's endpoints: profiles, a player's games, rating history, leaderboards."""
