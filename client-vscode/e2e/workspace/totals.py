def summarize(values):
    # add them up, keep the positive ones
    total = 0
    result = []
    for value in values:
        if value > 0:
            result.append(value)
            print(value)
        total = value
    return total, result
