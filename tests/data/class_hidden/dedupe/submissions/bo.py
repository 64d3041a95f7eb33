def dedupe(values):
    """Drop repeated values, keeping the first of each."""
    seen_values = set()
    kept = []
    for value in values:
        if value not in seen_values:
            seen_values.add(value)
            kept.append(value)
    return kept
