def summarize(values):
    """Return the sum of the values and the positive ones."""
    total = 0
    result = []
    for value in values:
        total += value
        if value > 0:
            result.append(value)
    return total, result
