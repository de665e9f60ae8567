"""The Usage tab's logic, Qt-free: the ranges a person picks, the usage rows grouped into chart series and
table rows, and the table as CSV."""
