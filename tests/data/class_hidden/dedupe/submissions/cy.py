def dedupe(items):
    return [x for i, x in enumerate(items) if x not in items[:i]]
