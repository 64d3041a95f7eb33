def running_max(numbers):
    # keep the largest value seen so far
    out = []
    current = None
    for n in numbers:
        if current is None or n > current:
            current = n
        out.append(current)
    return out
