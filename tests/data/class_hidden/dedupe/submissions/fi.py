def dedupe(items):
    """The items without repeats, each kept where it first appears."""
    seen = set()
    result = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return items
