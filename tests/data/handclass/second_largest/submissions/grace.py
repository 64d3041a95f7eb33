def second_largest(values):
    """Return the second largest distinct number in nums, or None."""
    top = None
    runner_up = None
    for v in values:
        if top is None or v > top:
            runner_up = top
            top = v
        elif v != top and (runner_up is None or v > runner_up):
            runner_up = v
    return runner_up
