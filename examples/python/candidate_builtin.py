from itertools import accumulate


def running_max(values):
    return list(accumulate(values, max))
