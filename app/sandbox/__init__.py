"""The sandbox: a local implementation of the service (gateway, Responses API, Admin API), free of Qt."""

from .config import SandboxConfig
from .server import SandboxServer

__all__ = ["SandboxConfig", "SandboxServer"]
