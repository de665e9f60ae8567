"""Service Console: a desktop console for a hosted AI model service, with a local sandbox."""

__version__ = "0.1.0"
