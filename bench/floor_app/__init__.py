"""A bare DRF endpoint: the floor of this stack's cost per write (bench/api.py).

Not part of the product: only bench/floor_settings.py installs it.
"""
