"""The reference of the feedback and teacher-page tests (issue 42): merging intervals, with the
docstring example behaviour makes its inputs from."""

MERGE = '''def merge_intervals(intervals):
    """Merge overlapping intervals.

    >>> merge_intervals([[1, 3], [2, 4], [6, 8]])
    [[1, 4], [6, 8]]
    """
    result = []
    for start, end in sorted(intervals):
        if result and start <= result[-1][1]:
            result[-1][1] = max(result[-1][1], end)
        else:
            result.append([start, end])
    return result
'''
