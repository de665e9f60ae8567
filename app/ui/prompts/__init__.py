"""The Prompts tab: the organization's stored prompts, their versions and a try of each."""
