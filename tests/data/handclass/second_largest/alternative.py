def second_largest(nums):
    """Return the second largest distinct number in nums, or None."""
    distinct = sorted(set(nums), reverse=True)
    if len(distinct) < 2:
        return None
    return distinct[1]
