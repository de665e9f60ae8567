"""The Usage tab's service: the usage of a range and the period before it, the prices, the projects' rate
limits and budgets, read and changed through the Admin API as named tasks of the session."""
