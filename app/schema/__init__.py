"""The shapes both sides of the Responses API share: the console reads them, the sandbox validates and serves
them. Qt-free and below app.api and app.sandbox (which may not import each other), so each concept has one
definition; pydantic only."""
