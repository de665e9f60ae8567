"""A request body as the engines see it: validated, its images read, its tools planned."""
