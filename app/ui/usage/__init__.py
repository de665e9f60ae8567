"""The Usage tab: tokens and cost over time stacked by project, model or key, a sortable table with CSV
export, and each project's rate limit and monthly budget with the budgets' alerts."""
