OPEN, CLOSE = "([{", ")]}"


def balanced(text):
    waiting = []
    for char in text:
        if char in OPEN:
            waiting.append(CLOSE[OPEN.index(char)])
        elif char in CLOSE:
            if not waiting or waiting[-1] != char:
                return False
            waiting.pop()
    return len(waiting) == 0
