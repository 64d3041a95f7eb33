import statistics


def median(nums):
    return statistics.median(nums)
