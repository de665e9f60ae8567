"""Turning an engine's steps into the response object and its stream events."""
