def balanced(s):
    """True when the brackets of s match."""
    closing = {")": "(", "]": "[", "}": "{"}
    opened = []
    for c in s:
        if c in "([{":
            opened.append(c)
        elif c in closing:
            if not opened or opened.pop() != closing[c]:
                return False
    return not opened
