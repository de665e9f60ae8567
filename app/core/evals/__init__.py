"""Evals, Qt-free: a dataset of variable values (and expected answers), graders that judge an answer, and a
run that sends every row for every variant with a concurrency limit."""
