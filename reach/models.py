"""reach's models: filled in below as the app grows."""
