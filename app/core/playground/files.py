"""The Playground's files in the data folder, named in a module of their own: the launch begins checking the
saved conversations (app.common.sqlite_rescue.check_early) before the Playground's code is loaded."""

CONVERSATIONS_FILE = "conversations.sqlite3"
