"""The sandbox: a local implementation of the service (gateway, Responses API, Admin API), free of Qt."""

from app.sandbox.config import SandboxConfig
from app.sandbox.server import SandboxServer

__all__ = ["SandboxConfig", "SandboxServer"]
