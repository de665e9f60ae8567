"""The wire contract: pydantic models of request bodies and queries, their validation, the OpenAPI document."""
