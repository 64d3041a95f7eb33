def balanced(text):
    """Whether every bracket of text, ( [ {, is closed in the right order.

    >>> balanced("(a[b]{c})")
    True
    >>> balanced("(]")
    False
    >>> balanced("((")
    False
    """
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for char in text:
        if char in "([{":
            stack.append(char)
        elif char in pairs:
            if not stack or stack.pop() != pairs[char]:
                return False
    return not stack
