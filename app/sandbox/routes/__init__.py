"""The sandbox's HTTP routes: the Responses, Conversations and Admin APIs, one module a family."""
