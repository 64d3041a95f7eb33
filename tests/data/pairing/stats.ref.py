def average(xs: list[float]) -> float:
    """The mean of ``xs``.

    >>> average([1, 2, 3])
    2.0
    """
    return sum(xs) / len(xs)


def median(xs: list[float]) -> float:
    """The middle value of ``xs``.

    >>> median([3, 1, 2])
    2
    """
    ordered = sorted(xs)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def column_means(rows: list[list[float]]) -> list[float]:
    """The mean of each column of ``rows``.

    >>> column_means([[1, 2], [3, 4]])
    [2.0, 3.0]
    """
    return [sum(column) / len(column) for column in zip(*rows)]
