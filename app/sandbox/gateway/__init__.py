"""The gateway in front of every request: source address, key, allowlist, rate limits, slow clients."""
