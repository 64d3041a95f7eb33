def dedupe(items):
    """The items without repeats, each kept where it first appears.

    >>> dedupe([3, 1, 3, 2, 1])
    [3, 1, 2]
    >>> dedupe([])
    []
    """
    seen = set()
    result = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result
