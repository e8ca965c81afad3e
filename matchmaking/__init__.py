"""Quick play: a matchmaker that seats compatible requests at one table."""
