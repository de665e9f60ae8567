"""Stored prompts on the console's side, Qt-free: a draft as it is edited, its variables, the text a
service without stored prompts is sent, and the difference between two versions."""
