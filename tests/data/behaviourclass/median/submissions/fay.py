def median(nums):
    return sum(nums) / len(nums)
