def median(nums):
    ordered = sorted(nums)
    middle = len(ordered) // 2
    return ordered[middle]
