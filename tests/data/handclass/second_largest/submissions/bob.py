def second_largest(nums):
    largest = None
    for n in nums:
        if largest is None or n > largest:
            largest = n
    return largest
