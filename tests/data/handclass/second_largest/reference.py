def second_largest(nums):
    """Return the second largest distinct number in nums, or None."""
    largest = None
    second = None
    for n in nums:
        if largest is None or n > largest:
            second = largest
            largest = n
        elif n != largest and (second is None or n > second):
            second = n
    return second
