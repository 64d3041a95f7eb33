def median(nums):
    # forgot to sort
    middle = len(nums) // 2
    if len(nums) % 2 == 1:
        return nums[middle]
    return (nums[middle - 1] + nums[middle]) / 2
