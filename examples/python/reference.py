def running_max(values):
    """Return the running maximum of a list of numbers."""
    result = []
    best = None
    for value in values:
        if best is None or value > best:
            best = value
        result.append(best)
    return result
