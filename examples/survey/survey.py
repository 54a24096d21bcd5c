"""The Python half of the survey example: reading a survey file and
converting units."""

import csv


def read_plots(path):
    """The plots of a CSV file of `plot,height` lines, in file order."""
    plots = {}
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("#"):
                continue
            name, height = row[0].strip(), float(row[1])
            plots.setdefault(name, []).append(height)
    return [{"name": n, "heights": hs} for n, hs in plots.items()]


def to_cm(inches):
    return round(inches * 2.54, 2)
