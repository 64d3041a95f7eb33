def dedupe(items):
    # drops a value repeated right after itself
    out = []
    for x in items:
        if not out or out[-1] != x:
            out.append(x)
    return out
