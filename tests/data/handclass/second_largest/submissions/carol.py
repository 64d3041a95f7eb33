def second_largest(nums):
    return max(nums)
