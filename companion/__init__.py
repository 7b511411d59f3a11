"""tafl-companion: companion computer for a physical tafl board."""

__version__ = "0.1.0"
