"""The prompt library's service: the organization's stored prompts, read and saved through the Admin API."""
