"""Reach players who are away: the outbox of notifications (email, push), preferences,
quiet hours, digest and delivery (issue 29). games/ never imports this app; it listens
through games.signals hooks and notices' registry."""
