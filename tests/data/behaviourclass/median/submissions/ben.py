def median(values):
    values = sorted(values)
    n = len(values)
    if n % 2:
        return values[n // 2]
    upper = values[n // 2]
    lower = values[n // 2 - 1]
    return (lower + upper) / 2
